"""Re-rooming and re-halling through a scoped view: only drawers in wings its grant may re-room
(a mixin of `ScopedPalace`, which provides the palace, the grant and `find_drawers`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .access import Grant, acting_as
from .guarding import checked_then_written

if TYPE_CHECKING:
    from .palace import Palace


class ScopedRearranging:
    """The scoped side of `Palace`'s `Rearranging`."""

    _palace: "Palace"
    grant: Grant
    find_drawers: Any

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
