"""Every drawer with its vector and who chose its room, for re-rooming a palace."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .catalog import Catalog
from .models import ROOM_BY
from .store import ChromaStore

INGEST = "ingest"
PERSON = "person"


@dataclass(frozen=True)
class RoomedDrawer:
    """A drawer's place, text and vector, and whether ingest or a person chose its room."""

    id: str
    wing: str
    room: str
    parent_id: str
    chunk_index: int
    content: str
    vector: np.ndarray
    room_by: str
    title: str | None
    speakers: tuple[str, ...]


def room_inventory(store: ChromaStore, catalog: Catalog) -> list[RoomedDrawer]:
    """All drawers in filing order. A drawer filed before rooms recorded who chose them counts as
    chosen by ingest if ingest filed it, else by a person."""
    meta = {r.id: r.metadata for page in store.scan() for r in page}
    found = []
    for row in catalog.in_filing_order():
        m = meta.get(row.id)
        if m is None:
            continue
        chooser = m.get(ROOM_BY) or (INGEST if m.get("added_by") == "mempalace-ingest" else PERSON)
        speakers = tuple(s.strip() for s in str(m.get("speakers") or "").split(",") if s.strip())
        found.append(RoomedDrawer(row.id, row.wing, row.room, row.parent_id, row.chunk_index, row.content,
                                  row.vector, str(chooser), m.get("conversation_title"), speakers))
    return found
