"""One process per embedded palace: an exclusive lock held while a Palace is open; and the lock files
beside a palace (OS locks on files opened without following links)."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import MempalaceError, PalaceBusyError, PalaceUnavailableError
from .privacy import open_own, owner_file, read_own, write_own

LOCK_FILE = "mempalace.lock"
OWNER_FILE = "mempalace.owner"
POLL_SECONDS = 0.05


class LockTimeout(Exception):
    """The lock was not had within the time given."""


class OwnLock:
    """An exclusive OS lock (flock) on a file of MemPalace's beside a palace, released by the OS if the
    process dies; the file is made 0600 and never opened through a link planted in its place."""

    def __init__(self, path: Path | str, timeout: float = -1):
        self.path = Path(path)
        self.timeout = timeout  # seconds; negative: wait as long as it takes
        self._held: int | None = None

    @property
    def is_locked(self) -> bool:
        return self._held is not None

    def acquire(self, timeout: float | None = None) -> None:
        import fcntl

        if self._held is not None:
            return
        wait = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        descriptor = open_own(self.path, os.O_RDWR | os.O_CREAT)
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._held = descriptor
                return
            except BlockingIOError:
                if wait >= 0 and time.monotonic() >= deadline:
                    os.close(descriptor)
                    raise LockTimeout(f"{self.path} is held by another process") from None
                time.sleep(POLL_SECONDS)
            except BaseException as exc:  # a file system without locks (some network shares), or interrupted
                os.close(descriptor)
                if isinstance(exc, OSError):
                    raise PalaceUnavailableError(
                        f"{self.path} cannot be locked ({exc.strerror or exc}): keep the palace on a local disk.") from None
                raise

    def release(self) -> None:
        if self._held is not None:
            os.close(self._held)  # (closing lets go of the lock)
            self._held = None

    def __enter__(self) -> "OwnLock":
        self.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


class WriteGate:
    """The gate every MemPalace write to a palace passes (a shared OS lock on a file beside its catalog);
    a move to another embedder closes it (exclusive) for its last catch-up and switch, so that no write
    lands in the old collection after the move last read it."""

    def __init__(self, catalog_path: Path | str):
        self.path = Path(f"{catalog_path}.write-gate")

    @contextlib.contextmanager
    def passing(self, exclusive: bool = False) -> Iterator[None]:
        import fcntl

        try:
            descriptor = open_own(self.path, os.O_RDWR | os.O_CREAT)
        except OSError:  # a read-only folder: nothing is written there, so nothing can slip past
            descriptor = None
        try:
            if descriptor is not None:
                fcntl.flock(descriptor, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
        finally:
            if descriptor is not None:
                os.close(descriptor)


def owner_text(palace_dir: Path) -> str:
    """What the holder of the palace's lock announced (see `PalaceLock.announce`); "" if nothing is."""
    try:
        return read_own(palace_dir / OWNER_FILE)
    except (OSError, MempalaceError):
        return ""


class PalaceLock:
    """An exclusive OS file lock on a palace directory (released by the OS if the process dies)."""

    def __init__(self, palace_dir: Path, timeout: float):
        self._dir = palace_dir
        self._lock = OwnLock(palace_dir / LOCK_FILE, timeout=timeout)

    def acquire(self, served_at: str | None = None) -> None:
        """Hold the palace; `served_at` is the URL of the server `mempalace serve` runs on it."""
        try:
            self._lock.acquire()
        except LockTimeout:
            raise PalaceBusyError(self._busy_message()) from None
        self.announce(served_at)

    def announce(self, served_at: str | None, shared: bool = False) -> None:
        """Record who holds the palace (and the URL it is served at) for the busy message of others."""
        owner = " ".join([str(os.getpid()), *([served_at] if served_at else []), *(["shared"] if shared else [])])
        write_own(self._dir / OWNER_FILE, owner)
        owner_file(self._dir / LOCK_FILE)

    def release(self) -> None:
        self._lock.release()

    def held_by_shared_server(self) -> bool:
        """Whether the holder recorded itself as a shared palace's host (see `announce`)."""
        return owner_text(self._dir).split()[-1:] == ["shared"]

    def _busy_message(self) -> str:
        pid, url, shared = (owner_text(self._dir).split() + ["", "", ""])[:3]
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
