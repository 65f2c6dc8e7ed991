"""Frozen values the core hands out; nothing else from Chroma leaves the store module."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

ROOM_ALIASES = "room_aliases"  # metadata: the room's earlier names, space-separated, which still find it
HALL_BY = "hall_by"  # metadata: who chose a drawer's hall (or none), "ingest" (re-hallable) or "person"
ROOM_BY = "room_by"  # metadata: who chose a drawer's room, "ingest" (re-roomable) or "person" (never moved)
HALLS = ("hall_facts", "hall_events", "hall_discoveries", "hall_preferences", "hall_advice")
NO_HALL = "none"  # as a hall filter: the drawers in no hall


@dataclass(frozen=True)
class Drawer:
    """One verbatim chunk of original text and where it is filed."""

    id: str
    content: str
    wing: str
    room: str
    hall: str | None = None
    source_file: str | None = None
    chunk_index: int = 0
    parent_id: str | None = None
    filed_at: str | None = None
    added_by: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    room_by: str | None = None  # "ingest" (re-roomable) or "person"; None where unknown (catalog views)
    conversation_date: str | None = None  # YYYY-MM-DD the conversation happened, when its source says
    title: str | None = None  # the conversation's title, when its source has one

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DrawerDraft:
    """A drawer ready to file in a batch: its id is chosen by the caller (ingest uses a content hash)."""

    id: str
    content: str
    wing: str
    room: str
    hall: str | None = None
    source_file: str | None = None
    chunk_index: int = 0
    parent_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    room_by: str = "person"  # who chose the room: "ingest" lets re-rooming choose it again
    room_aliases: tuple[str, ...] = ()  # other names that find its room (its names in other languages)
    hall_by: str = "person"  # who chose the hall (or none): "ingest" lets re-halling choose it again


@dataclass(frozen=True)
class DuplicateMatch:
    """An existing drawer that is at least as similar as the duplicate threshold."""

    drawer_id: str
    similarity: float
    wing: str
    room: str
    preview: str


@dataclass(frozen=True)
class AddResult:
    """What `add_drawer` did: filed new drawers, found them already there, or refused a duplicate."""

    status: Literal["added", "exists", "duplicate"]
    drawer_ids: tuple[str, ...]
    parent_id: str
    matches: tuple[DuplicateMatch, ...] = ()
    did_you_mean: str | None = None  # an existing room that is probably the new room's concept

    @property
    def added(self) -> bool:
        return self.status == "added"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchHit:
    """One search result: the drawer's verbatim text, its place and how the score was made."""

    rank: int
    drawer_id: str
    content: str
    wing: str
    room: str
    hall: str | None
    source_file: str | None
    filed_at: str | None
    score: float
    similarity: float
    semantic: float
    lexical: float
    conversation_date: str | None = None  # YYYY-MM-DD the conversation happened, when its source says
    title: str | None = None  # the conversation's title, when its source has one
    close: bool = True  # a close match: it has the query's words, or its meaning is far nearer than chance

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PalaceStatus:
    """A palace's location and headline counts."""

    location: str
    mode: Literal["embedded", "server"]
    embedder: str
    drawers: int
    wings: int
    rooms: int
    halls: dict[str, int]
    warnings: tuple[str, ...] = ()  # the palace or MemPalace's home is open to other users

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RoomNode:
    """A room of the palace graph: the wings and halls it spans and how much it holds."""

    room: str
    wings: tuple[str, ...]
    halls: tuple[str, ...]
    count: int
    dates: tuple[str, ...]  # most recent conversation (or filing) days, newest first
    weight: float  # informativeness as a tunnel (see mempalace.graph); 0 when it spans one wing


@dataclass(frozen=True)
class Edge:
    """One pair of wings linked by a tunnel room; a room in k wings gives k·(k−1)/2 edges."""

    room: str
    wing_a: str
    wing_b: str
    halls: tuple[str, ...]
    count: int
    weight: float


@dataclass(frozen=True)
class Tunnel:
    """A room spanning two or more wings, with its informativeness weight and ranking score."""

    room: str
    wings: tuple[str, ...]
    halls: tuple[str, ...]
    count: int
    weight: float
    score: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TraversalStep:
    """A room reached by `traverse`: after how many hops, and through which shared wings."""

    room: str
    hop: int
    connected_via: tuple[str, ...]
    count: int
    wings: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GraphStats:
    """The shape of the palace graph in one look."""

    total_rooms: int
    tunnel_rooms: int
    total_edges: int
    total_wings: int
    rooms_per_wing: dict[str, int]
    top_tunnels: tuple[Tunnel, ...]
    isolated_wings: tuple[str, ...]  # wings no informative tunnel links to any other wing

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MergeSuggestion:
    """Two room names that probably mean the same concept; merging `source` into `target` is advised."""

    source: str
    target: str
    score: float
    reasons: tuple[str, ...]
    source_count: int
    target_count: int
    source_wings: tuple[str, ...]
    target_wings: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RoomRename:
    """What renaming a room did."""

    old: str
    new: str
    moved: int
    wings: tuple[str, ...]
    aliases: tuple[str, ...]  # every earlier name that still finds the room

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MergeResult:
    """What `merge_rooms` did."""

    source: str
    target: str
    moved: int
    wings: tuple[str, ...]  # the wings the moved drawers are in
    sources: tuple[str, ...] = ()  # every stored room name emptied into target (other spellings of it too)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TrashedDrawer:
    """A deleted drawer kept in the trash: exactly as it was, with when, by whom and in which change."""

    drawer: Drawer
    deleted_at: float  # seconds since the epoch
    change: str
    deleted_by: str
    purge_at: float  # when the trash forgets it, unless restored first


@dataclass(frozen=True)
class Deletion:
    """What one delete did: how many drawers left the palace, and the change that restores them all
    (`trash restore --all-from CHANGE`); `kept_days` 0 means deleted for good (no trash)."""

    deleted: int
    change: str
    kept_days: float


@dataclass(frozen=True)
class Restoration:
    """What a restore did: drawers put back exactly where they were, and those it could not put back
    with why (`blocked`: id → reason)."""

    restored: tuple[str, ...]
    blocked: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Undone:
    """What an undo did: the change it reverted (`change`, which was an `action`), how many drawers
    went back, and the change that records the undo itself."""

    change: str
    action: str
    drawers: int
    undo: str
