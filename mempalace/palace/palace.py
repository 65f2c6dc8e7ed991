"""`Palace`: the one object front ends hold. Drawers go in verbatim and come back by meaning or place."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
from pathlib import Path
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import numpy as np

from ..access.audit import AccessBook
from ..access.rules import current_actor
from ..catalog.catalog import Catalog
from ..catalog.change_log import ChangeBook, changes_path
from ..catalog.dates import date_range
from ..catalog.placements import PERSON
from ..catalog.sync import CatalogSync, catalog_row, new_stamp
from ..config import Settings, load_settings
from ..embedding.embedders import EmbedderLoader, crosses_languages
from ..errors import DrawerNotFoundError, InvalidInputError, PalaceMovedError
from ..files.privacy import exposure_warnings
from ..models import (HALL_BY, ROOM_BY, AddResult, Drawer, DrawerDraft, PalaceStatus, RoomRename,
                     SearchHit)
from ..server.keep_alive import KeptInUse
from ..store.chroma import SEQ_KEY, ChromaStore, Record
from ..text.chunking import split_verbatim
from ..text.counts import counted
from ..text.names import alias_of, hall_change, hall_filter, hall_name, room_slug, wing_name
from .drawer_records import (access_path, best_first, check_content, draft_metadata, drawer_from_record, drawer_from_row,
                      drawer_id_of, extra_metadata, id_list, match)
from .opening import palace_parts
from .rearranging import Rearranging
from .search import MATCHED_SHARE_POWER, Searcher
from .similarity import Likeness
from .taxonomy import TaxonomyView, within_wings
from .trash import Trashing
from .under_lock import serialized
from .undoing import Undoing
from .wakeup import WakingUp

if TYPE_CHECKING:
    from ..files.locks import PalaceLock
    from ..server.starting import Lease
    from .demo_drawers import DemoRemoval

SEARCH_MODES = {"hybrid": True, "vector": False, "semantic": False}


class Palace(Likeness, Rearranging, Trashing, Undoing, WakingUp, TaxonomyView):
    """A palace of drawers in one Chroma collection, with a catalog that keeps reads fast."""

    def __init__(self, store: ChromaStore, catalog: Catalog, settings: Settings, lock: "PalaceLock | None",
                 lease: "Lease | None" = None):
        self.settings = settings
        self._store = store
        self._catalog = catalog
        self._lock = lock
        self._lease = lease
        self._sync = CatalogSync(store, catalog, settings.foreign_check_seconds, settings.embedder)
        if lease:
            self._sync.on_use = lease.touch
        self._closed = False
        self.keeper: KeptInUse | None = None  # see `keep_in_use`
        self._vectors_guard = threading.Lock()  # not the palace's: embedding never waits on its reads
        self._follow_embedder(settings.embedder)
        self._sync.on_moved = self._follow_embedder
        self.access = AccessBook(access_path(catalog.path))  # the audit log and tokens, opened on first use
        self.changes = ChangeBook(changes_path(catalog.path))  # what each change did, for undo
        self._last_change = threading.local()
        self._wakeups: dict[Any, Any] = {}  # wake-up texts by palace revision, wings, budget and identity
        super().__init__(catalog, self._sync)

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, url: str | None = None, *,
             settings: Settings | None = None, create: bool = True, private: bool | None = None) -> "Palace":
        """Open the palace at `path` (default `$MEMPALACE_HOME/palace`) or on the server at `url`.

        A palace folder is shared: every process on the machine uses it at once through a Chroma
        server MemPalace starts for it. `private=True` (or the setting `shared = false`) opens it
        embedded instead, for this process alone."""
        return cls(*palace_parts(path, url, settings or load_settings(), create, private))

    @property
    def catalog_path(self) -> Path:
        """The catalog's file: the palace's own state (sources, access book) sits beside it."""
        return self._catalog.path

    @property
    def location(self) -> str:
        return self._store.location

    @property
    def shown_location(self) -> str:
        """The location as its user may see it (a scoped view hides it from all but admins)."""
        return self.location

    @property
    def mode(self) -> str:
        return self._store.mode

    @serialized
    def close(self) -> None:
        """Release the palace (and, for an embedded one, its lock); closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        if self.keeper:
            self.keeper.stop()
        self._catalog.close()
        self.access.close()
        self.changes.close()
        self._store.close()
        if self._lock:
            self._lock.release()
        if self._lease:
            self._lease.release()

    @serialized
    def keep_in_use(self) -> None:
        """Keep a shared palace in use until it is closed, read or not, so its sources go on syncing
        (for a front end left open, such as the dashboard; see `server.keep_alive.KeptInUse`)."""
        if self._lease and self.keeper is None and not self._closed:
            self.keeper = KeptInUse(Path(self.location), self._lease, self.settings.server_idle_seconds)

    def __enter__(self) -> "Palace":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- writing ----------------------------------------------------------------------------------

    @serialized
    def add_drawer(self, content: str, wing: str, room: str, hall: str | None = None,
                   source_file: str | None = None, *, within: tuple[str, ...] | None = None, **meta: Any) -> AddResult:
        """File `content` verbatim, split into consecutive drawers if long; refuse near-duplicates (in
        the wings `within`, when given: a scoped view's)."""
        self._check_content(content)
        wing, room, hall = wing_name(wing), self.resolve_room(room_slug(room), folded=False), hall_name(hall)
        extra = extra_metadata(meta)
        pieces = split_verbatim(content, self.settings.drawer_chars)
        parent = "parent_" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:24]
        ids = [drawer_id_of(parent, i) for i in range(len(pieces))]
        self._sync.ensure_fresh()
        existing = self._catalog.rows(ids)
        elsewhere = [r for r in existing.values() if (r.wing, r.room) != (wing, room)]
        if len(existing) == len(ids) and not elsewhere:
            return AddResult("exists", tuple(ids), parent)
        new = [(i, d, p) for i, (d, p) in enumerate(zip(ids, pieces)) if d not in existing]
        vectors = self._embed([p for _, _, p in new])
        matches = [match(r, 1.0) for r in elsewhere]
        matches += self._similar(vectors, self.settings.duplicate_threshold, set(ids), within)
        if matches:
            return AddResult("duplicate", tuple(ids), parent, tuple(best_first(matches)))
        common = {
            "wing": wing, "room": room, **({"hall": hall} if hall else {}),
            **({"source_file": source_file} if source_file else {}), "chunk_count": len(pieces),
            "parent_id": parent, "filed_at": datetime.now(timezone.utc).isoformat(timespec="microseconds"),
            "added_by": str(extra.pop("added_by", "mempalace")), SEQ_KEY: new_stamp(), **extra, ROOM_BY: PERSON,
            HALL_BY: PERSON,
        }
        metadatas = [{**common, "chunk_index": index} for index, _, _ in new]
        with self._sync.writing("add", [d for _, d, _ in new], common[SEQ_KEY]):
            self._store.add([d for _, d, _ in new], [p for _, _, p in new], metadatas, vectors)
            records = [Record(d, p, m, v) for (_, d, p), m, v in zip(new, metadatas, vectors)]
            self._sync.finish_write(rows=[catalog_row(r) for r in records])
        self._record("add", [d for _, d, _ in new], wing=wing, room=room)
        return AddResult("added", tuple(ids), parent)

    @serialized
    def file_drawers(self, drafts: Sequence[DrawerDraft], vectors: np.ndarray | None = None) -> None:
        """File prepared drawers in one batch (no duplicate check; ids already stored are left as they are)."""
        for draft in drafts:
            self._check_content(draft.content)
        if not drafts:
            return
        given, embedder = vectors is not None, self.settings.embedder
        self._sync.ensure_fresh()  # (before embedding: a move made elsewhere is followed first)
        vectors = self._embed([d.content for d in drafts]) if vectors is None else vectors
        if len(vectors) != len(drafts):
            raise InvalidInputError("file_drawers needs exactly one vector per drawer.")
        stamp, now = new_stamp(), datetime.now(timezone.utc).isoformat(timespec="microseconds")
        metadatas = [draft_metadata(d, now, stamp, n) for n, d in enumerate(drafts)]
        width = getattr(self._embedder.get(), "dimension", None) if given else None
        if given and (self.settings.embedder != embedder or (width and np.shape(vectors)[1:] != (width,))):
            raise PalaceMovedError.while_reading(self.settings.embedder)
        known = self._catalog.stamps([d.id for d in drafts])
        with self._sync.writing("add", [d.id for d in drafts if d.id not in known], stamp):
            self._store.add([d.id for d in drafts], [d.content for d in drafts], metadatas, vectors)
            records = [Record(d.id, d.content, m, v) for d, m, v in zip(drafts, metadatas, vectors)]
            self._sync.finish_write(rows=[catalog_row(r) for r in records if r.id not in known])
        self._record("file", [d.id for d in drafts if d.id not in known], wings=sorted({d.wing for d in drafts}))

    @serialized
    def remove_demo(self) -> DemoRemoval:
        """Delete exactly the demo's drawers (`mempalace.palace.demo_drawers`), never a drawer of a real conversation."""
        from .demo_drawers import remove_demo  # the demo's conversations are parsed only when needed

        return remove_demo(self)

    @serialized
    def update_drawer(self, drawer_id: str, wing: str | None = None, room: str | None = None,
                      hall: str | None = None) -> Drawer:
        """Move a drawer to another wing, room or hall (hall "" takes it out of its hall); its text and
        id never change."""
        if wing is None and room is None and hall is None:
            raise InvalidInputError("Say where to move the drawer: a wing, a room or a hall.")
        current = self.get_drawer(drawer_id)
        place = {"wing": None if wing is None else wing_name(wing),
                 "room": None if room is None else self.resolve_room(room_slug(room)),
                 "hall": None if hall is None else hall_change(hall)}
        self._sync.ensure_fresh()
        self._move([current.id], place)
        return self.get_drawer(current.id)

    @serialized
    def move_drawers(self, ids: Sequence[str], wing: str | None = None, room: str | None = None,
                     hall: str | None = None, *, audit_as: str = "move") -> int:
        """Move many drawers in one write (metadata only: text, vectors and ids stay; hall "" takes them
        out of their hall); returns how many. A room given here is a person's choice."""
        place = {"wing": wing_name(wing) if wing is not None else None,
                 "room": self.resolve_room(room_slug(room)) if room is not None else None,
                 "hall": hall_change(hall)}
        if all(v is None for v in place.values()):
            raise InvalidInputError("Say where to move the drawers: a wing, a room or a hall.")
        self._sync.ensure_fresh()
        present = sorted(self._catalog.stamps(id_list(ids)))
        if present:
            self._move(present, place, action=audit_as)
        return len(present)

    @serialized
    def move_rooms(self, rooms: Sequence[str], target: str) -> tuple[int, tuple[str, ...]]:
        """Move every drawer of the stored rooms `rooms` (in every wing) into room `target` in one
        step; returns how many moved and from which wings."""
        target = self.resolve_room(room_slug(target), folded=False)
        self._sync.ensure_fresh()
        ids = [i for room in id_list(rooms) for i in self._catalog.ids_where({"room": room})]
        wings = tuple(sorted({w for w, room, _, _ in self._catalog.room_counts() if room in rooms}))
        if ids:
            earlier = self._catalog.aliases_of(ids + self._catalog.ids_where({"room": target}))
            aliases = (earlier | {alias_of(r) for r in id_list(rooms)}) - {target}
            self._move(ids, {"room": target}, action="move-rooms", aliases=" ".join(sorted(aliases)))
        return len(ids), wings

    @serialized
    def rename_room(self, room: str, new: str, *, chosen_by: str = PERSON) -> RoomRename:
        """Give room `room` (in every wing) the name `new` in one write; its old name and earlier
        names stay aliases that find it. A person's rename makes the room theirs: ingest never
        renames it again, nor re-rooms its drawers."""
        old = self.stored_room(room)
        target = room_slug(new)
        if target == old:
            raise InvalidInputError(f"Room {old!r} already has that name.")
        if target in self.list_rooms():
            raise InvalidInputError(f"Room {target!r} exists already: `mempalace merge-rooms {old} {target}` "
                                    "joins the two rooms.")
        ids = self._catalog.ids_where({"room": old})
        aliases = (self._catalog.aliases_of(ids) | {alias_of(old)}) - {target}
        wings = tuple(sorted({w for w, r, _, _ in self._catalog.room_counts() if r == old}))
        self._move(ids, {"room": target}, chosen_by, "rename-room", aliases=" ".join(sorted(aliases)), was=old)
        return RoomRename(old, target, len(ids), wings, tuple(sorted(aliases)))

    @serialized
    def rebuild_index(self) -> int:
        """Remake the catalog from Chroma (after another tool moved drawers); returns the drawer count."""
        self._sync.rebuild()
        self._record("rebuild", [])
        return self._catalog.count()

    # -- reading ----------------------------------------------------------------------------------

    @serialized
    def get_drawer(self, drawer_id: str) -> Drawer:
        if not isinstance(drawer_id, str) or not drawer_id.strip():
            raise InvalidInputError("A drawer id is required.")
        found = self._store.get([drawer_id.strip()])
        if not found:
            raise DrawerNotFoundError(f"No drawer with id {drawer_id!r} in this palace.")
        return drawer_from_record(found[0])

    def get_drawers(self, ids: Sequence[str]) -> dict[str, Drawer]:
        """The stored drawers among `ids`, read in full from Chroma (with their metadata)."""
        return {r.id: drawer_from_record(r) for r in self._store.get(sorted(set(id_list(ids))))} if ids else {}

    @serialized
    def find_drawers(self, ids: Sequence[str]) -> dict[str, Drawer]:
        """The stored drawers among `ids`, from the catalog (fast; without extra metadata)."""
        self._sync.ensure_fresh()
        return {i: drawer_from_row(r) for i, r in self._catalog.rows(list(ids)).items()}

    @serialized
    def drawers_of(self, parent_id: str) -> list[Drawer]:
        """The drawers filed from one parent (one add, or one ingested conversation), in order."""
        self._sync.ensure_fresh()
        return [drawer_from_row(r) for r in self._catalog.by_parent(parent_id)]

    @serialized
    def search(self, query: str, wing: str | None = None, room: str | None = None, hall: str | None = None,
               source_file: str | None = None, limit: int = 10, mode: str = "hybrid",
               within: tuple[str, ...] | None = None, after: str | None = None,
               before: str | None = None) -> list[SearchHit]:
        """Drawers best matching `query` within the given place and dates (filters combine with AND;
        `after`/`before` are inclusive YYYY-MM-DD days of the conversation, else of filing); `within`
        limits the search to those wings (a scoped view's)."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("The search query is empty.")
        if len(query) > self.settings.max_query_chars:
            raise InvalidInputError(
                f"The query is {len(query):,} characters; the limit is {self.settings.max_query_chars:,}."
            )
        if mode not in SEARCH_MODES:
            raise InvalidInputError(f"Unknown search mode {mode!r}: use hybrid or semantic.")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= self.settings.max_limit:
            raise InvalidInputError(f"The limit must be a whole number from 1 to {self.settings.max_limit}.")
        wing, room = self.known_place(wing, room, source_file, within)
        filters = {
            "wing": wing, "room": room, "hall": hall_filter(hall), "source_file": source_file or None,
            **date_range(after, before),
        }
        filters = within_wings(filters, within)
        if filters["wing"] == ():  # no wing of the view, or one outside it
            return []
        self._embedder.start()  # the model loads while the keyword index is read
        self._sync.ensure_fresh()
        hybrid = SEARCH_MODES[mode]
        keywords = self._searcher.keyword_hits(query, filters, limit, self._sync.generation) if hybrid else {}
        vector = self._embed([self._searcher.embedded_text(query, filters, self._sync.generation)])[0]
        return self._searcher.search(vector, filters, limit, keywords, hybrid, self._sync.generation, query)

    def status(self) -> PalaceStatus:
        return PalaceStatus(
            location=self.shown_location, mode=self.mode, embedder=self.settings.embedder, drawers=self.count(),
            wings=len(self.list_wings()), rooms=len(self.list_rooms()), halls=self.hall_counts(),
            warnings=tuple(self.warnings()),
        )

    def warnings(self) -> list[str]:
        """What its owner should know: the palace's folder or MemPalace's home open to other local
        users, or an audit log (and token book) that is gone though the palace holds drawers."""
        folder = Path(self.location)
        local = {"palace": folder} if folder.is_dir() else {}
        return exposure_warnings(**local, **{"MemPalace home folder": Path(self.settings.home)}) + self.log_warnings()

    def log_warnings(self) -> list[str]:
        """A sentence when the audit log (and token book) is gone though the palace holds drawers."""
        drawers = 0 if self.access.has_entries() else self.count()
        return [f"This palace holds {counted(drawers, 'drawer')} but its audit log and tokens ({self.access.path}) are "
                "missing (or the log is empty): they were deleted or moved. Restore the file from a backup if you "
                "have one; the next write starts a new log that says so."] if drawers else []

    # -- helpers ----------------------------------------------------------------------------------

    def _follow_embedder(self, embedder: str) -> None:
        """Use `embedder` from now on: the palace's own, or the one a move switched it to meanwhile."""
        if embedder != self.settings.embedder:
            self._store.follow_live()  # (first: if it fails, the next read tries again)
        with self._vectors_guard:  # the loader and the remembered vectors change together (see `embed`)
            self._embedder = EmbedderLoader(embedder, self.settings.cache_dir)
            self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._searcher = Searcher(self._store, self._catalog, MATCHED_SHARE_POWER if crosses_languages(embedder) else 0.0)
        self.settings = dataclasses.replace(self.settings, embedder=embedder)

    def _check_content(self, content: object) -> None:
        check_content(content, self.settings.max_content_chars)

    def _record(self, action: str, ids: Sequence[str], **detail: Any) -> None:
        """Append a write to the audit log, under the actor of this thread (see mempalace.access). A log
        that is started while the palace already holds other drawers says so in its first entry."""
        already = 0 if self.access.has_entries() else self.count() - len(ids)
        if already > 0:
            self.access.record(current_actor(), "log-start", [], drawers_already=already)
        self.access.record(current_actor(), action, ids, **detail)
