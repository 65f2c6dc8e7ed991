"""A palace's likeness by meaning: its model's vectors (recent ones remembered), the stored drawers
nearest new vectors, and near-duplicates of a text (a mixin of `Palace`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..catalog.catalog import Catalog
from ..catalog.sync import CatalogSync, catalog_row
from ..config import Settings
from ..embedding.embedders import EmbedderLoader
from ..errors import InvalidInputError
from ..models import DuplicateMatch
from ..store.chroma import ChromaStore
from ..text.chunking import split_verbatim
from .drawer_records import best_first, in_wings, match
from .under_lock import serialized

VECTOR_CACHE = 20_000  # texts whose vectors `embed` remembers (about 30 MB)


class Likeness:
    """Vectors and nearest drawers; `Palace` provides the store, catalog, model and settings."""

    settings: Settings
    _guard: threading.RLock
    _store: ChromaStore
    _catalog: Catalog
    _sync: CatalogSync
    _embedder: EmbedderLoader
    _vectors: OrderedDict[str, np.ndarray]
    _vectors_guard: threading.Lock
    _check_content: Any

    def nearest_existing(self, vectors: np.ndarray, exclude: Sequence[str] = (),
                         within: tuple[str, ...] | None = None) -> list[tuple[str, float] | None]:
        """For each vector, the most similar stored drawer not in `exclude` (in the wings `within`),
        with its cosine similarity. Chroma is asked without the palace's lock: at a million drawers
        the query takes a second, which the catalog's readers (an ingest's room choice) need not wait."""
        with self._guard:
            self._sync.ensure_fresh()
            total = self._catalog.count()
        if not len(vectors) or not total or within == ():
            return [None] * len(vectors)
        skip = set(exclude)
        found = self._store.nearest_many(np.asarray(vectors), min(total, 5), in_wings(within))
        best = [next(((i, d) for i, d in near if i not in skip), None) for near in found]
        return [(b[0], round(1.0 - b[1], 6)) if b else None for b in best]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of `texts` with the palace's model; recent texts are remembered (preview, then file)."""
        with self._vectors_guard:  # a palace following a move meanwhile starts a new memory (see `_follow_embedder`)
            remembered = self._vectors
            known = {t: remembered[t] for t in texts if t in remembered}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        fresh = self._embed(missing) if missing else []
        known.update(zip(missing, fresh))
        with self._vectors_guard:
            if remembered is self._vectors:
                remembered.update(zip(missing, fresh))
                while len(remembered) > VECTOR_CACHE:
                    remembered.popitem(last=False)
        return np.stack([known[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)

    @serialized
    def check_duplicate(self, content: str, threshold: float | None = None,
                        within: tuple[str, ...] | None = None) -> tuple[DuplicateMatch, ...]:
        """Existing drawers at least `threshold` similar to `content`, most similar first."""
        self._check_content(content)
        threshold = self.settings.duplicate_threshold if threshold is None else float(threshold)
        if not 0.0 < threshold <= 1.0:
            raise InvalidInputError("The duplicate threshold must be between 0 and 1.")
        self._sync.ensure_fresh()
        vectors = self._embed(split_verbatim(content, self.settings.drawer_chars))
        return tuple(best_first(self._similar(vectors, threshold, set(), within)))

    def _embed(self, texts: list[str]) -> Any:
        return self._embedder.get().embed(texts)

    @property
    def embeds_meaning(self) -> bool:
        """Whether the model places a phrase near texts about it (a test's hashed bag of words does not)."""
        return bool(getattr(self._embedder.get(), "embeds_meaning", True))

    def _similar(self, vectors: Any, threshold: float, exclude: set[str],
                 within: tuple[str, ...] | None = None) -> list[DuplicateMatch]:
        found: dict[str, float] = {}
        for vector in vectors if within != () else ():
            for drawer_id, distance in self._store.nearest(vector, 5, in_wings(within)):
                if drawer_id not in exclude and 1.0 - distance >= threshold - 1e-6:
                    found[drawer_id] = max(found.get(drawer_id, 0.0), 1.0 - distance)
        rows = self._catalog.rows(list(found))
        unseen = [i for i in found if i not in rows]
        rows.update({r.id: catalog_row(r) for r in self._store.get(unseen)} if unseen else {})
        return [match(rows[i], s) for i, s in found.items() if i in rows]
