"""The store of a shared palace: Chroma's server for that folder, connected only when first needed.

A command that only reads the catalog never connects. A search's nearest-neighbour query goes to the
server's documented REST API (`/api/v2/.../query`) with the standard library until the chromadb client
is loaded: importing chromadb costs more than a whole short command may take. If the server dies, the
next call finds or starts a new one; reads are asked again, writes fail and are left to the journal.
"""

from __future__ import annotations

import http.client
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from ..errors import PalaceUnavailableError
from ..store.chroma import CHROMA_FILE, INDEX_RETRIES, ChromaStore, http_client, palace_collection
from ..store.server_identity import OwnServerConnection
from .starting import ServerInfo, serving

TENANT, DATABASE = "default_tenant", "default_database"  # where chromadb's HttpClient keeps collections


class SharedStore(ChromaStore):
    """A `ChromaStore` whose server is found (or started) by `locate` and connected lazily."""

    def __init__(self, location: str, locate: Callable[[], str], embedding_function: Callable[[], Any],
                 create: bool, collection_id: str | None):
        self.location = location
        self.mode = "shared"
        self._counter_db = None
        self._locate = locate
        self._ef = embedding_function
        self._create = create
        self._known_id = collection_id
        self._handles: tuple[Any, Any] | None = None
        self.connections = 0  # how many times the chromadb client connected (a new server each time)
        self._url: str | None = None
        self._rest: http.client.HTTPConnection | None = None
        self._secret: str | None = None
        self._connecting = threading.RLock()

    # -- connection -------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._handles is not None

    def _connect(self) -> tuple[Any, Any]:
        with self._connecting:
            if self._handles is None:
                if self._url is None or not serving(Path(self.location), self._url):  # it may be gone
                    self._url, self._secret = self._locate(), None
                client = http_client(self._url, self._token(), own=True)
                ef = self._ef()
                collection = palace_collection(client, ef, self._create, self.location)
                self._handles = (client, collection)
                self._known_id = str(collection.id)
                self.connections += 1
                self.record_embedder(ef, self._create)
            return self._handles

    def reach(self) -> None:
        """Find or start the folder's server without loading chromadb's client (about a second): its
        host builds a missing catalog, and notes the palace's embedder in it, before it serves."""
        with self._connecting:
            if self._url is None or not serving(Path(self.location), self._url):
                self._drop()  # handles to a server that is gone would never reconnect
                self._url = self._locate()

    def follow_live(self) -> None:
        """Connect again, to the drawers collection the palace's state names as live (after a move)."""
        with self._connecting:
            self._drop()
            self._known_id = None

    def learn_collection(self, collection_id: str | None) -> None:
        """The collection's id as the catalog knows it, so that a search goes by REST at once."""
        with self._connecting:
            self._known_id = self._known_id or collection_id

    def _token(self) -> str:
        """The secret of the folder's server, from its owner-only server file (read once per server)."""
        if self._secret is None:
            info = ServerInfo.read(Path(self.location))
            self._secret = info.token if info else ""
        return self._secret

    @property
    def _client(self) -> Any:  # type: ignore[override]
        return self._connect()[0]

    @property
    def _collection(self) -> Any:  # type: ignore[override]
        return self._connect()[1]

    @property
    def collection_id(self) -> str:
        return self._known_id or str(self._collection.id)

    def reconnected_after(self, error: Exception) -> bool:
        """After a failure: if the server has gone away, connect to (or start) a new one."""
        with self._connecting:
            if self._url is None or serving(Path(self.location), self._url):
                return False
            self._drop()
            self._connect()
            return True

    def _drop(self) -> None:
        if self._rest:
            self._rest.close()
        if self._handles is not None:
            close = getattr(self._handles[0], "close", None)  # chromadb keeps a client per URL otherwise
            if close is not None:
                try:
                    close()
                except Exception:  # a client of a server that is gone: nothing left to release
                    pass
        self._rest, self._handles, self._url, self._secret = None, None, None, None
        self.__dict__.pop("max_batch", None)

    def close(self) -> None:
        with self._connecting:
            self._drop()
            if self._counter_db is not None:
                self._counter_db.close()
                self._counter_db = None

    def write_counter(self) -> int | None:
        """Chroma's write counter from its file in the palace folder (see `ChromaStore.write_counter`),
        read without asking the server."""
        if self._counter_db is None:
            chroma_file = Path(self.location) / CHROMA_FILE
            if not chroma_file.exists():
                return None
            uri = chroma_file.resolve().as_uri() + "?mode=ro"
            self._counter_db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        return super().write_counter()

    # -- the one read short commands need ---------------------------------------------------------

    def nearest(self, vector: np.ndarray, n: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        if self.connected or self._known_id is None:
            return super().nearest(vector, n, where)
        for attempt in (1, 2):  # a second try finds (or starts) the new server if the old one died
            try:
                result = self._rest_query(vector, n, where)
                break
            except (OSError, http.client.HTTPException):
                if attempt == 2:
                    return super().nearest(vector, n, where)  # the client path reports clearly
            except ValueError:
                return super().nearest(vector, n, where)
        return list(zip(result["ids"][0], (float(d) for d in result["distances"][0])))

    def _rest_query(self, vector: np.ndarray, n: int, where: Mapping[str, Any] | None) -> dict[str, Any]:
        body: dict[str, Any] = {"query_embeddings": [np.asarray(vector, dtype=float).tolist()], "n_results": n,
                                "include": ["distances"]}
        if where:
            body["where"] = dict(where)
        path = f"/api/v2/tenants/{TENANT}/databases/{DATABASE}/collections/{self._known_id}/query"
        for attempt in range(1, INDEX_RETRIES + 1):
            status, answer = self._post(path, json.dumps(body).encode())
            if status == 200:
                return json.loads(answer)
            if status == 404:  # the collection is not (or no longer) there: the client path finds out
                raise ValueError("collection not found")
            if b"segment reader" not in answer:  # a server still indexing fresh drawers: wait a little
                raise PalaceUnavailableError(f"The palace's server refused a search: {answer[:300]!r}")
            time.sleep(0.05 * attempt)
        raise PalaceUnavailableError("The palace's server is still indexing new drawers; search again.")

    def _post(self, path: str, body: bytes) -> tuple[int, bytes]:
        with self._connecting:
            if self._rest is None:
                self._url = self._url or self._locate()
                parts = urlparse(self._url)
                self._rest = OwnServerConnection(parts.hostname, parts.port, timeout=60)
            for attempt in (1, 2):
                try:
                    self._rest.request("POST", path, body, {"Content-Type": "application/json",
                                                            "Authorization": f"Bearer {self._token()}"})
                    response = self._rest.getresponse()
                    return response.status, response.read()
                except (OSError, http.client.HTTPException):
                    self._rest.close()  # a kept-alive connection the server closed: one fresh try
                    if attempt == 2 or not serving(Path(self.location), self._url):
                        self._drop()
                        raise
            raise AssertionError("unreachable")
