"""A SQLite sidecar derived from Chroma: drawer places, vectors, a full-text index and room counts.

It answers taxonomy, counts, lexical (BM25) search and filtered vector scans without scanning
Chroma. It is a cache: `rebuild` remakes it from Chroma, the only source of truth.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..files.privacy import owner_dir
from ..text.cjk import index_text
from .dates import DATE_FILTERS, DateCounts
from .filters import FILING_ORDER, place_tokens, where_clause
from .keyword_search import LexicalSearch
from .recent_reads import RecentReads
from .shared_file import BUILT_KEY, INDEX_NAMES, INDEXES, LOADING_KEY, TRIGGER_NAMES, TRIGGERS, loading, open_catalog
from .vector_reads import VectorReads
from .vocabulary import WordCounts, WordTokens
from .write_journal import JournalEntry, WriteJournal  # noqa: F401 (JournalEntry: sync's and tests' name for it here)

CATALOG_FILE = "mempalace_catalog.sqlite3"  # in a palace folder (a server's palace: named after it in the cache)

WHOLE_TABLE_MMAP_BYTES = 2 << 30  # (SQLite caps it at its own limit, 2 GB by default)

@dataclass(frozen=True)
class Row:
    """A drawer as the catalog keeps it."""

    id: str
    content: str
    wing: str
    room: str
    hall: str
    source_file: str
    chunk_index: int
    parent_id: str
    filed_at: str
    seq: int
    vector: np.ndarray | None
    dated: str = ""  # the day the drawer's conversation happened (else the day it was filed), YYYY-MM-DD
    said: str = ""  # the day the conversation happened, when its source says (else "")
    title: str = ""  # the conversation's title, when its source has one
    aliases: str = ""  # the room's earlier names, space-separated


class Catalog(WordCounts, DateCounts, VectorReads, WriteJournal, LexicalSearch, RecentReads):
    """The sidecar database of one palace."""

    def __init__(self, path: Path):
        owner_dir(path.parent)
        self.path = path
        self._word_tokens = WordTokens()
        self._db = open_catalog(path)

    def close(self) -> None:
        self._db.close()
        self._word_tokens.close()

    # -- state ------------------------------------------------------------------------------------

    def get_state(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_state(self, key: str, value: object) -> None:
        self._db.execute("INSERT OR REPLACE INTO state VALUES (?, ?)", (key, str(value)))

    def data_version(self) -> int:
        """A number that changes whenever another connection (another process) commits a change."""
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    # -- writes -----------------------------------------------------------------------------------

    def upsert(self, rows: Iterable[Row]) -> None:
        with self._transaction():
            for row in rows:
                self._db.execute("DELETE FROM drawers WHERE id = ?", (row.id,))
                self._db.execute(_INSERT, _values(row))

    def load(self, pages: Iterable[Sequence[Row]]) -> int:
        """Replace everything with `pages` of rows, the fast way: each page inserted in bulk without
        the per-row triggers and indexes (a first open of a 100k palace spent most of its time keeping
        them row by row), which are then built once with the room counts, whatever happens to the
        pages. The full-text index takes each page as it is written (SQLite's work, which overlaps
        the reading of the next page), and is rebuilt whole if a row was replaced or another process
        wrote meanwhile. Returns the largest stamp seen."""
        with loading(self.path):
            return self._load(pages)

    def _load(self, pages: Iterable[Sequence[Row]]) -> int:
        newest = indexed = 0
        with self._transaction():
            for name in (*TRIGGER_NAMES, *INDEX_NAMES):
                self._db.execute(f"DROP {'TRIGGER' if name in TRIGGER_NAMES else 'INDEX'} IF EXISTS {name}")
            self._db.execute("DELETE FROM drawers")
            self._db.execute("INSERT INTO drawers_fts(drawers_fts) VALUES ('delete-all')")
            self._db.execute("INSERT OR REPLACE INTO state VALUES (?, '1')", (LOADING_KEY,))
            self._db.execute("DELETE FROM state WHERE key = ?", (BUILT_KEY,))  # whole again once the caller says so
        others = None
        try:
            others = self.data_version()
            places: dict[tuple[str, ...], str] = {}
            last = 0
            for rows in pages:
                with self._transaction():
                    self._db.executemany(_INSERT.replace("INSERT INTO", "INSERT OR REPLACE INTO"),
                                         (_values(row, places) for row in rows))
                    indexed += self._db.execute("INSERT INTO drawers_fts(rowid, content, place) SELECT rowid,"
                                                " content, place FROM drawers_indexed WHERE rowid > ?", (last,)).rowcount
                    last = self._db.execute("SELECT coalesce(max(rowid), 0) FROM drawers").fetchone()[0]
                newest = max([newest, *(row.seq for row in rows)])
        finally:
            with self._reading_whole_table(), self._transaction():
                for statement in (*INDEXES, *TRIGGERS):  # an index built once, sorted, beats one kept row by row
                    self._db.execute(statement)
                self._db.execute("DELETE FROM state WHERE key = ?", (LOADING_KEY,))
                kept = self._db.execute("SELECT count(*) FROM drawers").fetchone()[0]
                if indexed != kept or self.data_version() != others:
                    self._db.execute("INSERT INTO drawers_fts(drawers_fts) VALUES ('rebuild')")
                self._db.execute("DELETE FROM room_counts")
                self._db.execute("INSERT INTO room_counts SELECT wing, room, hall, count(*) FROM drawers GROUP BY 1, 2, 3")
        return newest

    @contextlib.contextmanager
    def _reading_whole_table(self) -> Iterator[None]:
        """For statements that each read the whole table (building its indexes): the file mapped into
        memory, and sorts on a second core meanwhile (a third faster at 100k drawers)."""
        self._db.execute(f"PRAGMA mmap_size = {WHOLE_TABLE_MMAP_BYTES}")
        self._db.execute("PRAGMA threads = 1")  # helper threads besides this one
        try:
            yield
        finally:
            try:
                self._db.execute("PRAGMA mmap_size = 0")
            finally:
                self._db.execute("PRAGMA threads = 0")

    def move(self, ids: Sequence[str], seq: int, aliases: str | None = None, **place: str | None) -> None:
        """Give the drawers `ids` a new wing, room and/or hall (None keeps what each has), and with a new
        room its `aliases` (earlier names)."""
        with self._transaction():
            if aliases is not None:
                self._db.executemany("UPDATE drawers SET aliases = ? WHERE id = ?", [(aliases, i) for i in ids])
            for values in self._by_ids("d.id, d.wing, d.room, d.hall, d.source_file", ids):
                new = {k: place.get(k) if place.get(k) is not None else v
                       for k, v in zip(("wing", "room", "hall"), values[1:4])}
                tokens = place_tokens(**new, source_file=values[4])
                self._db.execute("UPDATE drawers SET place = ?, wing = ?, room = ?, hall = ?, seq = ? WHERE id = ?",
                                 (tokens, new["wing"], new["room"], new["hall"], seq, values[0]))

    def delete(self, ids: Sequence[str]) -> None:
        with self._transaction():
            self._db.executemany("DELETE FROM drawers WHERE id = ?", [(i,) for i in ids])

    def _transaction(self) -> "_Transaction":
        return _Transaction(self._db)

    # -- reads ------------------------------------------------------------------------------------

    def count(self) -> int:
        return int(self._db.execute("SELECT coalesce(sum(n), 0) FROM room_counts").fetchone()[0])

    def room_counts(self) -> list[tuple[str, str, str, int]]:
        """(wing, room, hall, count) for every place that holds drawers."""
        return self._db.execute("SELECT wing, room, hall, n FROM room_counts ORDER BY wing, room, hall").fetchall()

    def ids(self) -> set[str]:
        return {r[0] for r in self._db.execute("SELECT id FROM drawers")}

    def ids_where(self, filters: Mapping[str, str | None]) -> list[str]:
        sql, args = where_clause(filters)
        return [r[0] for r in self._db.execute(f"SELECT d.id FROM drawers d WHERE {sql} ORDER BY d.rowid", args)]

    def places_in_filing_order(self) -> Iterator[tuple[str, str, str, str, str, int, str]]:
        """(id, wing, room, hall, parent id, chunk index, filed at) of every drawer that has a vector,
        first filed first, one at a time."""
        yield from self._db.execute("SELECT d.id, d.wing, d.room, d.hall, d.parent_id, d.chunk_index, d.filed_at"
                                    f" FROM drawers d WHERE d.vector IS NOT NULL ORDER BY {FILING_ORDER}")

    def stamps(self, ids: Sequence[str]) -> dict[str, int]:
        return {values[0]: values[1] for values in self._by_ids("id, seq", ids)}

    def wings_rooms(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """{id: (wing, room)} of the stored drawers among `ids`, without their text or vectors."""
        return {i: (w, r) for i, w, r in self._by_ids("d.id, d.wing, d.room", ids)}

    def rows(self, ids: Sequence[str]) -> dict[str, Row]:
        return {values[0]: _row(values) for values in self._by_ids(_ROW_COLUMNS, ids)}

    def _by_ids(self, columns: str, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        """`columns` of the drawers with these ids, asked in slices SQLite accepts."""
        found: list[tuple[Any, ...]] = []
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            found += self._db.execute(f"SELECT {columns} FROM drawers d WHERE d.id IN ({marks})", chunk).fetchall()
        return found

    def by_parent(self, parent_id: str) -> list[Row]:
        """The drawers filed from one parent (one add, or one ingested conversation), in chunk order."""
        found = self._db.execute(f"SELECT {_ROW_COLUMNS} FROM drawers d WHERE d.parent_id = ? ORDER BY d.chunk_index",
                                 (parent_id,)).fetchall()
        return [_row(values) for values in found]

    def page(self, filters: Mapping[str, str | None], offset: int, limit: int, newest: bool = False) -> list[Row]:
        """Drawers matching the filters, one page of them: in place order (wing, room, source, chunk),
        or `newest` conversation first (each conversation's drawers in order)."""
        sql, args = where_clause(filters)
        order = ("d.dated DESC, d.parent_id, d.chunk_index" if newest
                 else "d.wing, d.room, d.source_file, d.chunk_index")
        # The page's rowids are found first, walking an index in the order's own columns (drawers_listing,
        # drawers_newest): sorting whole rows took 6.8 s deep down 100k drawers, sorting rowids 1.5 s
        # deep down a million, the index about 40 ms.
        rowids = [r for (r,) in self._db.execute(
            f"SELECT d.rowid FROM drawers d WHERE {sql} ORDER BY {order}, d.rowid LIMIT ? OFFSET ?",
            [*args, limit, offset])]
        if not rowids:
            return []
        found = {values[-1]: values for values in self._db.execute(
            f"SELECT {_ROW_COLUMNS}, d.rowid FROM drawers d WHERE d.rowid IN ({','.join('?' * len(rowids))})",
            rowids)}
        return [_row(found[r]) for r in rowids if r in found]

    def siblings(self, drawer_id: str, around: int) -> list[Row]:
        """Drawers within `around` chunks of this one from the same parent (else the same source), in order."""
        found = self._db.execute("SELECT parent_id, source_file, chunk_index FROM drawers WHERE id = ?",
                                 (drawer_id,)).fetchone()
        if not found or not (found[0] or found[1]):
            return []
        column, value = ("parent_id", found[0]) if found[0] else ("source_file", found[1])
        rows = self._db.execute(
            f"SELECT {_ROW_COLUMNS} FROM drawers d WHERE d.{column} = ? AND d.chunk_index BETWEEN ? AND ?"
            " ORDER BY d.chunk_index, d.rowid", (value, found[2] - around, found[2] + around)).fetchall()
        return [_row(values) for values in rows]

    def room_aliases(self) -> dict[str, str]:
        """{earlier name: the room that holds it now}, from the drawers that carry aliases."""
        found: dict[str, str] = {}
        for room, aliases in self._db.execute("SELECT DISTINCT room, aliases FROM drawers WHERE aliases != ''"
                                              " ORDER BY room, aliases"):
            for alias in aliases.split():
                found.setdefault(alias, room)
        return found

    def aliases_of(self, ids: Sequence[str]) -> set[str]:
        """Every earlier name the drawers `ids` carry."""
        return {a for (text,) in self._by_ids("d.aliases", ids) for a in text.split()}

    def halls_in_use(self) -> tuple[str, ...]:
        """The halls (not '') that some drawer is in, other tools' included."""
        return tuple(r[0] for r in self._db.execute("SELECT DISTINCT hall FROM room_counts WHERE hall != '' AND n > 0"))

    def matching_count(self, filters: Mapping[str, str | None]) -> int:
        sql, args = where_clause(filters)
        return int(self._db.execute(f"SELECT count(*) FROM drawers d WHERE {sql}", args).fetchone()[0])

    def matching_ids(self, ids: Sequence[str], filters: Mapping[str, Any]) -> set[str]:
        """Those of `ids` whose drawers match the place filters (found by id, then checked here: SQLite
        would otherwise walk the place index)."""
        wanted = {k: v if isinstance(v, tuple) else (v,) for k, v in filters.items()
                  if v is not None and k not in DATE_FILTERS}
        columns = ["id", "dated", *wanted]
        rows = self._by_ids(", ".join(f"d.{c}" for c in columns), ids)
        after, before = filters.get("after") or "", filters.get("before") or "\uffff"
        return {r[0] for r in rows if after <= r[1] <= before and all(r[i] in wanted[c] for i, c in enumerate(columns) if i > 1)}


_ROW_COLUMNS = ("d.id, d.content, d.wing, d.room, d.hall, d.source_file, d.chunk_index, d.parent_id, d.filed_at,"
                " d.seq, d.vector, d.dated, d.said, d.title, d.aliases")


def _row(values: Sequence[Any]) -> Row:
    vector = None if values[10] is None else np.frombuffer(values[10], dtype=np.float32)
    return Row(*values[:10], vector=vector, dated=values[11], said=values[12], title=values[13], aliases=values[14])


_INSERT = ("INSERT INTO drawers(id, content, wing, room, hall, source_file, chunk_index, parent_id, filed_at, seq,"
           " vector, place, dated, said, title, aliases, terms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")


def _values(row: Row, places: dict[tuple[str, ...], str] | None = None) -> tuple:
    """A row as the INSERT's values; `places` (a bulk load's) keeps each place's and source file's
    keywords once instead of hashing them again for every drawer."""
    if places is None:
        tokens = place_tokens(wing=row.wing, room=row.room, hall=row.hall, source_file=row.source_file)
    else:
        key, source = (row.wing, row.room, row.hall), (row.source_file,)
        if key not in places:
            places[key] = place_tokens(wing=row.wing, room=row.room, hall=row.hall)
        if source not in places:
            places[source] = place_tokens(source_file=row.source_file)
        tokens = " ".join(filter(None, (places[key], places[source])))
    return (row.id, row.content, row.wing, row.room, row.hall, row.source_file, row.chunk_index, row.parent_id,
            row.filed_at, row.seq, None if row.vector is None else np.asarray(row.vector, np.float32).tobytes(),
            tokens, row.dated, row.said, row.title, row.aliases, index_text(row.content) or None)


class _Transaction:
    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")
