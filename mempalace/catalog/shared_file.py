"""The catalog's SQLite file as several processes share it: its schema, and a bulk load's window,
which no opener may disturb.

A bulk load (`Catalog.load`) drops the per-row triggers and indexes while it inserts page by page,
and restores them at its end. An opener that made the schema again meanwhile (as every opener once
did) restored the triggers halfway: the load then indexed its rows twice and the full-text index
disagreed with its table, which SQLite reports as a malformed database. So an opener leaves a
schema alone while a load holds `<catalog>.load-lock`; a load marks the file `loading`, and an
opener that finds the mark with the lock free (the loader died) restores the schema and drops the
build's mark, so that the next read rebuilds the catalog whole. A file is deleted and made afresh only when
SQLite finds it damaged (`PRAGMA quick_check`), never on an error another process's work can cause.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from ..errors import PalaceBusyError
from ..files.locks import LockTimeout, OwnLock
from ..files.privacy import owner_database, refuse_linked_database

SCHEMA_VERSION = "7"
LOADING_KEY = "loading"  # in the state table while a bulk load has the triggers and indexes dropped
LOAD_WAIT_SECONDS = 600.0  # an outdated schema waits this long for a load of the old one to end
BUILT_KEY = "collection"  # the Chroma collection the catalog was built from: gone, the next read rebuilds it

SCHEMA = """
CREATE TABLE IF NOT EXISTS drawers(
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, content TEXT NOT NULL,
    wing TEXT NOT NULL, room TEXT NOT NULL, hall TEXT NOT NULL DEFAULT '',
    source_file TEXT NOT NULL DEFAULT '', chunk_index INTEGER NOT NULL DEFAULT 0,
    parent_id TEXT NOT NULL DEFAULT '', filed_at TEXT NOT NULL DEFAULT '',
    seq INTEGER NOT NULL DEFAULT 0, vector BLOB, place TEXT NOT NULL DEFAULT '', dated TEXT NOT NULL DEFAULT '',
    said TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '', aliases TEXT NOT NULL DEFAULT '',
    terms TEXT);  -- what the keyword index reads instead of content (CJK text: cjk.index_text), else NULL
CREATE INDEX IF NOT EXISTS drawers_place ON drawers(wing, room, hall);
CREATE INDEX IF NOT EXISTS drawers_source ON drawers(source_file, chunk_index);
CREATE INDEX IF NOT EXISTS drawers_room ON drawers(room, dated);
CREATE INDEX IF NOT EXISTS drawers_wing_dated ON drawers(wing, room, dated);
DROP INDEX IF EXISTS drawers_wing_filed;
CREATE INDEX IF NOT EXISTS drawers_wing_order ON drawers(wing, filed_at, source_file, parent_id, chunk_index, id);
CREATE INDEX IF NOT EXISTS drawers_room_order ON drawers(room, filed_at, source_file, parent_id, chunk_index, id);
CREATE INDEX IF NOT EXISTS drawers_wing_day ON drawers(wing, dated, parent_id);
CREATE INDEX IF NOT EXISTS drawers_parent ON drawers(parent_id);
CREATE INDEX IF NOT EXISTS drawers_aliases ON drawers(aliases, room) WHERE aliases != '';
CREATE INDEX IF NOT EXISTS drawers_listing ON drawers(wing, room, source_file, chunk_index);
CREATE INDEX IF NOT EXISTS drawers_newest ON drawers(dated DESC, parent_id, chunk_index);
CREATE TABLE IF NOT EXISTS room_counts(
    wing TEXT NOT NULL, room TEXT NOT NULL, hall TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY(wing, room, hall)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS writes(
    token TEXT PRIMARY KEY, owner TEXT NOT NULL, kind TEXT NOT NULL, stamp INTEGER NOT NULL, ids TEXT NOT NULL);
CREATE VIEW IF NOT EXISTS drawers_indexed AS
    SELECT rowid AS rowid, coalesce(terms, content) AS content, place FROM drawers;
CREATE VIRTUAL TABLE IF NOT EXISTS drawers_fts USING fts5(
    content, place, content='drawers_indexed', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS drawers_vocab USING fts5vocab(drawers_fts, 'row');
CREATE TRIGGER IF NOT EXISTS drawers_ai AFTER INSERT ON drawers BEGIN
    INSERT INTO drawers_fts(rowid, content, place) VALUES (new.rowid, coalesce(new.terms, new.content), new.place);
    INSERT INTO room_counts VALUES (new.wing, new.room, new.hall, 1)
        ON CONFLICT(wing, room, hall) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS drawers_ad AFTER DELETE ON drawers BEGIN
    INSERT INTO drawers_fts(drawers_fts, rowid, content, place)
        VALUES ('delete', old.rowid, coalesce(old.terms, old.content), old.place);
    UPDATE room_counts SET n = n - 1 WHERE wing = old.wing AND room = old.room AND hall = old.hall;
    DELETE FROM room_counts WHERE n <= 0;
END;
CREATE TRIGGER IF NOT EXISTS drawers_au AFTER UPDATE OF wing, room, hall ON drawers BEGIN
    INSERT INTO drawers_fts(drawers_fts, rowid, content, place)
        VALUES ('delete', old.rowid, coalesce(old.terms, old.content), old.place);
    INSERT INTO drawers_fts(rowid, content, place) VALUES (new.rowid, coalesce(new.terms, new.content), new.place);
    UPDATE room_counts SET n = n - 1 WHERE wing = old.wing AND room = old.room AND hall = old.hall;
    DELETE FROM room_counts WHERE n <= 0;
    INSERT INTO room_counts VALUES (new.wing, new.room, new.hall, 1)
        ON CONFLICT(wing, room, hall) DO UPDATE SET n = n + 1;
END;
"""

TRIGGERS = tuple(re.findall(r"CREATE TRIGGER IF NOT EXISTS drawers_a[idu] .*?END;", SCHEMA, re.S))  # per-row upkeep
TRIGGER_NAMES = ("drawers_ai", "drawers_ad", "drawers_au")
INDEXES = tuple(re.findall(r"CREATE INDEX IF NOT EXISTS .*?;", SCHEMA))
INDEX_NAMES = tuple(re.findall(r"CREATE INDEX IF NOT EXISTS (\w+) ", SCHEMA))


def open_catalog(path: Path) -> sqlite3.Connection:
    """A connection to the catalog at `path`, its schema current; a damaged file is made afresh (it is a
    cache: Chroma has everything)."""
    try:
        return _connect(path)
    except LockTimeout as exc:
        raise PalaceBusyError("The palace's catalog is being rebuilt by another process; try again when it is "
                              "done.") from exc
    except sqlite3.DatabaseError as exc:
        if not _damaged(path):  # busy, or a lock, I/O or open hiccup: the file is fine, and maybe in use elsewhere
            raise PalaceBusyError(f"The palace's catalog is busy in another process ({exc}); try again in a "
                                  "minute.") from exc
    _make_afresh(path)
    return _connect(path)


def _make_afresh(path: Path) -> None:
    """Delete a damaged catalog, once however many processes found it so: under the load lock, and
    only if it is still damaged (another may have made it afresh meanwhile)."""
    with loading(path):
        if _damaged(path):
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)


def loading(path: Path) -> OwnLock:
    """Held around a bulk load (`with loading(path):`): one at a time, and an opener never repairs the
    schema under it."""
    return OwnLock(_load_lock(path))


def _connect(path: Path) -> sqlite3.Connection:
    refuse_linked_database(path)
    db = sqlite3.connect(str(path), timeout=30, check_same_thread=False, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        owner_database(path, Path(f"{path}-wal"), Path(f"{path}-shm"))
        db.execute("PRAGMA synchronous=NORMAL")
        lock = OwnLock(_load_lock(path), timeout=0)
        try:
            lock.acquire()
        except LockTimeout:
            if _version(db) == SCHEMA_VERSION:
                return db  # a load is under way: it restores the triggers and indexes itself
            lock.acquire(timeout=LOAD_WAIT_SECONDS)
        try:
            version = _version(db)  # read with the lock held: another opener may have just made it
            _make_schema(db, version not in (None, SCHEMA_VERSION))
        finally:
            lock.release()
    except BaseException:
        db.close()
        raise
    return db


def _version(db: sqlite3.Connection) -> str | None:
    """The schema's version, "" when the state table has none yet, None when there is no state table."""
    if not db.execute("SELECT name FROM sqlite_master WHERE name = 'state'").fetchall():
        return None
    found = db.execute("SELECT value FROM state WHERE key = 'schema'").fetchall()
    return found[0][0] if found else ""


def _make_schema(db: sqlite3.Connection, outdated: bool) -> None:
    """With no load under way: the schema made where it is missing (an upgrade's new index), and a
    dead load's mark dropped with the build's (its rows are partial: the next read rebuilds)."""
    if outdated:
        db.executescript("DROP TABLE IF EXISTS drawers_vocab; DROP TABLE IF EXISTS drawers_fts;"
                         "DROP VIEW IF EXISTS drawers_indexed;"
                         "DROP TABLE IF EXISTS drawers; DROP TABLE IF EXISTS room_counts;"
                         "DROP TABLE IF EXISTS state;")
    db.executescript(SCHEMA)
    db.execute("INSERT OR REPLACE INTO state VALUES ('schema', ?)", (SCHEMA_VERSION,))
    if db.execute("SELECT 1 FROM state WHERE key = ?", (LOADING_KEY,)).fetchall():
        db.execute("DELETE FROM state WHERE key IN (?, ?)", (LOADING_KEY, BUILT_KEY))


def _damaged(path: Path) -> bool:
    """Whether SQLite finds the file damaged: not a database, or failing its quick check. A file it
    cannot open or check now (busy, out of descriptors, an I/O error) is not."""
    try:
        probe = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return False
    try:
        return probe.execute("PRAGMA quick_check").fetchone() != ("ok",)
    except sqlite3.OperationalError:
        return False
    except sqlite3.DatabaseError:  # corrupt, or not a database at all
        return True
    finally:
        probe.close()


def _load_lock(path: Path) -> Path:
    return Path(f"{path}.load-lock")
