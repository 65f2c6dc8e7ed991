"""The change log: each write that changes drawers' places (a move, a room's rename or merge, a
re-rooming or re-halling apply, a delete, a restore, an undo) is one change that records every
drawer's place before and after, so `undo` can put it back while nothing done since depends on it.
One SQLite file beside the catalog, like the audit log (a server palace's is this machine's)."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files.privacy import private_database
from ..models import HALL_BY, ROOM_ALIASES, ROOM_BY
from .catalog import CATALOG_FILE

CHANGES_FILE = "mempalace_changes.sqlite3"
PLACE_KEYS = ("wing", "room", "hall", ROOM_BY, HALL_BY, ROOM_ALIASES)  # what a change of place may touch
STATE = "state"  # a deleted drawer's before/after: {"state": "live"} and {"state": "trash"}
LIVE, TRASHED = {STATE: "live"}, {STATE: "trash"}
_SCHEMA = """
CREATE TABLE IF NOT EXISTS changes (
    id TEXT PRIMARY KEY, at REAL NOT NULL, who TEXT NOT NULL, action TEXT NOT NULL, drawers INTEGER NOT NULL,
    detail TEXT NOT NULL, undone_by TEXT);
CREATE INDEX IF NOT EXISTS changes_at ON changes(at);
CREATE TABLE IF NOT EXISTS change_drawers (
    change TEXT NOT NULL, drawer TEXT NOT NULL, before TEXT NOT NULL, after TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS change_drawers_change ON change_drawers(change);
CREATE INDEX IF NOT EXISTS change_drawers_drawer ON change_drawers(drawer);
"""


@dataclass(frozen=True)
class Change:
    """One recorded change: when, who, what (`action`, with its `detail`), how many drawers, and the
    change that undid it, if one did."""

    id: str
    at: float
    who: str
    action: str
    drawers: int
    detail: dict[str, Any]
    undone_by: str | None = None


Step = tuple[str, dict[str, Any], dict[str, Any]]  # (drawer id, its place before, after)


def changes_path(catalog: Path) -> Path:
    """Beside the catalog: in the palace folder, or in the cache for a server palace."""
    return catalog.with_name(CHANGES_FILE) if catalog.name == CATALOG_FILE else catalog.with_suffix(".changes.sqlite3")


def place_of(metadata: Any) -> dict[str, Any]:
    """The part of a drawer's metadata a change of place may touch (absent keys as None)."""
    return {k: metadata.get(k) or None for k in PLACE_KEYS}


class ChangeBook:
    """The change log of one palace (see the module's docstring)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = private_database(self.path, _SCHEMA)
        return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def record(self, change_id: str, who: str, action: str, steps: Sequence[Step], **detail: Any) -> None:
        """Write one change and its drawers' steps in one transaction."""
        with self._lock:
            db = self._conn()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("INSERT INTO changes (id, at, who, action, drawers, detail) VALUES (?, ?, ?, ?, ?, ?)",
                           (change_id, time.time(), who, action, len({s[0] for s in steps}),
                            json.dumps(detail, ensure_ascii=False, sort_keys=True)))
                db.executemany("INSERT INTO change_drawers (change, drawer, before, after) VALUES (?, ?, ?, ?)",
                               [(change_id, i, json.dumps(b, sort_keys=True), json.dumps(a, sort_keys=True))
                                for i, b, a in steps])
                undoes = detail.get("undoes")
                if undoes:
                    db.execute("UPDATE changes SET undone_by = ? WHERE id = ?", (change_id, undoes))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def newest(self, limit: int = 50, undoable: bool = False) -> list[Change]:
        """The newest changes first; `undoable`: only those not undone and not themselves an undo."""
        if not self.path.exists():
            return []
        where = "WHERE undone_by IS NULL AND action != 'undo'" if undoable else ""
        with self._lock:
            rows = self._conn().execute(f"SELECT id, at, who, action, drawers, detail, undone_by FROM changes {where} "
                                        "ORDER BY at DESC, rowid DESC LIMIT ?", (limit,)).fetchall()
        return [_change(r) for r in rows]

    def get(self, change_id: str) -> Change | None:
        if not self.path.exists():
            return None
        with self._lock:
            row = self._conn().execute("SELECT id, at, who, action, drawers, detail, undone_by FROM changes WHERE id = ?",
                                       (change_id,)).fetchone()
        return _change(row) if row else None

    def steps(self, change_id: str) -> list[Step]:
        with self._lock:
            rows = self._conn().execute("SELECT drawer, before, after FROM change_drawers WHERE change = ? ORDER BY rowid",
                                        (change_id,)).fetchall()
        return [(i, json.loads(b), json.loads(a)) for i, b, a in rows]

    def later(self, change: Change, ids: Sequence[str]) -> list[Change]:
        """Changes after `change` that touched any of `ids`, oldest first."""
        with self._lock:
            db = self._conn()
            db.execute("CREATE TEMP TABLE IF NOT EXISTS asked (id TEXT PRIMARY KEY)")
            db.execute("DELETE FROM asked")
            db.executemany("INSERT OR IGNORE INTO asked VALUES (?)", [(i,) for i in ids])
            rows = db.execute("SELECT DISTINCT c.id, c.at, c.who, c.action, c.drawers, c.detail, c.undone_by, c.rowid "
                              "FROM changes c JOIN change_drawers d ON d.change = c.id JOIN asked a ON a.id = d.drawer "
                              "WHERE c.rowid > (SELECT rowid FROM changes WHERE id = ?) ORDER BY c.rowid",
                              (change.id,)).fetchall()
        return [_change(r) for r in rows]


def _change(row: Any) -> Change:
    return Change(row[0], float(row[1]), row[2], row[3], int(row[4]), json.loads(row[5]), row[6])
