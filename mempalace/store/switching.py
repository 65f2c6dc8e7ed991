"""A drawers collection for another embedder, built beside the live one and switched to in one write
of the palace's state (see `mempalace.palace.embedder_move`). Until that write the live collection is the old one;
a half-built collection is resumed by the next move to the same embedder, or discarded."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from ..errors import PalaceUnavailableError
from .chroma import CHROMA_FILE, EMBEDDER_KEY, PAGE, ChromaStore, Record, _records
from .connecting import COLLECTION, LIVE_KEY, STATE_COLLECTION, live_collection_name


def collection_for(embedder: str) -> str:
    """The name of the drawers collection a move to `embedder` builds."""
    return f"{COLLECTION}_{embedder}"


def digest_of(record: Record) -> str:
    """What a drawer holds (text and metadata, exactly): equal digests, equal drawers."""
    text = json.dumps([record.document, sorted(record.metadata.items())], ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Beside:
    """The collection being built for `embedder` beside the live one of `store`."""

    def __init__(self, store: ChromaStore, embedder: str):
        from .embedding_function import PalaceEmbeddingFunction

        self.store = store
        self.embedder = embedder
        self.name = collection_for(embedder)
        client = store._client
        self.live = live_collection_name(client)
        if self.name == self.live:
            raise PalaceUnavailableError(f"The palace already uses the {embedder!r} embedder's collection.")
        self._collection = client.get_or_create_collection(
            self.name, embedding_function=PalaceEmbeddingFunction(embedder_name=embedder),
            metadata={"hnsw:space": "cosine"})

    def count(self) -> int:
        return int(self._collection.count())

    def scan(self, page: int = PAGE) -> Iterator[list[Record]]:
        """Every drawer built so far, a page at a time (text and metadata)."""
        offset = 0
        while rows := _records(self._collection.get(include=["documents", "metadatas"], limit=page, offset=offset)):
            yield rows
            offset += len(rows)

    def get(self, ids: Sequence[str]) -> list[Record]:
        """The built drawers with these ids, vectors included."""
        found: list[Record] = []
        for start in range(0, len(ids), PAGE):
            found += _records(self._collection.get(ids=list(ids[start:start + PAGE]),
                                                   include=["documents", "metadatas", "embeddings"]))
        return found

    def put(self, records: Sequence[Record], vectors: np.ndarray, replace: bool = True) -> None:
        """Store `records` exactly (text, metadata) with their new vectors; earlier copies are replaced
        whole (Chroma's update would merge metadata, keeping keys the drawer no longer has)."""
        ids = [r.id for r in records]
        if replace:
            self.delete(ids)
        for start in range(0, len(ids), self.store.max_batch):
            end = start + self.store.max_batch
            self._collection.add(ids=ids[start:end], documents=[r.document for r in records[start:end]],
                                 metadatas=[dict(r.metadata) or None for r in records[start:end]],
                                 embeddings=vectors[start:end])

    def delete(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), self.store.max_batch):
            self._collection.delete(ids=list(ids[start:start + self.store.max_batch]))

    def switch(self) -> None:
        """Make the built collection the live one and record its embedder: one write of the state."""
        state = self.store._client.get_or_create_collection(STATE_COLLECTION, embedding_function=None)
        state.modify(metadata={**(state.metadata or {}), LIVE_KEY: self.name, EMBEDDER_KEY: self.embedder})


def leftovers(store: ChromaStore, keep: str = "") -> list[str]:
    """Drawers collections that are not live (an earlier move's old one, or a half-built one), but `keep`."""
    client = store._client
    live = live_collection_name(client)
    return sorted(c.name for c in client.list_collections()
                  if c.name.startswith(COLLECTION) and c.name not in (live, keep))


def drop(store: ChromaStore, names: Sequence[str]) -> None:
    """Delete these collections (never the live one), giving their space back: Chroma's server leaves
    a deleted collection's vector index folder behind, so a palace folder's is removed here."""
    live = live_collection_name(store._client)
    for name in names:
        if name != live:
            folders = _index_folders(store, name)
            store._client.delete_collection(name)
            for folder in folders:
                if folder.is_dir() and not folder.is_symlink() and folder not in _index_folders(store):
                    shutil.rmtree(folder, ignore_errors=True)


def _index_folders(store: ChromaStore, name: str | None = None) -> list[Path]:
    """The vector index folders of collection `name` (of every collection: None) in a palace folder."""
    chroma_file = Path(store.location) / CHROMA_FILE
    if store.mode == "server" or not chroma_file.is_file():
        return []
    db = sqlite3.connect(chroma_file.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT s.id FROM segments s JOIN collections c ON s.collection = c.id"
                          " WHERE s.scope = 'VECTOR' AND (? IS NULL OR c.name = ?)", (name, name)).fetchall()
    except sqlite3.Error:  # another layout of Chroma's file: its folders are left to it
        return []
    finally:
        db.close()
    return [Path(store.location) / str(row[0]) for row in rows]


def digests(pages: Iterator[list[Record]]) -> dict[str, str]:
    return {r.id: digest_of(r) for page in pages for r in page}
