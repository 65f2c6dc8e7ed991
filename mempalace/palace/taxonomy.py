"""Views of where drawers are (taxonomy, counts, room dates and vectors), answered from the catalog
and kept in memory until anything changes."""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Iterable
from typing import Any

from ..catalog.catalog import Catalog
from ..catalog.sync import CatalogSync
from ..catalog.vocabulary import content_words
from ..errors import InvalidInputError, PlaceNotFoundError
from ..models import NO_HALL, Drawer
from ..text.names import closest_names, fold, room_slug, wing_name
from .drawer_records import drawer_from_row


WIDESPREAD_DRIFT = 0.1  # widespread-word verdicts are counted again once the palace size moves this much


class TaxonomyView:
    """Taxonomy and counts for a palace; each call first makes sure the catalog is current."""

    def __init__(self, catalog: Catalog, sync: CatalogSync):
        self._taxonomy_catalog = catalog
        self._taxonomy_sync = sync
        self._guard = threading.RLock()  # one Palace may serve several threads (dashboard sessions)
        self._memo_generation = -1
        self._memo: dict[tuple[str, Any], Any] = {}
        self._widespread: dict[tuple[float, int], tuple[int, dict[str, bool]]] = {}
        self._parked: dict[str, tuple[int, Any]] = {}
        self._kept: dict[tuple[Any, ...], Any] = {}

    def exclusive(self) -> Any:
        """The palace's (re-entrant) lock, for a caller that must check and write in one step."""
        return self._guard

    def derived(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        """`compute()`, remembered under `key` until the palace changes (by anyone); for views built
        on the ones below. It runs outside the palace's lock, so a slow view does not hold up other
        threads, and is kept only if nothing changed meanwhile. Values are shared: keep them immutable."""
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            generation = self._taxonomy_sync.generation
            if self._memo_generation == generation and ("derived", key) in self._memo:
                return self._memo[("derived", key)]
        value = compute()
        with self._guard:
            if self._memo_generation != self._taxonomy_sync.generation:
                self._memo_generation, self._memo = self._taxonomy_sync.generation, {}
            if self._taxonomy_sync.generation == generation:
                self._memo[("derived", key)] = value
        return value

    def kept(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
        """`make()`, made once for this palace object and kept while it lives (a tool the palace's
        writes do not change, such as ingest's hall classifier for an embedder)."""
        with self._guard:
            if key not in self._kept:
                self._kept[key] = make()
            return self._kept[key]

    def park(self, key: str, value: Any) -> None:
        """Keep a mutable working state (ingest's room choice) for the next `take`, valid only while
        the palace stays as it is now."""
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            self._parked[key] = (self._taxonomy_sync.generation, value)

    def take(self, key: str) -> Any:
        """What `park` left under `key` if nothing changed the palace since, else None; either way it
        is handed out once."""
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            generation, value = self._parked.pop(key, (None, None))
            return value if generation == self._taxonomy_sync.generation else None

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

    def widespread_words(self, words: Iterable[str], share: float = 0.5, min_wing_drawers: int = 20) -> frozenset[str]:
        """Those of `words` (lowercased, stop words aside) found in more than `share` of the drawers of
        most wings: everyone's words ("photo" in chats full of pictures), which room naming passes over.
        Verdicts are kept until the palace has grown or shrunk by a tenth: they change slowly, and an
        ingest into a big palace would otherwise count them again after every batch it files."""
        if not 0.0 < share < 1.0:
            raise InvalidInputError("The share must be between 0 and 1.")
        wanted = content_words(words)
        with self._guard:
            total = self.count()
            counted_at, known = self._widespread.get((share, min_wing_drawers), (total, {}))
            if abs(total - counted_at) > WIDESPREAD_DRIFT * counted_at:
                counted_at, known = total, {}
            self._widespread[(share, min_wing_drawers)] = (counted_at, known)
            unknown = [w for w in wanted if w not in known]
            if unknown:
                known.update(self._taxonomy_catalog.widespread_verdicts(unknown, self.list_wings(), share,
                                                                        min_wing_drawers))
            return frozenset(w for w in wanted if known.get(w))

    def word_documents(self, words: Iterable[str]) -> tuple[int, dict[str, int]]:
        """(drawers in the palace, {word: how many of them hold it}) for the content words of `words`."""
        wanted = content_words(words)
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            return self.count(), self._taxonomy_catalog.documents(wanted) if wanted else {}

    def taxonomy(self) -> dict[str, dict[str, int]]:
        """{wing: {room: drawer count}}, wings and rooms in name order."""
        return {wing: dict(rooms) for wing, rooms in self._tree().items()}

    def list_wings(self) -> dict[str, int]:
        """{wing: drawer count}."""
        return dict(self._memoized(("wings", None), lambda: {w: sum(r.values()) for w, r in self._tree().items()}))

    def known_place(self, wing: str | None = None, room: str | None = None, source_file: str | None = None,
                    within: tuple[str, ...] | None = None) -> tuple[str | None, str | None]:
        """The wing and room as stored (`kai` for `wing_kai`, an old room name for its room), or
        PlaceNotFoundError naming the nearest known ones: a mistyped filter is an error, never an empty
        answer. `within`: the wings a scoped view sees; a wing outside them is unknown, word for word."""
        wings = [w for w in self.list_wings() if within is None or w in within]
        stored_wing = _stored_wing(wing, wings) if wing else None
        stored_room = None
        if room:
            tree = self._tree()
            rooms = {r for w in wings for r in tree.get(w, {})}
            stored_room = room if room in rooms else self.resolve_room(room)  # as stored, else its slug or alias
            if stored_room not in rooms:
                raise PlaceNotFoundError(f"No room {room!r} in this palace.{closest_names(stored_room, sorted(rooms))}")
        if source_file:
            sources = self.sources(None if within is None else tuple(wings))
            if source_file not in sources:
                raise PlaceNotFoundError(f"No source file {source_file!r} in this palace."
                                         f"{closest_names(source_file, sorted(sources))}")
        return stored_wing, stored_room

    def list_rooms(self, wing: str | None = None) -> dict[str, int]:
        """{room: drawer count}, in one wing or across all of them."""
        wanted = self.known_place(wing)[0] if wing else None

        def build() -> dict[str, int]:
            rooms: dict[str, int] = {}
            for name, wing_rooms in self._tree().items():
                if wanted is None or name == wanted:
                    for room, n in wing_rooms.items():
                        rooms[room] = rooms.get(room, 0) + n
            return dict(sorted(rooms.items()))

        return dict(self._memoized(("rooms", wanted), build))

    def room_aliases(self) -> dict[str, str]:
        """{earlier room name: the room it names now}."""
        return dict(self._memoized(("aliases", None), self._taxonomy_catalog.room_aliases))

    def resolve_room(self, name: str, folded: bool = True) -> str:
        """The room `name` stands for: itself (or its slug) when a room has it, else the room it is an
        earlier name of, else (`folded`: finding, not filing) the room spelled without its accents;
        unknown names come back as given. Rooms are read only when needed."""
        try:
            slug = room_slug(name)
        except InvalidInputError:
            return name
        plain = fold(slug) if folded else slug  # `migración` finds `migracion`: ingest takes Latin accents off
        target = self.room_aliases().get(slug) or self.room_aliases().get(plain)
        if (target is None and slug == name and (plain == slug or plain not in self._tree_rooms())) \
                or name in self._tree_rooms():
            return name
        if slug in self._tree_rooms():
            return slug
        return target or (plain if plain in self._tree_rooms() else name)

    def room_name_free(self, name: str) -> bool:
        """Whether `name`, slugged, is no room's name (in any wing) and no room's earlier name."""
        slug = room_slug(name)
        return slug not in self.list_rooms() and slug not in self.room_aliases()

    def stored_room(self, name: object) -> str:
        """`name` as a stored room (exactly, by its slug or as an alias), or PlaceNotFoundError."""
        if not isinstance(name, str) or not name.strip():
            raise InvalidInputError("A room name is required.")
        found = self.resolve_room(name)
        if found not in self._tree_rooms():
            raise PlaceNotFoundError(f"No room {name!r} in this palace.{closest_names(name, self._tree_rooms())}")
        return found

    def _tree_rooms(self) -> dict[str, int]:
        return self.list_rooms()

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

    def places(self) -> tuple[tuple[str, str, str, int], ...]:
        """(wing, room, hall, drawer count) for every place holding drawers; hall '' for none."""
        return self._memoized(("places", None), lambda: tuple(self._taxonomy_catalog.room_counts()))

    def graph_places(self) -> tuple[tuple[str, str, str, int], ...]:
        """The places the room graph is built from: all of them here (a scoped view hides some wings)."""
        return self.places()

    def room_dates(self, per_room: int = 5, within: tuple[str, ...] | None = None) -> dict[str, tuple[str, ...]]:
        """{room: its most recent conversation (or filing) dates, newest first} (in the wings `within`)."""
        if within is None:
            return dict(self._memoized(("dates", per_room), lambda: self._taxonomy_catalog.room_dates(per_room)))
        by_wing = self._memoized(("dates-by-wing", per_room), lambda: self._taxonomy_catalog.room_dates_by_wing(per_room))
        merged: dict[str, set[str]] = {}
        for wing in within:
            for room, dates in by_wing.get(wing, {}).items():
                merged.setdefault(room, set()).update(dates)
        return {room: tuple(sorted(dates, reverse=True)[:per_room]) for room, dates in sorted(merged.items())}

    def room_centroids(self, per_room: int = 20) -> dict[str, Any]:
        """{room: the mean vector of up to `per_room` of its drawers}, to compare what rooms hold."""
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            samples = self._taxonomy_catalog.room_vectors(per_room)
        return {room: vectors.mean(axis=0) for room, vectors in samples.items()}

    def room_samples(self, per_room: int = 20, within: tuple[str, ...] | None = None
                     ) -> dict[str, list[tuple[str, str, str, Any]]]:
        """{room: (wing, parent id, text, vector) of up to `per_room` of its drawers (in the wings
        `within`)}, to learn what rooms hold."""
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            return self._taxonomy_catalog.room_samples(per_room, within)

    def wing_vectors(self, per_wing: int = 500) -> dict[str, Any]:
        """{wing: the vectors of up to `per_wing` of its drawers}, for what a wing's chats share."""
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            return self._taxonomy_catalog.wing_vectors(per_wing)

    def drawer_ids(self, wing: str | None = None, room: str | None = None, hall: str | None = None,
                   within: tuple[str, ...] | None = None) -> list[str]:
        """Ids of the drawers in a place, names exactly as stored (rooms other tools filed may be unslugged)."""
        filters = within_wings(_text_names(wing=wing, room=room, hall=hall), within)
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            return self._taxonomy_catalog.ids_where(filters)

    def _as_stored(self, room: object) -> object:
        """A room filter as stored: an earlier name finds the room that has it now."""
        return self.resolve_room(room) if isinstance(room, str) and room else room

    def revision(self) -> int:
        """A number that changes whenever the palace's content may have changed (for caches elsewhere)."""
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            return self._taxonomy_sync.generation

    def filed_per_day(self, within: tuple[str, ...] | None = None) -> dict[str, int]:
        """{YYYY-MM-DD: how many of the drawers stored now (in the wings `within`) were filed that day}."""
        if within is None:
            return dict(self._memoized(("days", None), self._taxonomy_catalog.day_counts))
        return _added_up(self._memoized(("days-by-wing", None), self._taxonomy_catalog.day_counts_by_wing), within)

    def wings_oldest_first(self, within: tuple[str, ...] | None = None) -> tuple[str, ...]:
        """The wings (in `within`) by when their first stored drawer was filed, then by name: the
        order that fixes their colours, so a wing added later never takes an older one's."""
        first = self._memoized(("first-filed", None), self._taxonomy_catalog.first_filed_by_wing)
        wings = [w for w in self.list_wings() if within is None or w in within]
        return tuple(sorted(wings, key=lambda w: (first.get(w) or "~", w)))

    def conversations_per_day(self, within: tuple[str, ...] | None = None) -> dict[str, int]:
        """{YYYY-MM-DD: conversations (in the wings `within`) that happened that day}: each by its own
        date, else by the day it was filed."""
        by_wing = self._memoized(("talks-by-wing", None), self._taxonomy_catalog.conversation_days_by_wing)
        return _added_up(by_wing, by_wing if within is None else within)

    def sources(self, within: tuple[str, ...] | None = None) -> dict[str, int]:
        """{source file: its drawers (in the wings `within`)}, by name: what a source filter can pick."""
        by_wing = self._memoized(("sources-by-wing", None), self._taxonomy_catalog.source_counts_by_wing)
        return _added_up(by_wing, by_wing if within is None else within)

    def browse(self, wing: str | None = None, room: str | None = None, hall: str | None = None,
               offset: int = 0, limit: int = 50, within: tuple[str, ...] | None = None,
               newest: bool = False) -> tuple[int, list[Drawer]]:
        """(how many drawers are in the place, one page of them in place order, or `newest`
        conversation first); names as stored; `within` keeps to those wings (a scoped view's)."""
        for value in (offset, limit):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidInputError("offset and limit must be whole numbers, 0 or more.")
        _text_names(wing=wing, room=room, hall=hall)
        wing, room = self.known_place(wing, room, within=within)
        filters = within_wings(_text_names(wing=wing, room=room, hall=hall), within)
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            total = self._taxonomy_catalog.matching_count(filters)
            rows = self._taxonomy_catalog.page(filters, offset, min(limit, 1_000), newest)
        return total, [drawer_from_row(r) for r in rows]

    def neighbours(self, drawer_id: str, around: int = 1) -> list[Drawer]:
        """The drawers just before and after this one in its conversation (or source), itself included."""
        if not isinstance(drawer_id, str):
            raise InvalidInputError(f"A drawer id must be text, not {type(drawer_id).__name__}.")
        if isinstance(around, bool) or not isinstance(around, int) or not 0 <= around <= 100:
            raise InvalidInputError("around must be a whole number from 0 to 100.")
        with self._guard:
            self._taxonomy_sync.ensure_fresh()
            return [drawer_from_row(r) for r in self._taxonomy_catalog.siblings(drawer_id, around)]


def _added_up(by_wing: dict[str, dict[str, int]], wings: Iterable[str]) -> dict[str, int]:
    """{key: the sum of its counts over `wings`}, sorted by key."""
    total: dict[str, int] = {}
    for wing in wings:
        for key, n in by_wing.get(wing, {}).items():
            total[key] = total.get(key, 0) + n
    return dict(sorted(total.items()))


def _text_names(**names: object) -> dict[str, str | None]:
    """Place filters, refused clearly unless each is text or None; hall NO_HALL is no hall ('', as stored)."""
    for value in names.values():
        if value is not None and not isinstance(value, str):
            raise InvalidInputError(f"Wing, room and hall names must be text, not {type(value).__name__}.")
    return {**names, "hall": ""} if names.get("hall") == NO_HALL else names  # type: ignore[return-value]


def within_wings(filters: dict[str, Any], wings: tuple[str, ...] | None) -> dict[str, Any]:
    """The filters kept to `wings` (None: no limit): a wing named outside them matches nothing."""
    if wings is None:
        return filters
    if filters.get("wing") is None:
        return {**filters, "wing": tuple(wings)}
    return filters if filters["wing"] in wings else {**filters, "wing": ()}


def _stored_wing(name: str, wings: list[str]) -> str:
    """`name` as one of `wings` is stored (`Kai`, `kai` and `wing_kai` name `wing_kai`), or
    PlaceNotFoundError with the nearest ones."""
    if name in wings:
        return name
    wing = wing_name(name)
    for candidate in (wing, f"wing_{wing}", wing.removeprefix("wing_")):
        if candidate in wings:
            return candidate
    bare = {w.removeprefix("wing_"): w for w in wings}
    close = [bare[w] for w in difflib.get_close_matches(wing.removeprefix("wing_"), list(bare), n=3, cutoff=0.6)]
    raise PlaceNotFoundError(f"No wing {name!r} in this palace." + (f" Did you mean {', '.join(close)}?" if close else ""))
