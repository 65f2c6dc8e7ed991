"""Palace files for their owner alone: folders 0700 and files 0600 when MemPalace makes them, never
written through a link planted in their place; a palace folder of another user, in another user's
folder, or that other users can write to refused (what is found there is trusted by whoever opens it);
plain warnings where other users can read a palace or MemPalace's home."""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from pathlib import Path

from ..errors import PalaceUnavailableError

OWNER_ONLY_DIR = 0o700
OWNER_ONLY_FILE = 0o600
OWNER_ONLY_UMASK = 0o077  # what MemPalace's own server processes create files with
NEUTRAL_FOLDER = os.path.abspath(os.sep)  # where MemPalace's server processes run: never a palace
_POSIX = os.name == "posix"
_NO_LINKS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_PATH_ONLY = getattr(os, "O_PATH", 0) if os.path.isdir("/proc/self/fd") else 0


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
    """Make files this process created (or owns) readable by their owner alone; missing ones, links and
    other users' files are left alone."""
    if not _POSIX:
        return
    for path in paths:
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NO_LINKS)
        except OSError:
            continue
        try:
            if os.fstat(descriptor).st_uid == os.geteuid():
                os.fchmod(descriptor, OWNER_ONLY_FILE)
        except OSError:
            pass
        finally:
            os.close(descriptor)


def owner_database(*paths: Path) -> None:
    """`owner_file` for an SQLite database and its journals, without a descriptor whose closing drops
    locks: closing any ordinary descriptor of a file drops every POSIX lock this process holds on it,
    SQLite's included (other processes then took a shared catalog for unused and it was reported
    malformed). Linux's O_PATH descriptors hold no locks to drop."""
    if not _POSIX:
        return
    for path in paths:
        try:
            if _PATH_ONLY:
                descriptor = os.open(path, _PATH_ONLY | os.O_NOFOLLOW)  # a link is opened as the link itself
                try:
                    _owner_only(os.fstat(descriptor), f"/proc/self/fd/{descriptor}")
                finally:
                    os.close(descriptor)
            else:
                _owner_only(os.lstat(path), path)
        except OSError:
            continue


def _owner_only(found: os.stat_result, where: str | Path) -> None:
    if stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid() and found.st_mode & 0o777 != OWNER_ONLY_FILE:
        os.chmod(where, OWNER_ONLY_FILE)


def open_own(path: Path, flags: int) -> int:
    """A descriptor of a file MemPalace keeps beside a palace (made 0600), opened only if no link was
    planted in its place: a link would make MemPalace write (or truncate) wherever it points."""
    try:
        return os.open(path, flags | _NO_LINKS, OWNER_ONLY_FILE)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.EMLINK and os.path.islink(path)):
            raise PalaceUnavailableError(_link_message(path)) from None
        raise


def refuse_links(*paths: Path) -> None:
    """Refuse files and folders of MemPalace's that are links (for those that SQLite or a folder
    listing opens, where no O_NOFOLLOW can be asked for)."""
    for path in paths:
        if path.is_symlink():
            raise PalaceUnavailableError(_link_message(path))


def private_database(path: Path, schema: str) -> sqlite3.Connection:
    """A palace's own SQLite book (audit log, change log) opened for every thread, write-ahead logged,
    owner-only, never through a link, with `schema` applied."""
    refuse_linked_database(path)
    db = sqlite3.connect(str(path), timeout=30, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    owner_database(path, Path(f"{path}-wal"), Path(f"{path}-shm"))
    db.executescript(schema)
    return db


def refuse_linked_database(path: Path) -> None:
    """Refuse an SQLite file of MemPalace's, or one of its journals, that is a link (SQLite follows them)."""
    refuse_links(*(Path(f"{path}{suffix}") for suffix in ("", "-wal", "-shm", "-journal")))


def _link_message(path: Path) -> str:
    return (f"{path} is a symbolic link, where MemPalace keeps a file of its own, so it will not open it (a "
            f"link planted there would make MemPalace write wherever it points). Remove it (`rm '{path}'`) "
            "and try again.")


def write_own(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step (a reader never sees half of it); a link there is replaced,
    never followed."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.unlink(missing_ok=True)
    with os.fdopen(open_own(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL), "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, path)


def read_own(path: Path) -> str:
    """The text of a file MemPalace keeps beside a palace: refused if it is a link or another user's
    (planted: it would steer this user's processes)."""
    with os.fdopen(open_own(path, os.O_RDONLY | os.O_NONBLOCK), encoding="utf-8") as handle:
        owner = os.fstat(handle.fileno()).st_uid
        if _POSIX and owner != os.geteuid():
            raise PalaceUnavailableError(
                f"{path} belongs to user {user_name(owner)}, not to you, so MemPalace will not trust it. "
                f"Remove it (`rm '{path}'`) if you can, and see who else writes in that folder.")
        return handle.read()


def user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"#{uid}"


def refuse_untrusted(folder: Path) -> None:
    """Refuse a palace folder MemPalace cannot trust: one of another user (root included: its files
    would become unusable to their owner), one inside another user's folder (they could put a palace
    of theirs in its place), or one other users can write to."""
    if not _POSIX:
        return
    me, where = os.geteuid(), folder.resolve()
    try:
        owner = where.stat().st_uid
    except OSError:
        owner = me  # a folder that does not exist yet is made owner-only, by this user
    if owner != me:
        name = user_name(owner)
        as_root = f" (as root too: run it as {name}, e.g. `sudo -u {name} mempalace …`)" if me == 0 else ""
        raise PalaceUnavailableError(
            f"The palace at {folder} belongs to user {name}; open a palace of your own, or ask {name} to share "
            f"it through a server (`mempalace serve`). MemPalace trusts the files it finds beside a palace, so "
            f"it opens only its own user's palaces{as_root}.")
    for parent in where.parents:
        try:
            holder = parent.stat().st_uid
        except OSError:
            continue
        if holder not in (me, 0):
            raise PalaceUnavailableError(
                f"The palace at {folder} is inside {parent}, which belongs to user {user_name(holder)}: they could "
                "put a palace of theirs in its place. Move the palace to a folder of your own and open it there.")
    refuse_if_others_can_write(folder)


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
