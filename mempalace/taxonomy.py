"""Wing → room → count views, answered from the catalog and kept in memory until anything changes."""

from __future__ import annotations

from .catalog import Catalog
from .naming import wing_name
from .sync import CatalogSync


class TaxonomyView:
    """Taxonomy and counts for a palace; each call first makes sure the catalog is current."""

    def __init__(self, catalog: Catalog, sync: CatalogSync):
        self._taxonomy_catalog = catalog
        self._taxonomy_sync = sync
        self._memo: tuple[int, list[tuple[str, str, str, int]]] | None = None

    def _counts(self) -> list[tuple[str, str, str, int]]:
        self._taxonomy_sync.ensure_fresh()
        generation = self._taxonomy_sync.generation
        if self._memo is None or self._memo[0] != generation:
            self._memo = (generation, self._taxonomy_catalog.room_counts())
        return self._memo[1]

    def count(self) -> int:
        """Number of drawers in the palace."""
        return sum(n for *_, n in self._counts())

    def taxonomy(self) -> dict[str, dict[str, int]]:
        """{wing: {room: drawer count}}, wings and rooms in name order."""
        tree: dict[str, dict[str, int]] = {}
        for wing, room, _, n in self._counts():
            rooms = tree.setdefault(wing, {})
            rooms[room] = rooms.get(room, 0) + n
        return tree

    def list_wings(self) -> dict[str, int]:
        """{wing: drawer count}."""
        return {wing: sum(rooms.values()) for wing, rooms in self.taxonomy().items()}

    def list_rooms(self, wing: str | None = None) -> dict[str, int]:
        """{room: drawer count}, in one wing or across all of them."""
        wanted = wing_name(wing) if wing else None
        rooms: dict[str, int] = {}
        for name, wing_rooms in self.taxonomy().items():
            if wanted is None or name == wanted:
                for room, n in wing_rooms.items():
                    rooms[room] = rooms.get(room, 0) + n
        return dict(sorted(rooms.items()))

    def hall_counts(self, wing: str | None = None) -> dict[str, int]:
        """{hall: drawer count}; drawers without a hall are counted under ''."""
        wanted = wing_name(wing) if wing else None
        halls: dict[str, int] = {}
        for name, _, hall, n in self._counts():
            if wanted is None or name == wanted:
                halls[hall] = halls.get(hall, 0) + n
        return dict(sorted(halls.items()))
