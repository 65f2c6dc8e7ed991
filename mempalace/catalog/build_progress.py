"""How far a catalog build from Chroma has got (a palace's first open, an upstream palace arriving), in
a small file beside the catalog that any process may read to show it or to wait for it."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import MempalaceError
from ..files.privacy import read_own, write_own
from ..text.counts import counted

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
