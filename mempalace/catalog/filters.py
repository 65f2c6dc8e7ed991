"""Place filters as SQL and as keyword-index tokens, shared by the catalog's reads."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from .dates import date_clause

FILTERS = ("wing", "room", "hall", "source_file")
FILING_ORDER = "d.filed_at, d.source_file, d.parent_id, d.chunk_index, d.id"  # the same on every machine


def place_tokens(**place: str | None) -> str:
    """One opaque keyword per place value, so the keyword index itself can filter by place."""
    return " ".join(place_token(k, v) for k, v in place.items() if v)


def place_token(key: str, value: str) -> str:
    digest = hashlib.sha256(f"{key}\0{value}".encode()).hexdigest()[:15]
    return f"p{FILTERS.index(key)}x{int(digest, 16)}"


def where_clause(filters: Mapping[str, Any]) -> tuple[str, list[str]]:
    """SQL for the given place filters (AND), ignoring the ones that are None; a tuple of values
    (a scoped view's wings) matches any of them."""
    parts, args = date_clause(filters)
    for key in FILTERS:
        value = filters.get(key)
        if isinstance(value, tuple):
            parts.append(f"d.{key} IN ({', '.join('?' * len(value))})" if value else "0")
            args.extend(value)
        elif value is not None:
            parts.append(f"d.{key} = ?")
            args.append(value)
    return (" AND ".join(parts) or "1"), args
