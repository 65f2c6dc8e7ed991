"""Keeps the catalog exact: after our own writes at once, and after anyone else's on the next read.

Embedded palace: Chroma's own write counter (see `ChromaStore.write_counter`) moves with every
write by anyone, so one tiny read per call tells whether the catalog is current. Server palace:
every MemPalace write stamps its drawers with `mp_seq` (microseconds) and changes a palace-wide
token, bumping it *before* it writes (so a crash half-way is noticed) and again *after* (so a reader
that saw the first bump before the data landed looks again); a reader that sees a token it did not
set pulls the drawers stamped since its watermark (less a margin for clock skew and racing writers). Adds and deletes by tools that do not stamp are caught by a count
check (every `foreign_check_seconds` on a server); their moves need `rebuild`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from typing import Any

from .catalog import Catalog, Row
from .store import SEQ_KEY, ChromaStore, Record

LAG_MICROSECONDS = 60_000_000
UNSORTED_WING, GENERAL_ROOM = "unsorted", "general"  # for drawers other tools filed without a place
_last_stamp = 0
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def new_stamp() -> int:
    """A write stamp: wall-clock microseconds, strictly increasing within this process."""
    global _last_stamp
    _last_stamp = max(_last_stamp + 1, time.time_ns() // 1_000)
    return _last_stamp


def catalog_row(record: Record) -> Row:
    """The catalog's view of a stored drawer; drawers filed by other tools may lack some keys."""
    meta: Mapping[str, Any] = record.metadata
    return Row(
        id=record.id,
        content=record.document,
        wing=str(meta.get("wing") or UNSORTED_WING),
        room=str(meta.get("room") or GENERAL_ROOM),
        hall=str(meta.get("hall") or ""),
        source_file=str(meta.get("source_file") or ""),
        chunk_index=_int(meta.get("chunk_index")),
        parent_id=str(meta.get("parent_id") or ""),
        filed_at=str(meta.get("filed_at") or ""),
        seq=_int(meta.get(SEQ_KEY)),
        vector=record.embedding,
        dated=_day(meta.get("conversation_date"), meta.get("date"), meta.get("filed_at")),
    )


def _day(*candidates: Any) -> str:
    """The first candidate that starts with a YYYY-MM-DD date, cut to that date."""
    for value in candidates:
        if isinstance(value, str) and _DAY.match(value):
            return value[:10]
    return ""


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


class CatalogSync:
    """Decides when the catalog must catch up with Chroma, and does it."""

    def __init__(self, store: ChromaStore, catalog: Catalog, foreign_check_seconds: float):
        self.store = store
        self.catalog = catalog
        self.foreign_check_seconds = foreign_check_seconds
        self.generation = 0  # changes whenever the catalog's content may have changed
        self._token: str | None = None
        self._counted_at = float("-inf")
        self._before = self._pending = ""

    # -- reading ----------------------------------------------------------------------------------

    def ensure_fresh(self) -> None:
        """Bring the catalog up to date with Chroma if anyone else wrote since we last looked."""
        if self.catalog.get_state("collection") != self.store.collection_id:
            self.rebuild()
            return
        counter = self.store.write_counter()
        if counter is not None:
            if str(counter) != self.catalog.get_state("counter"):
                self._catch_up()
                self.catalog.set_state("counter", counter)
                self.generation += 1
            return
        token = self.store.marker() or ""
        count_due = time.monotonic() - self._counted_at >= self.foreign_check_seconds
        if token == self._token and not count_due:
            return
        if token != self._token or token != self.catalog.get_state("token"):
            self._catch_up()
            self.generation += 1
        elif self._check_count():
            self.generation += 1
        self._remember(token)

    def rebuild(self) -> None:
        """Remake the catalog from every drawer in Chroma."""
        token = self.store.marker() or ""
        counter = self.store.write_counter()
        self.catalog.clear()
        watermark = 0
        for page in self.store.scan(embeddings=True):
            rows = [catalog_row(r) for r in page]
            self.catalog.upsert(rows)
            watermark = max([watermark, *(r.seq for r in rows)])
        self.catalog.set_state("watermark", watermark)
        self.catalog.set_state("collection", self.store.collection_id)
        self.catalog.set_state("counter", "" if counter is None else counter)
        self._check_count()
        self._remember(token)
        self.generation += 1

    # -- writing ----------------------------------------------------------------------------------

    def begin_write(self) -> None:
        """Call before writing to Chroma: announces the write first, so a crash mid-way is noticed."""
        self._before = self.store.marker() or ""
        self._pending = self.store.bump_marker()

    def finish_write(self, rows: Iterable[Row] = (), deleted: Iterable[str] = (), seq: int = 0) -> None:
        """Call after writing to Chroma: apply our change to the catalog, catch up with others."""
        rows, deleted = list(rows), list(deleted)
        if rows:
            self.catalog.upsert(rows)
        if deleted:
            self.catalog.delete(deleted)
        self._advance_watermark(max([seq, *(r.seq for r in rows)]))
        counter = self.store.write_counter()
        if counter is None:
            behind = self._before != self._token or (self.store.marker() or "") != self._pending
            # Bump again now the data has landed: a reader that saw the first bump before it did looks again.
            self._pending = self.store.bump_marker()
            if behind:
                self._catch_up()
        else:
            self.catalog.set_state("counter", counter)  # the lock keeps other MemPalace writers out
        self._remember(self._pending)
        self.generation += 1

    # -- helpers ----------------------------------------------------------------------------------

    def _remember(self, token: str) -> None:
        self._token = token
        self.catalog.set_state("token", token)

    def _advance_watermark(self, seq: int) -> None:
        if seq > int(self.catalog.get_state("watermark") or 0):
            self.catalog.set_state("watermark", seq)

    def _catch_up(self) -> None:
        self._pull_stamped()
        self._check_count()

    def _pull_stamped(self) -> None:
        watermark = int(self.catalog.get_state("watermark") or 0)
        stamps = self.store.stamped_since(max(0, watermark - LAG_MICROSECONDS))
        known = self.catalog.stamps(list(stamps))
        changed = [i for i, seq in stamps.items() if known.get(i) != seq]
        if changed:
            self.catalog.upsert(catalog_row(r) for r in self.store.get(changed, embeddings=True))
        if stamps:
            self._advance_watermark(max(stamps.values()))

    def _check_count(self) -> bool:
        """Reconcile ids if Chroma's count differs from ours; True if anything changed."""
        self._counted_at = time.monotonic()
        if self.store.count() == self.catalog.count():
            return False
        stored, cataloged = self.store.all_ids(), self.catalog.ids()
        if cataloged - stored:
            self.catalog.delete(sorted(cataloged - stored))
        missing = sorted(stored - cataloged)
        if missing:
            self.catalog.upsert(catalog_row(r) for r in self.store.get(missing, embeddings=True))
        return True
