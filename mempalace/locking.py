"""One process per embedded palace: an exclusive lock held while a Palace is open."""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout

from .errors import PalaceBusyError

LOCK_FILE = "mempalace.lock"
OWNER_FILE = "mempalace.owner"


class PalaceLock:
    """An exclusive OS file lock on a palace directory (released by the OS if the process dies)."""

    def __init__(self, palace_dir: Path, timeout: float):
        self._dir = palace_dir
        self._lock = FileLock(str(palace_dir / LOCK_FILE), timeout=timeout, is_singleton=False,
                              thread_local=False)

    def acquire(self) -> None:
        try:
            self._lock.acquire()
        except Timeout:
            raise PalaceBusyError(
                f"The palace at {self._dir} is in use by another process{self._owner()}. An embedded "
                "palace belongs to one process at a time: close the other one, or share the palace "
                f"through a Chroma server (`chroma run --path {self._dir}`) and connect with `--url`."
            ) from None
        (self._dir / OWNER_FILE).write_text(str(os.getpid()), encoding="utf-8")

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release()

    def _owner(self) -> str:
        try:
            pid = (self._dir / OWNER_FILE).read_text(encoding="utf-8").strip()
        except OSError:
            return ""
        return f" (pid {pid})" if pid.isdigit() else ""
