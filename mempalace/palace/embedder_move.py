"""Moving a palace to another embedder in place: every drawer's vector is computed again with the new
model into a collection built beside the live one, then the palace switches to it in one write.

Safe to stop at any moment (kill -9 included): until the switch the live collection is the old one,
untouched, and keeps answering searches; a run started again resumes the half-built collection (only
drawers it lacks are embedded). Writes go on during the move: a catch-up pass brings the new
collection level with the old, and a last one runs with the palace's write gate closed (see
`files.locks.WriteGate`; writers wait those seconds), then the switch. Palaces opened before the switch
(this process's, or other processes') go on with the new embedder at their next read or write; a write
whose vectors were made before the switch is refused (`PalaceMovedError`), never written to the old
collection.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..catalog.sync import MOVING
from ..config import DEFAULT_EMBEDDER
from ..embedding.embedders import EMBEDDERS, load_embedder
from ..errors import InvalidInputError, MempalaceError, PalaceBusyError, PalaceUnavailableError
from ..files.locks import LockTimeout, OwnLock
from ..store.chroma import Record
from ..store.switching import Beside, drop, digests, leftovers

if TYPE_CHECKING:
    from ..catalog.catalog import Catalog
    from ..catalog.sync import CatalogSync
    from ..config import Settings
    from ..store.chroma import ChromaStore

DEMO_DRAWERS_AT_MOST = 200  # a palace with more holds drawers of its own (the demo files about 50)
BATCH = 256  # drawers embedded and written at a time (progress is told after each)



class MovingPalace(Protocol):
    """What a move reads and writes of an open palace (a `Palace`): its settings, store, catalog and
    the catalog's sync, its drawer count and its audit log."""

    settings: Settings
    _store: ChromaStore
    _catalog: Catalog
    _sync: CatalogSync

    @property
    def mode(self) -> str: ...

    def count(self) -> int: ...

    def _record(self, action: str, ids: Sequence[str], **detail: Any) -> None: ...

@dataclass(frozen=True)
class EmbedderInfo:
    """A palace's embedder, the ones it could move to, and collections an interrupted move left."""

    embedder: str
    recorded: bool  # False: the palace records none (another tool made it); the configured one is used
    available: tuple[str, ...]
    drawers: int
    leftovers: tuple[str, ...]


@dataclass(frozen=True)
class MoveProgress:
    """How far a move has come: drawers handled of the palace's total, and drawers embedded per second."""

    phase: str  # "copy": the first pass; "catch-up": writes made meanwhile
    done: int
    total: int
    rate: float


@dataclass(frozen=True)
class MoveReport:
    """What a move did (or, with `dry_run`, would do)."""

    before: str
    after: str
    drawers: int
    embedded: int  # drawers embedded by this run
    resumed: int  # drawers an interrupted run had already built, kept
    seconds: float
    dropped: tuple[str, ...]  # collections deleted afterwards (the old one, an abandoned half-built one)
    dry_run: bool = False


Told = Callable[[MoveProgress], None]


def embedder_info(palace: MovingPalace) -> EmbedderInfo:
    """The palace's embedder and what `move_embedder` could do with it."""
    store = palace._store
    return EmbedderInfo(palace.settings.embedder, bool(store.recorded_embedder()),
                        tuple(EMBEDDERS), store.count(), tuple(leftovers(store)))


def move_embedder(palace: MovingPalace, target: str, *, dry_run: bool = False, told: Told | None = None) -> MoveReport:
    """Move `palace` to the embedder `target` (see the module's docstring); `palace` goes on with it."""
    start = time.monotonic()
    palace._sync.ensure_fresh()  # opened before another move's switch: go on with the live collection
    store, before = palace._store, palace.settings.embedder
    _check_move(palace, target)
    if dry_run:
        return MoveReport(before, target, store.count(), 0, 0, 0.0, (), dry_run=True)
    with _one_move_at_a_time(palace):
        store.check_live()  # and not since
        if target == before:  # only an earlier move's leftovers to delete
            dropped = tuple(leftovers(store))
            drop(store, dropped)
            return MoveReport(before, target, store.count(), 0, 0, time.monotonic() - start, dropped)
        try:
            return _move(palace, target, start, told)
        except (MempalaceError, KeyboardInterrupt):
            raise
        except Exception as exc:  # Chroma's own, from the collection built beside the live one
            raise PalaceUnavailableError(
                f"The move stopped ({type(exc).__name__}: {exc}); no drawer is lost. `mempalace embedder` shows "
                "which embedder is live; run the move again to finish it.") from exc


def fit_embedder(palace: MovingPalace, texts: Sequence[str], dry_run: bool = False) -> str | None:
    """Before a palace's first filing: move it to the multilingual embedder when its owner chose none, it
    holds no drawer but the demo's, and a share of what is filed is not in English (MiniLM would find
    those only by their exact words, never across languages). Returns what to tell, if it moved (or,
    with `dry_run`, would move)."""
    from ..language.languages import MULTILINGUAL, not_english_share
    from .demo_drawers import demo_drawers

    if palace.mode == "server" or not texts:
        return None
    count = palace.count()  # (first: it follows a move another process made meanwhile)
    settings = palace.settings
    if settings.embedder_chosen or settings.embedder != DEFAULT_EMBEDDER:
        return None
    if count > DEMO_DRAWERS_AT_MOST or count > len(demo_drawers(palace)):
        return None
    said = not_english_share(texts)
    if said is None:
        return None
    if not dry_run:
        try:
            move_embedder(palace, MULTILINGUAL)
        except PalaceBusyError:  # another first filing is moving it right now: wait for it, then go on
            with _one_move_at_a_time(palace, wait=True):
                palace._sync.ensure_fresh()
            return None
    return (f"{said}, so this new palace {'would now use' if dry_run else 'now uses'} the multilingual embedder "
            f"({MULTILINGUAL}) instead of {DEFAULT_EMBEDDER}: a question in one language finds answers in another. "
            f"`mempalace embedder --to {DEFAULT_EMBEDDER}` moves it back; setting `embedder` in config.toml chooses "
            "for every new palace.")


def _one_move_at_a_time(palace: MovingPalace, wait: bool = False) -> OwnLock:
    """Held for a whole move: a second one would delete the first's collection, or bring the live
    collection level with the one the first switched away from (losing what was written since)."""
    lock = OwnLock(palace._catalog.path.with_suffix(".move.lock"), timeout=-1 if wait else 0)
    try:
        lock.acquire()
    except LockTimeout:
        raise PalaceBusyError("Another `mempalace embedder --to` is moving this palace now: wait for it to "
                              "finish, then run `mempalace embedder` to see where it stands.") from None
    return lock


def _move(palace: MovingPalace, target: str, start: float, told: Told | None) -> MoveReport:
    store, before = palace._store, palace.settings.embedder
    embedder = load_embedder(target, palace.settings.cache_dir)
    beside = Beside(store, target)
    drop(store, leftovers(store, keep=beside.name))  # a half-built collection for another embedder
    mover = _Mover(store, beside, embedder.embed, told or (lambda _: None))
    resumed = mover.copy()
    mover.catch_up()
    _switch(palace, beside, mover)
    palace._sync.ensure_fresh()  # the palace follows the switch (see `CatalogSync.on_moved`)
    palace._record("embedder", [], before=before, after=target, drawers=mover.total)
    dropped = tuple(leftovers(store))
    drop(store, dropped)
    return MoveReport(before, target, mover.total, mover.embedded, resumed, time.monotonic() - start, dropped)


def _check_move(palace: MovingPalace, target: str) -> None:
    if target not in EMBEDDERS:
        raise InvalidInputError(f"Unknown embedder {target!r}: choose one of {', '.join(EMBEDDERS)}.")
    if palace.mode == "server":
        raise InvalidInputError(
            "A palace on a Chroma server cannot be moved to another embedder from here: other machines write "
            "to it without passing this machine's write gate. Move a copy of it as a palace folder instead.")
    if target == palace.settings.embedder and not leftovers(palace._store):
        raise InvalidInputError(f"This palace already uses the {target!r} embedder: nothing to move.")


def _switch(palace: MovingPalace, beside: Beside, mover: "_Mover") -> None:
    """With the write gate closed: a last catch-up if anyone wrote, the switch, and the catalog's
    vectors replaced in one transaction. Meanwhile the catalog names the move, so a process opening
    the palace asks Chroma's state which embedder is live, and waits at the gate for the catalog."""
    sync, catalog, store = palace._sync, palace._catalog, palace._store
    with sync.gate.passing(exclusive=True):
        catalog.set_state("embedder", MOVING + beside.embedder)
        store.check_live()  # still the collection this move copied from
        if mover.written_since():
            mover.catch_up(tell=False)
        beside.switch()  # the commit point: one write of the palace's state
        store.follow_live()
        pairs = ((r.id, r.embedding) for page in store.scan(embeddings=True, documents=False) for r in page)
        counter = store.write_counter()
        catalog.replace_vectors(pairs, {"embedder": beside.embedder, "collection": store.collection_id,
                                        "counter": "" if counter is None else counter})


class _Mover:
    """The passes that bring the new collection level with the old one."""

    def __init__(self, store: "ChromaStore", beside: Beside, embed: Callable[[list[str]], Any], told: Told):
        self.store, self.beside, self.embed, self.told = store, beside, embed, told
        self.total = store.count()
        self.embedded = 0
        self._started = time.monotonic()
        self._batch = int(os.environ.get("MEMPALACE_MOVE_BATCH") or BATCH)
        self._pause = float(os.environ.get("MEMPALACE_MOVE_PAUSE") or 0)  # seconds after each batch (tests)
        self._seen = self._written()

    def copy(self) -> int:
        """The first pass: every drawer the new collection lacks, embedded; returns how many it had."""
        built = {r.id for page in self.beside.scan() for r in page}
        done = 0
        for page in self.store.scan(page=self._batch):
            self._put([r for r in page if r.id not in built], replace=False)
            done += len(page)
            self._tell("copy", done)
        return len(built)

    def catch_up(self, tell: bool = True) -> None:
        """Make the new collection hold exactly what the old one holds (writes made meanwhile)."""
        self._seen = self._written()
        old = digests(self.store.scan())
        new = digests(self.beside.scan())
        self.total = len(old)
        self.beside.delete(sorted(set(new) - set(old)))
        changed = sorted(i for i, mark in old.items() if new.get(i) != mark)
        for start in range(0, len(changed), self._batch):
            self._put(self.store.get(changed[start:start + self._batch]), replace=True)
            if tell:
                self._tell("catch-up", len(old))

    def written_since(self) -> bool:
        """Whether anyone wrote to the palace since the last catch-up began."""
        return self._written() != self._seen

    def _written(self) -> tuple[object, object]:
        return self.store.marker(), self.store.write_counter()

    def _put(self, records: Sequence[Record], replace: bool) -> None:
        if not records:
            return
        kept = {r.id: r for r in self.beside.get([r.id for r in records])} if replace else {}
        fresh = [r for r in records if r.id not in kept or kept[r.id].document != r.document]
        vectors = dict(zip((r.id for r in fresh), self.embed([r.document for r in fresh]) if fresh else []))
        self.beside.put(list(records), _stack([vectors.get(r.id, kept.get(r.id) and kept[r.id].embedding)
                                               for r in records]), replace=replace)
        self.embedded += len(fresh)
        if self._pause:
            time.sleep(self._pause)

    def _tell(self, phase: str, done: int) -> None:
        rate = self.embedded / max(time.monotonic() - self._started, 1e-9)
        self.told(MoveProgress(phase, done, max(self.total, done), rate))


def _stack(vectors: list[Any]) -> Any:
    import numpy as np

    return np.stack([np.asarray(v, dtype=np.float32) for v in vectors])

