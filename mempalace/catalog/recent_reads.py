"""The catalog's reads for a wake-up: the newest day in some wings, the rooms most active before it,
and the newest drawers of a hall (a mixin of `Catalog`, which provides `_db`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence


def _in(wings: Sequence[str]) -> tuple[str, list[str]]:
    return f"wing IN ({', '.join('?' * len(wings))})", list(wings)


class RecentReads:
    """Small, index-backed reads: none scans more than the chosen wings' rows of one day range."""

    _db: sqlite3.Connection

    def newest_day(self, wings: Sequence[str]) -> str:
        """The newest day (YYYY-MM-DD) a drawer of these wings is dated, or "" for none."""
        if not wings:
            return ""
        sql, args = _in(wings)
        found = self._db.execute(f"SELECT max(dated) FROM drawers WHERE {sql}", args).fetchone()
        return str(found[0] or "")

    def active_rooms(self, wings: Sequence[str], since: str, limit: int) -> list[tuple[str, int, str]]:
        """(room, drawers dated `since` or later, newest day) of the busiest rooms in these wings,
        busiest first, then newest, then by name."""
        if not wings:
            return []
        sql, args = _in(wings)
        return [(r, int(n), str(d)) for r, n, d in self._db.execute(
            f"SELECT room, count(*) AS n, max(dated) AS d FROM drawers WHERE {sql} AND dated >= ? "
            "GROUP BY room ORDER BY n DESC, d DESC, room LIMIT ?", [*args, since, limit])]

    def newest_in_hall(self, wings: Sequence[str], hall: str, limit: int) -> list[tuple[str, str, str, str, str]]:
        """(id, wing, room, day, text) of the newest drawers of `hall` in these wings, newest first
        (a conversation's later drawers first within a day, then by id)."""
        if not wings:
            return []
        sql, args = _in(wings)
        return [tuple(map(str, row)) for row in self._db.execute(  # type: ignore[misc]
            f"SELECT id, wing, room, dated, substr(content, 1, 600) FROM drawers WHERE {sql} AND hall = ? "
            "ORDER BY dated DESC, filed_at DESC, chunk_index DESC, id LIMIT ?", [*args, hall, limit])]
