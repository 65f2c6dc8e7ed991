"""Re-rooming a palace: the drawers whose room ingest chose get the rooms ingest would choose today,
knowing every wing at once.

Rooms a person chose (`--room`, `add`, moves, merges) are never touched; they are rooms the palace
already has, except the demo's (`mempalace.palace.demo_drawers`): a drawer ingest filed into one leaves it.
Conversations are replayed in filing order, so the same palace gives the same result. Moves are
applied only to drawers still where the preview found them (a person's move meanwhile wins).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..catalog.placements import INGEST, READ_AT_ONCE, RoomedDrawer
from ..embedding.embedders import likeness_scale
from ..palace.demo_drawers import demo_rooms
from ..palace.palace import Palace
from ..rooms.choice import TopicRooms
from ..rooms.naming import RoomChooser
from ..rooms.words import people_words
from .planning import PROFILE_DRAWERS, remember_room


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
    moved: int = 0  # of the moves, how many were applied (the others changed meanwhile)

    def summary(self) -> list[tuple[str, str, str, int]]:
        """(wing, old room, new room, drawers) for each kind of move, biggest first."""
        counts = Counter((m.wing, m.old_room, m.new_room) for m in self.moves)
        return sorted(((*k, n) for k, n in counts.items()), key=lambda r: (-r[3], r[:3]))


def reroom(palace: Palace, dry_run: bool = False) -> ReroomReport:
    """Choose again the rooms of every drawer whose room ingest chose; move them unless `dry_run`."""
    drawers = palace.room_inventory()
    person = [d for d in drawers if d.room_by != INGEST]
    moves = tuple(_replay(palace, drawers, person))
    moved = 0 if dry_run else apply_moves(palace, moves)
    return ReroomReport(len(drawers) - len(person), len(person), moves, dry_run, moved)


def apply_moves(palace: Palace, moves: tuple[RoomMove, ...]) -> int:
    """Apply a (previewed) re-rooming; returns how many drawers moved."""
    return palace.reroom_drawers([(m.drawer_id, m.old_room, m.new_room) for m in moves])


def _replay(palace: Palace, drawers: list, person: list) -> list[RoomMove]:
    """Ingest's room choice again over the drawers ingest filed, batch by batch as they were filed
    (each batch's wings seen before its rooms are chosen), knowing the rooms people chose from the
    start; rooms are named at the end, keeping the name most of their drawers have unless a name
    scores RENAME_GAIN times it. Texts and vectors are read READ_AT_ONCE drawers at a time (a wing's
    mean then sums them in parts: the same up to rounding)."""
    taken = {d.room for d in drawers}  # new rooms never take a name in use, so each can keep its own
    rooms = TopicRooms(RoomChooser(taken, palace.widespread_words),
                       embed=palace.embed if palace.embeds_meaning else None,
                       scale=likeness_scale(palace.settings.embedder))
    rooms.count_words_with(palace.word_documents, replaying=True)
    demo = demo_rooms(palace)  # as in ingest: never a candidate, never a name handed out again
    locked = _learn_person_rooms(palace, rooms, [d for d in person if d.room not in demo]) | demo
    people = (*sorted({s for d in drawers for s in d.speakers}), "continued")  # ingest knew its source's speakers
    chosen: list[tuple[object, str]] = []
    for batch in _batches([d for d in drawers if d.room_by == INGEST]):
        for group in _replayed_conversations(palace, rooms, batch):
            rooms_of = rooms.assign(group[0].wing, np.stack([d.vector for d in group]),
                                    [people_words(d.content, group[0].speakers) for d in group], group[0].title,
                                    people, [people_words(d.content, d.speakers, d.machines) for d in group])
            chosen += [(d.placed, room) for d, room in zip(group, rooms_of)]
    renamed = rooms.settle_names(lambda room: room in locked, _held_names(chosen))
    return [RoomMove(d.id, d.wing, d.room, renamed.get(room, room)) for d, room in chosen
            if renamed.get(room, room) != d.room]


def _learn_person_rooms(palace: Palace, rooms: TopicRooms, person: list) -> set[str]:
    """Teach `rooms` the rooms people chose (their wings' vectors, a sample of each room and its size
    in each wing), reading READ_AT_ONCE drawers at a time; returns those rooms."""
    _observe(palace, rooms, person)
    samples: dict[str, list] = {}
    for d in person:
        if len(samples.setdefault(d.room, [])) < PROFILE_DRAWERS:
            samples[d.room].append(d)
    for found in _read_groups(palace, [samples[room] for room in sorted(samples)]):
        remember_room(rooms, found[0].room, [(d.wing, d.parent_id or d.id, d.content, d.vector) for d in found])
    for (wing, room), held in sorted(Counter((d.wing, d.room) for d in person).items()):
        rooms.set_room_size(room, wing, held)
    return set(samples)


def _replayed_conversations(palace: Palace, rooms: TopicRooms, batch: list) -> Iterator[list[RoomedDrawer]]:
    """The conversations of one batch with their texts and vectors, after its wings are observed. A
    batch is read READ_AT_ONCE drawers at a time: once when it is no bigger, else twice (once for its
    wings, once for its rooms)."""
    whole = palace.with_vectors(batch) if len(batch) <= READ_AT_ONCE else None
    _observe(palace, rooms, batch, whole)
    return _read_groups(palace, _conversations(batch), whole)


def _observe(palace: Palace, rooms: TopicRooms, drawers: list, read: list | None = None) -> None:
    """Count the drawers' vectors into their wings' means (`read`: them with their vectors already)."""
    parts = [read] if read is not None else (palace.with_vectors(drawers[start : start + READ_AT_ONCE])
                                             for start in range(0, len(drawers), READ_AT_ONCE))
    for part in parts:
        for wing, held in sorted(_by_wing(part).items()):
            rooms.observe(wing, np.stack(held))


def _read_groups(palace: Palace, groups: list[list], read: list | None = None) -> Iterator[list[RoomedDrawer]]:
    """Each group's drawers with their texts and vectors (those gone left out, empty groups skipped),
    read a run of groups of about READ_AT_ONCE drawers at a time unless `read` holds them all."""
    known = {d.id: d for d in read or ()}
    for together in _slices(groups):
        if read is None:
            known = {d.id: d for d in palace.with_vectors([d for group in together for d in group])}
        for group in together:
            found = [known[d.id] for d in group if d.id in known]
            if found:
                yield found


def _slices(groups: list[list]) -> Iterator[list[list]]:
    """Runs of whole groups holding about READ_AT_ONCE drawers (a bigger group alone)."""
    run: list[list] = []
    held = 0
    for group in groups:
        if run and held + len(group) > READ_AT_ONCE:
            yield run
            run, held = [], 0
        run.append(group)
        held += len(group)
    if run:
        yield run


def _held_names(chosen: list[tuple[object, str]]) -> dict[str, str]:
    """{room chosen now: the room most of its drawers are in}."""
    held: dict[str, Counter[str]] = {}
    for d, room in chosen:
        held.setdefault(room, Counter())[d.room] += 1
    return {room: max(c.items(), key=lambda kv: (kv[1], kv[0]))[0] for room, c in held.items()}


def _by_wing(drawers: list) -> dict[str, list[np.ndarray]]:
    found: dict[str, list[np.ndarray]] = {}
    for d in drawers:
        found.setdefault(d.wing, []).append(d.vector)
    return found


def _batches(drawers: list) -> list[list]:
    """Drawers in runs filed together (the same filing time), in filing order."""
    runs: list[list] = []
    for d in drawers:
        if runs and runs[-1][-1].filed_at == d.filed_at:
            runs[-1].append(d)
        else:
            runs.append([d])
    return runs


def _conversations(drawers: list) -> list[list]:
    """Drawers grouped by conversation and wing, each group in chunk order, groups in filing order."""
    groups: dict[tuple[str, str], list] = {}
    for d in drawers:  # already in filing order
        groups.setdefault((d.parent_id or d.id, d.wing), []).append(d)
    return [sorted(g, key=lambda d: d.chunk_index) for g in groups.values()]
