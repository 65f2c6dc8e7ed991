"""The shared palace's host syncs its sources while the palace is in use: every `sources_sync_seconds`
it stats the registered sources (cheap: nothing is read, neither Chroma nor the model is loaded)
and, when a file is new, grown or gone, runs `mempalace sources sync --auto` as a child process.
A sync's own use of the palace ends with it, so syncing never keeps an unused palace's host up. A
child still running after `sources_sync_limit_seconds` is killed (its lock goes with it; what it filed
is kept), and the stop is shown in the sources' status until a sync ends.
When it looks next, and whether a sync runs, is written for front ends (`server.keep_alive.TimerState`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..catalog.source_book import SOURCES_FILE, SourceBook
from ..errors import MempalaceError
from ..files.privacy import NEUTRAL_FOLDER, OWNER_ONLY_UMASK
from ..server.keep_alive import TimerState

FIRST_CHECK_SECONDS = 2.0  # a host just started checks soon: sessions may have ended while no one used the palace


class SyncTimer:
    """Checks the palace's sources on a timer and starts a sync child when something changed."""

    def __init__(self, palace_dir: Path, every: float, limit: float | None = None):
        self._dir = palace_dir
        self._book = SourceBook(palace_dir / SOURCES_FILE)
        self._every = every
        self._limit = _limit_setting() if limit is None else limit
        self._due = time.monotonic() + min(FIRST_CHECK_SECONDS, every)
        self._child: subprocess.Popen[Any] | None = None
        self._started = 0.0
        self._announce()

    def tick(self) -> None:
        """Start a sync if one is due and something changed (at most one sync child at a time); stop
        one that has run past its time limit."""
        if self.busy:
            self._stop_if_overdue()
            return
        if self._child is not None:  # a sync just ended
            self._child = None
            self._announce()
        if time.monotonic() < self._due:
            return
        self._due = time.monotonic() + self._every
        if self._changed():
            self._started = time.monotonic()
            try:
                self._child = subprocess.Popen(
                    [sys.executable, "-P", "-m", "mempalace", "--palace", str(self._dir), "sources", "sync", "--auto"],
                    stdin=subprocess.DEVNULL, stdout=sys.stdout, stderr=subprocess.STDOUT, cwd=NEUTRAL_FOLDER,
                    umask=OWNER_ONLY_UMASK, env={**os.environ, "MEMPALACE_SHARED": "1"})
            except OSError as exc:  # out of processes or memory: the next check tries again
                print(f"Starting a sync failed: {exc}", flush=True)
        self._announce()

    def _announce(self) -> None:
        """Tell front ends when the timer looks next and whether a sync runs (`server.keep_alive.TimerState`)."""
        try:
            TimerState(os.getpid(), self._every, time.time() + max(0.0, self._due - time.monotonic()),
                       self.busy).write(self._dir)
        except OSError as exc:  # said on the host's log; syncing goes on all the same
            print(f"Writing the sync timer's state failed: {exc}", flush=True)

    @property
    def busy(self) -> bool:
        """Whether a sync child is running (the palace is in use: the host must not stop under it)."""
        return self._child is not None and self._child.poll() is None

    def stop(self) -> None:
        """Wait briefly for a running sync (it records each file once filed: stopping it loses nothing)."""
        TimerState.forget(self._dir, os.getpid())
        if self._child is not None and self._child.poll() is None:
            try:
                self._child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._child.kill()

    def _stop_if_overdue(self) -> None:
        """Kill the sync child once it has run past the limit (a FIFO's open, a hung disk) and say so in
        the host's log and in the status of every source it left unsynced; the next check syncs again."""
        if self._child is None or time.monotonic() - self._started <= self._limit:
            return
        self._child.kill()
        try:
            self._child.wait(timeout=10)
        except subprocess.TimeoutExpired:  # stuck in the kernel: tried again at the next tick
            return
        why = (f"the sync was stopped after {self._limit:.0f} s (setting sources_sync_limit_seconds); what it "
               "filed is kept and the next sync goes on")
        print(f"A sync ran past its limit: {why}.", flush=True)
        try:
            for entry in self._book.entries():
                if self._book.changes(entry).any:
                    self._book.record_error(entry.name, why)
        except Exception as exc:  # a broken book must not stop the palace's server
            print(f"Recording the stopped sync failed: {type(exc).__name__}: {exc}", flush=True)

    def _changed(self) -> bool:
        try:
            return any(self._book.changes(entry).any for entry in self._book.entries())
        except Exception as exc:  # a broken book must not stop the palace's server
            print(f"Checking the sources failed: {type(exc).__name__}: {exc}", flush=True)
            return False


def _limit_setting() -> float:
    """How long a sync child may run: the setting, or its default when the settings cannot be read."""
    from ..config import Settings, load_settings

    try:
        return load_settings().sources_sync_limit_seconds
    except MempalaceError:
        return Settings(home=Path.home()).sources_sync_limit_seconds
