"""A dry run's palace: the palace as it would be had the run's earlier groups been filed.

A real ingest of several files files each group before it plans the next, so a conversation that a
later file holds too (a session and its copy, an export and a later one containing it) is found
already there, or grown. A dry run files nothing; planning its later groups against this view
instead makes its figures, wings and rooms those of the real run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..catalog.placements import PERSON
from ..models import Drawer, DrawerDraft
from .report import rename_all


class AsIfFiled:
    """`palace`, plus the drawers a dry run's earlier groups would have filed, less those they would
    have replaced, with the rooms they would have renamed; everything else is the palace's own."""

    def __init__(self, palace: Any):
        self._palace = palace
        self._drawers: dict[str, Drawer] = {}
        self._choosers: dict[str, tuple[str, str]] = {}  # drawer id -> (who chose its room, its hall)
        self._by_parent: dict[str | None, set[str]] = {}
        self._rooms: Counter[str] = Counter()  # of the drawers above
        self._persons_rooms: set[str] = set()  # rooms a drawer above was put in by a person (a forced room)
        self._gone: set[str] = set()
        self._renames: list[tuple[str, str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._palace, name)

    def file(self, drafts: Sequence[DrawerDraft], replaced: Sequence[str], renames: Sequence[tuple[str, str]]) -> None:
        """What a group would have done: rename rooms (in order), file `drafts`, remove `replaced`."""
        if renames:
            self._rename(renames)
        for draft in drafts:
            self._drawers[draft.id] = Drawer(id=draft.id, content=draft.content, wing=draft.wing, room=draft.room,
                                             hall=draft.hall or None, source_file=draft.source_file,
                                             chunk_index=draft.chunk_index, parent_id=draft.parent_id)
            self._choosers[draft.id] = (draft.room_by, draft.hall_by)
            self._by_parent.setdefault(draft.parent_id, set()).add(draft.id)
            self._rooms[draft.room] += 1
            if draft.room_by == PERSON:
                self._persons_rooms.add(draft.room)
        self._gone.update(replaced)
        for identity in replaced:
            drawer = self._drawers.pop(identity, None)
            if drawer is not None:
                self._by_parent[drawer.parent_id].discard(identity)
                self._rooms[drawer.room] -= 1

    def _rename(self, renames: Sequence[tuple[str, str]]) -> None:
        self._renames += renames
        self._drawers = {i: replace(d, room=rename_all(d.room, renames)) for i, d in self._drawers.items()}
        self._rooms = Counter(d.room for d in self._drawers.values())
        self._persons_rooms = {rename_all(room, renames) for room in self._persons_rooms}

    def _as_now(self, drawer: Drawer) -> Drawer:
        room = rename_all(drawer.room, self._renames)
        return drawer if room == drawer.room else replace(drawer, room=room)

    def find_drawers(self, ids: Sequence[str]) -> dict[str, Drawer]:
        found = {i: self._as_now(d) for i, d in self._palace.find_drawers(ids).items() if i not in self._gone}
        return found | {i: self._drawers[i] for i in ids if i in self._drawers}

    def drawers_of(self, parent_id: str) -> list[Drawer]:
        stored = [self._as_now(d) for d in self._palace.drawers_of(parent_id)
                  if d.id not in self._gone and d.id not in self._drawers]
        mine = [self._drawers[i] for i in self._by_parent.get(parent_id, ())]
        return sorted(stored + mine, key=lambda d: d.chunk_index)

    def room_choosers(self, ids: Sequence[str]) -> dict[str, str]:
        return self._palace.room_choosers([i for i in ids if i not in self._drawers]) | {
            i: self._choosers[i][0] for i in ids if i in self._drawers}

    def hall_choosers(self, ids: Sequence[str]) -> dict[str, str]:
        return self._palace.hall_choosers([i for i in ids if i not in self._drawers]) | {
            i: self._choosers[i][1] for i in ids if i in self._drawers}

    def list_rooms(self) -> dict[str, int]:
        rooms: Counter[str] = Counter()
        for room, count in self._palace.list_rooms().items():
            rooms[rename_all(room, self._renames)] += count
        rooms.update(+self._rooms)
        return dict(rooms)

    def room_named_by_person(self, room: str) -> bool:
        earlier = [old for old, new in self._renames if new == room]
        return room in self._persons_rooms or any(self._palace.room_named_by_person(name) for name in [room, *earlier])
