"""The ASGI app of a shared palace's server, which its host runs under uvicorn: Chroma's own server
with its token authentication, on the same engine and files as an embedded palace. Settings come from
the environment the host gives it (the folder, the token). Two things are added before Chroma's app is
built: MemPalace's embedding function is registered, so the palace's collection loads (it is never
called there: drawers arrive with their vectors), and stored vectors are handed to the server as the
arrays it expects (Chroma 1.5's server fails a `get` or `query` that includes them otherwise). In front
of it, the proof that this is the palace's own server (`mempalace.store.server_identity`), asked before anything
is sent to it."""

from __future__ import annotations

import os
from typing import Any, Awaitable, Callable

import numpy as np
from chromadb.api.rust import RustBindingsAPI
from overrides import override  # Chroma's classes refuse an override without it

from . import embedding_function  # noqa: F401  (registers "mempalace" with Chroma)
from .server_identity import CHALLENGE, CHALLENGE_HEADER, PROOF_PATH, proof


class PalaceServerAPI(RustBindingsAPI):
    """Chroma's engine, returning stored vectors as numpy arrays as its server expects."""

    @override
    def _get(self, *args: Any, **kwargs: Any) -> Any:
        result = super()._get(*args, **kwargs)
        if result.get("embeddings") is not None:
            result["embeddings"] = [np.asarray(vector, dtype=np.float32) for vector in result["embeddings"]]
        return result

    @override
    def _query(self, *args: Any, **kwargs: Any) -> Any:
        result = super()._query(*args, **kwargs)
        if result.get("embeddings") is not None:
            result["embeddings"] = [[np.asarray(vector, dtype=np.float32) for vector in row]
                                    for row in result["embeddings"]]
        return result


from chromadb.app import app as chroma_app  # noqa: E402  (built last: its settings name the class above)


class ProvingApp:
    """Chroma's app, but `GET /mempalace/proof` with a challenge header is answered with the proof of
    the token the host gave the server (see `mempalace.store.server_identity.proof`); a bad challenge gets 400."""

    def __init__(self, inner: Any, token: str):
        self._inner, self._token = inner, token

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[Any]],
                       send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        if scope["type"] != "http" or scope["path"] != PROOF_PATH:
            return await self._inner(scope, receive, send)
        wanted = CHALLENGE_HEADER.lower().encode()
        challenge = next((value.decode("latin-1") for name, value in scope["headers"] if name == wanted), "")
        fine = scope["method"] == "GET" and CHALLENGE.fullmatch(challenge) is not None and bool(self._token)
        body = proof(self._token, challenge).encode() if fine else b"a challenge of 32 to 128 hex digits"
        await send({"type": "http.response.start", "status": 200 if fine else 400,
                    "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


app = ProvingApp(chroma_app, os.environ.get("CHROMA_SERVER_AUTHN_CREDENTIALS", ""))
