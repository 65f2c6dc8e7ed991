"""Hybrid search: cosine similarity from the vectors fused with BM25 over the whole palace.

score = (1 - w) * similarity + w * lexical, where lexical is the drawer's BM25 score divided by
the best BM25 score among the candidates (so 1.0 for the best keyword match), times (with an embedder
that crosses languages) the share of the query's terms the drawer holds (`MATCHED_SHARE_POWER`), and
w is `LEXICAL_WEIGHT`. Candidates are the nearest drawers by vector *and* the best keyword matches,
so a drawer that only matches by keyword is still found. The query is embedded without its
question framing and without the words found in most of the drawers searched (`semantic_text`).
These choices were made on LoCoMo's development conversations: benchmarks/locomo.py and
benchmarks/README.md have the figures.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Callable

import numpy as np

from ..catalog.catalog import Catalog
from ..catalog.dates import DATE_FILTERS
from ..catalog.vocabulary import content_words
from ..models import SearchHit
from ..store.chroma import ChromaStore

LEXICAL_WEIGHT = 0.4
# With an embedder that crosses languages, a keyword match counts by the share of the query's terms its
# drawer holds, squared: one word in common (a name, "flight") is weak evidence against an answer written
# in another language, which keyword search cannot find at all. With an English-only embedder keyword
# matches are all a question in another language has, so they count in full. Chosen on LoCoMo's dev
# conversations and multilingual_dev (benchmarks/README.md).
MATCHED_SHARE_POWER = 2.0
MIN_POOL = 50
VECTOR_SCAN_MAX = 50_000  # filtered sets up to this size are scanned exactly from the catalog
CACHED_ROWS_MAX = 150_000  # vectors kept in memory across filters (about 230 MB at 384 dimensions, 310 MB at 512)
COMMON_CACHE_MAX = 50_000  # (filters, word) verdicts kept until the palace changes
OVERFETCH = 1.5  # a big filtered set is searched unfiltered for this many times the share it leaves out
OVERFETCH_MAX = 2_000
CHANCE_SAMPLE = 1_000  # drawers whose similarity to a query tells what chance scores
CHANCE_SAMPLE_MIN = 50  # below this many drawers, only CLOSE_MIN decides
# A close match holds at least half of the query's words (those the keyword index looks up), or is
# nearer in meaning than CLOSE_MIN and than CLOSE_SPREAD standard deviations above what the query
# scores against drawers picked at random. CLOSE_MIN was read off LoCoMo's development conversations
# with all-MiniLM-L6-v2: 90 % of the drawers holding a question's answer score 0.30 or more, while
# the best drawer for nonsense or off-topic queries scored 0.05–0.29 (benchmarks/README.md).
CLOSE_WORD_SHARE = 0.5
CLOSE_SPREAD = 3.0
CLOSE_MIN = 0.3


# "What did", "how does", "?": the form of a question, not its subject. Keyword search drops these
# words as stop words; leaving them out of the embedded query too scored a little better on LoCoMo's
# development conversations (and no worse on the held-out ones).
_QUESTION_FRAMING = re.compile(
    r"(?<![\w'’-])(?:what|when|where|which|who|whom|whose|why|how|did|does|do|is|are|was|were)(?:['’]s)?"
    r"(?![\w'’-])|\?",
    re.IGNORECASE,
)
# A whole word, with its possessive: "Caroline's" is the word "Caroline".
_WORD = re.compile(r"(?<![\w'’-])(\w+)(?:['’]s)?(?![\w'’-])")
# A word found in more than this share of the drawers searched (a wing's owner, the project's name)
# says nothing about which of them to pick, yet it pulls the query's vector towards all of them.
COMMON_WORD_SHARE = 0.5
COMMON_WORD_MIN_DRAWERS = 20


def semantic_text(query: str, common: frozenset[str] = frozenset()) -> str:
    """The text embedded for `query`: without its question framing and without the (lowercase) words
    in `common`; if that leaves nothing, without the framing only; if that leaves nothing, the query."""
    unframed = _QUESTION_FRAMING.sub(" ", query)
    specific = _WORD.sub(lambda m: " " if m.group(1).lower() in common else m.group(0), unframed)
    for text in (specific, unframed):
        text = " ".join(text.split())
        if any(c.isalnum() for c in text):
            return text
    return query


def query_words(query: str) -> list[str]:
    """The whole words of `query` (possessives without their 's)."""
    return _WORD.findall(query)


def chroma_where(filters: Mapping[str, Any], halls: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """Chroma's `where` for the place filters; a tuple of values (a scoped view's wings) is `$in`, and
    no hall ('') is none of `halls`, the halls in use (Chroma stores no key for it). Dates are not
    among Chroma's metadata as values it can compare: see `Searcher._nearest`."""
    clauses = [{k: {"$in": list(v)} if isinstance(v, tuple) else {"$nin": list(halls)} if v == "" else v}
               for k, v in filters.items() if v is not None and k not in DATE_FILTERS and (v != "" or halls)]
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


class Searcher:
    """Runs searches for one palace; keeps filtered vector matrices while the catalog is unchanged."""

    def __init__(self, store: ChromaStore, catalog: Catalog, share_power: float = 0.0):
        self.share_power = share_power  # `MATCHED_SHARE_POWER` for an embedder that crosses languages, else 0
        self._store = store
        self._catalog = catalog
        self._scans: OrderedDict[tuple, tuple[int, list[str], np.ndarray]] = OrderedDict()
        self._common: dict[tuple[tuple, str], bool] = {}  # (filters, word) → common there, for one generation
        self._common_generation = -1
        self._counts: dict[tuple, int] = {}  # filters → matching drawers, for one generation
        self._counts_generation = -1
        self._sample: tuple[int, np.ndarray] | None = None  # (generation, vectors) for `_chance_similarity`

    def embedded_text(self, query: str, filters: Mapping[str, str | None], generation: int) -> str:
        """What to embed for `query` when searching within `filters` (see `semantic_text`)."""
        if generation != self._common_generation or len(self._common) > COMMON_CACHE_MAX:
            self._common, self._common_generation = {}, generation
        filters = {k: v for k, v in filters.items() if k not in DATE_FILTERS}  # words common in the place
        key = _filter_key(filters)
        words = content_words(query_words(query))  # exactly the words common_verdicts judges
        unknown = [w for w in words if (key, w) not in self._common]
        if unknown:
            verdicts = self._catalog.common_verdicts(unknown, filters, COMMON_WORD_SHARE, COMMON_WORD_MIN_DRAWERS)
            self._common.update(((key, w), common) for w, common in verdicts.items())
        return semantic_text(query, frozenset(w for w in words if self._common.get((key, w))))

    def keyword_hits(self, query: str, filters: Mapping[str, Any], limit: int, generation: int) -> dict[str, float]:
        """{id: BM25 score} of the best keyword matches, the candidates `search` fuses with the nearest.
        A scoped view's wing list is applied after an unfiltered match when it holds most of the palace
        (matching one place token per wing costs more than the search)."""
        pool = max(limit * 5, MIN_POOL)
        if isinstance(filters.get("wing"), tuple):
            loose = {**filters, "wing": None}
            kept = self._filtered_after(lambda k: self._catalog.lexical(query, loose, k), filters, pool,
                                        self._matching(filters, generation))
            if kept is not None:
                return dict(kept)
        return dict(self._catalog.lexical(query, filters, pool))

    def search(self, vector: np.ndarray, filters: Mapping[str, str | None], limit: int,
               lexical: Mapping[str, float], hybrid: bool, generation: int, query: str = "") -> list[SearchHit]:
        """Fuse the nearest drawers to `vector` with the keyword hits (`keyword_hits`, {} for vector mode);
        `query` (its words) tells which hits are close matches."""
        pool = max(limit * 5, MIN_POOL)
        semantic = self._nearest(vector, filters, pool, generation)
        rows = self._catalog.rows(list(dict.fromkeys([*semantic, *lexical])))
        best_lexical = max(lexical.values(), default=0.0) or 1.0
        weight = LEXICAL_WEIGHT if hybrid else 0.0
        terms = self._catalog.query_terms(query) if query else []
        worded = self._catalog.words_found(list(rows), terms)  # every candidate: the shares and close matches
        scored = []
        for drawer_id, row in rows.items():
            similarity = float(np.dot(row.vector, vector)) if row.vector is not None else semantic.get(drawer_id, 0.0)
            lexical_part = weight * lexical.get(drawer_id, 0.0) / best_lexical * _matched_share(
                worded.get(drawer_id, 0), len(terms), self.share_power)
            semantic_part = (1.0 - weight) * similarity
            scored.append((semantic_part + lexical_part, similarity, semantic_part, lexical_part, row))
        scored.sort(key=lambda s: (-s[0], s[4].id))
        near = self._chance_similarity(vector, generation)
        enough = max(1, math.ceil(len(terms) * CLOSE_WORD_SHARE))
        return [
            SearchHit(
                rank=rank, drawer_id=row.id, content=row.content, wing=row.wing, room=row.room,
                hall=row.hall or None, source_file=row.source_file or None, filed_at=row.filed_at or None,
                score=round(score, 6), similarity=round(sim, 6), semantic=round(sem, 6), lexical=round(lex, 6),
                conversation_date=row.said or None, title=row.title or None,
                close=worded.get(row.id, 0) >= enough or sim >= near,
            )
            for rank, (score, sim, sem, lex, row) in enumerate(scored[:limit], start=1)
        ]

    def _chance_similarity(self, vector: np.ndarray, generation: int) -> float:
        """The similarity a drawer needs to count as close in meaning: CLOSE_SPREAD standard
        deviations above the query's mean similarity to a fixed sample of the palace's drawers
        (what an unrelated drawer scores with this query and this model), and at least CLOSE_MIN."""
        if self._sample is None or self._sample[0] != generation:
            self._sample = (generation, self._catalog.sample_vectors(CHANCE_SAMPLE))
        sample = self._sample[1]
        if len(sample) < CHANCE_SAMPLE_MIN:
            return CLOSE_MIN
        sims = sample @ vector.astype(sample.dtype, copy=False)
        return max(CLOSE_MIN, float(sims.mean() + CLOSE_SPREAD * sims.std()))

    def _nearest(self, vector: np.ndarray, filters: Mapping[str, str | None], pool: int,
                 generation: int) -> dict[str, float]:
        """Id → cosine similarity of the `pool` nearest drawers within the filters."""
        where = chroma_where(filters, self._catalog.halls_in_use() if filters.get("hall") == "" else ())
        dated = any(filters.get(k) for k in DATE_FILTERS)
        matching = self._matching(filters, generation) if where is not None or dated else 0
        if where is None and not dated:
            return {i: 1.0 - d for i, d in self._store.nearest(vector, pool, where)}
        if matching > VECTOR_SCAN_MAX and dated:
            kept = self._filtered_after(lambda k: self._store.nearest(vector, k, where), filters, pool, matching)
            if kept is not None:
                return {i: 1.0 - d for i, d in kept}
        elif matching > VECTOR_SCAN_MAX:
            return self._nearest_in_many(vector, filters, where, pool, matching)
        ids, matrix = self._scan(filters, generation)
        if not ids:
            return {}
        sims = matrix @ vector.astype(matrix.dtype, copy=False)  # a float64 query would copy the whole matrix
        top = np.argpartition(-sims, pool)[:pool] if len(ids) > pool else np.arange(len(ids))
        return {ids[i]: float(sims[i]) for i in top}

    def _matching(self, filters: Mapping[str, Any], generation: int) -> int:
        """How many drawers match the filters, remembered for this generation (a search asks twice)."""
        if self._counts_generation != generation:
            self._counts, self._counts_generation = {}, generation
        key = _filter_key(filters)
        if key not in self._counts:
            self._counts[key] = self._catalog.matching_count(filters)
        return self._counts[key]

    def _nearest_in_many(self, vector: np.ndarray, filters: Mapping[str, Any], where: dict[str, Any], pool: int,
                         matching: int) -> dict[str, float]:
        """The nearest within a filter that holds most of the palace (a scoped view of most wings, a
        big hall): Chroma's filtered search is slow there (see `_filtered_after`)."""
        kept = self._filtered_after(lambda k: self._store.nearest(vector, k), filters, pool, matching)
        found = kept if kept is not None else self._store.nearest(vector, pool, where)
        return {i: 1.0 - d for i, d in found}

    def _filtered_after(self, fetch: Callable[[int], list[tuple[str, float]]], filters: Mapping[str, Any],
                        pool: int, matching: int) -> list[tuple[str, float]] | None:
        """The best `pool` of `fetch(k)` (unfiltered, best first) that match the filters, asking for
        enough more to leave `pool` inside them; None when that would be too many or too few were left
        (then the caller searches with the filter)."""
        wanted = math.ceil(pool * OVERFETCH * self._catalog.count() / max(matching, 1))
        if wanted > OVERFETCH_MAX:
            return None
        found = fetch(wanted)
        inside = self._catalog.matching_ids([i for i, _ in found], filters)
        kept = [(i, score) for i, score in found if i in inside]
        return kept[:pool] if len(kept) >= pool or len(found) < wanted else None

    def _scan(self, filters: Mapping[str, str | None], generation: int) -> tuple[list[str], np.ndarray]:
        key = _filter_key(filters)
        cached = self._scans.get(key)
        if cached is None or cached[0] != generation:
            ids, matrix = self._catalog.vectors(filters)
            cached = (generation, ids, matrix)
            self._scans[key] = cached
            while sum(len(c[1]) for c in self._scans.values()) > CACHED_ROWS_MAX and len(self._scans) > 1:
                self._scans.popitem(last=False)
        self._scans.move_to_end(key)
        return cached[1], cached[2]


def _matched_share(found: int, terms: int, power: float) -> float:
    """How much a keyword match counts: the share of the query's terms the drawer holds, to `power`
    (1.0 when the query has no terms to share, or the power is 0)."""
    return (found / terms) ** power if terms and power else 1.0


def _filter_key(filters: Mapping[str, str | None]) -> tuple:
    return tuple(sorted((k, v) for k, v in filters.items() if v is not None))
