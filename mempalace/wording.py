"""Counts as people write them, for every front end's messages: `1 drawer`, `2 drawers`, never `drawer(s)`."""

from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    """`1 drawer`, `1,234 drawers`: a count and its noun, singular or plural (`many`, else `one` + s)."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"
