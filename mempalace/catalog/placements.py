"""Who chose each drawer's room and hall, and every drawer's place in filing order, for re-rooming
and re-halling a palace: texts and vectors are read a batch at a time, never all at once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ..models import HALL_BY, ROOM_BY
from ..store.chroma import SEQ_KEY, ChromaStore
from .catalog import Catalog

INGEST = "ingest"
PERSON = "person"
READ_AT_ONCE = 2000  # drawers whose texts and vectors a re-rooming or re-halling holds at once
MOVED_AFTER_SECONDS = 60  # an unrecorded drawer written again this long after filing was moved by someone


@dataclass(frozen=True, slots=True)
class PlacedDrawer:
    """A drawer's place, its conversation and whether ingest or a person chose its room and hall (no
    text or vector: a million of these fit in memory, their texts and vectors would not)."""

    id: str
    wing: str
    room: str
    parent_id: str
    chunk_index: int
    room_by: str
    title: str | None
    speakers: tuple[str, ...]
    filed_at: str = ""  # drawers one ingest filed together share it
    hall: str = ""  # "" for none
    hall_by: str = PERSON
    machines: tuple[str, ...] = ()  # speakers who only post as bots (never read for room names)


@dataclass(frozen=True, slots=True)
class RoomedDrawer:
    """A placed drawer with its text and vector, read when its batch is replayed."""

    placed: PlacedDrawer
    content: str
    vector: np.ndarray

    def __getattr__(self, name: str) -> Any:
        if name == "placed":  # not set yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.placed, name)


def chooser(meta: Mapping[str, Any]) -> str:
    """"ingest" or "person". A drawer filed before rooms recorded it counts as ingest's if ingest
    filed it and nobody wrote to it since (a move or merge stamps it again)."""
    return _recorded_or_guessed(meta, ROOM_BY)


def hall_chooser(meta: Mapping[str, Any]) -> str:
    """"ingest" or "person": who chose the drawer's hall (or no hall). A drawer filed before halls
    recorded it counts as ingest's only if ingest filed it and nobody wrote to it since: a write then
    may have been a person's hall change, which re-halling must never undo."""
    return _recorded_or_guessed(meta, HALL_BY)


def _recorded_or_guessed(meta: Mapping[str, Any], key: str) -> str:
    """The chooser recorded under `key`; without one, ingest's if ingest filed the drawer and nobody
    wrote to it since (a write later than MOVED_AFTER_SECONDS after filing was someone's change)."""
    if meta.get(key) in (INGEST, PERSON):
        return str(meta[key])
    if meta.get("added_by") != "mempalace-ingest":
        return PERSON
    try:
        filed = datetime.fromisoformat(str(meta.get("filed_at"))).timestamp()
        stamped = int(meta.get(SEQ_KEY) or 0) / 1_000_000
    except (TypeError, ValueError):
        return PERSON
    return PERSON if stamped - filed > MOVED_AFTER_SECONDS else INGEST


def rehall_targets(store: ChromaStore, catalog: Catalog, changes: Sequence[tuple[str, str, str]]) -> dict[str, list[str]]:
    """{new hall ("" for none): ids} for the (drawer id, hall it had, new hall) changes whose drawer still
    has that hall by ingest's choice (a person's change since wins)."""
    ids = [i for i, _, _ in changes]
    rows = catalog.rows(ids)
    choosers = {r.id: hall_chooser(r.metadata) for r in store.get(ids)}
    targets: dict[str, list[str]] = {}
    for drawer_id, old, new in changes:
        if drawer_id in rows and (rows[drawer_id].hall or "") == old and choosers.get(drawer_id) == INGEST:
            targets.setdefault(new, []).append(drawer_id)
    return {hall: sorted(targets[hall]) for hall in sorted(targets)}


def room_inventory(store: ChromaStore, catalog: Catalog) -> list[PlacedDrawer]:
    """Every drawer that has a vector, in filing order, without its text and vector. Chroma's
    metadata is read page by page and kept only as what re-rooming needs; repeated strings are
    shared (a million drawers name a few thousand places)."""
    same: dict[Any, Any] = {}
    kept = {r.id: _what_matters(r.metadata, same) for page in store.scan(documents=False) for r in page}
    found = []
    for drawer_id, wing, room, hall, parent_id, chunk_index, filed_at in catalog.places_in_filing_order():
        m = kept.pop(drawer_id, None)
        if m is None:
            continue
        room_by, hall_by, title, speakers, machines, filed_n = m
        shared = [same.setdefault(value, value) for value in (wing, room, parent_id, filed_at, hall or "")]
        wing, room, parent_id, filed_at, hall = shared
        found.append((filed_n, PlacedDrawer(drawer_id, wing, room, parent_id, chunk_index, room_by, title, speakers,
                                            filed_at, hall, hall_by, machines)))
    found.sort(key=lambda pair: (pair[1].filed_at, pair[0]))  # stable: older drawers keep catalog order
    return [placed for _, placed in found]


def with_vectors(catalog: Catalog, placed: Sequence[PlacedDrawer]) -> list[RoomedDrawer]:
    """These drawers with their texts and vectors, in the same order; any gone or moved to another
    wing meanwhile is left out (a scoped view trusts the wing it was given)."""
    rows = catalog.rows([p.id for p in placed])
    return [RoomedDrawer(p, rows[p.id].content, rows[p.id].vector) for p in placed
            if p.id in rows and rows[p.id].vector is not None and rows[p.id].wing == p.wing]


def _what_matters(meta: Mapping[str, Any], same: dict[Any, Any]
                  ) -> tuple[str, str, str | None, tuple[str, ...], tuple[str, ...], int]:
    """(room chooser, hall chooser, conversation title, speakers, machines, position in its filing) of a
    drawer; a title or names seen before are shared (`same`)."""
    speakers, machines = names_in(meta, "speakers"), names_in(meta, "machines")
    title = meta.get("conversation_title")
    return (chooser(meta), hall_chooser(meta), same.setdefault(title, title), same.setdefault(speakers, speakers),
            same.setdefault(machines, machines), int(meta.get("filed_n") or 0))


def names_in(meta: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """A drawer's list of names kept in one metadata field, comma-separated (`speakers`, `machines`)."""
    return tuple(s.strip() for s in str(meta.get(key) or "").split(",") if s.strip())


def reroom_targets(store: ChromaStore, catalog: Catalog, moves: Sequence[tuple[str, str, str]]) -> dict[str, list[str]]:
    """{new room: ids} for the (drawer id, room it was in, new room) moves whose drawer is still in
    that room by ingest's choice (a person's move since wins), rooms and ids in order."""
    ids = [i for i, _, _ in moves]
    rows = catalog.rows(ids)
    choosers = {r.id: chooser(r.metadata) for r in store.get(ids)}
    targets: dict[str, list[str]] = {}
    for drawer_id, old, new in moves:
        if drawer_id in rows and rows[drawer_id].room == old and choosers.get(drawer_id) == INGEST:
            targets.setdefault(new, []).append(drawer_id)
    return {room: sorted(targets[room]) for room in sorted(targets)}
