"""The catalog's date views: the days drawers were filed and the dates rooms hold, for the whole
palace and per wing (which scoped views merge, so nobody's view needs its own scan)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable


class DateCounts:
    """Date aggregates over the catalog's `drawers` table (a mixin of `Catalog`)."""

    _db: sqlite3.Connection

    def room_dates(self, per_room: int) -> dict[str, tuple[str, ...]]:
        """{room: its most recent distinct dates, newest first}, read from the (room, dated) index."""
        return _newest(per_room, self._db.execute(
            "SELECT DISTINCT room, dated FROM drawers WHERE dated != '' ORDER BY room, dated DESC"))

    def room_dates_by_wing(self, per_room: int) -> dict[str, dict[str, tuple[str, ...]]]:
        """{wing: {room: its most recent distinct dates there}}: what scoped views merge."""
        by_wing: dict[str, list[tuple[str, str]]] = {}
        for wing, room, dated in self._db.execute(
                "SELECT DISTINCT wing, room, dated FROM drawers WHERE dated != '' ORDER BY wing, room, dated DESC"):
            by_wing.setdefault(wing, []).append((room, dated))
        return {wing: _newest(per_room, pairs) for wing, pairs in by_wing.items()}

    def day_counts(self) -> dict[str, int]:
        """{YYYY-MM-DD: drawers filed that day}."""
        rows = self._db.execute("SELECT substr(filed_at, 1, 10) AS day, count(*) FROM drawers WHERE filed_at != ''"
                                " GROUP BY day ORDER BY day")
        return {day: n for day, n in rows}

    def day_counts_by_wing(self) -> dict[str, dict[str, int]]:
        """{wing: {YYYY-MM-DD: its drawers filed that day}}: what scoped views add up."""
        by_wing: dict[str, dict[str, int]] = {}
        for wing, day, n in self._db.execute("SELECT wing, substr(filed_at, 1, 10) AS day, count(*) FROM drawers"
                                             " WHERE filed_at != '' GROUP BY wing, day"):
            by_wing.setdefault(wing, {})[day] = n
        return by_wing


def _newest(per_room: int, pairs: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """{room: its first `per_room` dates} from (room, date) pairs sorted by room, newest date first."""
    dates: dict[str, list[str]] = {}
    for room, dated in pairs:
        found = dates.setdefault(room, [])
        if len(found) < per_room:
            found.append(dated)
    return {room: tuple(found) for room, found in dates.items()}
