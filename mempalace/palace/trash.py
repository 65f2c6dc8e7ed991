"""Deleting into the trash and restoring from it. A delete keeps each drawer whole (text, place, hall,
dates, vector) for `trash_days`; a restore puts it back exactly as it was, without embedding again
unless the palace moved to another embedder meanwhile.

Order makes a kill at any moment safe: a delete keeps the drawers in the trash before it removes them,
a restore puts them back before it forgets them, so a drawer is live, trashed, or (between the two
steps) both, and a trashed copy of a live drawer counts for nothing and is forgotten at the next purge.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from ..access.rules import current_actor
from ..catalog.change_log import LIVE, TRASHED
from ..catalog.sync import catalog_row, new_stamp
from ..errors import InvalidInputError
from ..models import Deletion, Drawer, Restoration, TrashedDrawer
from ..store.chroma import SEQ_KEY, Record
from ..store.trash import TRASH_CHANGE, TRASH_KEYS, TRASHED_AT, TRASHED_BY, TrashBin
from ..text.names import wing_name
from .drawer_records import drawer_from_record, id_list
from .under_lock import serialized

DAY = 86_400.0


def new_change() -> str:
    """A change's name: when it happened (UTC, to the second) and a random tail, sortable by time."""
    return f"{datetime.now(timezone.utc):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


class Trashing:
    """A palace's deletes, trash and restores (a mixin of `Palace`)."""

    _store: Any
    _catalog: Any
    _sync: Any
    settings: Any

    @property
    def _trash(self) -> TrashBin:
        return TrashBin(self._store)

    @serialized
    def delete_drawers(self, ids: Sequence[str], what: str | None = None, *, to_trash: bool = True) -> int:
        """Delete the given drawers (unknown ids are ignored) into the trash; returns how many were
        stored. `what` they are, if a whole (the demo), is said in the audit log. `to_trash` False
        deletes for good: ingest replacing a grown conversation's drawers, or taking back its own."""
        self._sync.ensure_fresh()
        present = sorted(self._catalog.stamps(id_list(ids)))
        return self._delete(present, to_trash, **({"what": what} if what else {})).deleted

    @serialized
    def delete_drawer(self, drawer_id: str) -> Drawer:
        """Delete one drawer into the trash and return what it held."""
        drawer = self.get_drawer(drawer_id)  # type: ignore[attr-defined]
        self._delete([drawer.id], True, wing=drawer.wing, room=drawer.room)
        return drawer

    @serialized
    def delete_where(self, wing: str | None = None, room: str | None = None, source_file: str | None = None,
                     ids: Sequence[str] = (), what: str | None = None) -> Deletion:
        """Delete, in one change, these drawer `ids` or every drawer of a wing, a room (in every wing,
        or in `wing`) or a source file; `what` they are, if a whole (the demo), goes in the audit log."""
        found = self.deletion_ids(wing, room, source_file, ids)
        place = {"wing": wing, "room": room, "source_file": source_file, "what": what}
        return self._delete(found, True, **{k: v for k, v in place.items() if v})

    @serialized
    def deletion_preview(self, wing: str | None = None, room: str | None = None, source_file: str | None = None,
                         ids: Sequence[str] = ()) -> list[tuple[str, str, int]]:
        """(wing, room, drawers) that `delete_where` with these arguments would delete, largest first."""
        return by_place(self._catalog.wings_rooms(self.deletion_ids(wing, room, source_file, ids)).values())

    @serialized
    def deletion_ids(self, wing: str | None = None, room: str | None = None, source_file: str | None = None,
                     ids: Sequence[str] = ()) -> list[str]:
        """The stored drawers these arguments name (ids, or a wing, room and/or source file)."""
        if bool(ids) == bool(wing or room or source_file):
            raise InvalidInputError("Say what to delete: drawer ids, or a wing, a room and/or a source file.")
        self._sync.ensure_fresh()
        if ids:
            return sorted(self._catalog.stamps(id_list(ids)))
        filters = {"wing": wing_name(wing) if wing else None,
                   "room": self.stored_room(room) if room else None,  # type: ignore[attr-defined]
                   "source_file": source_file or None}
        return sorted(self._catalog.ids_where(filters))

    def _delete(self, ids: list[str], to_trash: bool, **detail: Any) -> Deletion:
        """Keep `ids` in the trash (when asked and `trash_days` allows), then remove them from the palace."""
        days = float(self.settings.trash_days) if to_trash else 0.0
        if not ids:
            return Deletion(0, new_change(), days)
        if not days:
            return self._delete_now(ids, days, **detail)
        wings = {i: w for i, (w, _) in self._catalog.wings_rooms(ids).items()}
        with self._one_change("delete", **detail) as pending:  # type: ignore[attr-defined]
            done = self._delete_now(ids, days, pending.id, **detail)
            pending.steps += [(i, {**LIVE, "wing": wings.get(i)}, {**TRASHED, "wing": wings.get(i)}) for i in ids]
        return done

    def _delete_now(self, ids: list[str], days: float, change: str = "", **detail: Any) -> Deletion:
        change = change or new_change()
        if days > 0:
            self._purge_expired()
            now, who = time.time(), current_actor().who
            kept = [Record(r.id, r.document, {**r.metadata, TRASHED_AT: now, TRASH_CHANGE: change, TRASHED_BY: who},
                           r.embedding) for r in self._store.get(ids, embeddings=True)]
            self._trash.put(self.settings.embedder, kept)
        with self._sync.writing("change", ids, new_stamp()):
            self._store.delete(ids)
            self._sync.finish_write(deleted=ids)
        if not days:
            self._trash.remove(ids)  # gone for good: an older trashed copy must not come back
        self._record("delete", ids, change=change, **({"trash_days": days} if days else {"for_good": True}), **detail)  # type: ignore[attr-defined]
        return Deletion(len(ids), change, days)

    # -- the trash ----------------------------------------------------------------------------------

    @serialized
    def trash_list(self, change: str | None = None) -> list[TrashedDrawer]:
        """What the trash holds (of one `change`), newest first; copies of drawers that are live
        again (a restore or delete cut short, or filed again since) and drawers past `trash_days`
        are left out."""
        self._sync.ensure_fresh()
        self._purge_expired()
        found: dict[str, TrashedDrawer] = {}
        for _, rows in self._trash.scan({TRASH_CHANGE: change} if change else None):
            live = self._catalog.stamps([r.id for r in rows])
            for t in (self._trashed(r) for r in rows if r.id not in live):
                if t.drawer.id not in found or found[t.drawer.id].deleted_at < t.deleted_at:
                    found[t.drawer.id] = t  # (an id in two embedders' trash: the newest copy)
        return sorted(found.values(), key=lambda t: (-t.deleted_at, t.drawer.wing, t.drawer.room, t.drawer.id))

    def _trashed(self, record: Record) -> TrashedDrawer:
        meta = dict(record.metadata)
        at, change, who = (meta.pop(k, None) for k in (TRASHED_AT, TRASH_CHANGE, TRASHED_BY))
        drawer = drawer_from_record(Record(record.id, record.document, meta))
        deleted_at = float(at or 0.0)
        return TrashedDrawer(drawer, deleted_at, str(change or ""), str(who or ""),
                             deleted_at + float(self.settings.trash_days) * DAY)

    @serialized
    def restore_drawers(self, ids: Sequence[str]) -> Restoration:
        """Put trashed drawers back exactly where they were (same id, place, hall, dates, vector)."""
        self._sync.ensure_fresh()
        wanted = id_list(ids)
        kept = self._trash.get(wanted)
        live = self._catalog.stamps(list(kept))
        blocked = [(i, "it is not in the trash (restored already, or purged)") for i in wanted if i not in kept]
        blocked += [(i, "a drawer with this id is in the palace again (filed again since)") for i in sorted(live)]
        back = [(e, r) for i, (e, r) in kept.items() if i not in live]
        if back:
            with self._one_change("restore") as pending:  # type: ignore[attr-defined]
                self.put_records(back)
                self._trash.remove([r.id for _, r in back])
                pending.steps += [(r.id, {**TRASHED, "wing": r.metadata.get("wing")}, {**LIVE, "wing": r.metadata.get("wing")})
                                  for _, r in back]
            self._record("restore", [r.id for _, r in back],  # type: ignore[attr-defined]
                         changes=sorted({str(r.metadata.get(TRASH_CHANGE, "")) for _, r in back}))
        return Restoration(tuple(sorted(r.id for _, r in back)), tuple(blocked))

    @serialized
    def restore_change(self, change: str) -> Restoration:
        """Put back every trashed drawer that one delete (`change`) removed."""
        ids = [t.drawer.id for t in self.trash_list(change)]
        if not ids:
            raise InvalidInputError(f"The trash holds nothing from change {change!r} (`mempalace trash` lists them).")
        return self.restore_drawers(ids)

    @serialized
    def put_records(self, back: Sequence[tuple[str, Record]]) -> None:
        """File (embedder, record) pairs exactly: their ids, texts and metadata (trash keys left out),
        with their vectors, or vectors made anew where the pair's embedder is not the palace's."""
        if not back:
            return
        stamp = new_stamp()
        metas = [{k: v for k, v in r.metadata.items() if k not in TRASH_KEYS} | {SEQ_KEY: stamp} for _, r in back]
        stale = [n for n, (embedder, r) in enumerate(back) if embedder != self.settings.embedder or r.embedding is None]
        vectors = [r.embedding for _, r in back]
        if stale:
            for n, vector in zip(stale, self._embed([back[n][1].document for n in stale])):  # type: ignore[attr-defined]
                vectors[n] = vector
        ids, texts = [r.id for _, r in back], [r.document for _, r in back]
        with self._sync.writing("add", ids, stamp):
            self._store.add(ids, texts, metas, vectors)
            rows = [catalog_row(Record(i, t, m, v)) for i, t, m, v in zip(ids, texts, metas, vectors)]
            self._sync.finish_write(rows=rows)

    def all_records(self) -> Iterator[list[Record]]:
        """Every live drawer with its vector, a page at a time (for backups and exports). Reads Chroma
        alone, so not under the palace's lock: a long backup does not hold up this process's writes."""
        yield from self._store.scan(embeddings=True)

    def trash_records(self) -> Iterator[tuple[str, list[Record]]]:
        """(embedder, a page of trashed records with their vectors), for backups."""
        yield from self._trash.scan(vectors=True)

    @serialized
    def keep_in_trash(self, embedder: str, records: Sequence[Record]) -> None:
        """Put records (their trash keys included) into the trash as they are (a backup being restored)."""
        self._trash.put(embedder, records)

    def write_marker(self) -> str | None:
        """A token every write to the palace changes (a backup reads it before and after)."""
        return self._store.marker()

    @serialized
    def empty_trash(self, ids: Sequence[str] | None = None) -> int:
        """Forget trashed drawers for good (these `ids`, or the whole trash); returns how many were listed."""
        gone = [t.drawer.id for t in self.trash_list()] if ids is None else id_list(ids)
        if ids is None:
            self._trash.clear()  # stale copies of live drawers too
        elif gone:
            self._trash.remove(gone)
        if gone:
            self._record("empty-trash", gone)  # type: ignore[attr-defined]
        return len(gone)

    def _purge_expired(self) -> None:
        """Forget what was trashed more than `trash_days` ago."""
        old = self._trash.older_than(time.time() - float(self.settings.trash_days) * DAY)
        if old:
            self._trash.remove(old)
            self._record("purge-trash", old)  # type: ignore[attr-defined]


def by_place(drawers: Any) -> list[tuple[str, str, int]]:
    """(wing, room, how many) of these drawers (or (wing, room) pairs), largest first."""
    counts: dict[tuple[str, str], int] = {}
    for d in drawers:
        place = d if isinstance(d, tuple) else (d.wing, d.room)
        counts[place] = counts.get(place, 0) + 1
    return sorted(((w, r, n) for (w, r), n in counts.items()), key=lambda t: (-t[2], t[0], t[1]))


def trash_summary(items: Sequence[TrashedDrawer]) -> list[Mapping[str, Any]]:
    """The trash by change, newest first: when, who, how many drawers, and their places."""
    changes: dict[str, dict[str, Any]] = {}
    for t in items:
        entry = changes.setdefault(t.change, {"change": t.change, "deleted_at": t.deleted_at, "deleted_by": t.deleted_by,
                                              "drawers": 0, "places": {}, "purge_at": t.purge_at})
        entry["drawers"] += 1
        place = f"{t.drawer.wing}/{t.drawer.room}"
        entry["places"][place] = entry["places"].get(place, 0) + 1
    return sorted(changes.values(), key=lambda e: -e["deleted_at"])
