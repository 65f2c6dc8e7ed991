"""The trash: deleted drawers kept whole (text, metadata, vector) in collections of their own beside
the live one, one per embedder (a collection holds vectors of one width), until restored or purged."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .chroma import PAGE, ChromaStore, Record, _guarded, _records
from .connecting import missing

TRASH_PREFIX = "mempalace_trash_"
TRASHED_AT = "mp_trashed_at"  # when (seconds since the epoch, a float: purging compares it)
TRASH_CHANGE = "mp_trash_change"  # the change that deleted it (one delete of one or many drawers)
TRASHED_BY = "mp_trashed_by"  # who deleted it
TRASH_KEYS = (TRASHED_AT, TRASH_CHANGE, TRASHED_BY)


def trash_collection(embedder: str) -> str:
    return f"{TRASH_PREFIX}{embedder}"


class TrashBin:
    """The trash collections of one palace's store. Every trashed record carries TRASH_KEYS besides
    the drawer's own metadata; its vector is the one the drawer had (of the collection's embedder)."""

    def __init__(self, store: ChromaStore):
        self.store = store

    def _client(self) -> Any:
        return self.store._client

    def _collections(self) -> dict[str, Any]:
        """{embedder: collection} of the trash collections that exist."""
        names = [getattr(c, "name", c) for c in self._client().list_collections()]
        return {n[len(TRASH_PREFIX):]: self._client().get_collection(n, embedding_function=None)
                for n in sorted(names) if n.startswith(TRASH_PREFIX)}

    @_guarded
    def put(self, embedder: str, records: Sequence[Record]) -> None:
        """Keep `records` (vectors included) in `embedder`'s trash; a record kept before is replaced."""
        if not records:
            return
        trash = self._client().get_or_create_collection(trash_collection(embedder), embedding_function=None,
                                                         metadata={"hnsw:space": "cosine"})
        for start in range(0, len(records), self.store.max_batch):
            batch = records[start : start + self.store.max_batch]
            trash.upsert(ids=[r.id for r in batch], documents=[r.document for r in batch],
                         metadatas=[dict(r.metadata) for r in batch], embeddings=[r.embedding for r in batch])

    @_guarded
    def scan(self, where: Mapping[str, Any] | None = None, documents: bool = True, vectors: bool = False
             ) -> Iterator[tuple[str, list[Record]]]:
        """(embedder, a page of trashed records) for every trashed record (matching `where`)."""
        include = (["documents"] if documents else []) + ["metadatas"] + (["embeddings"] if vectors else [])
        for embedder, trash in self._collections().items():
            offset = 0
            while rows := _records(trash.get(where=dict(where) if where else None, include=include,
                                             limit=PAGE, offset=offset)):
                yield embedder, rows
                offset += len(rows)

    @_guarded
    def get(self, ids: Sequence[str]) -> dict[str, tuple[str, Record]]:
        """{id: (embedder, record with its vector)} of these ids in the trash (the newest if in two)."""
        found: dict[str, tuple[str, Record]] = {}
        for embedder, trash in self._collections().items():
            for start in range(0, len(ids), PAGE):
                got = trash.get(ids=list(ids[start : start + PAGE]), include=["documents", "metadatas", "embeddings"])
                for record in _records(got):
                    kept = found.get(record.id)
                    if kept is None or _when(record) > _when(kept[1]):
                        found[record.id] = (embedder, record)
        return found

    @_guarded
    def remove(self, ids: Sequence[str]) -> None:
        """Forget these ids in every trash collection (unknown ids are ignored)."""
        for trash in self._collections().values():
            for start in range(0, len(ids), self.store.max_batch):
                try:
                    trash.delete(ids=list(ids[start : start + self.store.max_batch]))
                except Exception as exc:
                    if not missing(exc):
                        raise

    @_guarded
    def clear(self) -> None:
        """Forget everything in the trash (its collections are dropped)."""
        for embedder in self._collections():
            self._client().delete_collection(trash_collection(embedder))

    @_guarded
    def older_than(self, moment: float) -> list[str]:
        """Ids trashed before `moment` (seconds since the epoch)."""
        return [r.id for _, rows in self.scan({TRASHED_AT: {"$lt": moment}}, documents=False) for r in rows]


def _when(record: Record) -> float:
    return float(record.metadata.get(TRASHED_AT) or 0.0)
