"""Palace files for their owner alone: folders 0700 and files 0600 when MemPalace makes them, a palace
folder other users can write to refused (what runs there runs as whoever opens it next), and plain
warnings where other users can read a palace or MemPalace's home."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import PalaceUnavailableError

OWNER_ONLY_DIR = 0o700
OWNER_ONLY_FILE = 0o600
OWNER_ONLY_UMASK = 0o077  # what MemPalace's own server processes create files with
NEUTRAL_FOLDER = os.path.abspath(os.sep)  # where MemPalace's server processes run: never a palace
_POSIX = os.name == "posix"


def owner_dir(path: Path) -> Path:
    """Make `path` and its missing parents if need be; every folder made here is its owner's alone."""
    missing = [p for p in [path, *path.parents] if not p.exists()]
    path.mkdir(parents=True, exist_ok=True)
    if _POSIX:
        for made in missing:
            try:
                os.chmod(made, OWNER_ONLY_DIR)
            except OSError:
                pass
    return path


def owner_file(*paths: Path) -> None:
    """Make files this process created (or owns) readable by their owner alone; missing ones are skipped."""
    if not _POSIX:
        return
    for path in paths:
        try:
            if path.stat().st_uid == os.getuid():
                os.chmod(path, OWNER_ONLY_FILE)
        except OSError:
            pass


def refuse_if_others_can_write(folder: Path) -> None:
    """A palace folder other users can write to is refused: a module or a file planted there would be
    read by whoever opens the palace next."""
    if not _POSIX:
        return
    try:
        mode = folder.stat().st_mode
    except OSError:
        return  # a folder that does not exist yet is made owner-only
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise PalaceUnavailableError(
            f"The palace at {folder} can be changed by other users of this machine (permissions "
            f"{stat.filemode(mode)}), so MemPalace will not open it: a file planted there would run or be "
            f"read as whoever opens it next. If it is yours, run `chmod go-w '{folder}'` (or "
            f"`chmod -R go-rwx '{folder}'` to keep it private) and open it again; if it is not, copy it "
            "to a folder of your own first."
        )


def exposure_warnings(**places: Path) -> list[str]:
    """A sentence for each of `places` (a name → a folder) that other users of this machine can read or
    enter, with the command that makes it private."""
    if not _POSIX:
        return []
    found = []
    for name, folder in places.items():
        try:
            mode = folder.stat().st_mode
        except OSError:
            continue
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            found.append(f"The {name} at {folder} is open to other users of this machine "
                         f"({stat.filemode(mode)}): they can copy what it holds, past every wing scope. "
                         f"Run `chmod -R go-rwx '{folder}'` to make it yours alone.")
    return found
