"""Re-rooming a palace: the drawers whose room ingest chose get the rooms ingest would choose today.

Rooms a person chose (`--room`, `add`, moves, merges) are never touched; they seed the new rooms as
rooms the palace already has. Drawers filed before rooms recorded who chose them count as chosen by
ingest when ingest filed them. Conversations are replayed in filing order, so the result is the
same for the same palace.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..palace import Palace
from .planning import PROFILE_DRAWERS, remember_room
from .rooms import RoomChooser
from .topics import TopicRooms


@dataclass(frozen=True)
class RoomMove:
    """One drawer that re-rooming moves, and from where to where."""

    drawer_id: str
    wing: str
    old_room: str
    new_room: str


@dataclass(frozen=True)
class ReroomReport:
    """What re-rooming did (or, in a dry run, would do)."""

    considered: int  # drawers whose room ingest chose
    kept: int  # drawers whose room a person chose: never moved
    moves: tuple[RoomMove, ...]
    dry_run: bool

    def summary(self) -> list[tuple[str, str, str, int]]:
        """(wing, old room, new room, drawers) for each kind of move, biggest first."""
        counts = Counter((m.wing, m.old_room, m.new_room) for m in self.moves)
        return sorted(((*k, n) for k, n in counts.items()), key=lambda r: (-r[3], r[:3]))


def reroom(palace: Palace, dry_run: bool = False) -> ReroomReport:
    """Choose again the rooms of every drawer whose room ingest chose; move them unless `dry_run`."""
    drawers = palace.room_inventory()
    person = [d for d in drawers if d.room_by != "ingest"]
    vectors = {d.id: d.vector for d in drawers}
    wing_vectors: dict[str, list[np.ndarray]] = {}
    for d in drawers:
        wing_vectors.setdefault(d.wing, []).append(d.vector)
    kept_rooms = {d.room for d in person}
    namer = RoomChooser(kept_rooms, palace.widespread_words)
    rooms = TopicRooms(namer, wing_vectors={w: np.stack(v) for w, v in wing_vectors.items()}, embed=palace.embed)
    samples: dict[str, list] = {}
    for d in person:
        if len(samples.setdefault(d.room, [])) < PROFILE_DRAWERS:
            samples[d.room].append((d.wing, d.parent_id or d.id, d.content, d.vector))
    for room, picked in sorted(samples.items()):
        remember_room(rooms, room, picked)
    for (wing, room), held in sorted(Counter((d.wing, d.room) for d in person).items()):
        rooms.size(room, wing, held)
    moves = []
    for group in _conversations([d for d in drawers if d.room_by == "ingest"]):
        chosen = rooms.assign(group[0].wing, np.stack([vectors[d.id] for d in group]), [d.content for d in group],
                              group[0].title, group[0].speakers)
        moves += [RoomMove(d.id, d.wing, d.room, room) for d, room in zip(group, chosen) if room != d.room]
    if not dry_run:
        targets: dict[str, list[str]] = {}
        for move in moves:
            targets.setdefault(move.new_room, []).append(move.drawer_id)
        for room, ids in sorted(targets.items()):
            palace.move_drawers(ids, room=room, chosen_by="ingest")
    return ReroomReport(considered=len(drawers) - len(person), kept=len(person), moves=tuple(moves), dry_run=dry_run)


def _conversations(drawers: list) -> list[list]:
    """Drawers grouped by conversation and wing, each group in chunk order, groups in filing order."""
    groups: dict[tuple[str, str], list] = {}
    for d in drawers:  # already in filing order
        groups.setdefault((d.parent_id or d.id, d.wing), []).append(d)
    return [sorted(g, key=lambda d: d.chunk_index) for g in groups.values()]
