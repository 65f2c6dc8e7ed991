"""Deleting, the trash, restoring and undoing through a scoped view (a mixin of `ScopedPalace`, which
provides the palace, the grant and its reads). Deleting is an admin's right in each wing touched; an
editor sees and restores the trash of the wings they may file into; emptying it is an admin's of every
wing. Changes are listed and undone only when every wing they touched is visible, and an undo needs
the right its reverse needs in each: moving for a change of place, filing for a delete (a restore),
deleting for a restore."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..access.rules import Grant, acting_as
from ..catalog.change_log import STATE, Change, Step
from ..errors import InvalidInputError
from ..models import Deletion, Drawer, Restoration, TrashedDrawer, Undone
from ..palace.drawer_records import id_list
from ..palace.trash import by_place
from ..palace.under_lock import checked_then_written
from ..text.names import wing_name

if TYPE_CHECKING:
    from ..palace.palace import Palace


class ScopedTrashing:
    """The scoped side of `Palace`'s `Trashing`."""

    _palace: "Palace"
    grant: Grant
    find_drawers: Any
    get_drawer: Any

    @checked_then_written
    def delete_drawer(self, drawer_id: str) -> Drawer:
        drawer = self.get_drawer(drawer_id)
        self.grant.check("delete", drawer.wing)
        with acting_as(self.grant.actor):
            return self._palace.delete_drawer(drawer.id)

    @checked_then_written
    def delete_drawers(self, ids: Sequence[str], what: str | None = None, *, to_trash: bool = True) -> int:
        """Delete drawers: an admin's right, or an editor's for drawers they filed themselves (ingest
        replacing a grown conversation, or taking back a failed run)."""
        shown = self.find_drawers(id_list(ids))
        own = self._palace.access.filed_by(self.grant.actor, list(shown))
        for wing in sorted({d.wing for d in shown.values()}) or [None]:
            if not (wing and self.grant.may("ingest", wing) and own >= {i for i, d in shown.items() if d.wing == wing}):
                self.grant.check("delete", wing)
        with acting_as(self.grant.actor):
            return self._palace.delete_drawers(list(shown), what, to_trash=to_trash)

    def _named(self, wing: str | None, room: str | None, source_file: str | None,
               ids: Sequence[str]) -> dict[str, Drawer]:
        """The drawers these arguments name, in the wings this grant sees (a room resolved among its rooms)."""
        return self.find_drawers(self._palace.deletion_ids(wing, self.stored_room(room) if room else None,
                                                           source_file, ids))

    def deletion_ids(self, wing: str | None = None, room: str | None = None, source_file: str | None = None,
                     ids: Sequence[str] = ()) -> list[str]:
        return sorted(self._named(wing, room, source_file, ids))

    def deletion_preview(self, wing: str | None = None, room: str | None = None, source_file: str | None = None,
                         ids: Sequence[str] = ()) -> list[tuple[str, str, int]]:
        return by_place(self._named(wing, room, source_file, ids).values())

    @checked_then_written
    def delete_where(self, wing: str | None = None, room: str | None = None, source_file: str | None = None,
                     ids: Sequence[str] = (), what: str | None = None) -> Deletion:
        """As `Palace.delete_where`, in the wings this grant sees, for an admin of every wing it deletes from."""
        named = self._named(wing, room, source_file, ids)
        for name in sorted({d.wing for d in named.values()} | ({wing_name(wing)} if wing else set())):
            self.grant.check("delete", name)
        with acting_as(self.grant.actor):
            if not named:
                return Deletion(0, "", float(self._palace.settings.trash_days))
            return self._palace.delete_where(ids=sorted(named), what=what)

    @checked_then_written
    def remove_demo(self) -> Any:
        """As `Palace.remove_demo`, for an admin of every wing holding a demo drawer (not an editor who loaded it)."""
        from ..palace.demo_drawers import demo_drawers

        for wing in sorted({d.wing for d in demo_drawers(self._palace)}) or [None]:
            self.grant.check("delete", wing)
        with acting_as(self.grant.actor):
            return self._palace.remove_demo()

    def trash_list(self, change: str | None = None) -> list[TrashedDrawer]:
        """The trash of the wings this grant may file into."""
        return [t for t in self._palace.trash_list(change) if self.grant.may("ingest", t.drawer.wing)]

    @checked_then_written
    def restore_drawers(self, ids: Sequence[str]) -> Restoration:
        shown = {t.drawer.id for t in self.trash_list()}
        hidden = [i for i in id_list(ids) if i not in shown]
        with acting_as(self.grant.actor):
            done = self._palace.restore_drawers([i for i in id_list(ids) if i in shown]) if len(hidden) < len(ids) \
                else Restoration(())
        return Restoration(done.restored, done.blocked + tuple((i, "it is not in the trash") for i in hidden))

    def restore_change(self, change: str) -> Restoration:
        ids = [t.drawer.id for t in self.trash_list(change)]
        if not ids:
            raise InvalidInputError(f"The trash holds nothing from change {change!r} (`mempalace trash` lists them).")
        return self.restore_drawers(ids)

    @checked_then_written
    def empty_trash(self, ids: Sequence[str] | None = None) -> int:
        self.grant.check("delete", "*")
        with acting_as(self.grant.actor):
            return self._palace.empty_trash(ids)

    def _wings_of(self, steps: list[Step]) -> set[str]:
        return {str(place.get("wing")) for _, before, after in steps for place in (before, after)}

    def change_list(self, limit: int = 50) -> list[Change]:
        """The newest changes whose every wing this grant sees."""
        found = []
        for change in self._palace.change_list(limit * 4):
            if all(self.grant.may("read", w) for w in self._wings_of(self._palace.change_steps(change.id))):
                found.append(change)
            if len(found) == limit:
                break
        return found

    def change_steps(self, change_id: str) -> list[Step]:
        steps = self._palace.change_steps(change_id)
        if not all(self.grant.may("read", w) for w in self._wings_of(steps)):
            raise InvalidInputError(f"No change {change_id!r} in this palace.")
        return steps

    def last_change(self) -> str | None:
        return self._palace.last_change()

    @checked_then_written
    def undo(self, change_id: str | None = None) -> Undone:
        """As `Palace.undo`, for a change this grant sees and may reverse in each of its wings (the
        newest such change when none is named)."""
        if change_id is None:
            found = [c for c in self.change_list(20) if c.undone_by is None and c.action != "undo"]
            if not found:
                raise InvalidInputError("There is no change to undo.")
            change_id = found[0].id
        steps = self.change_steps(change_id)
        states = {after.get(STATE) for _, _, after in steps}
        right = {"trash": "ingest", "live": "delete"}.get(next(iter(states))) if len(states) == 1 else "move"
        for wing in sorted(self._wings_of(steps)):
            self.grant.check(right or "move", wing)
        with acting_as(self.grant.actor):
            try:
                return self._palace.undo(change_id)
            except InvalidInputError as exc:  # it may name later changes in wings this grant does not see
                if "later changes" not in str(exc):
                    raise
        raise InvalidInputError(f"Change {change_id} cannot be undone: later changes moved or deleted some of its "
                                "drawers. Undo those first.")
