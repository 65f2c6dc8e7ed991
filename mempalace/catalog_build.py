"""A catalog built from Chroma (a palace's first open, an upstream palace arriving): how far the build
has got, in a small file beside the catalog that any process may read to show it, and the shared
palace's host building a missing catalog straight from Chroma's files before it starts the server
(reading a million vectors through the server as JSON would take many times longer)."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import MempalaceError
from .privacy import read_own, write_own
from .wording import counted

PROGRESS_SUFFIX = ".building.json"
WRITE_EVERY_SECONDS = 0.5
HEARTBEAT_SECONDS = 5.0


@dataclass(frozen=True)
class BuildProgress:
    """A catalog build under way: `done` of `total` drawers read, by process `pid`, last told at `at`."""

    pid: int
    done: int
    total: int
    at: float

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0

    def said(self) -> str:
        return f"Building the palace's catalog from Chroma (first open): {self.done:,} of {counted(self.total, 'drawer')}"


def progress_path(catalog: Path) -> Path:
    return catalog.with_name(catalog.name + PROGRESS_SUFFIX)


def read_progress(catalog: Path) -> BuildProgress | None:
    """The build under way for this catalog, if its builder still runs."""
    try:
        found = BuildProgress(**json.loads(read_own(progress_path(catalog))))
        os.kill(found.pid, 0)
    except (OSError, ValueError, TypeError, MempalaceError):
        return None
    return found


def catalog_built(catalog: Path) -> bool:
    """Whether the catalog holds a whole build (a palace's first open makes it; read-only look)."""
    import sqlite3

    try:
        db = sqlite3.connect(catalog.resolve().as_uri() + "?mode=ro", uri=True, timeout=5)
        try:
            return db.execute("SELECT 1 FROM state WHERE key = 'collection'").fetchone() is not None
        finally:
            db.close()
    except sqlite3.Error:
        return False


class ProgressFile:
    """Tells other processes how far this process's build has got (at most twice a second, and every
    HEARTBEAT_SECONDS while nothing is read: indexes built at the end of a large build take long)."""

    def __init__(self, catalog: Path, total: int):
        self._path = progress_path(catalog)
        self._total = total
        self._told = 0.0
        self._done = 0
        self._closed = threading.Event()
        self.tell(0)
        if total:
            threading.Thread(target=self._beat, daemon=True).start()

    def _beat(self) -> None:
        while not self._closed.wait(HEARTBEAT_SECONDS):
            self.tell(self._done, force=True)

    def tell(self, done: int, force: bool = False) -> None:
        self._done = done
        if self._closed.is_set() or not self._total or (not force and time.monotonic() - self._told < WRITE_EVERY_SECONDS):
            return  # an empty palace has nothing to tell
        self._told = time.monotonic()
        try:
            write_own(self._path, json.dumps({"pid": os.getpid(), "done": done, "total": self._total, "at": time.time()}))
        except (OSError, MempalaceError):
            pass  # progress is a courtesy: a build never fails for want of it

    def close(self) -> None:
        self._closed.set()
        try:
            self._path.unlink()
        except OSError:
            pass


def build_before_serving(palace_dir: Path, catalog_file: str, embedding_function: Any) -> bool:
    """The host's step before it starts the server: a palace with drawers and no catalog gets one,
    read from Chroma's files embedded (the host holds the palace's lock). Returns whether it built."""
    from .catalog import Catalog
    from .store import CHROMA_FILE, ChromaStore
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
