"""Keeps the catalog exact: after our own writes at once, and after other clients' writes on the next read.

Every MemPalace write stamps its drawers with `mp_seq` (microseconds, increasing) and changes a
palace-wide marker token. A read compares the token (one small request) with the one the catalog
last saw; if it differs, drawers stamped since the catalog's watermark (less a lag for clock skew
and racing writers) are pulled. Tools that do not stamp (upstream MemPalace) are caught by a count
check on the first read in a process and then at most every `foreign_check_seconds`; `rebuild`
remakes everything.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from .catalog import Catalog, Row
from .store import SEQ_KEY, ChromaStore, Record

LAG_MICROSECONDS = 60_000_000
_last_stamp = 0


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
        wing=str(meta.get("wing") or "unsorted"),
        room=str(meta.get("room") or "general"),
        hall=str(meta.get("hall") or ""),
        source_file=str(meta.get("source_file") or ""),
        chunk_index=_int(meta.get("chunk_index")),
        parent_id=str(meta.get("parent_id") or ""),
        filed_at=str(meta.get("filed_at") or ""),
        seq=_int(meta.get(SEQ_KEY)),
        vector=record.embedding,
    )


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


class CatalogSync:
    """Decides when the catalog must catch up with Chroma, and does it.

    `marker_check_seconds` is 0 for a server palace (any client may write at any time) and longer
    for an embedded one, whose lock already keeps other MemPalace processes out.
    """

    def __init__(self, store: ChromaStore, catalog: Catalog, foreign_check_seconds: float,
                 marker_check_seconds: float = 0.0):
        self.store = store
        self.catalog = catalog
        self.foreign_check_seconds = foreign_check_seconds
        self.marker_check_seconds = marker_check_seconds
        self.generation = 0  # changes whenever the catalog's content may have changed
        self._token: str | None = None
        self._marked_at = self._counted_at = float("-inf")

    def ensure_fresh(self) -> None:
        """Bring the catalog up to date with Chroma if anyone else wrote since we last looked."""
        now = time.monotonic()
        count_due = now - self._counted_at >= self.foreign_check_seconds
        if not count_due and now - self._marked_at < self.marker_check_seconds:
            return
        if self.catalog.get_state("collection") != self.store.collection_id:
            self.rebuild()
            return
        token = self.store.marker() or ""
        self._marked_at = now
        if token == self._token and not count_due:
            return
        changed = token != self._token
        if token != self.catalog.get_state("token"):
            changed |= self._pull_stamped()
        changed |= self._check_count()
        self._remember(token)
        if changed:
            self.generation += 1

    def rebuild(self) -> None:
        """Remake the catalog from every drawer in Chroma."""
        token = self.store.marker() or ""
        self.catalog.clear()
        watermark = 0
        for page in self.store.scan(embeddings=True):
            rows = [catalog_row(r) for r in page]
            self.catalog.upsert(rows)
            watermark = max([watermark, *(r.seq for r in rows)])
        self.catalog.set_state("watermark", watermark)
        self.catalog.set_state("collection", self.store.collection_id)
        self._check_count()
        self._remember(token)
        self.generation += 1

    def recorded_write(self, rows: Iterable[Row] = (), deleted: Iterable[str] = ()) -> None:
        """Apply our own write to the catalog and tell other clients about it."""
        rows, deleted = list(rows), list(deleted)
        if rows:
            self.catalog.upsert(rows)
        if deleted:
            self.catalog.delete(deleted)
        self.note_write(max((r.seq for r in rows), default=0))

    def note_write(self, seq: int) -> None:
        """Announce our write; if someone else wrote since we last looked, catch up with them too."""
        if seq:
            self._advance_watermark(seq)
        before = self.store.marker() or ""
        token = self.store.bump_marker()
        if before != self._token:
            self._pull_stamped()
            self._check_count()
        self._remember(token)
        self.generation += 1

    def _remember(self, token: str) -> None:
        self._token = token
        self.catalog.set_state("token", token)

    def _advance_watermark(self, seq: int) -> None:
        current = int(self.catalog.get_state("watermark") or 0)
        if seq > current:
            self.catalog.set_state("watermark", seq)

    def _pull_stamped(self) -> bool:
        watermark = int(self.catalog.get_state("watermark") or 0)
        stamps = self.store.stamped_since(max(0, watermark - LAG_MICROSECONDS))
        known = self.catalog.stamps(list(stamps))
        changed = [i for i, seq in stamps.items() if known.get(i) != seq]
        if changed:
            self.catalog.upsert(catalog_row(r) for r in self.store.get(changed, embeddings=True))
        if stamps:
            self._advance_watermark(max(stamps.values()))
        return bool(changed)

    def _check_count(self) -> bool:
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
