"""Re-rooming, re-halling, moving and renaming rooms through a scoped view: only drawers in wings its
grant may change (a mixin of `ScopedPalace`, which provides the palace, the grant and its reads)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..access.rules import Grant, acting_as
from ..catalog.placements import PERSON
from ..errors import InvalidInputError
from ..models import RoomRename
from ..palace.drawer_records import id_list
from ..palace.under_lock import checked_then_written
from ..text.names import room_slug

if TYPE_CHECKING:
    from ..palace.palace import Palace


class ScopedRearranging:
    """The scoped side of `Palace`'s `Rearranging`."""

    _palace: "Palace"
    grant: Grant
    find_drawers: Any
    list_wings: Any
    list_rooms: Any
    stored_room: Any

    def room_inventory(self) -> list[Any]:
        return [d for d in self._palace.room_inventory() if self.grant.may("reroom", d.wing)]

    def with_vectors(self, placed: Sequence[Any]) -> list[Any]:
        return self._palace.with_vectors([d for d in placed if self.grant.may("reroom", d.wing)])

    def room_choosers(self, ids: Sequence[str]) -> dict[str, str]:
        return self._palace.room_choosers([i for i in ids if i in self.find_drawers(ids)])

    def hall_choosers(self, ids: Sequence[str]) -> dict[str, str]:
        return self._palace.hall_choosers([i for i in ids if i in self.find_drawers(ids)])

    @checked_then_written
    def fit_embedder(self, texts: Sequence[str], dry_run: bool = False) -> str | None:
        self.grant.check("ingest")  # it moves only a palace that holds nothing but the demo
        with acting_as(self.grant.actor):
            return self._palace.fit_embedder(texts, dry_run)

    @checked_then_written
    def reroom_drawers(self, moves: Sequence[tuple[str, str, str]]) -> int:
        self.grant.check("reroom")
        with acting_as(self.grant.actor):
            return self._palace.reroom_drawers(self._reroomable(moves))

    @checked_then_written
    def rehall_drawers(self, changes: Sequence[tuple[str, str, str]]) -> int:
        self.grant.check("reroom")
        with acting_as(self.grant.actor):
            return self._palace.rehall_drawers(self._reroomable(changes))

    def _reroomable(self, changes: Sequence[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
        """The (drawer id, was, new) changes of drawers this view sees and may re-room or re-hall."""
        shown = self.find_drawers([c[0] for c in changes])
        return [c for c in changes if c[0] in shown and self.grant.may("reroom", shown[c[0]].wing)]

    @checked_then_written
    def move_rooms(self, rooms: Sequence[str], target: str) -> tuple[int, tuple[str, ...]]:
        """As `Palace.move_rooms`, in the wings this grant may change (the rest keep their rooms)."""
        names = id_list(rooms)
        self.grant.check("merge")
        if self.grant.every_wing and self.grant.may("merge", "*"):
            with acting_as(self.grant.actor):
                return self._palace.move_rooms(names, target)
        mine = [w for w in self.list_wings() if self.grant.may("merge", w)]
        ids = [i for w in mine for r in names for i in self._palace.drawer_ids(w, r)]
        wings = tuple(sorted({w for w in mine for r in names if r in self._palace.list_rooms(w)}))
        with acting_as(self.grant.actor):
            moved = self._palace.move_drawers(ids, room=room_slug(target), audit_as="move-rooms") if ids else 0
        return moved, wings

    @checked_then_written
    def rename_room(self, room: str, new: str, *, chosen_by: str = PERSON) -> RoomRename:
        """As `Palace.rename_room`: a person's needs the merge right in every wing the room is in, ingest's
        the ingest right; a name a room in wings out of sight holds is refused without naming them."""
        name = self.stored_room(room)
        target = room_slug(new)
        if target != name and target not in self.list_rooms() and target in self._palace.list_rooms():
            raise InvalidInputError(f"The name {target!r} is taken in this palace; choose another.")
        if chosen_by == PERSON:
            for wing in sorted(w for w, rooms in self._palace.taxonomy().items() if name in rooms):
                self.grant.check("merge", wing)
        else:
            self.grant.check("ingest")
        with acting_as(self.grant.actor):
            return self._palace.rename_room(name, new, chosen_by=chosen_by)
