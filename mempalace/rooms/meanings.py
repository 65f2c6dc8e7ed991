"""Every room's meaning stacked for choosing among rooms, kept between the parts of an ingest."""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import Any

import numpy as np


class RoomMeanings:
    """Every room's meaning stacked in name order with its length, kept between parts: rows are
    updated as rooms gain drawers, and the stack is made again only when rooms open or are renamed
    (stacking thousands of rooms for every part was most of choosing among them)."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._sums = np.zeros((0, 0))
        self._norms = np.zeros(0)
        self._stale: set[str] = set()

    def changed(self, room: str) -> None:
        self._stale.add(room)

    def of(self, profiles: Mapping[str, Any]) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(names, their meanings stacked, the meanings' lengths) of the rooms (`profiles[name].meaning`)."""
        rows = {room: self._row(room) for room in self._stale}
        if (len(profiles) != len(self._names) or None in rows.values()
                or any(profiles[room].meaning.dtype != self._sums.dtype for room in rows)):  # as np.stack would
            self._names = sorted(profiles)
            self._sums = np.stack([profiles[n].meaning for n in self._names])
            self._norms = np.linalg.norm(self._sums, axis=1)
        else:
            for room, row in rows.items():
                self._sums[row] = profiles[room].meaning
                self._norms[row] = np.linalg.norm(self._sums[row : row + 1], axis=1)[0]
        self._stale = set()
        return self._names, self._sums, self._norms

    def _row(self, room: str) -> int | None:
        row = bisect.bisect_left(self._names, room)
        return row if row < len(self._names) and self._names[row] == room else None
