"""Keeping a shared palace's sources syncing while a long-lived front end has it open, and saying
whether they sync now.

The sources' sync timer runs in the shared palace's host (`cli.sync_timer`), which starts only when a
process needs Chroma and stops once no lease on the palace was renewed for `server_idle_seconds`. A
dashboard tab left open reads nothing, so `KeptInUse` renews its palace's lease on a thread and,
while the palace has sources, starts the host when none runs. The timer tells when it looks next in
`mempalace.sync.json`; `sync_status` reads it.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..catalog.source_book import SOURCES_FILE, SourceBook
from ..errors import MempalaceError
from ..files.privacy import read_own, write_own
from .starting import Lease, host_alive, host_started

TIMER_FILE = "mempalace.sync.json"
RENEW_SECONDS = 30.0  # how often an open palace's lease is renewed (more often if the host waits less)
RETRY_SECONDS = 300.0  # after a host failed to start, the next try waits this long


@dataclass(frozen=True)
class TimerState:
    """What the host's sync timer says of itself: its host's pid, seconds between looks, when it looks
    next (wall clock), and whether a sync it started runs now."""

    pid: int
    every: float
    next_check: float
    syncing: bool = False

    def write(self, palace_dir: Path) -> None:
        """Replace the file in one step (a reader never sees half of it), its owner's alone, never
        written through a link."""
        write_own(palace_dir / TIMER_FILE, json.dumps({"pid": self.pid, "every": self.every,
                                                        "next_check": self.next_check, "syncing": self.syncing}))

    @classmethod
    def read(cls, palace_dir: Path) -> "TimerState | None":
        try:
            data = json.loads(read_own(palace_dir / TIMER_FILE))
            return cls(int(data["pid"]), float(data["every"]), float(data["next_check"]), bool(data["syncing"]))
        except (OSError, MempalaceError, ValueError, KeyError, TypeError):  # a link or another user's: none
            return None

    @staticmethod
    def forget(palace_dir: Path, pid: int) -> None:
        """Remove the file if it is still host `pid`'s."""
        found = TimerState.read(palace_dir)
        if found is not None and found.pid == pid:
            (palace_dir / TIMER_FILE).unlink(missing_ok=True)


class KeptInUse:
    """Keeps a shared palace in use until `stop`: its lease renewed and, while it has sources, its host
    (the sync timer's process) started when none runs. `problem` says why it could not start."""

    def __init__(self, palace_dir: Path, lease: Lease, idle_seconds: float):
        self._dir = palace_dir
        self._lease = lease
        self._idle = idle_seconds
        self._book = SourceBook(palace_dir / SOURCES_FILE)
        self._every = max(min(RENEW_SECONDS, idle_seconds / 4), 0.05)
        self._retry_at = 0.0
        self._stopping = threading.Event()
        self.problem = ""
        threading.Thread(target=self._run, name="mempalace-keep-in-use", daemon=True).start()

    def stop(self) -> None:
        """Renew no more (a host starting meanwhile stops by itself once unused)."""
        self._stopping.set()

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._lease.renew()
            self._host()
            self._stopping.wait(self._every)

    def _host(self) -> None:
        """Start the palace's host if none runs and it has sources to sync (waiting until it serves)."""
        try:
            if host_alive(self._dir):
                self.problem = ""
                return
            if self._stopping.is_set() or time.monotonic() < self._retry_at or not self._book.entries():
                return
            host_started(self._dir, self._idle, self._stopping.is_set)  # given up once no tab holds the palace
            self.problem = ""
        except MempalaceError as exc:
            self.problem, self._retry_at = str(exc), time.monotonic() + RETRY_SECONDS
        except Exception as exc:  # noqa: BLE001 (an unreadable book, a full disk: said, and tried again later)
            self.problem, self._retry_at = f"{type(exc).__name__}: {exc}", time.monotonic() + RETRY_SECONDS


@dataclass(frozen=True)
class SyncStatus:
    """Whether a palace's sources sync by themselves now: how many are watched, in how many seconds
    the timer looks next and whether a sync runs; else why not (`by_hand`: this kind of palace has no
    timer at all)."""

    running: bool
    watched: int
    next_check_in: float = 0.0
    syncing: bool = False
    reason: str = ""
    by_hand: bool = False

    def summary(self) -> str:
        if not self.running:
            return f"Not syncing{' by itself' if self.by_hand else ''}: {self.reason}."
        sources = f"{self.watched} source{'' if self.watched == 1 else 's'} watched"
        if self.syncing:
            return f"Syncing now: {sources}, a sync is filing what changed."
        if self.next_check_in < 1:
            return f"Syncing now: {sources}, checking now."
        return f"Syncing now: {sources}, next check in {_duration(self.next_check_in)}."


def _duration(seconds: float) -> str:
    for size, unit in ((3600, "h"), (60, "min")):
        if seconds >= 2 * size:
            return f"{round(seconds / size)} {unit}"
    return f"{round(seconds)} s"


class OpenPalace(Protocol):
    """What the sync status reads of an open palace (a `Palace`)."""

    @property
    def mode(self) -> str: ...

    @property
    def location(self) -> str: ...

    @property
    def keeper(self) -> KeptInUse | None: ...


def sync_status(palace: OpenPalace, watched: int, details: bool = True) -> SyncStatus:
    """Whether `palace`'s sources (`watched` of them, as its viewer sees them) sync by themselves now;
    without `details`, why its host could not start is not said (it names the server's paths)."""
    if palace.mode == "embedded":
        return SyncStatus(False, watched, by_hand=True, reason="this palace is private (only this process has it "
                          "open), so no host runs its sync timer; Sync now on the Ingest page files its sources")
    if palace.mode != "shared":
        return SyncStatus(False, watched, by_hand=True, reason="a palace on a Chroma server has no sync timer; "
                          "Sync now on the Ingest page or `mempalace sources watch --url …` files its sources")
    where = Path(palace.location)
    state = TimerState.read(where)
    if state is not None and host_alive(where, state.pid):
        return SyncStatus(True, watched, max(0.0, state.next_check - time.time()), state.syncing)
    keeper = palace.keeper
    if keeper is None:
        reason = "the palace's server is not running; it starts when a MemPalace process needs the palace"
    elif keeper.problem:
        said = f" ({keeper.problem})" if details else ", an admin sees why in its log"
        reason = f"the palace's server could not start{said}; it is tried again in a few minutes"
    else:
        reason = "the palace's server is starting"
    return SyncStatus(False, watched, reason=reason)
