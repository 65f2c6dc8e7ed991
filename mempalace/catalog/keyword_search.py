"""The catalog's keyword search: BM25 over its full-text index, within place filters (a mixin of
`Catalog`, which provides `_db` and `query_terms`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from ..text.cjk import match_of
from .dates import date_clause
from .filters import FILTERS, place_token


class LexicalSearch:
    """Keyword matches from the `drawers_fts` table."""

    _db: sqlite3.Connection
    query_terms: Callable[[str], list[str]]

    def place_match(self, filters: Mapping[str, Any]) -> str:
        """The FTS5 expression for the place filters ("" for none); a tuple matches any of its values."""
        terms = []
        for key in FILTERS:
            value = filters.get(key)
            if isinstance(value, tuple):
                terms.append("(" + " OR ".join(place_token(key, v) for v in value) + ")" if value else "p9x0")
            elif value:
                terms.append(place_token(key, value))
        return "place : (" + " AND ".join(terms) + ")" if terms else ""

    def lexical(self, query: str, filters: Mapping[str, str | None], limit: int) -> list[tuple[str, float]]:
        """(id, BM25 score, higher is better) of drawers containing any query term, best first."""
        terms = self.query_terms(query)
        if not terms:
            return []
        match = "content : (" + " OR ".join(match_of(t) for t in terms) + ")"
        place = self.place_match(filters)
        if place:
            match += " AND " + place
        dated, args = date_clause(filters)
        if filters.get("hall") == "":
            dated.append("d.hall = ''")  # no hall has no place token either
        inner = "" if dated else " LIMIT ?"  # dates are not in the keyword index: filtered after the match
        rows = self._db.execute(
            "SELECT d.id, m.s FROM (SELECT rowid AS hit, -bm25(drawers_fts, 1.0, 0.0) AS s FROM drawers_fts"
            f" WHERE drawers_fts MATCH ? ORDER BY s DESC{inner}) AS m JOIN drawers d ON d.rowid = m.hit"
            f" WHERE {' AND '.join(dated) or '1'} ORDER BY m.s DESC LIMIT ?",
            [match, *([] if dated else [limit]), *args, limit],
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]
