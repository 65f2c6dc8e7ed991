"""How many drawers hold a word: exact counts from the keyword index, for skipping common words.

Words are turned into the index's own tokens (Porter stems, accents off; a CJK word's character
pairs, as `cjk` indexes them) by a private in-memory FTS5 table with the same tokenizer, then looked
up in the index's vocabulary. Search uses the counts
to leave very common words out of keyword search and out of the embedded query; room naming uses
them to pass over words every wing has.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..text.cjk import index_words, match_of, query_form, single_cjk

TOKENIZER = "porter unicode61 remove_diacritics 2"  # the tokenizer of the catalog's drawers_fts
_TERM = re.compile(r"\w+", re.UNICODE)
# Words too common to say anything about a drawer; dropping them keeps BM25 fast on big palaces.
STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself yourselves
""".split())
COMMON_SHARE = 0.25  # a term in more than this share of drawers (and in over COMMON_MIN drawers) is skipped
COMMON_MIN = 2_000
MAX_QUERY_WORDS = 64  # a query's words beyond these are searched but never counted
MAX_RECOUNTS = 8  # words counted again inside a filter per call, the most frequent first
DOCUMENTS_KEPT = 100_000  # words whose drawer counts a catalog remembers until it changes


def content_words(words: Iterable[str]) -> list[str]:
    """Distinct lowercased words that are not stop words, at most MAX_QUERY_WORDS of them."""
    found = dict.fromkeys(w.lower() for w in words if isinstance(w, str))
    return [w for w in found if w not in STOP_WORDS and _TERM.fullmatch(w)][:MAX_QUERY_WORDS]


class WordTokens:
    """The index's tokens for words ("Emily" → emili), memoised; safe to share between threads."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._db.executescript(f"CREATE VIRTUAL TABLE words USING fts5(w, tokenize='{TOKENIZER}');"
                               "CREATE VIRTUAL TABLE tokens USING fts5vocab(words, 'instance');")
        self._lock = threading.Lock()
        self._memo: dict[str, tuple[str, ...]] = {}

    def close(self) -> None:
        self._db.close()

    def of(self, words: Sequence[str]) -> dict[str, tuple[str, ...]]:
        with self._lock:
            missing = [w for w in dict.fromkeys(words) if w not in self._memo]
            if missing:
                self._db.execute("DELETE FROM words")
                self._db.executemany("INSERT INTO words(rowid, w) VALUES (?, ?)",
                                     [(i, query_form(w)) for i, w in enumerate(missing, 1)])
                found: dict[int, list[str]] = {}
                for doc, term in self._db.execute("SELECT doc, term FROM tokens ORDER BY doc, offset"):
                    found.setdefault(doc, []).append(term)
                if len(self._memo) > 100_000:
                    self._memo.clear()
                self._memo.update({w: tuple(found.get(i, ())) for i, w in enumerate(missing, 1)})
            return {w: self._memo[w] for w in words}


class WordCounts:
    """Word statistics over the catalog's keyword index: a mixin for `Catalog`, which provides
    `_db`, `_word_tokens`, `count`, `matching_count`, `place_match` (from `LexicalSearch`) and `data_version`."""

    _db: sqlite3.Connection
    _word_tokens: WordTokens
    data_version: Callable[[], int]

    def query_terms(self, query: str) -> list[str]:
        """The words of `query` worth a keyword lookup: no stop words, none found in most drawers."""
        terms = content_words(index_words(query))
        total = self.count()
        if not terms or total <= COMMON_MIN:
            return terms
        documents = self.documents(terms)
        limit = max(COMMON_MIN, COMMON_SHARE * total)
        return [t for t in terms if documents[t] <= limit]

    def common_verdicts(self, words: Iterable[str], filters: Mapping[str, str | None], share: float,
                        min_drawers: int) -> dict[str, bool]:
        """Whether each of `words` (as `content_words`) is found in more than `share` of the drawers
        within the filters; nothing is, among fewer than `min_drawers` drawers. Words common in the
        whole palace are counted again within the filters, at most MAX_RECOUNTS of them, the most
        frequent first: the others get no verdict (they are left out of the answer)."""
        candidates = content_words(words)
        total = self.matching_count(filters) if candidates else 0
        if total < min_drawers:
            return dict.fromkeys(candidates, False)
        limit = share * total
        documents = self.documents(candidates)
        verdicts = {w: False for w in candidates if documents[w] <= limit}
        frequent = _most_frequent_first(candidates, documents, limit)
        place = self.place_match(filters)
        if not place:
            return verdicts | dict.fromkeys(frequent, True)
        for word in frequent[:MAX_RECOUNTS]:
            verdicts[word] = self._count(f"{_phrase(word)} AND {place}") > limit
        return verdicts

    def common_words(self, words: Iterable[str], filters: Mapping[str, str | None], share: float,
                     min_drawers: int) -> frozenset[str]:
        """The words `common_verdicts` finds common."""
        return frozenset(w for w, common in self.common_verdicts(words, filters, share, min_drawers).items() if common)

    def widespread_verdicts(self, words: Iterable[str], wing_sizes: Mapping[str, int], share: float,
                            min_wing_drawers: int) -> dict[str, bool]:
        """Whether each of `words` is found in more than `share` of the drawers of more than half of
        the wings (at least two), counting only wings of `min_wing_drawers` drawers or more
        (`wing_sizes`: wing → drawers). At most MAX_RECOUNTS words are counted per wing, the most
        frequent first; the others get no verdict."""
        sizes = {w: n for w, n in wing_sizes.items() if n >= min_wing_drawers}
        candidates = content_words(words)
        if len(sizes) < 2 or not candidates:
            return dict.fromkeys(candidates, False)
        needed = len(sizes) // 2 + 1
        floor = share * sum(sorted(sizes.values())[:needed])  # the fewest drawers such a word can be in
        documents = self.documents(candidates)
        verdicts = {w: False for w in candidates if documents[w] <= floor}
        for word in _most_frequent_first(candidates, documents, floor)[:MAX_RECOUNTS]:
            per_wing = self._db.execute(
                "SELECT d.wing, count(*) FROM drawers_fts JOIN drawers d ON d.rowid = drawers_fts.rowid"
                " WHERE drawers_fts MATCH ? GROUP BY d.wing", [_phrase(word)]).fetchall()
            verdicts[word] = sum(1 for wing, n in per_wing if wing in sizes and n > share * sizes[wing]) >= needed
        return verdicts

    def documents(self, words: Sequence[str]) -> dict[str, int]:
        """Word → how many drawers hold it (a word the index splits, like `team_work`, as a phrase);
        remembered until the catalog changes (a common word's count reads its whole posting list:
        about 10 ms a word in a million drawers, asked by every search)."""
        changed = (self.data_version(), self._db.total_changes)
        if getattr(self, "_documents_at", None) != changed or len(self._documents) > DOCUMENTS_KEPT:
            self._documents: dict[str, int] = {}
            self._documents_at = changed
        missing = [w for w in dict.fromkeys(words) if w not in self._documents]
        if missing:
            self._documents.update(self._count_documents(missing))
        return {w: self._documents[w] for w in words}

    def _count_documents(self, words: Sequence[str]) -> dict[str, int]:
        tokens = self._word_tokens.of(list(words))
        wanted = sorted({t for parts in tokens.values() for t in parts})
        counts: dict[str, int] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            counts.update(self._db.execute(f"SELECT term, doc FROM drawers_vocab WHERE term IN ({marks})", chunk))
        found = {w: min((counts.get(t, 0) for t in tokens[w]), default=0) for w in words}
        for word in (w for w in words if (len(tokens[w]) > 1 and found[w]) or single_cjk(w)):  # a_b: the phrase
            found[word] = self._count(_phrase(word))
        return found

    def words_found(self, ids: Sequence[str], words: Sequence[str]) -> dict[str, int]:
        """Drawer id → how many of `words` its text holds, as the keyword index reads words (stems
        included); drawers holding none are left out."""
        found: dict[str, int] = {}
        if not ids or not words:
            return found
        marks = ",".join("?" * len(ids))
        rowids = dict(self._db.execute(f"SELECT rowid, id FROM drawers WHERE id IN ({marks})", list(ids)).fetchall())
        marks = ",".join("?" * len(rowids))
        for word in words:  # the index looks up just these rows (a join would read the word's every row)
            for (rowid,) in self._db.execute(f"SELECT rowid FROM drawers_fts WHERE drawers_fts MATCH ? AND rowid IN"
                                             f" ({marks})", [_phrase(word), *rowids]):
                found[rowids[rowid]] = found.get(rowids[rowid], 0) + 1
        return found

    def _count(self, match: str) -> int:
        return int(self._db.execute("SELECT count(*) FROM drawers_fts WHERE drawers_fts MATCH ?", [match]).fetchone()[0])


def _most_frequent_first(words: list[str], documents: Mapping[str, int], above: float) -> list[str]:
    return sorted((w for w in words if documents[w] > above), key=lambda w: -documents[w])


def _phrase(word: str) -> str:
    return "content : " + match_of(word)

