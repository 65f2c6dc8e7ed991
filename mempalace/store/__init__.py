"""The only module that talks to Chroma: opens the drawers collection and turns its answers into Records.

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
from urllib.parse import urlparse

import numpy as np

from ..errors import (
    CorruptPalaceError,
    MempalaceError,
    NotAPalaceError,
    PalaceUnavailableError,
)

COLLECTION = "mempalace_drawers"
STATE_COLLECTION = "mempalace_state"  # holds no rows: its metadata carries our palace-level facts
MARKER_KEY = "version"
EMBEDDER_KEY = "embedder"
SEQ_KEY = "mp_seq"
PAGE = 5_000
HNSW_EF_SEARCH = 400  # candidates HNSW keeps while searching (Chroma's default: 100)
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


def _missing(exc: Exception) -> bool:
    return "does not exist" in str(exc) or type(exc).__name__ == "NotFoundError"


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
            if _missing(exc):  # not created yet: no MemPalace write has happened here
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
    def get(self, ids: Sequence[str], embeddings: bool = False) -> list[Record]:
        include = ["documents", "metadatas"] + (["embeddings"] if embeddings else [])
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


_REFUSALS = ("401", "403", "unauthorized", "forbidden")  # chromadb keeps only the reply's text


def http_client(url: str, token: str = "") -> Any:
    """A chromadb client of the server at `url`, which has answered its heartbeat; `token` goes in
    an `Authorization: Bearer` header (for a reverse proxy that checks it: Chroma has no auth)."""
    import chromadb

    parts = urlparse(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PalaceUnavailableError(f"{url!r} is not a Chroma server URL (http://host:port).")
    try:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        client = chromadb.HttpClient(host=parts.hostname, port=parts.port or (443 if parts.scheme == "https" else 8000),
                                     ssl=parts.scheme == "https", headers=headers)
        client.heartbeat()
    except Exception as exc:
        if type(exc).__name__ == "ChromaAuthError" or any(w in str(exc).lower() for w in _REFUSALS):
            raise PalaceUnavailableError(
                f"The server at {url} refused MemPalace's token ({exc}). Set server_token in config.toml or "
                "MEMPALACE_SERVER_TOKEN to the token its proxy expects.") from exc
        said = "" if "could not connect" in str(exc).lower() else f" ({exc})"  # chromadb's own words, when they add any
        raise PalaceUnavailableError(f"No Chroma server answers at {url}{said}.") from exc
    return client


def palace_collection(client: Any, embedding_function: Any, create: bool, location: str) -> Any:
    """The palace's drawers collection on `client`, or a clear error saying why there is none."""
    try:
        collection = _drawers_collection(client, embedding_function, create)
    except NotAPalaceError:
        raise
    except Exception as exc:
        if _missing(exc):
            raise NotAPalaceError(
                f"{location} holds a Chroma database without a {COLLECTION} collection: not a palace."
            ) from exc
        raise CorruptPalaceError(f"The palace at {location} cannot be opened: {exc}") from exc
    _search_wider(collection)
    return collection


def _search_wider(collection: Any) -> None:
    """Give the palace's HNSW index the search breadth MemPalace needs (Chroma's default ef_search of
    100 found 0.87 of an exact top-10 at a million drawers, 400 finds 0.99: benchmarks/growth.py);
    it is kept with the collection and takes effect when Chroma next loads the index. A palace
    that refuses the change (a read-only server) keeps its setting."""
    try:
        hnsw = (collection.configuration_json or {}).get("hnsw") or {}
        if int(hnsw.get("ef_search") or 0) < HNSW_EF_SEARCH:
            collection.modify(configuration={"hnsw": {"ef_search": HNSW_EF_SEARCH}})
    except Exception:  # noqa: BLE001 (a search setting must never stop a palace from opening)
        pass


def _drawers_collection(client: Any, embedding_function: Any, create: bool) -> Any:
    """The drawers collection with our embedding function attached, whoever created it."""
    from chromadb.api.models.Collection import Collection

    try:
        return client.get_collection(COLLECTION, embedding_function=embedding_function)
    except ValueError as exc:
        if "Embedding function conflict" in str(exc):
            # Another tool created it with its own embedding function: attach ours for this handle.
            model = client._server.get_collection(name=COLLECTION, tenant=client.tenant, database=client.database)
            return Collection(client=client._server, model=model, embedding_function=embedding_function)
        if not create or "does not exist" not in str(exc):
            raise
    except Exception as exc:
        if not create or "does not exist" not in str(exc):
            raise
    others = [c.name for c in client.list_collections() if c.name != STATE_COLLECTION]
    if others:
        raise NotAPalaceError(
            f"This Chroma database holds other collections ({', '.join(sorted(others)[:5])}) and no "
            f"{COLLECTION}: not a palace. Choose an empty directory for a new palace."
        )
    return client.create_collection(
        COLLECTION, embedding_function=embedding_function, metadata={"hnsw:space": "cosine"}
    )
