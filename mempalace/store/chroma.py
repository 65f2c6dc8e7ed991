"""The store: the drawers collection's reads and writes, its answers turned into Records. This package
and `server.shared_store` (a shared palace's server, over Chroma's HTTP API) are the only code that
talks to Chroma; `connecting` reaches the collection.

Every `get()` is paginated (Chroma fails past 32,766 rows with metadata) and every write is cut
into batches no larger than the client's maximum.
"""

from __future__ import annotations

import functools
import sqlite3
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

import numpy as np

from ..errors import CorruptPalaceError, MempalaceError, PalaceMovedError, PalaceUnavailableError
from .connecting import LIVE_KEY, STATE_COLLECTION, http_client, missing, palace_collection

MARKER_KEY = "version"
EMBEDDER_KEY = "embedder"
SEQ_KEY = "mp_seq"
PAGE = 5_000
CHROMA_FILE = "chroma.sqlite3"
INDEX_RETRIES = 10  # queries tried while a server indexes new drawers (about 2.3 s of waiting in all)


@dataclass(frozen=True)
class Record:
    """One stored drawer as Chroma holds it: id, verbatim text, metadata and (if asked) its vector."""

    id: str
    document: str
    metadata: Mapping[str, Any]
    embedding: np.ndarray | None = None


def _records(result: Mapping[str, Any]) -> list[Record]:
    ids = result["ids"]
    documents = result.get("documents") or [None] * len(ids)
    metadatas = result.get("metadatas") or [None] * len(ids)
    embeddings = _vectors(result.get("embeddings"))
    return [Record(id=drawer_id, document=documents[i] or "", metadata=dict(metadatas[i] or {}),
                   embedding=None if embeddings is None else embeddings[i])
            for i, drawer_id in enumerate(ids)]


def _vectors(embeddings: Any) -> Any:
    """A page's vectors as float32 rows: one conversion for the whole page when they are all alike."""
    if embeddings is None:
        return None
    try:
        return np.asarray(embeddings, dtype=np.float32).reshape(len(embeddings), -1)
    except ValueError:  # of different lengths
        return [np.asarray(e, dtype=np.float32) for e in embeddings]


_F = TypeVar("_F", bound=Callable[..., Any])


def _guarded(method: _F) -> _F:
    """Turn Chroma's own exceptions (a server gone away, a broken file) into one clear error."""

    @functools.wraps(method)
    def wrapper(self: "ChromaStore", *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except MempalaceError:
            raise
        except Exception as exc:
            if self.reconnected_after(exc) and method.__name__ in _READS:
                return method(self, *args, **kwargs)  # a read is safe to ask again of the new server
            what = "server" if self.mode != "embedded" else "palace"
            raise PalaceUnavailableError(
                f"The Chroma {what} at {self.location} failed: {type(exc).__name__}: {exc}"
            ) from exc

    return wrapper  # type: ignore[return-value]


# Calls that may simply be made again on a new server (`bump_marker` sets a fresh random token).
_READS = {"count", "marker", "bump_marker", "recorded_embedder", "get", "_page", "all_ids", "stamped_since",
          "nearest", "nearest_many"}


class ChromaStore:
    """The drawers collection of one palace, embedded or on a server."""

    def __init__(self, client: Any, collection: Any, location: str, mode: str):
        self._client = client
        self._collection = collection
        self.location = location
        self.mode = mode
        self._counter_db: sqlite3.Connection | None = None
        if mode == "embedded":
            uri = (Path(location) / CHROMA_FILE).resolve().as_uri() + "?mode=ro"
            self._counter_db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)

    @property
    def collection_id(self) -> str:
        return str(self._collection.id)

    @functools.cached_property
    def max_batch(self) -> int:
        return int(self._client.get_max_batch_size())

    @classmethod
    def embedded(cls, path: Path, embedding_function: Any, create: bool) -> "ChromaStore":
        """Open (or create) the palace at `path` with an embedded PersistentClient (see `opening.check_palace_dir`)."""
        import chromadb

        try:
            client = chromadb.PersistentClient(path=str(path))
        except Exception as exc:
            # Chroma caches the half-started client per path; drop it so a repaired palace can open.
            from chromadb.api.shared_system_client import SharedSystemClient

            SharedSystemClient._identifier_to_system.pop(str(path), None)
            raise CorruptPalaceError(f"The palace at {path} cannot be read by Chroma: {exc}") from exc
        return cls._with_collection(client, embedding_function, create, str(path), "embedded")

    @classmethod
    def remote(cls, url: str, embedding_function: Any, create: bool, token: str = "") -> "ChromaStore":
        """Open (or create) the palace on the Chroma server at `url` (sending `token` to the proxy in
        front of it, if one is set)."""
        return cls._with_collection(http_client(url, token), embedding_function, create, url, "server")

    @classmethod
    def _with_collection(
        cls, client: Any, embedding_function: Any, create: bool, location: str, mode: str
    ) -> "ChromaStore":
        store = cls(client, palace_collection(client, embedding_function, create, location), location, mode)
        store.record_embedder(embedding_function, create)
        return store

    def record_embedder(self, embedding_function: Any, create: bool) -> None:
        """Write down which embedder a new palace is built with, so a later mismatch is caught."""
        if create and self.recorded_embedder() is None and self.count() == 0:
            self._set_state(EMBEDDER_KEY, embedding_function.get_config()["embedder"])

    def reconnected_after(self, error: Exception) -> bool:
        """Whether `error` came from a server that went away and a new connection is ready (shared
        palaces restart theirs); a private or team palace never reconnects by itself."""
        return False

    def close(self) -> None:
        if self._counter_db is not None:
            self._counter_db.close()
        close = getattr(self._client, "close", None)
        if close is not None:
            close()

    # -- collection-level facts -------------------------------------------------------------------

    @_guarded
    def count(self) -> int:
        return int(self._collection.count())

    def reach(self) -> None:
        """Make sure the store answers (a shared palace's server is found, or started, by its folder)."""
        self.count()

    def _state(self) -> dict[str, Any]:
        try:
            return dict(self._client.get_collection(STATE_COLLECTION, embedding_function=None).metadata or {})
        except Exception as exc:
            if missing(exc):  # not created yet: no MemPalace write has happened here
                return {}
            raise

    def _set_state(self, key: str, value: Any) -> None:
        state = self._client.get_or_create_collection(STATE_COLLECTION, embedding_function=None)
        state.modify(metadata={**(state.metadata or {}), key: value})

    def write_counter(self) -> int | None:
        """Chroma's own log position for an embedded palace: it moves with every write by anyone.

        Read from Chroma's SQLite file (read-only, sub-millisecond); None on a server palace or if
        this Chroma version lays its file out differently, and callers then fall back to `marker`.
        """
        if self._counter_db is None:
            return None
        try:
            row = self._counter_db.execute(
                "SELECT max(m) FROM (SELECT max(seq_id) AS m FROM embeddings_queue"
                " UNION ALL SELECT max(seq_id) FROM max_seq_id)"
            ).fetchall()[0]
        except sqlite3.Error:
            return None
        return int(row[0] or 0)

    @_guarded
    def marker(self) -> str | None:
        """A token that every MemPalace write changes: cheap to read (one small request)."""
        return self._state().get(MARKER_KEY)

    @_guarded
    def bump_marker(self) -> str:
        token = uuid.uuid4().hex
        self._set_state(MARKER_KEY, token)
        return token

    @_guarded
    def recorded_embedder(self) -> str | None:
        return self._state().get(EMBEDDER_KEY)

    @_guarded
    def check_live(self) -> str | None:
        """Before a write: refuse it if the palace moved to another embedder's collection since this
        store opened it (the write would land in the collection a move left behind). Returns the
        write marker, read with it (see `marker`)."""
        state = self._state()
        live = state.get(LIVE_KEY)
        if live and live != self._collection.name:
            raise PalaceMovedError(
                f"This palace moved to the {state.get(EMBEDDER_KEY)!r} embedder while it was open: "
                "nothing was written. Try again: MemPalace goes on with the new embedder.")
        return state.get(MARKER_KEY)

    def follow_live(self) -> None:
        """Use the drawers collection the palace's state names as live (after a move switched it)."""
        self._collection = palace_collection(self._client, self._collection._embedding_function, False, self.location)

    # -- rows -------------------------------------------------------------------------------------

    @_guarded
    def add(self, ids: Sequence[str], documents: Sequence[str], metadatas: Sequence[Mapping[str, Any]],
            embeddings: np.ndarray) -> None:
        for start in range(0, len(ids), self.max_batch):
            end = start + self.max_batch
            self._collection.add(
                ids=list(ids[start:end]), documents=list(documents[start:end]),
                metadatas=[dict(m) for m in metadatas[start:end]], embeddings=embeddings[start:end],
            )

    @_guarded
    def update_metadata(self, ids: Sequence[str], metadatas: Sequence[Mapping[str, Any]]) -> None:
        for start in range(0, len(ids), self.max_batch):
            end = start + self.max_batch
            self._collection.update(ids=list(ids[start:end]), metadatas=[dict(m) for m in metadatas[start:end]])

    @_guarded
    def delete(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), self.max_batch):
            self._collection.delete(ids=list(ids[start : start + self.max_batch]))

    @_guarded
    def get(self, ids: Sequence[str], embeddings: bool = False, documents: bool = True) -> list[Record]:
        """These drawers (`documents` off: metadata only, text left empty)."""
        include = (["documents"] if documents else []) + ["metadatas"] + (["embeddings"] if embeddings else [])
        found: list[Record] = []
        for start in range(0, len(ids), PAGE):
            found += _records(self._while_indexing(self._collection.get, ids=list(ids[start : start + PAGE]),
                                                   include=include))
        return found

    def scan(self, embeddings: bool = False, page: int = PAGE, documents: bool = True) -> Iterator[list[Record]]:
        """Every drawer, a page at a time (`documents` off: metadata only, text left empty)."""
        offset = 0
        while rows := self._page(offset, page, embeddings, documents):
            yield rows
            offset += len(rows)

    @_guarded
    def _page(self, offset: int, page: int, embeddings: bool, documents: bool = True) -> list[Record]:
        include = (["documents"] if documents else []) + ["metadatas"] + (["embeddings"] if embeddings else [])
        return _records(self._while_indexing(self._collection.get, include=include, limit=page, offset=offset))

    @_guarded
    def all_ids(self) -> set[str]:
        ids: set[str] = set()
        offset = 0
        while True:
            page = self._while_indexing(self._collection.get, include=[], limit=PAGE * 4, offset=offset)["ids"]
            if not page:
                return ids
            ids.update(page)
            offset += len(page)

    @_guarded
    def stamped_since(self, seq: int) -> dict[str, int]:
        """Ids and write stamps of drawers MemPalace wrote with a stamp of at least `seq`."""
        stamps: dict[str, int] = {}
        offset = 0
        while True:
            result = self._while_indexing(self._collection.get, where={SEQ_KEY: {"$gte": seq}},
                                          include=["metadatas"], limit=PAGE, offset=offset)
            if not result["ids"]:
                return stamps
            for drawer_id, meta in zip(result["ids"], result["metadatas"]):
                stamps[drawer_id] = int((meta or {}).get(SEQ_KEY, 0))
            offset += len(result["ids"])

    def _while_indexing(self, call: Callable[..., Any], **query: Any) -> Any:
        """`call(**query)` (a query or a get), retried while a server is still indexing drawers
        that just arrived (it then fails with "Error creating hnsw segment reader: Nothing found on disk")."""
        for attempt in range(1, INDEX_RETRIES if self.mode != "embedded" else 1):
            try:
                return call(**query)
            except Exception as exc:
                if "segment reader" not in str(exc):
                    raise
            time.sleep(0.05 * attempt)
        return call(**query)

    @_guarded
    def nearest(self, vector: np.ndarray, n: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        """(id, cosine distance) of the `n` nearest drawers, nearest first."""
        result = self._while_indexing(self._collection.query, query_embeddings=[vector], n_results=n,
                                      where=dict(where) if where else None, include=["distances"])
        return list(zip(result["ids"][0], (float(d) for d in result["distances"][0])))

    @_guarded
    def nearest_many(self, vectors: np.ndarray, n: int, where: Mapping[str, Any] | None = None
                     ) -> list[list[tuple[str, float]]]:
        """For each vector, (id, cosine distance) of its `n` nearest drawers (matching `where`), nearest first."""
        found: list[list[tuple[str, float]]] = []
        for start in range(0, len(vectors), 256):
            result = self._while_indexing(self._collection.query, query_embeddings=list(vectors[start : start + 256]),
                                          n_results=n, where=dict(where) if where else None, include=["distances"])
            found += [list(zip(i, map(float, d))) for i, d in zip(result["ids"], result["distances"])]
        return found
