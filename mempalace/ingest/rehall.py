"""Re-halling a palace: the drawers whose hall (or no hall) ingest chose get the hall ingest would
choose today; a hall a person set (`add --hall`, a move) is never touched. Changes are applied only
to drawers that still have the hall the preview found (a person's change meanwhile wins)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..catalog.placements import INGEST, READ_AT_ONCE
from ..halls.classifier import HallClassifier
from ..palace.palace import Palace
from ..text import blobs


@dataclass(frozen=True)
class HallChange:
    """One drawer whose hall re-halling changes ("" for none)."""

    drawer_id: str
    wing: str
    room: str
    old_hall: str
    new_hall: str


@dataclass(frozen=True)
class RehallReport:
    """What re-halling did (or, in a dry run, would do)."""

    considered: int  # drawers whose hall ingest chose
    kept: int  # drawers whose hall a person chose: never changed
    changes: tuple[HallChange, ...]
    dry_run: bool
    changed: int = 0

    def summary(self) -> list[tuple[str, str, int]]:
        """(old hall, new hall, drawers) for each kind of change, biggest first ("" is no hall)."""
        counts = Counter((c.old_hall, c.new_hall) for c in self.changes)
        return sorted(((*k, n) for k, n in counts.items()), key=lambda r: (-r[2], r[:2]))


def rehall(palace: Palace, dry_run: bool = False) -> RehallReport:
    """Choose again the hall of every drawer whose hall ingest chose; change them unless `dry_run`.
    Texts and vectors are read READ_AT_ONCE drawers at a time."""
    drawers = palace.room_inventory()
    mine = [d for d in drawers if d.hall_by == INGEST]
    name = palace.settings.embedder
    classifier = palace.kept(("halls", name), lambda: HallClassifier(palace.embed, palace.settings.cache_dir, name))
    changes: list[HallChange] = []
    for start in range(0, len(mine), READ_AT_ONCE):
        read = palace.with_vectors(mine[start : start + READ_AT_ONCE])
        halls = classifier.classify([blobs.readable(d.content) for d in read],
                                    np.stack([d.vector for d in read]) if read else np.zeros((0, 0)))
        changes += [HallChange(d.id, d.wing, d.room, d.hall, hall or "") for d, hall in zip(read, halls)
                    if (hall or "") != d.hall]
    changed = 0 if dry_run else apply_changes(palace, tuple(changes))
    return RehallReport(len(mine), len(drawers) - len(mine), tuple(changes), dry_run, changed)


def apply_changes(palace: Palace, changes: tuple[HallChange, ...]) -> int:
    """Apply a (previewed) re-halling; returns how many drawers changed."""
    return palace.rehall_drawers([(c.drawer_id, c.old_hall, c.new_hall) for c in changes])
