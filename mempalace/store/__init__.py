"""The store: the drawers collection in Chroma, read and written only here, its answers turned into
Records; reaching a server, switching embedders, the trash collections and the server's own app."""

from .._faces import lazy_names

__all__ = ["CHROMA_FILE", "ChromaStore", "Record"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["ChromaStore", "Record", "CHROMA_FILE"], "chroma"),
}, former="chroma")
