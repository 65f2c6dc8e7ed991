"""The audit log's anchor: its newest entry's number and link, in a small owner-only file beside it.

A log rolled back (its newest entries deleted, or an older copy of the file put back) is a good log
of an earlier day: nothing in its own table can tell. The anchor, rewritten after every append, can.
It also keeps the ids of revoked tokens, so that an older copy cannot bring a revoked token back.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import stat
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import PalaceBusyError, PalaceUnavailableError
from ..files.locks import LockTimeout, OwnLock
from ..files.privacy import OWNER_ONLY_FILE

_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NO_WAIT = getattr(os, "O_NONBLOCK", 0)  # a FIFO in its place must not hang the reader
_MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class Anchor:
    """The log as MemPalace last left it."""

    seq: int  # the newest entry's number
    link: str  # and its link
    chained_from: int  # the first chained entry: every one from it on must carry a link
    revoked: tuple[str, ...] = ()  # ids of the tokens revoked so far
    broken: str = ""  # a break found at an append, kept until the owner accepts the log as it is

    def after(self, seq: int, link: str, revoked: str | None = None) -> Anchor:
        """The anchor once entry `seq` with `link` is appended (revoking token `revoked`)."""
        listed = {*self.revoked, revoked} if revoked else set(self.revoked)
        return replace(self, seq=seq, link=link, revoked=tuple(sorted(listed)))


def anchor_path(book: Path) -> Path:
    return book.with_suffix(".anchor")


BUSY = "Another process has been writing this palace's audit log for too long; try again in a moment."


class AnchorLock:
    """One append (entry and anchor) at a time across processes: the log's own write lock ends at its
    COMMIT, and an anchor written after it must not be overtaken by an older one."""

    def __init__(self, book: Path, timeout: float):
        self._lock = OwnLock(book.with_suffix(".anchor.lock"), timeout=timeout)
        self._in_process = threading.RLock()  # flock shuts out other processes; this, this one's threads
        self._depth = 0  # an append inside `accept` holds it again

    def __enter__(self) -> None:
        if not self._in_process.acquire(timeout=self._lock.timeout):
            raise PalaceBusyError(BUSY)
        try:
            if self._depth == 0:
                self._lock.acquire()
        except LockTimeout:
            self._in_process.release()
            raise PalaceBusyError(BUSY) from None
        except BaseException:
            self._in_process.release()
            raise
        self._depth += 1

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._lock.release()
        self._in_process.release()


def read_anchor(path: Path) -> Anchor | None:
    """The anchor, None if there is none; one that is not a plain file MemPalace wrote comes back
    broken (a symlink is never followed)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | _NO_FOLLOW | _NO_WAIT)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _unreadable(path, exc.strerror or str(exc))
    try:
        with os.fdopen(descriptor, "rb") as handle:
            found = os.fstat(descriptor)
            if not stat.S_ISREG(found.st_mode) or found.st_size > _MAX_BYTES:
                raise ValueError("not a small plain file")
            data = json.loads(handle.read(found.st_size))
        return Anchor(int(data["seq"]), str(data["link"]), int(data["chained_from"]),
                      tuple(str(t) for t in data["revoked"]), str(data["broken"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return _unreadable(path, type(exc).__name__)


def write_anchor(path: Path, anchor: Anchor) -> None:
    """Replace the anchor in one step: a new owner-only file, synced, renamed over the old one (a
    symlink in its place is replaced, not followed)."""
    data = json.dumps({"seq": anchor.seq, "link": anchor.link, "chained_from": anchor.chained_from,
                       "revoked": list(anchor.revoked), "broken": anchor.broken}).encode("utf-8")
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW, OWNER_ONLY_FILE)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise PalaceUnavailableError(f"The audit log's anchor {path} cannot be written ({exc.strerror or exc}); "
                                     "the write itself is stored and logged.") from None


def disagreement(anchor: Anchor | None, db: sqlite3.Connection, path: Path) -> str:
    """Why the log in `db` is not the one its anchor describes ("" when it is)."""
    if anchor is None:
        marked = db.execute("SELECT since FROM audit_anchored").fetchone()
        if marked is None:
            return ""  # never anchored: a new log, or one from before anchors
        if marked[0] == db.execute("SELECT max(seq) FROM audit").fetchone()[0]:
            return ""  # the first anchored entry is the newest: its anchor was not written yet (a crash)
        return (f"its anchor ({path.name}) was deleted, so a deletion of the newest entries or an older copy "
                "of the log put back could go unseen.")
    if anchor.broken:
        return anchor.broken
    newest = db.execute("SELECT max(seq) FROM audit").fetchone()[0]
    if newest is None:
        return (f"its anchor says entries up to {anchor.seq} were written, but they are gone: the log file was "
                "deleted or emptied.")
    if newest < anchor.seq:
        return (f"the log ends at entry {newest}, but its anchor says entries up to {anchor.seq} were written: the "
                "newest entries were deleted, or an older copy of the file was put back.")
    row = db.execute("SELECT chain FROM audit WHERE seq = ?", [anchor.seq]).fetchone()
    if row is None or row[0] != anchor.link:
        return (f"entry {anchor.seq} is not the one its anchor records: the log was rewritten, or another copy "
                "of it was put in its place.")
    return ""


def first_anchor(db: sqlite3.Connection, seq: int, link: str, revoked: tuple[str, ...] = ()) -> Anchor:
    """The anchor of a log that has none (or an unreadable one): chained from its first linked entry,
    with the tokens revoked as its book and `revoked` say."""
    chained_from = db.execute("SELECT min(seq) FROM audit WHERE chain IS NOT NULL").fetchone()[0] or seq
    listed = {r[0] for r in db.execute("SELECT id FROM tokens WHERE revoked_at IS NOT NULL")}
    return Anchor(seq, link, chained_from, tuple(sorted(listed | set(revoked))))


def _unreadable(path: Path, why: str) -> Anchor:
    return Anchor(0, "", 0, (), f"its anchor ({path.name}) is not the file MemPalace wrote ({why}).")
