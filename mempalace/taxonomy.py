"""Wing → room → count views, answered from the catalog and kept in memory until anything changes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .catalog import Catalog
from .naming import wing_name
from .sync import CatalogSync


class TaxonomyView:
    """Taxonomy and counts for a palace; each call first makes sure the catalog is current."""

    def __init__(self, catalog: Catalog, sync: CatalogSync):
        self._taxonomy_catalog = catalog
        self._taxonomy_sync = sync
        self._guard = threading.RLock()  # one Palace may serve several threads (dashboard sessions)
        self._memo_generation = -1
        self._memo: dict[tuple[str, Any], Any] = {}

    def _memoized(self, key: tuple[str, Any], compute: Callable[[], Any]) -> Any:
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            if self._memo_generation != self._taxonomy_sync.generation:
                self._memo_generation, self._memo = self._taxonomy_sync.generation, {}
            if key not in self._memo:
                self._memo[key] = compute()
            return self._memo[key]

    def _tree(self) -> dict[str, dict[str, int]]:
        def build() -> dict[str, dict[str, int]]:
            tree: dict[str, dict[str, int]] = {}
            for wing, room, _, n in self._taxonomy_catalog.room_counts():
                rooms = tree.setdefault(wing, {})
                rooms[room] = rooms.get(room, 0) + n
            return tree

        return self._memoized(("tree", None), build)

    def count(self) -> int:
        """Number of drawers in the palace."""
        return self._memoized(("count", None), lambda: sum(sum(r.values()) for r in self._tree().values()))

    def taxonomy(self) -> dict[str, dict[str, int]]:
        """{wing: {room: drawer count}}, wings and rooms in name order."""
        return {wing: dict(rooms) for wing, rooms in self._tree().items()}

    def list_wings(self) -> dict[str, int]:
        """{wing: drawer count}."""
        return dict(self._memoized(("wings", None), lambda: {w: sum(r.values()) for w, r in self._tree().items()}))

    def list_rooms(self, wing: str | None = None) -> dict[str, int]:
        """{room: drawer count}, in one wing or across all of them."""
        wanted = wing_name(wing) if wing else None

        def build() -> dict[str, int]:
            rooms: dict[str, int] = {}
            for name, wing_rooms in self._tree().items():
                if wanted is None or name == wanted:
                    for room, n in wing_rooms.items():
                        rooms[room] = rooms.get(room, 0) + n
            return dict(sorted(rooms.items()))

        return dict(self._memoized(("rooms", wanted), build))

    def hall_counts(self, wing: str | None = None) -> dict[str, int]:
        """{hall: drawer count}; drawers without a hall are counted under ''."""
        wanted = wing_name(wing) if wing else None

        def build() -> dict[str, int]:
            halls: dict[str, int] = {}
            for name, _, hall, n in self._taxonomy_catalog.room_counts():
                if wanted is None or name == wanted:
                    halls[hall] = halls.get(hall, 0) + n
            return dict(sorted(halls.items()))

        return dict(self._memoized(("halls", wanted), build))
