"""The shared palace's host building a missing catalog straight from Chroma's files before it starts
the server (reading a million vectors through the server as JSON would take many times longer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .build_progress import catalog_built


def build_before_serving(palace_dir: Path, catalog_file: str, embedding_function: Any) -> bool:
    """The host's step before it starts the server: a palace with drawers and no catalog gets one,
    read from Chroma's files embedded (the host holds the palace's lock). Returns whether it built."""
    from ..store.chroma import CHROMA_FILE, ChromaStore
    from .catalog import Catalog
    from .sync import CatalogSync

    if not (palace_dir / CHROMA_FILE).exists() or catalog_built(palace_dir / catalog_file):
        return False  # (the usual start: a read-only look, no schema work)
    catalog = Catalog(palace_dir / catalog_file)
    try:
        if catalog.get_state("collection") is not None:
            return False
        store = ChromaStore.embedded(palace_dir, embedding_function, create=False)
        try:
            catalog.set_state("embedder", store.recorded_embedder() or "")  # "": none recorded (another tool's)
            CatalogSync(store, catalog, foreign_check_seconds=0).rebuild()  # clients go on once it is whole
        finally:
            store.close()
        return True
    finally:
        catalog.close()
