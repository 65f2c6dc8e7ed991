"""The palace as a graph of rooms, derived from the catalog's (wing, room, hall, count) aggregates.

A room in two or more wings is a tunnel between them. Tunnels are weighted by how informative
they are: with W wings in the palace and a room spanning k of them,

    weight = ln((W + 1) / k) / ln((W + 1) / 2)        (0 for rooms on the stop list)

so a room linking exactly two wings weighs 1 and a room found in every wing weighs next to
nothing. W is taken as at least 10: in a three-wing palace a room in all three is a real tunnel. Tunnels are ranked by score = weight × (k − 1): reaching more wings counts, being
everywhere does not. Nothing here scans drawers; the index is remembered until the palace changes.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import combinations

from ..access.rules import HIDDEN_WING
from ..errors import InvalidInputError, PlaceNotFoundError
from ..models import Edge, GraphStats, RoomNode, TraversalStep, Tunnel
from ..palace.palace import Palace
from ..text.names import closest_names, room_slug, wing_name

MAX_HOPS = 20
DENSITY_MIN_WINGS = 10  # in a smaller palace, being in every wing is no sign of a generic room
MAX_STEPS = 50
TOP_TUNNELS = 10


@dataclass(frozen=True)
class RoomInfo:
    """What the graph knows of a room: its wings, halls and drawer count."""

    wings: frozenset[str]
    halls: frozenset[str]
    count: int


@dataclass(frozen=True)
class RoomIndex:
    """The graph's rooms, the rooms of each wing, and the weight of each tunnel room."""

    rooms: Mapping[str, RoomInfo]
    wing_rooms: Mapping[str, frozenset[str]]
    weights: Mapping[str, float]  # tunnel rooms only
    hidden: frozenset[str]


def tunnel_weight(spanned: int, total_wings: int) -> float:
    """Informativeness of a room spanning `spanned` of `total_wings` wings (see the module doc)."""
    if spanned < 2 or total_wings < 2:
        return 0.0
    wings = max(total_wings, DENSITY_MIN_WINGS)
    return round(math.log((wings + 1) / spanned) / math.log((wings + 1) / 2), 6)


def _settings_key(palace: Palace) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(palace.settings.graph_hidden_rooms), frozenset(palace.settings.tunnel_stop_rooms)


def room_index(palace: Palace) -> RoomIndex:
    """The graph's rooms and wings, built from the count table and kept until the palace changes."""
    hidden, stop = _settings_key(palace)
    return palace.derived(("graph-index", hidden, stop), lambda: _build_index(palace.graph_places(), hidden, stop))


def _build_index(places: tuple[tuple[str, str, str, int], ...], hidden: frozenset[str],
                 stop: frozenset[str]) -> RoomIndex:
    wings: dict[str, set[str]] = {}
    halls: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    wing_rooms: dict[str, set[str]] = {}
    for wing, room, hall, n in places:
        rooms_here = wing_rooms.setdefault(wing, set())
        if room in hidden:
            continue
        rooms_here.add(room)
        wings.setdefault(room, set()).add(wing)
        halls.setdefault(room, set()).update([hall] if hall else [])
        counts[room] = counts.get(room, 0) + n
    rooms = {r: RoomInfo(frozenset(wings[r]), frozenset(halls[r]), counts[r]) for r in sorted(counts)}
    weights = {r: 0.0 if r in stop else tunnel_weight(len(info.wings), len(wing_rooms))
               for r, info in rooms.items() if len(info.wings) > 1}
    return RoomIndex(rooms, {w: frozenset(r) for w, r in sorted(wing_rooms.items())}, weights, hidden)


def _tunnel(room: str, info: RoomInfo, weight: float) -> Tunnel:
    score = round(weight * (len(info.wings) - 1), 6)
    return Tunnel(room, tuple(sorted(info.wings)), tuple(sorted(info.halls)), info.count, weight, score)


def build_graph(palace: Palace) -> tuple[dict[str, RoomNode], list[Edge]]:
    """Every room (except hidden ones such as `general`) and one edge per pair of wings a room spans,
    most informative edges first."""
    nodes, edges = palace.derived(("graph", *_settings_key(palace)), lambda: _graph(palace))
    return dict(nodes), list(edges)


def _graph(palace: Palace) -> tuple[dict[str, RoomNode], tuple[Edge, ...]]:
    index = room_index(palace)
    dates = palace.room_dates()
    nodes = {room: RoomNode(room, tuple(sorted(info.wings)), tuple(sorted(info.halls)), info.count,
                            dates.get(room, ()), index.weights.get(room, 0.0))
             for room, info in index.rooms.items()}
    edges = [Edge(room, a, b, node.halls, node.count, node.weight)
             for room, node in nodes.items() if len(node.wings) > 1
             for a, b in combinations(node.wings, 2)]
    edges.sort(key=lambda e: (-e.weight, -e.count, e.room, e.wing_a, e.wing_b))
    return nodes, tuple(edges)


def find_tunnels(palace: Palace, wing_a: str | None = None, wing_b: str | None = None) -> list[Tunnel]:
    """Rooms spanning two or more wings; with one wing, those touching it; with two, those linking
    both. Most drawers first."""
    index = room_index(palace)
    wanted = {_known_wing(index, w) for w in (wing_a, wing_b) if w is not None}
    found = [_tunnel(room, index.rooms[room], weight) for room, weight in index.weights.items()
             if wanted <= index.rooms[room].wings]
    return sorted(found, key=lambda t: (-t.count, -t.score, t.room))


def traverse(palace: Palace, start_room: str, max_hops: int = 2) -> list[TraversalStep]:
    """Rooms reachable from `start_room`, breadth first; two rooms connect when they share a wing.
    The start room comes first (hop 0); then by hop and most drawers, at most 50 rooms."""
    if isinstance(max_hops, bool) or not isinstance(max_hops, int) or not 0 <= max_hops <= MAX_HOPS:
        raise InvalidInputError(f"max_hops must be a whole number from 0 to {MAX_HOPS}, not {max_hops!r}.")
    index = room_index(palace)
    start = _known_room(index, start_room, palace.resolve_room)
    steps = [_step(index, start, 0, ())]
    seen, frontier = {start}, [start]
    expanded: set[str] = set()
    for hop in range(1, max_hops + 1):
        wings = set().union(*(index.rooms[r].wings for r in frontier)) - expanded - {HIDDEN_WING}
        expanded |= wings
        reached: dict[str, set[str]] = {}
        for wing in wings:
            for room in index.wing_rooms[wing] - seen:
                reached.setdefault(room, set()).add(wing)
        if not reached:
            break
        seen.update(reached)
        steps += [_step(index, room, hop, tuple(sorted(via))) for room, via in reached.items()]
        frontier = list(reached)
    steps.sort(key=lambda s: (s.hop, -s.count, s.room))
    return steps[:MAX_STEPS]


def _step(index: RoomIndex, room: str, hop: int, via: tuple[str, ...]) -> TraversalStep:
    info = index.rooms[room]
    return TraversalStep(room, hop, via, info.count, tuple(sorted(info.wings)))


def graph_stats(palace: Palace) -> GraphStats:
    """Rooms, tunnels, edges, rooms per wing, the top tunnels by score, and isolated wings."""
    stats: GraphStats = palace.derived(("graph-stats", *_settings_key(palace)), lambda: _stats(room_index(palace)))
    return dataclasses.replace(stats, rooms_per_wing=dict(stats.rooms_per_wing))


def _stats(index: RoomIndex) -> GraphStats:
    tunnels = [_tunnel(room, index.rooms[room], weight) for room, weight in index.weights.items()]
    linked = {w for t in tunnels if t.weight > 0 for w in t.wings}
    shown = [w for w in index.wing_rooms if w != HIDDEN_WING]
    top = sorted((t for t in tunnels if t.weight > 0), key=lambda t: (-t.score, -t.count, t.room))[:TOP_TUNNELS]
    return GraphStats(
        total_rooms=len(index.rooms), tunnel_rooms=len(tunnels),
        total_edges=sum(len(t.wings) * (len(t.wings) - 1) // 2 for t in tunnels),
        total_wings=len(shown), rooms_per_wing={w: len(index.wing_rooms[w]) for w in shown},
        top_tunnels=tuple(top), isolated_wings=tuple(w for w in shown if w not in linked),
    )


def _known_room(index: RoomIndex, name: str, resolve: Callable[[str], str]) -> str:
    """`name` as a room of the graph: as stored, by its slug, or as an earlier name of one."""
    if not isinstance(name, str):
        raise InvalidInputError(f"A room name must be text, not {type(name).__name__}.")
    if not name.strip():
        raise InvalidInputError("A room name is required.")
    if name in index.rooms:
        return name
    slug = room_slug(name)
    if slug in index.rooms:
        return slug
    if resolve(slug) in index.rooms:
        return resolve(slug)
    if slug in index.hidden or name in index.hidden:
        raise PlaceNotFoundError(f"Room {slug!r} is left out of the graph (the graph_hidden_rooms setting).")
    raise PlaceNotFoundError(f"No room {name!r} in this palace.{closest_names(slug, index.rooms)}")


def _known_wing(index: RoomIndex, name: str) -> str:
    if isinstance(name, str) and name in index.wing_rooms:  # as stored, even if another tool did not clean it
        return name
    wing = wing_name(name)
    if wing not in index.wing_rooms and f"wing_{wing}" in index.wing_rooms:  # `kai` for `wing_kai`
        wing = f"wing_{wing}"
    if wing not in index.wing_rooms:
        bare = {w.removeprefix("wing_"): w for w in index.wing_rooms}
        close = [bare[w] for w in difflib.get_close_matches(wing.removeprefix("wing_"), list(bare), n=3, cutoff=0.6)]
        raise PlaceNotFoundError(f"No wing {name!r} in this palace." + (f" Did you mean {', '.join(close)}?" if close else ""))
    return wing
