"""Reaching the palace's Chroma: a server's client (its token sent, its refusal explained) and the
drawers collection, made or found, with the search breadth MemPalace needs."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from ..errors import CorruptPalaceError, NotAPalaceError, PalaceUnavailableError

COLLECTION = "mempalace_drawers"
STATE_COLLECTION = "mempalace_state"  # holds no rows: its metadata carries our palace-level facts
LIVE_KEY = "drawers"  # the state's name of the drawers collection in use, once a move has switched it
HNSW_EF_SEARCH = 400  # candidates HNSW keeps while searching (Chroma's default: 100)


def missing(exc: Exception) -> bool:
    return "does not exist" in str(exc) or type(exc).__name__ == "NotFoundError"


_REFUSALS = ("401", "403", "unauthorized", "forbidden")  # chromadb keeps only the reply's text


def http_client(url: str, token: str = "", own: bool = False) -> Any:
    """A chromadb client of the server at `url`, which has answered its heartbeat; `token` goes in
    an `Authorization: Bearer` header (for a reverse proxy that checks it: Chroma has no auth). An
    `own` server (a shared palace's) is sent nothing on a connection whose far end is another user's."""
    import chromadb

    from .server_identity import guard_chroma_client

    parts = urlparse(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PalaceUnavailableError(f"{url!r} is not a Chroma server URL (http://host:port).")
    try:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        client = chromadb.HttpClient(host=parts.hostname, port=parts.port or (443 if parts.scheme == "https" else 8000),
                                     ssl=parts.scheme == "https", headers=headers)
        if own:
            guard_chroma_client(client)
        client.heartbeat()
    except PalaceUnavailableError:
        raise
    except Exception as exc:
        if type(exc).__name__ == "ChromaAuthError" or any(w in str(exc).lower() for w in _REFUSALS):
            raise PalaceUnavailableError(
                f"The server at {url} refused MemPalace's token ({exc}). Set server_token in config.toml or "
                "MEMPALACE_SERVER_TOKEN to the token its proxy expects.") from exc
        said = "" if "could not connect" in str(exc).lower() else f" ({exc})"  # chromadb's own words, when they add any
        raise PalaceUnavailableError(f"No Chroma server answers at {url}{said}.") from exc
    return client


def live_collection_name(client: Any) -> str:
    """The name of the drawers collection in use: the state records it once a palace has moved to
    another embedder (see `mempalace.palace.embedder_move`); before that it is always `COLLECTION`."""
    try:
        state = client.get_collection(STATE_COLLECTION, embedding_function=None).metadata or {}
    except Exception as exc:
        if missing(exc):
            return COLLECTION
        raise
    return str(state.get(LIVE_KEY) or COLLECTION)


def palace_collection(client: Any, embedding_function: Any, create: bool, location: str) -> Any:
    """The palace's drawers collection on `client`, or a clear error saying why there is none."""
    try:
        collection = _drawers_collection(client, embedding_function, create, live_collection_name(client))
    except NotAPalaceError:
        raise
    except Exception as exc:
        if missing(exc):
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


def _drawers_collection(client: Any, embedding_function: Any, create: bool, name: str = COLLECTION) -> Any:
    """The drawers collection `name` with our embedding function attached, whoever created it."""
    from chromadb.api.models.Collection import Collection

    try:
        return client.get_collection(name, embedding_function=embedding_function)
    except ValueError as exc:
        if "Embedding function conflict" in str(exc):
            # Another tool created it with its own embedding function: attach ours for this handle.
            model = client._server.get_collection(name=name, tenant=client.tenant, database=client.database)
            return Collection(client=client._server, model=model, embedding_function=embedding_function)
        if not create or "does not exist" not in str(exc):
            raise
    except Exception as exc:
        if not create or "does not exist" not in str(exc):
            raise
    others = [c.name for c in client.list_collections() if c.name != STATE_COLLECTION and not c.name.startswith(COLLECTION)]
    if others:
        raise NotAPalaceError(
            f"This Chroma database holds other collections ({', '.join(sorted(others)[:5])}) and no "
            f"{COLLECTION}: not a palace. Choose an empty directory for a new palace."
        )
    return client.create_collection(
        COLLECTION, embedding_function=embedding_function, metadata={"hnsw:space": "cosine"}
    )
