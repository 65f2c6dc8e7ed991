"""A timer for room choice inside a real ingest: it wraps the first TIMED target that exists."""

from __future__ import annotations

import functools
import importlib
import sys
import time

TIMED = ["mempalace.ingest.planning:assign_rooms", "mempalace.rooms.naming:RoomChooser.choose"]


class RoomTimer:
    """Wraps the first TIMED target that exists and sums the wall time spent inside it."""

    def __init__(self, targets: list[str] = TIMED):
        self.targets, self.seconds, self.calls, self.target, self._undo = targets, 0.0, 0, None, []

    def __enter__(self) -> "RoomTimer":
        for target in self.targets:
            module_name, _, attr = target.partition(":")
            *path, name = attr.split(".")
            owner = functools.reduce(lambda o, part: getattr(o, part, None), path, importlib.import_module(module_name))
            if getattr(owner, name, None) is not None:
                self.target = target
                self._patch(owner, name, getattr(owner, name), module_level=not path)
                break
        return self

    def _patch(self, owner: object, name: str, original, module_level: bool) -> None:
        """Replace `original` on its owner and, for a module function, where other modules imported it."""
        @functools.wraps(original)
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.calls += 1

        others = [m for k, m in list(sys.modules.items()) if module_level and k.startswith("mempalace")
                  and m is not owner and getattr(m, name, None) is original]
        for holder in [owner, *others]:
            setattr(holder, name, timed)
            self._undo.append((holder, name, original))

    def __exit__(self, *_: object) -> None:
        for holder, name, original in self._undo:
            setattr(holder, name, original)


class CandidateLog:
    """Records, for each room `RoomChooser.best` names, every phrase it could have chosen (its spellings),
    from the room's last naming: how far the best possible pick among a room's own phrases could go."""

    def __init__(self):
        self.candidates: dict[str, set[str]] = {}
        self._original = None

    def __enter__(self) -> "CandidateLog":
        from mempalace.rooms.naming import RoomChooser

        self._original = original = RoomChooser.best
        log = self.candidates

        @functools.wraps(original)
        def best(chooser, parts, rank=None, current=None):
            found = original(chooser, parts, rank, current)
            phrases = {spelling for _, spellings in chooser._scores(parts).values() for spelling in spellings}
            for name in {found[0], current} - {None}:
                log[name] = phrases
            return found

        RoomChooser.best = best
        return self

    def __exit__(self, *exc) -> None:
        from mempalace.rooms.naming import RoomChooser

        RoomChooser.best = self._original
