"""Undo: every write that changes places is one change in the change log (`changes.ChangeBook`), and
`undo` reverts the newest or a named one while nothing done since depends on it (a mixin of `Palace`).

A change of place is undone by putting back each drawer's recorded place (wing, room, hall, who chose
them, the room's earlier names); a delete by restoring its drawers from the trash; a restore by
deleting them into the trash again. Undoing a rename keeps the name it undoes as an alias, as any
rename does. An undo is a change too (not itself undoable: make the change again instead)."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .access import current_actor
from .changes import LIVE, PLACE_KEYS, STATE, TRASHED, Change, ChangeBook, Step, place_of
from .errors import InvalidInputError
from .guarding import serialized
from .models import ROOM_ALIASES, Undone
from .store import SEQ_KEY
from .sync import new_stamp
from .wording import counted


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
        """Writes inside are one change (a change already open takes them instead); recorded at the end."""
        if self._pending is not None:
            yield self._pending
            return
        from .trash import new_change

        pending = self._pending = PendingChange(change_id or new_change(), action, detail)
        try:
            yield pending
        finally:
            self._pending = None
            if pending.steps:
                self.changes.record(pending.id, current_actor().who, pending.action, pending.steps, **pending.detail)
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
        """Revert change `change_id` (default: the newest not yet undone) if nothing since depends on it."""
        change = self._undoable(change_id)
        steps = self.changes.steps(change.id)
        self._sync.ensure_fresh()
        with self._one_change("undo", undoes=change.id, undone_action=change.action) as pending:
            if all(after.get(STATE) == TRASHED[STATE] for _, _, after in steps):
                done = self.restore_drawers([i for i, _, _ in steps])  # type: ignore[attr-defined]
                if done.blocked:
                    raise InvalidInputError(f"Change {change.id} cannot be undone: {done.blocked[0][0]} is not in "
                                            f"the trash ({done.blocked[0][1]}).")
            elif all(after.get(STATE) == LIVE[STATE] for _, _, after in steps):
                self.delete_where(ids=[i for i, _, _ in steps])  # type: ignore[attr-defined]
            else:
                self._put_places_back(change, steps)
            undo_id = pending.id
        self._record("undo", [i for i, _, _ in steps], undoes=change.id, undone_action=change.action)  # type: ignore[attr-defined]
        return Undone(change.id, change.action, len(steps), undo_id)

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
        """Each drawer back to its place before `change`, refused if any moved (or went) since."""
        now = {r.id: place_of(r.metadata) for r in self._store.get([i for i, _, _ in steps])}
        moved = [i for i, _, after in steps if now.get(i) != {k: after.get(k) for k in PLACE_KEYS}]
        if moved:
            later = self.changes.later(change, moved)
            since = f" by {', '.join(later[:3])}" if later else " (by another tool)"
            raise InvalidInputError(f"Change {change.id} cannot be undone: {counted(len(moved), 'drawer')} of it "
                                    f"changed since{since}. Undo those first.")
        groups: dict[str, list[str]] = {}
        for drawer_id, before, after in steps:
            back = dict(before)
            if change.action == "rename-room" and after.get("room") != before.get("room"):
                names = set((before.get(ROOM_ALIASES) or "").split()) | {after["room"]}
                back[ROOM_ALIASES] = " ".join(sorted(names - {before.get("room")})) or None
            groups.setdefault(json.dumps(back, sort_keys=True), []).append(drawer_id)
        for key, ids in groups.items():
            self._write_place(ids, json.loads(key), now)

    def _write_place(self, ids: Sequence[str], place: dict[str, Any], now: dict[str, dict[str, Any]]) -> None:
        """Give `ids` exactly `place` (None removes a key) in Chroma and the catalog, as one step each."""
        seq = new_stamp()
        with self._sync.writing("change", list(ids), seq):
            self._store.update_metadata(list(ids), [{**place, SEQ_KEY: seq}] * len(ids))
            self._catalog.move(list(ids), seq, aliases=place.get(ROOM_ALIASES) or "", wing=place["wing"],
                               room=place["room"], hall=place.get("hall") or "")
            self._sync.finish_write(seq=seq)
        if self._pending is not None:
            self._pending.steps += [(i, now[i], {k: place.get(k) for k in PLACE_KEYS}) for i in ids]
