"""The sources a palace keeps in sync, and what each sync saw: a small SQLite file next to the catalog.

A source is a file or folder ingest can read. For each of its files the book keeps the size,
modification and change times last filed (the change time catches a file replaced by another of the
same size and modification time, and a permission mended), the conversations filed from it, and its error, so a sync of an
unchanged source stats its files and reads nothing. Nothing here imports Chroma or the model: the
shared palace's host asks `changes` every minute.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

from ..errors import InvalidInputError, PlaceNotFoundError
from ..files.paths import checked_path
from ..files.privacy import owner_database, refuse_linked_database
from ..formats.walking import walk
from ..text.names import wing_name
from .catalog import CATALOG_FILE

SOURCES_FILE = "mempalace_sources.sqlite3"
SQLITE_STORES = {".vscdb", ".sqlite", ".sqlite3", ".db"}  # a tool's SQLite store: its -wal log counts too
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources(
    name TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, wing TEXT, format TEXT, added_at TEXT NOT NULL,
    added_by TEXT NOT NULL DEFAULT '', last_sync TEXT, last_added INTEGER NOT NULL DEFAULT 0,
    last_conversations INTEGER NOT NULL DEFAULT 0, last_new_at TEXT, last_new_conversations INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '', wing_per_file INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS files(
    source TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    parents TEXT NOT NULL DEFAULT '[]', error TEXT NOT NULL DEFAULT '', gone_at TEXT, ctime_ns INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(source, path)) WITHOUT ROWID;
"""
_ADDED_COLUMNS = {("files", "ctime_ns"): "ALTER TABLE files ADD COLUMN ctime_ns INTEGER NOT NULL DEFAULT 0",
                  ("sources", "wing_per_file"): "ALTER TABLE sources ADD COLUMN wing_per_file INTEGER NOT NULL DEFAULT 0"}
_ENTRY_COLUMNS = ("name, path, wing, format, added_at, added_by, last_sync, last_added, last_conversations, "
                  "last_new_at, last_new_conversations, wing_per_file, last_error")
_NAME = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class SourceEntry:
    """A source and the outcome of its last sync (`errors`: (file, message) of the files that failed)."""

    name: str
    path: str
    wing: str | None
    format: str | None
    added_at: str
    added_by: str
    last_sync: str | None
    last_added: int
    last_conversations: int
    last_new_at: str | None  # the last sync that filed something, and how many conversations it brought
    last_new_conversations: int
    wing_per_file: bool  # plain text that names no project: a wing named after each file, not the source's
    files_seen: int
    files_gone: int
    errors: tuple[tuple[str, str], ...]

    @property
    def text_wing(self) -> str | None:
        """The wing of the source's plain text that names no project: the source's own (named after it),
        unless the source files everything in one wing or gives each file a wing of its own."""
        return None if self.wing or self.wing_per_file else wing_name(self.name)

    def wing_rule(self) -> str:
        """How the wing of what the source files is chosen, for people."""
        if self.wing:
            return f"everything from it goes to wing {self.wing}"
        text = "a wing named after its file" if self.wing_per_file else f"wing {self.text_wing}, the source's name"
        return ("chosen per conversation: a coding tool's session goes to its project's wing, an export to its "
                f"service's or workspace's, and plain text to {text}")

    def wing_shown(self) -> str:
        """The wing rule in a few words, for a table."""
        return self.wing or f"per conversation (plain text: {'one per file' if self.wing_per_file else self.text_wing})"


class Seen(NamedTuple):
    """A source file as a scan saw it (a SQLite store counts its write-ahead log too)."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int


@dataclass(frozen=True)
class Changes:
    """What a scan of a source found against the book: files new or changed since last filed, files
    the book has that are no longer there, and how many were unchanged."""

    changed: tuple[Seen, ...]
    gone: tuple[str, ...]
    unchanged: int

    @property
    def any(self) -> bool:
        return bool(self.changed or self.gone)


def sources_path(catalog: Path) -> Path:
    """The book sits next to the catalog: in the palace folder, or in the cache for a server's palace."""
    return catalog.with_name(SOURCES_FILE) if catalog.name == CATALOG_FILE \
        else catalog.with_suffix(".sources.sqlite3")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class SourceBook:
    """The sources of one palace; safe to use from several processes (SQLite, WAL)."""

    def __init__(self, path: Path):
        self.path = path
        self._held: sqlite3.Connection | None = None

    @contextmanager
    def held(self) -> Iterator[None]:
        """One connection for every call in the block (a sync records many files)."""
        with self._db() as db:
            self._held = db
            try:
                yield
            finally:
                self._held = None

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        if self._held is not None:
            yield self._held
            return
        refuse_linked_database(self.path)
        fresh = not self.path.exists()
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            if fresh:
                owner_database(self.path)
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
            have = {(table, row[1]) for table in ("files", "sources")
                    for row in db.execute(f"PRAGMA table_info({table})")}
            for column, statement in _ADDED_COLUMNS.items():
                if column not in have:
                    try:
                        db.execute(statement)
                    except sqlite3.OperationalError as exc:  # another process added it meanwhile
                        if "duplicate column" not in str(exc):
                            raise
            yield db
        finally:
            db.close()

    def add(self, path: str | os.PathLike[str], wing: str | None = None, format_name: str | None = None,
            name: str | None = None, added_by: str = "", wing_per_file: bool = False) -> SourceEntry:
        """Register a file or folder (it must exist); its name defaults to the folder's or file's.
        `wing_per_file`: its plain text goes to a wing named after each file, not to the source's wing."""
        where = checked_path(Path(path).expanduser())
        if not where.exists():
            raise InvalidInputError(f"{where} does not exist: give a transcript file or a folder of them.")
        if wing and wing_per_file:
            raise InvalidInputError("Give a wing for everything, or a wing per file, not both.")
        where = where.resolve()
        name = _source_name(name or where.name or "source")
        with self._db() as db:
            taken = db.execute("SELECT name FROM sources WHERE path = ?", (str(where),)).fetchone()
            if taken:
                raise InvalidInputError(f"{where} is already the source {taken[0]!r}.")
            if db.execute("SELECT 1 FROM sources WHERE name = ?", (name,)).fetchone():
                raise InvalidInputError(f"There is already a source named {name!r}: pick another with --name.")
            db.execute("INSERT INTO sources(name, path, wing, format, added_at, added_by, wing_per_file) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", (name, str(where), wing, format_name, now(), added_by,
                                                        int(wing_per_file)))
        return self.entry(name)

    def remove(self, name: str) -> SourceEntry:
        """Forget a source (its drawers stay in the palace)."""
        entry = self.entry(name)
        with self._db() as db:
            db.execute("DELETE FROM files WHERE source = ?", (entry.name,))
            db.execute("DELETE FROM sources WHERE name = ?", (entry.name,))
        return entry

    def entries(self) -> list[SourceEntry]:
        if not self.path.exists():
            return []
        with self._db() as db:
            rows = db.execute(f"SELECT {_ENTRY_COLUMNS} FROM sources ORDER BY name").fetchall()
            return [self._entry(db, row) for row in rows]

    def entry(self, name: str) -> SourceEntry:
        """The source called `name`, or an error naming the sources there are."""
        found = {e.name: e for e in self.entries()}
        if name in found:
            return found[name]
        known = ", ".join(found) or "none yet (add one with `mempalace sources add PATH`)"
        raise PlaceNotFoundError(f"No source named {name!r}. Sources: {known}.")

    def changes(self, entry: SourceEntry) -> Changes:
        """Stat the source's files (reading none) against what the book recorded."""
        known = self.files(entry.name)
        changed, seen = [], set()
        for found in _stat_all(Path(entry.path)):
            seen.add(found.path)
            before = known.get(found.path)
            if before is None or before[:2] != (found.size, found.mtime_ns) or before[2] is not None \
                    or before[4] != found.ctime_ns:
                changed.append(found)
        gone = tuple(p for p, state in known.items() if p not in seen and state[2] is None)
        return Changes(tuple(changed), gone, len(seen) - len(changed))

    def files(self, name: str) -> dict[str, tuple[int, int, str | None, str, int]]:
        """{file: (size, mtime_ns, gone since or None, error, ctime_ns)} as last recorded."""
        if not self.path.exists():
            return {}
        with self._db() as db:
            return {row[0]: tuple(row[1:]) for row in db.execute(
                "SELECT path, size, mtime_ns, gone_at, error, ctime_ns FROM files WHERE source = ?", (name,))}

    def record_file(self, name: str, seen: Seen, parents: Sequence[str] = (), error: str = "") -> None:
        """A file filed (or failed, with `error`: it is tried again once it changes); nothing if the
        source was removed meanwhile."""
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO files(source, path, size, mtime_ns, ctime_ns, parents, error, gone_at) "
                       "SELECT ?, ?, ?, ?, ?, ?, ?, NULL WHERE EXISTS (SELECT 1 FROM sources WHERE name = ?)",
                       (name, *seen, json.dumps(sorted(parents)), error, name))

    def mark_gone(self, name: str, paths: Sequence[str]) -> None:
        with self._db() as db:
            db.executemany("UPDATE files SET gone_at = ? WHERE source = ? AND path = ?",
                           [(now(), name, path) for path in paths])

    def record_sync(self, name: str, added: int, conversations: int, error: str = "") -> None:
        """A sync's outcome; `error` is the source's own (its folder gone), each file's is kept with the file."""
        at = now()
        with self._db() as db:
            db.execute("UPDATE sources SET last_sync = ?, last_added = ?, last_conversations = ?, last_error = ? "
                       "WHERE name = ?", (at, added, conversations, error, name))
            if added:
                db.execute("UPDATE sources SET last_new_at = ?, last_new_conversations = ? WHERE name = ?",
                           (at, conversations, name))

    def record_error(self, name: str, error: str) -> None:
        """A sync of the source that failed as a whole (stopped at its time limit); the next one that ends clears it."""
        with self._db() as db:
            db.execute("UPDATE sources SET last_error = ? WHERE name = ?", (error, name))

    def gone_parents(self) -> set[str]:
        """The conversations filed from files that are gone (their drawers stay: the palace is the archive)."""
        if not self.path.exists():
            return set()
        with self._db() as db:
            rows = db.execute("SELECT parents FROM files WHERE gone_at IS NOT NULL").fetchall()
        return {parent for (parents,) in rows for parent in json.loads(parents)}

    @staticmethod
    def _entry(db: sqlite3.Connection, row: tuple) -> SourceEntry:
        name = row[0]
        seen, gone = db.execute("SELECT COUNT(*), COUNT(gone_at) FROM files WHERE source = ?", (name,)).fetchone()
        errors = tuple(db.execute("SELECT path, error FROM files WHERE source = ? AND error != '' AND gone_at IS NULL "
                                  "ORDER BY path", (name,)).fetchall())
        own = ((row[1], row[12]),) if row[12] else ()
        return SourceEntry(*row[:11], wing_per_file=bool(row[11]), files_seen=seen - gone, files_gone=gone,
                           errors=own + tuple((p, e) for p, e in errors))


def _source_name(text: str) -> str:
    name = _NAME.sub("-", text.lower()).strip("-")[:60]
    if not name:
        raise InvalidInputError(f"{text!r} cannot name a source: use letters or digits.")
    return name


def stat_file(path: Path) -> Seen:
    """How a scan sees one source file or Slack export folder (a folder: its total size and newest
    times, so a new day file counts as a change; a SQLite store: with its `-wal`, where recent writes
    wait before they reach the main file)."""
    if path.is_dir():
        stats = [entry.stat() for entry in _files_in(path)]
    else:
        stats = [path.stat()]
        log = path.with_name(path.name + "-wal")
        if path.suffix.lower() in SQLITE_STORES and log.is_file():
            stats.append(log.stat())
    return Seen(str(path), sum(s.st_size for s in stats), max((s.st_mtime_ns for s in stats), default=0),
                max((s.st_ctime_ns for s in stats), default=0))


def _stat_all(root: Path) -> Iterator[Seen]:
    """Each source file under `root` as a scan sees it."""
    for path, _ in walk([root]):
        try:
            yield stat_file(path)
        except OSError:
            continue  # vanished while walked: the next sync sees it gone


def _files_in(folder: Path) -> Iterator[os.DirEntry]:
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            yield from _files_in(Path(entry.path))
        elif entry.is_file(follow_symlinks=False):
            yield entry
