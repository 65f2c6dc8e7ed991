"""Undo: every write that changes places is one change in the change log (`catalog.change_log.ChangeBook`), and
`undo` reverts the newest or a named one while nothing done since depends on it (a mixin of `Palace`).

A change of place is undone by putting back each drawer's recorded place (wing, room, hall, who chose
them, the room's earlier names); a delete by restoring its drawers from the trash; a restore by
deleting them into the trash again. Undoing a rename keeps the name it undoes as an alias, as any
rename does. An undo is a change too (not itself undoable: make the change again instead)."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..access.rules import current_actor
from ..catalog.change_log import LIVE, PLACE_KEYS, STATE, TRASHED, Change, ChangeBook, Step, place_of
from ..catalog.sync import new_stamp
from ..errors import InvalidInputError
from ..models import ROOM_ALIASES, Undone
from ..store.chroma import SEQ_KEY
from ..text.counts import counted
from .under_lock import serialized


@dataclass
class PendingChange:
    """A change being made: its id, what it is, and its drawers' steps so far."""

    id: str
    action: str
    detail: dict[str, Any]
    steps: list[Step] = field(default_factory=list)


class Undoing:
    """The change log's side of a palace: `_one_change` groups writes into one change, `undo` reverts one."""

    _store: Any
    _catalog: Any
    _sync: Any
    changes: ChangeBook
    _pending: PendingChange | None = None
    _last_change: threading.local

    @contextlib.contextmanager
    def _one_change(self, action: str, change_id: str | None = None, **detail: Any) -> Iterator[PendingChange]:
        """Writes inside are one change (a change already open takes them instead), recorded at the end;
        writes made before an error are recorded as a change of their own (`<action>-partial`), so what
        landed can be seen and undone, and an undo cut short never marks its change undone."""
        if self._pending is not None:
            yield self._pending
            return
        from .trash import new_change

        pending = self._pending = PendingChange(change_id or new_change(), action, detail)
        failed = True
        try:
            yield pending
            failed = False
        finally:
            self._pending = None
            if pending.steps:
                action, detail = ((f"{pending.action}-partial", {k: v for k, v in pending.detail.items() if k != "undoes"})
                                  if failed else (pending.action, pending.detail))
                self.changes.record(pending.id, current_actor().who, action, pending.steps, **detail)
                self._last_change.id = pending.id

    @serialized
    def change_list(self, limit: int = 50) -> list[Change]:
        """The newest changes first (each says whether, and by which change, it was undone)."""
        return self.changes.newest(limit)

    @serialized
    def change_steps(self, change_id: str) -> list[Step]:
        """Each drawer a change touched, with its place (or live / trash state) before and after."""
        return self.changes.steps(change_id)

    def last_change(self) -> str | None:
        """The change this thread's newest write made (for an Undo offered right after it)."""
        return getattr(self._last_change, "id", None)

    @serialized
    def undo(self, change_id: str | None = None) -> Undone:
        """Revert change `change_id` (default: the newest not yet undone) if nothing since depends on it:
        everything is checked before anything is written."""
        change = self._undoable(change_id)
        steps = self.changes.steps(change.id)
        ids = [i for i, _, _ in steps]
        self._sync.ensure_fresh()
        self._refuse_if_changed_since(change, ids)
        kind = {after.get(STATE) for _, _, after in steps}
        with self._one_change("undo", undoes=change.id, undone_action=change.action) as pending:
            if kind == {TRASHED[STATE]}:
                self._undo_delete(change, ids)
            elif kind == {LIVE[STATE]}:
                self._undo_restore(change, steps)
            else:
                self._put_places_back(change, steps)
            undo_id = pending.id
        self._record("undo", ids, undoes=change.id, undone_action=change.action)  # type: ignore[attr-defined]
        return Undone(change.id, change.action, len(steps), undo_id)

    def _refuse_if_changed_since(self, change: Change, ids: list[str]) -> None:
        """A later change to one of `ids` that stands (not undone, not an undo) blocks undoing `change`."""
        standing = [c for c in self.changes.later(change, ids) if c.action != "undo" and not c.undone_by]
        if standing:
            raise InvalidInputError(f"Change {change.id} cannot be undone: later changes moved or deleted some of its "
                                    f"drawers ({', '.join(c.id for c in standing[:3])}). Undo those first.")

    def _undo_delete(self, change: Change, ids: list[str]) -> None:
        """Restore this delete's drawers from the trash, all of them or none (no standing later change
        touched them, so the copies there are the ones it left, or an undone restore put back)."""
        kept = self._trash.get(ids)  # type: ignore[attr-defined]
        mine = [i for i in ids if i in kept]
        live = self._catalog.stamps(ids)
        if len(mine) < len(ids) or live:
            raise InvalidInputError(f"Change {change.id} cannot be undone: {counted(len(ids) - len(mine) + len(live), 'drawer')}"
                                    " of it are no longer in the trash as it left them (restored, purged or emptied).")
        self.restore_drawers(ids)  # type: ignore[attr-defined]

    def _undo_restore(self, change: Change, steps: list[Step]) -> None:
        """Delete a restore's drawers into the trash again, if each is still where it was put back."""
        if not self.settings.trash_days:  # type: ignore[attr-defined]
            raise InvalidInputError("The trash is off (trash_days = 0): undoing this restore would delete its drawers "
                                    "for good. Delete them yourself if that is what you want.")
        places = self._catalog.wings_rooms([i for i, _, _ in steps])
        gone = [i for i, _, after in steps if i not in places or places[i][0] != after.get("wing")]
        if gone:
            raise InvalidInputError(f"Change {change.id} cannot be undone: {counted(len(gone), 'drawer')} of it moved "
                                    "or went since (by another tool).")
        self.delete_where(ids=[i for i, _, _ in steps])  # type: ignore[attr-defined]

    def _undoable(self, change_id: str | None) -> Change:
        if change_id is None:
            found = self.changes.newest(1, undoable=True)
            if not found:
                raise InvalidInputError("There is no change to undo.")
            return found[0]
        change = self.changes.get(change_id)
        if change is None:
            raise InvalidInputError(f"No change {change_id!r} in this palace (`mempalace changes` lists them).")
        if change.undone_by:
            raise InvalidInputError(f"Change {change.id} was undone already (by {change.undone_by}).")
        if change.action == "undo":
            raise InvalidInputError(f"Change {change.id} is an undo: make the change again instead of undoing it.")
        return change

    def _put_places_back(self, change: Change, steps: list[Step]) -> None:
        """Each drawer back to its place before `change`, in one write; refused if any is neither where
        `change` put it nor already back (another tool moved it); a retry after a cut finishes the job."""
        now = {r.id: place_of(r.metadata) for r in self._store.get([i for i, _, _ in steps], documents=False)}
        back = {i: self._place_before(change, before, after) for i, before, after in steps}
        moved = [i for i, _, after in steps if now.get(i) not in ({k: after.get(k) for k in PLACE_KEYS}, back[i])]
        if moved:
            raise InvalidInputError(f"Change {change.id} cannot be undone: {counted(len(moved), 'drawer')} of it "
                                    "moved or went since (by another tool).")
        ids = [i for i in back if now[i] != back[i]]
        if not ids:
            return
        seq = new_stamp()
        with self._sync.writing("change", ids, seq):
            self._store.update_metadata(ids, [{**back[i], SEQ_KEY: seq} for i in ids])
            for key, group in _by_place({i: back[i] for i in ids}).items():
                place = json.loads(key)
                self._catalog.move(group, seq, aliases=place.get(ROOM_ALIASES) or "", wing=place["wing"],
                                   room=place["room"], hall=place.get("hall") or "")
            self._sync.finish_write(seq=seq)
        if self._pending is not None:
            self._pending.steps += [(i, now[i], back[i]) for i in ids]

    @staticmethod
    def _place_before(change: Change, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        """The place a drawer goes back to: as before `change`; undoing a rename keeps the name undone as an alias."""
        back = {k: before.get(k) for k in PLACE_KEYS}
        if change.action == "rename-room" and after.get("room") != before.get("room"):
            names = set((before.get(ROOM_ALIASES) or "").split()) | {after["room"]}
            back[ROOM_ALIASES] = " ".join(sorted(names - {before.get("room")})) or None
        return back


def _by_place(places: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for drawer_id, place in places.items():
        groups.setdefault(json.dumps(place, sort_keys=True), []).append(drawer_id)
    return groups
