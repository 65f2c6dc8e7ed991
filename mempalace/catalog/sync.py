"""Keeps the catalog exact: after our own writes at once, and after anyone else's on the next read.

Embedded palace: Chroma's own write counter (see `ChromaStore.write_counter`) moves with every
write by anyone, so one tiny read per call tells whether the catalog is current. Server palace:
every MemPalace write stamps its drawers with `mp_seq` (microseconds) and changes a palace-wide
token, bumping it *before* it writes (so a crash half-way is noticed) and again *after* (so a reader
that saw the first bump before the data landed looks again); a reader that sees a token it did not
set pulls the drawers stamped since its watermark (less a margin for clock skew and racing writers). Adds and deletes by tools that do not stamp are caught by a count
check (every `foreign_check_seconds` on a server); their moves need `rebuild`.

Shared palace: every MemPalace process on the machine uses the one catalog in the palace folder, and
each writer applies its own change to it, so a reader only notices that another process committed
(SQLite's `data_version`). A writer first journals what it is about to touch; an entry left by a
process that died is fixed by the next reader from what Chroma holds: an add that is only half there
is taken out again, anything else is copied as Chroma has it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import secrets
import threading
import socket
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..errors import MempalaceError
from ..files.locks import WriteGate
from ..models import ROOM_ALIASES
from ..store.chroma import SEQ_KEY, ChromaStore, Record
from .build_progress import ProgressFile
from .catalog import Catalog, JournalEntry, Row
from .dates import first_day

LAG_MICROSECONDS = 60_000_000
REPAIR_RETRY_SECONDS = 5.0
IN_FLIGHT_MICROSECONDS = 60_000_000  # a journal entry older than this no longer hides foreign writes
MOVING = "moving:"  # the catalog's embedder while a move switches: ask Chroma's state (see mempalace.palace.embedder_move)
UNSORTED_WING, GENERAL_ROOM = "unsorted", "general"  # for drawers other tools filed without a place
_last_stamp = 0


def new_stamp() -> int:
    """A write stamp: wall-clock microseconds, strictly increasing within this process."""
    global _last_stamp
    _last_stamp = max(_last_stamp + 1, time.time_ns() // 1_000)
    return _last_stamp


def read_ahead(items: Iterator[Any], depth: int = 2) -> Iterator[Any]:
    """`items` as they come, produced by a thread up to `depth` ahead of the consumer; an error
    there is raised here, and a consumer that stops early stops the thread."""
    ready: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    end = object()

    def hand(item: Any) -> bool:
        """Queue `item` unless the consumer stopped; returns whether it was queued."""
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not hand(item):
                    return
            hand(end)
        except BaseException as exc:  # noqa: BLE001 (handed to the consumer, which raises it)
            hand(exc)

    worker = threading.Thread(target=produce, daemon=True)
    worker.start()
    try:
        while (item := ready.get()) is not end:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()


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
        dated=first_day(meta.get("conversation_date"), meta.get("date"), meta.get("filed_at")),
        said=first_day(meta.get("conversation_date"), meta.get("date")),
        title=str(meta.get("conversation_title") or ""),
        aliases=str(meta.get(ROOM_ALIASES) or ""),
    )


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


class CatalogSync:
    """Decides when the catalog must catch up with Chroma, and does it."""

    def __init__(self, store: ChromaStore, catalog: Catalog, foreign_check_seconds: float, embedder: str = ""):
        self.store = store
        self.catalog = catalog
        self.embedder = embedder  # the one this palace was opened with (see `_check_embedder`)
        self.gate = WriteGate(catalog.path)
        self.foreign_check_seconds = foreign_check_seconds
        # changes whenever the catalog's content may have changed; it starts anywhere, so an opening of the
        # palace never repeats an earlier opening's number and a cache keyed on it never serves stale views
        self.generation = secrets.randbits(48)
        self.shared = store.mode == "shared"
        self._token: str | None = None
        self._counted_at = float("-inf")
        self._before = self._pending = ""
        self._owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._writing: set[str] = set()
        self._seen_version = catalog.data_version()
        self._verified = 0
        self._repair_after = 0.0
        self.on_use: Any = lambda: None  # a shared palace's lease: tells the server it is still wanted
        self.on_moved: Any = lambda embedder: None  # given the embedder a move switched the palace to: go on with it

    # -- reading ----------------------------------------------------------------------------------

    def ensure_fresh(self) -> None:
        """Bring the catalog up to date with Chroma if anyone else wrote since we last looked."""
        self._check_embedder()
        if self.shared:
            self.on_use()
            self._follow_shared()
            return
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

    def _check_embedder(self) -> None:
        """Go on with the embedder another process (or this one) moved the palace to since it was opened
        here: its catalog now holds the new embedder's vectors (see `mempalace.palace.embedder_move`)."""
        recorded = self.catalog.get_state("embedder")
        if self.embedder and recorded and not recorded.startswith(MOVING) and recorded != self.embedder:
            self.on_moved(recorded)
            self.embedder = recorded
            self.generation += 1

    def rebuild(self) -> None:
        """Remake the catalog from every drawer in Chroma."""
        token = self.store.marker() or ""
        counter = self.store.write_counter()
        total = self.store.count()
        told = ProgressFile(self.catalog.path, total)
        try:
            watermark = self.catalog.load(self._rows(told))
        finally:
            told.close()
        self.catalog.set_state("watermark", watermark)
        self.catalog.set_state("counter", "" if counter is None else counter)
        self.catalog.set_state("collection", self.store.collection_id)  # last: it marks the build whole
        if counter is None or self.store.write_counter() != counter or self.catalog.count() != total:
            self._check_count()  # somebody wrote while the pages were read (Chroma's count is not free)
        else:
            self._counted_at = time.monotonic()  # as good as counted: nothing was written since `total`
        self._remember(token)
        self.generation += 1

    def _rows(self, told: ProgressFile) -> Iterator[list]:
        """Chroma's drawers as catalog rows, page by page, telling how far it got; the next pages are
        read while the catalog writes this one (Chroma's reading and SQLite's writing overlap)."""
        done = 0
        for page in read_ahead(self.store.scan(embeddings=True)):  # (rows made here: that thread is the slower)
            done += len(page)
            told.tell(done)
            yield [catalog_row(r) for r in page]

    def _follow_shared(self) -> None:
        """A shared catalog is kept by every writer: notice their commits, fix what dead ones left."""
        version = self.catalog.data_version()
        if version != self._seen_version:
            self._seen_version = version
            self.generation += 1
        if self.catalog.get_state("collection") is None:
            self._rebuild_shared(None)
            return
        if self.store.connected and self._verified != self.store.connections:
            self._verified = self.store.connections  # checked again after every reconnection
            if self.catalog.get_state("collection") != self.store.collection_id:
                self._rebuild_shared(self.catalog.get_state("collection"))  # a new Chroma database
                return
        if time.monotonic() >= self._repair_after:
            try:
                entries = self.catalog.open_writes()
                for entry in entries:
                    if self._abandoned(entry):
                        self._repair(entry)
                if not any(new_stamp() - e.stamp < IN_FLIGHT_MICROSECONDS for e in entries):
                    self._notice_foreign_writes()  # (a write under way moves Chroma's counter too)
            except MempalaceError:
                # Chroma cannot be reached now: the catalog still holds every finished write, so reads
                # go on from it, and the repair is tried again a little later.
                self._repair_after = time.monotonic() + REPAIR_RETRY_SECONDS
        due = time.monotonic() - self._counted_at >= self.foreign_check_seconds
        if self.store.connected and due and self._check_count():
            self.generation += 1

    def _notice_foreign_writes(self) -> None:
        """Chroma's own write counter, read from its file in the folder, against the one the last
        MemPalace writer recorded: a difference with no MemPalace write under way means a tool that
        is not MemPalace wrote (say, while no server ran), and the catalog catches up."""
        counter = self.store.write_counter()
        if counter is None or str(counter) == self.catalog.get_state("counter"):
            return
        self._catch_up()
        self.catalog.set_state("counter", counter)
        self.generation += 1

    def _rebuild_shared(self, stale: str | None) -> None:
        """Rebuild a shared catalog once, however many processes find it missing at the same time:
        the others wait for the first and then use what it built."""
        from ..files.locks import OwnLock

        with OwnLock(f"{self.catalog.path}.rebuild-lock"):
            self.store.reach()  # the server first: its host builds a missing catalog before it serves
            if self.catalog.get_state("collection") == stale:
                self.rebuild()
            else:
                self.generation += 1

    def _abandoned(self, entry: JournalEntry) -> bool:
        """Whether the writer of `entry` can no longer finish it: its process died, or it is ours and
        failed. Entries from other machines are left alone (their pids mean nothing here)."""
        machine, _, rest = entry.owner.partition(":")
        pid, _, _ = rest.partition(":")
        if machine != socket.gethostname() or not pid.isdigit():
            return False
        if int(pid) == os.getpid():
            return entry.owner == self._owner and entry.token not in self._writing
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False

    def _repair(self, entry: JournalEntry) -> None:
        """Make the catalog say what Chroma holds for the entry's drawers; a half-done add is undone."""
        found = {r.id: r for r in self.store.get(list(entry.ids), embeddings=True)}
        if entry.kind == "add" and len(found) < len(entry.ids):
            held = self.catalog.stamps(list(found))  # another writer's acknowledged add of the same text
            landed = [i for i, r in found.items() if _int(r.metadata.get(SEQ_KEY)) == entry.stamp and i not in held]
            if landed:
                self.store.delete(landed)
                for drawer_id in landed:
                    del found[drawer_id]
        self.catalog.upsert(catalog_row(r) for r in found.values())
        self.catalog.delete([i for i in entry.ids if i not in found])
        self.catalog.close_write(entry.token)
        self.generation += 1

    # -- writing ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self, kind: str, ids: Sequence[str], stamp: int) -> Iterator[None]:
        """Around one write to Chroma and the catalog: journal it first, announce it to other clients,
        and if it fails leave the entry for `_repair` (by this process's next read, or anyone's)."""
        entry = JournalEntry(uuid.uuid4().hex, self._owner, kind, stamp, tuple(ids))
        with self.gate.passing():  # (a move's switch waits for this write, or this write for it)
            self.begin_write()  # reaches Chroma first: a write that cannot start leaves nothing to repair
            self.catalog.open_write(entry)
            self._writing.add(entry.token)
            try:
                yield
                self.catalog.close_write(entry.token)
            finally:
                self._writing.discard(entry.token)

    def begin_write(self) -> None:
        """Call before writing to Chroma: announces the write first, so a crash mid-way is noticed."""
        self._before = self.store.check_live() or ""  # a palace moved since it was opened is not written
        self._pending = self.store.bump_marker()

    def finish_write(self, rows: Iterable[Row] = (), deleted: Iterable[str] = (), seq: int = 0) -> None:
        """Call after writing to Chroma: apply our change to the catalog, catch up with others."""
        rows, deleted = list(rows), list(deleted)
        if rows:
            self.catalog.upsert(rows)
        if deleted:
            self.catalog.delete(deleted)
        self._advance_watermark(max([seq, *(r.seq for r in rows)]))
        if self.store.mode != "embedded":
            behind = self._before != self._token or (self.store.marker() or "") != self._pending
            # Bump again now the data has landed: a reader that saw the first bump before it did looks again.
            self._pending = self.store.bump_marker()
            if behind and not self.shared:  # a shared catalog already holds the other writers' changes
                self._catch_up()
        counter = self.store.write_counter()
        if counter is not None:  # embedded: the lock keeps other writers out; shared: see _follow_shared
            self.catalog.set_state("counter", counter)
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
        cataloged = self.catalog.ids()  # first: a write landing meanwhile then looks missing, never gone
        stored = self.store.all_ids()
        if cataloged - stored:
            self.catalog.delete(sorted(cataloged - stored))
        missing = sorted(stored - cataloged)
        if missing:
            self.catalog.upsert(catalog_row(r) for r in self.store.get(missing, embeddings=True))
        return True
