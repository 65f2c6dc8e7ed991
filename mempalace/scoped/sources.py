"""The palace's sources as one person may use them (the dashboard's Sources panel).

Editors see the sources they may sync (those filing into wings they may ingest into), without the
paths, and sync them; admins see all of them and add and remove them. In a team's palace (one with `[[access]]` rules, signed in) a source may only be a
folder under the palace's `source_dirs` setting, as `mcp --allow-dir` keeps an agent to its folders:
a team member never makes the palace read another folder of the machine it runs on.
"""

from __future__ import annotations

import os
from dataclasses import replace
from collections.abc import Sequence
from pathlib import Path

from ..access.rules import Grant, acting_as
from ..catalog.source_book import SourceEntry
from ..errors import AccessDeniedError
from ..palace.palace import Palace
from ..server.keep_alive import SyncStatus, sync_status
from ..sources.suggest import Suggestion, suggest
from ..sources.sync import SyncReport, book_of, sync_sources
from ..text.names import wing_name


class ScopedSources:
    """`palace`'s sources through `grant`."""

    def __init__(self, palace: Palace, grant: Grant):
        self._palace = palace
        self.grant = grant

    @property
    def team(self) -> bool:
        """A signed-in team's palace: sources only under `source_dirs`."""
        return bool(self._palace.settings.access)

    @property
    def may_change(self) -> bool:
        return self.grant.may("settings", "*")

    @property
    def may_sync(self) -> bool:
        return self.grant.may("ingest", "*") or any(self._may_sync(e) for e in self.entries())

    def entries(self) -> list[SourceEntry]:
        """The sources: all for admins; for an editor those they may sync, without the machine's paths
        or the failing files' names and errors (a count stays)."""
        if not any(self.grant.may("ingest", w) for w in ("*", *self._palace.list_wings())):
            return []
        entries = book_of(self._palace).entries()
        if self.may_change:
            return entries
        return [replace(e, path="", errors=tuple(("", "") for _ in e.errors)) for e in entries if self._may_sync(e)]

    def status(self) -> SyncStatus:
        """Whether the sources this person sees sync by themselves now, and when next (why not: the
        server's own details for admins only)."""
        return sync_status(self._palace, len(self.entries()), details=self.may_change)

    def gone_parents(self) -> set[str]:
        """The conversations filed from source files that are gone (their drawers stay)."""
        return book_of(self._palace).gone_parents() if self.entries() else set()

    def suggestions(self) -> list[Suggestion]:
        """Known tools' folders on this machine: the owner's palace only (a team's server's home is no one's)."""
        if self.team or not self.may_change:
            return []
        return suggest()

    def add(self, path: str | os.PathLike[str], wing: str | None = None, format_name: str | None = None,
            name: str | None = None, wing_per_file: bool = False) -> SourceEntry:
        self.grant.check("settings", "*")
        where = Path(path).expanduser().resolve()
        if self.team:
            allowed = [Path(d) for d in self._palace.settings.source_dirs]
            if not any(where == root or root in where.parents for root in allowed):
                shown = ", ".join(map(str, allowed)) or "none (set source_dirs in the palace's config.toml)"
                raise AccessDeniedError(f"{where} is not under a folder this palace may read sources from: {shown}.")
        return book_of(self._palace).add(where, wing_name(wing) if wing else None, format_name, name,
                                         added_by=self.grant.actor.who, wing_per_file=wing_per_file)

    def remove(self, name: str) -> SourceEntry:
        self.grant.check("settings", "*")
        return book_of(self._palace).remove(name)

    def sync(self, names: Sequence[str] = ()) -> list[SyncReport]:
        """Sync the sources named (all this person may sync when none)."""
        book = book_of(self._palace)
        chosen = [book.entry(n) for n in names] if names else [e for e in book.entries() if self._may_sync(e)]
        refused = [e.name for e in chosen if not self._may_sync(e)]
        if refused:
            raise AccessDeniedError(f"{self.grant.actor.who} may not sync {', '.join(refused)}: that needs the "
                                    "editor role on the wings the source files into.")
        with acting_as(self.grant.actor):
            return sync_sources(self._palace, [e.name for e in chosen], wait=True) if chosen else []

    def _may_sync(self, entry: SourceEntry) -> bool:
        return self.grant.may("ingest", entry.wing or "*")
