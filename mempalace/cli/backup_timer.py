"""The shared palace's host backs it up daily when `backups_keep` is above 0: every hour it looks at
the newest backup in `backups_dir/daily-<palace folder>` and, when none is a day old, runs
`mempalace backup --daily` as a child process (which keeps the newest `backups_keep`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..archive.backup import newest_backup_age
from ..files.privacy import NEUTRAL_FOLDER, OWNER_ONLY_UMASK

DAY = 86_400.0
LOOK_SECONDS = 3_600.0
FIRST_LOOK_SECONDS = 60.0  # not while the host is starting


def daily_folder(backups: Path, palace_dir: Path) -> Path:
    return backups / f"daily-{palace_dir.name}"


class BackupTimer:
    """Starts a daily backup child when one is due (at most one at a time)."""

    def __init__(self, palace_dir: Path, keep: int, backups: Path, first_look: float = FIRST_LOOK_SECONDS):
        self._dir, self._keep, self._folder = palace_dir, keep, daily_folder(backups, palace_dir)
        self._due = time.monotonic() + first_look
        self._child: subprocess.Popen[Any] | None = None

    @property
    def busy(self) -> bool:
        return self._child is not None and self._child.poll() is None

    def tick(self) -> None:
        if self._keep <= 0 or self.busy or time.monotonic() < self._due:
            return
        self._due = time.monotonic() + LOOK_SECONDS
        age = newest_backup_age(self._folder)
        if age is not None and age < DAY:
            return
        try:
            self._child = subprocess.Popen(
                [sys.executable, "-P", "-m", "mempalace", "--palace", str(self._dir), "backup", "--daily",
                 str(self._folder / _name())], stdin=subprocess.DEVNULL, stdout=sys.stdout, stderr=subprocess.STDOUT,
                cwd=NEUTRAL_FOLDER, umask=OWNER_ONLY_UMASK, env={**os.environ, "MEMPALACE_SHARED": "1"})
        except OSError as exc:  # out of processes or memory: the next look tries again
            print(f"Starting a backup failed: {exc}", flush=True)


def _name() -> str:
    from ..archive.backup import stamp_name

    return stamp_name()
