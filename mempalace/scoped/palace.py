"""`ScopedPalace`: the palace as one person or token may see and change it.

Front ends that serve someone other than the palace's owner (the signed-in dashboard, `mcp --http`)
hand their pages and tools this view, never the `Palace` itself. It offers the same reading and
writing methods; wings outside the grant do not exist for it (a drawer there is "not found", a
wing there has no rooms), tunnels into them show the room but not the wing, and each write is
checked against the role and recorded in the audit log under the grant's actor. Nothing falls
through to the palace by default: a method not written here does not exist on the view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

import numpy as np

from ..access.rules import HIDDEN_LOCATION, HIDDEN_WING, Grant, acting_as
from ..errors import DrawerNotFoundError, InvalidInputError, PlaceNotFoundError
from ..models import AddResult, Drawer, DrawerDraft, DuplicateMatch, SearchHit
from ..palace.drawer_records import id_list
from ..palace.palace import Palace
from ..palace.under_lock import checked_then_written
from ..palace.wakeup import DEFAULT_TOKENS, WakeUp
from ..text.names import wing_name
from .rearranging import ScopedRearranging
from .trash import ScopedTrashing


ELSEWHERE = "The same text is already filed in a wing you cannot see, so it was not filed again."


class ScopedPalace(ScopedRearranging, ScopedTrashing):
    """`palace` seen through `grant`: reads are kept to its wings, writes to what its role allows."""

    def __init__(self, palace: Palace, grant: Grant):
        self._palace = palace
        self.grant = grant

    @property
    def settings(self) -> Any:
        return self._palace.settings

    @property
    def location(self) -> str:
        return self._palace.location

    @property
    def shown_location(self) -> str:
        """Where the palace is, for those who may see its settings; a team's palace for everyone else
        (its path says whose machine and folder it is)."""
        return self.location if self.grant.may("settings", "*") else HIDDEN_LOCATION

    @property
    def mode(self) -> str:
        return self._palace.mode

    @property
    def scope_key(self) -> tuple[str, ...]:
        """What cached views of this scope are keyed on (the wings it sees)."""
        return self.grant.key

    def revision(self) -> int:
        return self._palace.revision()

    @property
    def synced(self) -> Any:
        """The sources the palace keeps in sync, as this grant may use them (a `mempalace.scoped.sources.ScopedSources`)."""
        from .sources import ScopedSources

        return ScopedSources(self._palace, self.grant)

    def may(self, action: str, wing: str | None = None) -> bool:
        """Whether the grant allows `action` (on `wing`): pages use it to show only usable controls."""
        return self.grant.may(action, wing)

    # -- what is visible -------------------------------------------------------------------------

    def _wings(self) -> tuple[str, ...] | None:
        """The stored wings this grant sees, in name order, or None for all of them (no filter needed);
        worked out once per palace revision."""
        if self.grant.every_wing:
            return None
        return self.derived(("wings",), lambda: tuple(sorted(w for w in self._palace.list_wings()
                                                             if self.grant.sees(w))))

    def _sees(self, wing: str) -> bool:
        return self.grant.every_wing or wing in self._wings()

    def _seer(self) -> Callable[[str], bool]:
        """`_sees` for many wings in a row (the visible set is looked up once)."""
        if self.grant.every_wing:
            return lambda wing: True
        return set(self._wings()).__contains__

    def _visible(self, drawers: dict[str, Drawer]) -> dict[str, Drawer]:
        sees = self._seer()
        return {i: d for i, d in drawers.items() if sees(d.wing)}

    # -- taxonomy and counts ---------------------------------------------------------------------

    def list_wings(self) -> dict[str, int]:
        sees = self._seer()
        return {w: n for w, n in self._palace.list_wings().items() if sees(w)}

    def count(self) -> int:
        return self._palace.count() if self.grant.every_wing else sum(self.list_wings().values())

    def taxonomy(self) -> dict[str, dict[str, int]]:
        sees = self._seer()
        return {w: rooms for w, rooms in self._palace.taxonomy().items() if sees(w)}

    def list_rooms(self, wing: str | None = None) -> dict[str, int]:
        if wing is not None:
            wing = self._palace.known_place(wing, within=self._wings())[0]  # hidden: as unknown as a typo
        if wing is not None or self.grant.every_wing:
            return self._palace.list_rooms(wing)
        return dict(self.derived(("rooms",), lambda: _totals((room, n) for rooms in self.taxonomy().values()
                                                             for room, n in rooms.items())))

    def hall_counts(self, wing: str | None = None) -> dict[str, int]:
        if wing is not None and not self._sees(wing_name(wing)):
            return {}
        if wing is not None or self.grant.every_wing:
            return self._palace.hall_counts(wing)
        return dict(self.derived(("halls",), lambda: _totals((hall, n) for _, _, hall, n in self.places())))

    def places(self) -> tuple[tuple[str, str, str, int], ...]:
        if self.grant.every_wing:
            return self._palace.places()
        sees = self._seer()
        return self.derived(("places",), lambda: tuple(p for p in self._palace.places() if sees(p[0])))

    def graph_places(self) -> tuple[tuple[str, str, str, int], ...]:
        """The visible places, plus one empty place in HIDDEN_WING for each visible room that is also
        in a wing this grant cannot see: the tunnel shows, the wing and its drawers do not."""
        if self.grant.every_wing:
            return self._palace.places()
        visible = self.places()
        rooms = {room for _, room, _, _ in visible}
        sees = self._seer()
        hidden = {room for wing, room, _, _ in self._palace.places() if room in rooms and not sees(wing)}
        return visible + tuple((HIDDEN_WING, room, "", 0) for room in sorted(hidden))

    def room_dates(self, per_room: int = 5) -> dict[str, tuple[str, ...]]:
        return self._palace.room_dates(per_room, self._wings())

    def filed_per_day(self) -> dict[str, int]:
        return self._palace.filed_per_day(self._wings())

    def wings_oldest_first(self) -> tuple[str, ...]:
        return self._palace.wings_oldest_first(self._wings())

    def conversations_per_day(self) -> dict[str, int]:
        return self._palace.conversations_per_day(self._wings())

    def sources(self) -> dict[str, int]:
        return self._palace.sources(self._wings())

    status = Palace.status  # built from the view's own location, counts, wings, rooms and halls

    def warnings(self) -> list[str]:
        """The palace's warnings, for those who may see its settings (they name its path)."""
        return self._palace.warnings() if self.grant.may("settings", "*") else []

    def audit_check(self) -> Any:
        """The log's chain check and, if it is gone, the warning that says so (an admin's)."""
        self.grant.check("audit", "*")
        return self._palace.access.verify(), self._palace.log_warnings()

    def derived(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        """As `Palace.derived`, remembered per scope (two scopes never share a view)."""
        return self._palace.derived(("scope", self.scope_key, *key), compute)

    def kept(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
        return self._palace.kept(key, make)  # tools, not views: nothing of a scope is in them

    def park(self, key: str, value: Any) -> None:
        self._palace.park(f"{self.scope_key}:{key}", value)

    def take(self, key: str) -> Any:
        return self._palace.take(f"{self.scope_key}:{key}")

    def widespread_words(self, words: Any, share: float = 0.5, min_wing_drawers: int = 20) -> frozenset[str]:
        return self._palace.widespread_words(words, share, min_wing_drawers)

    def word_documents(self, words: Any) -> tuple[int, dict[str, int]]:
        return self._palace.word_documents(words)  # counts only: how rare a word is, for room names

    def room_named_by_person(self, room: str) -> bool:
        return self._palace.room_named_by_person(room)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._palace.embed(texts)

    @property
    def embeds_meaning(self) -> bool:
        return self._palace.embeds_meaning

    # -- drawers ---------------------------------------------------------------------------------

    def search(self, query: str, wing: str | None = None, room: str | None = None, hall: str | None = None,
               source_file: str | None = None, limit: int = 10, mode: str = "hybrid", after: str | None = None,
               before: str | None = None) -> list[SearchHit]:
        return self._palace.search(query, wing, room, hall, source_file, limit, mode, within=self._wings(),
                                   after=after, before=before)

    def get_drawer(self, drawer_id: str) -> Drawer:
        """The drawer, when the catalog (what every list, count and search shows) puts it in a visible
        wing and Chroma agrees: a wing changed behind the catalog's back hides it until they agree."""
        drawer = self._palace.get_drawer(drawer_id)
        listed = self._palace.find_drawers([drawer.id]).get(drawer.id)
        if listed is None or not self._sees(listed.wing) or not self._sees(drawer.wing):
            raise DrawerNotFoundError(f"No drawer with id {drawer_id!r} in this palace.")
        return drawer

    def find_drawers(self, ids: Sequence[str]) -> dict[str, Drawer]:
        return self._visible(self._palace.find_drawers(ids))

    def get_drawers(self, ids: Sequence[str]) -> dict[str, Drawer]:
        """Those of `ids` the catalog lists in a visible wing, read in full (Chroma agreeing on the wing)."""
        listed = self.find_drawers(ids)
        return {i: d for i, d in self._palace.get_drawers(list(listed)).items() if self._sees(d.wing)}

    def drawers_of(self, parent_id: str) -> list[Drawer]:
        sees = self._seer()
        return [d for d in self._palace.drawers_of(parent_id) if sees(d.wing)]

    def neighbours(self, drawer_id: str, around: int = 1) -> list[Drawer]:
        found, sees = self._palace.neighbours(drawer_id, around), self._seer()
        if not any(d.id == drawer_id and sees(d.wing) for d in found):
            return []
        return [d for d in found if sees(d.wing)]

    def browse(self, wing: str | None = None, room: str | None = None, hall: str | None = None,
               offset: int = 0, limit: int = 50, newest: bool = False) -> tuple[int, list[Drawer]]:
        return self._palace.browse(wing, room, hall, offset, limit, within=self._wings(), newest=newest)

    def drawer_ids(self, wing: str | None = None, room: str | None = None, hall: str | None = None) -> list[str]:
        return self._palace.drawer_ids(wing, room, hall, within=self._wings())

    def room_samples(self, per_room: int = 20) -> dict[str, list[tuple[str, str, str, Any]]]:
        return self._palace.room_samples(per_room, self._wings())

    def room_centroids(self, per_room: int = 20) -> dict[str, Any]:
        if self.grant.every_wing:
            return self._palace.room_centroids(per_room)
        return {room: np.mean([s[3] for s in found], axis=0) for room, found in self.room_samples(per_room).items()}

    def wing_vectors(self, per_wing: int = 500) -> dict[str, Any]:
        sees = self._seer()
        return {w: v for w, v in self._palace.wing_vectors(per_wing).items() if sees(w)}

    def nearest_existing(self, vectors: np.ndarray, exclude: Sequence[str] = ()) -> list[tuple[str, float] | None]:
        return self._palace.nearest_existing(vectors, exclude, self._wings())

    def check_duplicate(self, content: str, threshold: float | None = None) -> tuple[DuplicateMatch, ...]:
        return self._palace.check_duplicate(content, threshold, self._wings())

    def _matches(self, matches: Sequence[DuplicateMatch]) -> tuple[DuplicateMatch, ...]:
        sees = self._seer()
        return tuple(m for m in matches if sees(m.wing))

    # -- writing: the role is checked first, the write is recorded under the grant's actor -------

    @checked_then_written
    def add_drawer(self, content: str, wing: str, room: str, hall: str | None = None,
                   source_file: str | None = None, **meta: Any) -> AddResult:
        self.grant.check("add", wing_name(wing))
        with acting_as(self.grant.actor):
            result = self._palace.add_drawer(content, wing, room, hall, source_file, within=self._wings(), **meta)
        shown = self._matches(result.matches)
        if result.status == "duplicate" and not shown:  # drawer ids come from the text: it cannot be filed twice
            raise InvalidInputError(ELSEWHERE)
        return AddResult(result.status, result.drawer_ids, result.parent_id, shown)

    @checked_then_written
    def file_drawers(self, drafts: Sequence[DrawerDraft], vectors: np.ndarray | None = None) -> None:
        for wing in sorted({d.wing for d in drafts}):
            self.grant.check("ingest", wing)
        sees = self._seer()
        if not self.grant.every_wing and any(not sees(d.wing) for d in self._palace.find_drawers([d.id for d in drafts]).values()):
            raise InvalidInputError(ELSEWHERE)
        with acting_as(self.grant.actor):
            self._palace.file_drawers(drafts, vectors)

    @checked_then_written
    def update_drawer(self, drawer_id: str, wing: str | None = None, room: str | None = None,
                      hall: str | None = None) -> Drawer:
        current = self.get_drawer(drawer_id)
        self.grant.check("move", current.wing)
        if wing is not None:
            self.grant.check("move", wing_name(wing))
        with acting_as(self.grant.actor):
            return self._palace.update_drawer(current.id, wing, room, hall)

    @checked_then_written
    def move_drawers(self, ids: Sequence[str], wing: str | None = None, room: str | None = None,
                     hall: str | None = None) -> int:
        self.grant.check("move")  # a viewer is refused even when none of the ids are visible to it
        shown = self.find_drawers(id_list(ids))
        for source in sorted({d.wing for d in shown.values()}):
            self.grant.check("move", source)
        if wing is not None:
            self.grant.check("move", wing_name(wing))
        with acting_as(self.grant.actor):
            return self._palace.move_drawers([i for i in ids if i in shown], wing, room, hall)

    def resolve_room(self, name: str, folded: bool = True) -> str:
        return self._palace.resolve_room(name, folded)

    def room_name_free(self, name: str) -> bool:
        """As `Palace.room_name_free`, over the whole palace: a name held out of sight is not free either."""
        return self._palace.room_name_free(name)

    def room_aliases(self) -> dict[str, str]:
        rooms = self.list_rooms()
        return {a: r for a, r in self._palace.room_aliases().items() if r in rooms}

    def stored_room(self, name: object) -> str:
        """As `Palace.stored_room`, among this view's rooms (its "did you mean" names only rooms it sees)."""
        from ..text.names import closest_names

        try:
            found = self._palace.stored_room(name)
        except PlaceNotFoundError:
            found = None
        rooms = self.list_rooms()
        if found not in rooms:
            raise PlaceNotFoundError(f"No room {name!r} in this palace.{closest_names(str(name), rooms)}")
        return found

    def wake_up(self, wing: str | None = None, tokens: int = DEFAULT_TOKENS) -> WakeUp:
        """As `Palace.wake_up`, from the wings this grant sees alone (tunnels too)."""
        return self._palace._wake_up(wing, tokens, tuple(self.list_wings()))

    def rebuild_index(self) -> int:
        self.grant.check("settings", "*")
        with acting_as(self.grant.actor):
            return self._palace.rebuild_index()

    # -- this person's sign-in, the audit log (admins of every wing) --------------------------------

    def sign_out(self, issued_at: float) -> None:  # of the sign-in issued at `issued_at`
        self._palace.access.record_sign_out(self.grant.actor.who, issued_at)

    def signed_out(self, issued_at: float) -> bool:  # since the sign-in issued at `issued_at`
        return self._palace.access.signed_out(self.grant.actor.who, issued_at)

    def audit_entries(self, **filters: Any) -> list[Any]:
        self.grant.check("audit", "*")
        return self._palace.access.entries(**filters)


def _totals(pairs: Any) -> dict[str, int]:
    """{name: sum of its counts} in name order."""
    totals: dict[str, int] = {}
    for name, n in pairs:
        totals[name] = totals.get(name, 0) + n
    return dict(sorted(totals.items()))
