"""One process per embedded palace: an exclusive lock held while a Palace is open."""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout

from .errors import PalaceBusyError
from .privacy import OWNER_ONLY_FILE, owner_file

LOCK_FILE = "mempalace.lock"
OWNER_FILE = "mempalace.owner"


class PalaceLock:
    """An exclusive OS file lock on a palace directory (released by the OS if the process dies)."""

    def __init__(self, palace_dir: Path, timeout: float):
        self._dir = palace_dir
        self._lock = FileLock(str(palace_dir / LOCK_FILE), timeout=timeout, mode=OWNER_ONLY_FILE,
                              is_singleton=False, thread_local=False)

    def acquire(self, served_at: str | None = None) -> None:
        """Hold the palace; `served_at` is the URL of the server `mempalace serve` runs on it."""
        try:
            self._lock.acquire()
        except Timeout:
            raise PalaceBusyError(self._busy_message()) from None
        self.announce(served_at)

    def announce(self, served_at: str | None, shared: bool = False) -> None:
        """Record who holds the palace (and the URL it is served at) for the busy message of others."""
        owner = " ".join([str(os.getpid()), *([served_at] if served_at else []), *(["shared"] if shared else [])])
        (self._dir / OWNER_FILE).write_text(owner, encoding="utf-8")
        owner_file(self._dir / OWNER_FILE, self._dir / LOCK_FILE)

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release()

    def held_by_shared_server(self) -> bool:
        """Whether the holder recorded itself as a shared palace's host (see `announce`)."""
        try:
            return (self._dir / OWNER_FILE).read_text(encoding="utf-8").split()[-1:] == ["shared"]
        except OSError:
            return False

    def _busy_message(self) -> str:
        try:
            pid, url, shared = ((self._dir / OWNER_FILE).read_text(encoding="utf-8").split() + ["", ""])[:3]
        except OSError:
            pid, url, shared = "", "", ""
        holder = f" (pid {pid})" if pid.isdigit() else ""
        if shared:
            return (f"The palace at {self._dir} is shared by MemPalace's own server at {url}{holder}, so it "
                    "cannot be opened as a private palace now. Open it shared (the default: leave out "
                    "MEMPALACE_SHARED=0 / private=True); the server stops by itself once nobody uses it.")
        if url:
            return (f"The palace at {self._dir} is being served at {url}{holder}: connect to it with "
                    f"`--url {url}` (or MEMPALACE_URL={url}) instead of opening the directory.")
        return (f"The palace at {self._dir} is in use by another process{holder}. An embedded palace belongs "
                "to one process at a time: close the other one, or share the palace between programs with "
                f"`mempalace serve --palace {self._dir}` and connect each of them with `--url`.")
