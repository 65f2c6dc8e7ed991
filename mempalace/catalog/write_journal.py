"""The catalog's journal of writes under way (see `sync.CatalogSync`): a writer records what it is
about to touch before Chroma gets it, and clears the record once the catalog holds the change (a
mixin of `Catalog`, which provides `_db`)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class JournalEntry:
    """A write to Chroma under way: who (`machine:pid:instance`), what kind (`add` or `change`), its
    stamp and the drawer ids it touches. Left behind by a writer that died, it tells others what to fix."""

    token: str
    owner: str
    kind: str
    stamp: int
    ids: tuple[str, ...]


class WriteJournal:
    """The `writes` table of the catalog."""

    _db: sqlite3.Connection

    def open_write(self, entry: JournalEntry) -> None:
        self._db.execute("INSERT INTO writes VALUES (?, ?, ?, ?, ?)",
                         (entry.token, entry.owner, entry.kind, entry.stamp, json.dumps(list(entry.ids))))

    def close_write(self, token: str) -> None:
        self._db.execute("DELETE FROM writes WHERE token = ?", (token,))

    def open_writes(self) -> list[JournalEntry]:
        rows = self._db.execute("SELECT token, owner, kind, stamp, ids FROM writes").fetchall()
        return [JournalEntry(t, o, k, s, tuple(json.loads(i))) for t, o, k, s, i in rows]
