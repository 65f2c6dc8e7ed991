"""The catalog's date views: the days drawers were filed, the days conversations happened and the
dates rooms hold, for the whole palace and per wing (which scoped views merge, so nobody's view
needs its own scan); and the date range filter (`after` / `before`, inclusive, on each drawer's
conversation day, else its filing day)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from ..errors import InvalidInputError

DATE_FILTERS = {"after": ">=", "before": "<="}
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def date_range(after: object = None, before: object = None) -> dict[str, str]:
    """The `after`/`before` filters as checked YYYY-MM-DD days (either may be None or "")."""
    days = {}
    for key, value in (("after", after), ("before", before)):
        if value in (None, ""):
            continue
        try:
            days[key] = date.fromisoformat(str(value)).isoformat()
        except ValueError:
            raise InvalidInputError(f"{key} must be a date written YYYY-MM-DD, not {str(value)[:40]!r}.") from None
    if len(days) == 2 and days["after"] > days["before"]:
        raise InvalidInputError(f"after ({days['after']}) is later than before ({days['before']}).")
    return days


def first_day(*candidates: Any) -> str:
    """The first candidate that starts with a YYYY-MM-DD date, cut to that date ("" if none does)."""
    for value in candidates:
        if isinstance(value, str) and _DAY.match(value):
            return value[:10]
    return ""


def date_clause(filters: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """SQL conditions (to AND) and their arguments for the filters' date range, if any."""
    parts, args = [], []
    for key, operator in DATE_FILTERS.items():
        if filters.get(key):
            parts.append(f"d.dated != '' AND d.dated {operator} ?")
            args.append(filters[key])
    return parts, args


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
        return self._by_wing("SELECT wing, substr(filed_at, 1, 10) AS day, count(*) FROM drawers"
                             " WHERE filed_at != '' GROUP BY wing, day")

    def conversation_days_by_wing(self) -> dict[str, dict[str, int]]:
        """{wing: {YYYY-MM-DD: conversations of that day in the wing}}, by each conversation's own
        date (else the day it was filed), read from the (wing, dated, parent_id) index."""
        return self._by_wing("SELECT wing, dated, count(DISTINCT parent_id) FROM drawers"
                             " WHERE dated != '' GROUP BY wing, dated")

    def first_filed_by_wing(self) -> dict[str, str]:
        """{wing: when its earliest stored drawer was filed (ISO time, '' when none says)}."""
        return dict(self._db.execute("SELECT wing, min(filed_at) FROM drawers GROUP BY wing").fetchall())

    def source_counts_by_wing(self) -> dict[str, dict[str, int]]:
        """{wing: {source file: its drawers there}}."""
        return self._by_wing("SELECT wing, source_file, count(*) FROM drawers"
                             " WHERE source_file != '' GROUP BY wing, source_file")

    def _by_wing(self, sql: str) -> dict[str, dict[str, int]]:
        """{wing: {key: n}} from a query of (wing, key, n) rows."""
        by_wing: dict[str, dict[str, int]] = {}
        for wing, key, n in self._db.execute(sql):
            by_wing.setdefault(wing, {})[key] = n
        return by_wing


def _newest(per_room: int, pairs: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """{room: its first `per_room` dates} from (room, date) pairs sorted by room, newest date first."""
    dates: dict[str, list[str]] = {}
    for room, dated in pairs:
        found = dates.setdefault(room, [])
        if len(found) < per_room:
            found.append(dated)
    return {room: tuple(found) for room, found in dates.items()}
