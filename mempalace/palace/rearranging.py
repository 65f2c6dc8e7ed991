"""Re-rooming's and re-halling's side of a palace: its inventory of placed drawers, who chose each
drawer's room and hall, moves that a person's later choice wins over, and the embedder a first
filing's languages need (a mixin of `Palace`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from ..catalog.catalog import Catalog
from ..catalog.change_log import place_of
from ..catalog.placements import (INGEST, PERSON, PlacedDrawer, RoomedDrawer, chooser, hall_chooser, rehall_targets,
                        reroom_targets, room_inventory, with_vectors)
from ..catalog.sync import CatalogSync, new_stamp
from ..models import HALL_BY, ROOM_ALIASES, ROOM_BY
from ..store.chroma import SEQ_KEY, ChromaStore
from ..text.names import room_slug
from .drawer_records import id_list
from .under_lock import serialized


class Rearranging:
    """Reads and moves for re-rooming and re-halling, and `_move` for every change of place; `Palace`
    provides the store, catalog and `_record`."""

    _guard: threading.RLock
    _store: ChromaStore
    _catalog: Catalog
    _sync: CatalogSync
    _record: Any
    _one_change: Any

    @serialized
    def room_named_by_person(self, room: str) -> bool:
        """Whether a person chose room `room`'s name or put a drawer in it (ingest then never renames it)."""
        self._sync.ensure_fresh()
        ids = self._catalog.ids_where({"room": room})
        return any(c == PERSON for c in self.room_choosers(ids).values())

    @serialized
    def room_inventory(self) -> list[PlacedDrawer]:
        """Every drawer that has a vector, its place and who chose its room, first filed first (for
        re-rooming; `with_vectors` reads their texts and vectors a batch at a time)."""
        self._sync.ensure_fresh()
        return room_inventory(self._store, self._catalog)

    @serialized
    def with_vectors(self, placed: Sequence[PlacedDrawer]) -> list[RoomedDrawer]:
        """These inventory entries with their texts and vectors (those gone or moved left out)."""
        return with_vectors(self._catalog, placed)

    @serialized
    def room_choosers(self, ids: Sequence[str]) -> dict[str, str]:
        """{drawer id: "ingest" or "person"}: who chose each stored drawer's room."""
        return {r.id: chooser(r.metadata) for r in self._store.get(sorted(set(id_list(ids))))} if ids else {}

    @serialized
    def hall_choosers(self, ids: Sequence[str]) -> dict[str, str]:
        """{drawer id: "ingest" or "person"}: who chose each stored drawer's hall (or no hall)."""
        return {r.id: hall_chooser(r.metadata) for r in self._store.get(sorted(set(id_list(ids))))} if ids else {}

    @serialized
    def reroom_drawers(self, moves: Sequence[tuple[str, str, str]]) -> int:
        """Apply re-rooming's (drawer id, room it was in, new room) moves to the drawers still in that
        room by ingest's choice (a person's move meanwhile wins); returns how many moved."""
        self._sync.ensure_fresh()
        targets = reroom_targets(self._store, self._catalog, moves)
        with self._one_change("reroom"):
            for room, ids in targets.items():
                self._move(ids, {"room": room_slug(room)}, INGEST, "reroom")
        return sum(map(len, targets.values()))

    @serialized
    def rehall_drawers(self, changes: Sequence[tuple[str, str, str]]) -> int:
        """Apply re-halling's (drawer id, hall it had, new hall; "" for none) to the drawers that still
        have that hall by ingest's choice (a person's change meanwhile wins); returns how many changed."""
        self._sync.ensure_fresh()
        targets = rehall_targets(self._store, self._catalog, changes)
        with self._one_change("rehall"):
            for hall, ids in targets.items():
                self._move(ids, {"hall": hall}, INGEST, "rehall")
        return sum(map(len, targets.values()))

    def fit_embedder(self, texts: Sequence[str], dry_run: bool = False) -> str | None:
        """Before a first filing, the embedder its languages need (see `embedder_move.fit_embedder`)."""
        from .embedder_move import fit_embedder

        return fit_embedder(self, texts, dry_run)  # type: ignore[arg-type]

    def _move(self, ids: list[str], place: dict[str, str | None], chosen_by: str = PERSON,
              action: str = "move", aliases: str | None = None, **detail: str) -> None:
        """Apply `place` (None: unchanged; "": removed, which only a hall can be) to the drawers; a
        new room records who chose it, and `aliases` (its earlier names) when given."""
        changes = {k: v for k, v in place.items() if v is not None}
        seq = new_stamp()
        stored = {k: v or None for k, v in changes.items()}  # None deletes the key in Chroma
        if "room" in changes:
            stored[ROOM_BY] = chosen_by
        if "hall" in changes:
            stored[HALL_BY] = chosen_by
        if aliases is not None:
            stored[ROOM_ALIASES] = aliases or None
        before = {r.id: place_of(r.metadata) for r in self._store.get(ids, documents=False)}
        with self._one_change(action, **changes, **detail) as change:
            with self._sync.writing("change", ids, seq):
                self._store.update_metadata(ids, [{**stored, SEQ_KEY: seq}] * len(ids))
                self._catalog.move(ids, seq, aliases=aliases, **changes)
                self._sync.finish_write(seq=seq)
            change.steps += [(i, b, {**b, **{k: v for k, v in stored.items() if k in b}}) for i, b in before.items()]
        self._record(action, ids, **changes, **detail, change=change.id)
