"""The ASGI app of a shared palace's server, which its host runs under uvicorn: Chroma's own server
with its token authentication, on the same engine and files as an embedded palace. Settings come from
the environment the host gives it (the folder, the token). Two things are added before Chroma's app is
built: MemPalace's embedding function is registered, so the palace's collection loads (it is never
called there: drawers arrive with their vectors), and stored vectors are handed to the server as the
arrays it expects (Chroma 1.5's server fails a `get` or `query` that includes them otherwise)."""

from __future__ import annotations

from typing import Any

import numpy as np
from chromadb.api.rust import RustBindingsAPI
from overrides import override  # Chroma's classes refuse an override without it

from . import embedding_function  # noqa: F401  (registers "mempalace" with Chroma)


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


from chromadb.app import app  # noqa: E402,F401  (built last: its settings name the class above)
