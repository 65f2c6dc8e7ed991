"""The core's old import paths, from before it was grouped into packages: each still imports, as the
very module that now lives at its new path, with a DeprecationWarning. They go in the next release.
One name does not follow its old path: `catalog_build.build_before_serving`, the shared palace host's
own step, is now `catalog.build.build_before_serving` (the rest of `catalog_build` is `build_progress`)."""

from __future__ import annotations

import importlib
import sys
import warnings
from importlib.machinery import ModuleSpec
from types import ModuleType

MOVED = {
    "mempalace.audit": "mempalace.access.audit",
    "mempalace.audit_anchor": "mempalace.access.audit_anchor",
    "mempalace.backup": "mempalace.archive.backup",
    "mempalace.blobs": "mempalace.text.blobs",
    "mempalace.catalog_build": "mempalace.catalog.build_progress",
    "mempalace.catalog_file": "mempalace.catalog.shared_file",
    "mempalace.changes": "mempalace.catalog.change_log",
    "mempalace.chunking": "mempalace.text.chunking",
    "mempalace.cjk": "mempalace.text.cjk",
    "mempalace.dates": "mempalace.catalog.dates",
    "mempalace.demo": "mempalace.ingest.demo",
    "mempalace.demo_data": "mempalace.palace.demo_drawers",
    "mempalace.export": "mempalace.archive.export",
    "mempalace.filters": "mempalace.catalog.filters",
    "mempalace.guarding": "mempalace.palace.under_lock",
    "mempalace.hook_queue": "mempalace.sources.hook_queue",
    "mempalace.hooks": "mempalace.sources.hooks",
    "mempalace.ingest.frequency": "mempalace.language.frequency",
    "mempalace.ingest.hall_local": "mempalace.halls.local",
    "mempalace.ingest.hall_text": "mempalace.halls.text",
    "mempalace.ingest.chunks": "mempalace.text.drawer_chunks",
    "mempalace.ingest.halls": "mempalace.halls.classifier",
    "mempalace.ingest.languages": "mempalace.language.languages",
    "mempalace.ingest.lexicon": "mempalace.language.lexicon",
    "mempalace.ingest.model_names": "mempalace.rooms.model_names",
    "mempalace.ingest.part_phrases": "mempalace.rooms.part_phrases",
    "mempalace.ingest.room_meanings": "mempalace.rooms.meanings",
    "mempalace.ingest.room_profile": "mempalace.rooms.profile",
    "mempalace.ingest.rooms": "mempalace.rooms.naming",
    "mempalace.ingest.russian": "mempalace.language.russian",
    "mempalace.ingest.scripts": "mempalace.language.scripts",
    "mempalace.ingest.topics": "mempalace.rooms.choice",
    "mempalace.ingest.words": "mempalace.rooms.words",
    "mempalace.inventory": "mempalace.catalog.placements",
    "mempalace.keeping": "mempalace.server.keep_alive",
    "mempalace.lexical": "mempalace.catalog.keyword_search",
    "mempalace.likeness": "mempalace.palace.similarity",
    "mempalace.locking": "mempalace.files.locks",
    "mempalace.moving": "mempalace.palace.embedder_move",
    "mempalace.naming": "mempalace.text.names",
    "mempalace.opening": "mempalace.palace.opening",
    "mempalace.own_server": "mempalace.store.server_identity",
    "mempalace.paths": "mempalace.files.paths",
    "mempalace.portable": "mempalace.archive.portable",
    "mempalace.privacy": "mempalace.files.privacy",
    "mempalace.rearranging": "mempalace.palace.rearranging",
    "mempalace.recent_reads": "mempalace.catalog.recent_reads",
    "mempalace.records": "mempalace.palace.drawer_records",
    "mempalace.scoped_rearranging": "mempalace.scoped.rearranging",
    "mempalace.scoped_sources": "mempalace.scoped.sources",
    "mempalace.scoped_trash": "mempalace.scoped.trash",
    "mempalace.search": "mempalace.palace.search",
    "mempalace.settings_file": "mempalace.sources.settings_file",
    "mempalace.sharing": "mempalace.server.starting",
    "mempalace.sourcebook": "mempalace.catalog.source_book",
    "mempalace.store.shared": "mempalace.server.shared_store",
    "mempalace.suggest": "mempalace.sources.suggest",
    "mempalace.sync": "mempalace.catalog.sync",
    "mempalace.syncing": "mempalace.sources.sync",
    "mempalace.taxonomy": "mempalace.palace.taxonomy",
    "mempalace.trash": "mempalace.palace.trash",
    "mempalace.undoing": "mempalace.palace.undoing",
    "mempalace.use_m3_cache": "mempalace.embedding.use_m3_cache",
    "mempalace.vector_reads": "mempalace.catalog.vector_reads",
    "mempalace.vocabulary": "mempalace.catalog.vocabulary",
    "mempalace.wakeup": "mempalace.palace.wakeup",
    "mempalace.wording": "mempalace.text.counts",
    "mempalace.write_journal": "mempalace.catalog.write_journal",
}


class _Alias:
    """Loads an old path as the module at its new path (the same object, so a patch through either holds).
    A plain loader and finder (no importlib.abc): `import mempalace` stays as quick as before."""

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        new = MOVED[module.__name__]
        warnings.warn(f"{module.__name__} is now {new}; the old path goes in the next release", DeprecationWarning,
                      stacklevel=2)
        sys.modules[module.__name__] = importlib.import_module(new)


class OldPaths:
    """Finds the old paths only, after every other finder has looked."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        return ModuleSpec(fullname, _Alias()) if fullname in MOVED else None


def install() -> None:
    """Let the old paths import (once per process)."""
    if not any(isinstance(finder, OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(OldPaths())
