"""The tunnel network as a self-contained pyvis page: wings as boxes, rooms as dots sized by drawers,
tunnel rooms highlighted with edges as wide as they are informative. No request leaves the page,
and names (from users and transcripts) only ever reach it as JSON data shown as text."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pyvis.network import Network

from mempalace.models import RoomNode

MAX_ROOMS = 300
WING_COLOURS = ("#6b4fbb", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
                "#bcbd22", "#7f7f7f")
TUNNEL, ROOM = "#f28e2b", "#b7c4d6"
# pyvis's page also links a CDN stylesheet and scripts and a node_modules path: all of it is either
# inlined already (vis-network) or not needed, and nothing may be fetched from outside.
_EXTERNAL = re.compile(r"<link[^>]*href=\"(?:https?:|\.\./)[^\"]*\"[^>]*>|<script[^>]*src=\"(?:https?:|\.\./)"
                       r"[^\"]*\"[^>]*>\s*</script>", re.S)


@dataclass(frozen=True)
class Drawn:
    """The page and what it shows: how many rooms matched the filters and how many were drawn."""

    html: str
    matched: int
    drawn: int


def choose_rooms(nodes: Mapping[str, RoomNode], wings: Iterable[str] = (), min_wings: int = 1,
                 hall: str | None = None, cap: int = MAX_ROOMS) -> tuple[list[RoomNode], int]:
    """The rooms to draw (tunnels and big rooms first, at most `cap`) and how many matched in all."""
    wanted = set(wings)
    matched = [n for n in nodes.values()
               if len(n.wings) >= min_wings and (not wanted or wanted & set(n.wings)) and (not hall or hall in n.halls)]
    matched.sort(key=lambda n: (-(n.weight * (len(n.wings) - 1)), -len(n.wings), -n.count, n.room))
    return matched[:cap], len(matched)


def network_page(rooms: list[RoomNode], matched: int, height: int = 620) -> Drawn:
    """A pyvis page for `rooms`, laid out here (wings on a circle, each room between its wings) so the
    browser draws it at once; every name is escaped before it goes into the page's data."""
    net = Network(height=f"{height}px", width="100%", cdn_resources="in_line", bgcolor="#ffffff")
    net.toggle_physics(False)
    wings = sorted({w for room in rooms for w in room.wings})
    colour = {w: WING_COLOURS[i % len(WING_COLOURS)] for i, w in enumerate(wings)}
    spot = _wing_spots(wings)
    for wing in wings:
        shown = [r for r in rooms if wing in r.wings]
        net.add_node(f"w:{wing}", label=_safe(wing), shape="box", color=colour[wing], font={"color": "#ffffff"},
                     title=_safe(f"wing {wing}\n{len(shown)} rooms shown, {sum(r.count for r in shown)} drawers"),
                     x=spot[wing][0], y=spot[wing][1])
    crowd: dict[tuple[str, ...], int] = {}
    for room in rooms:
        tunnel = len(room.wings) > 1
        x, y = _room_spot(room.wings, spot, crowd)
        tip = (f"room {room.room}\n{room.count} drawers\nwings: {', '.join(room.wings)}"
               + (f"\nhalls: {', '.join(room.halls)}" if room.halls else "")
               + (f"\ntunnel weight {room.weight:.2f}" if tunnel else ""))
        net.add_node(f"r:{room.room}", label=_safe(room.room), shape="dot", size=6 + 3 * math.sqrt(room.count),
                     color=TUNNEL if tunnel else ROOM, title=_safe(tip), borderWidth=2 if tunnel else 1, x=x, y=y)
        for wing in room.wings:
            net.add_edge(f"r:{room.room}", f"w:{wing}", color=colour[wing], width=1 + 5 * room.weight if tunnel else 1)
    page = _EXTERNAL.sub("", net.generate_html())
    return Drawn(page, matched, len(rooms))


def _wing_spots(wings: list[str], radius: float = 600.0) -> dict[str, tuple[float, float]]:
    count = max(1, len(wings))
    return {w: (radius * math.cos(2 * math.pi * i / count), radius * math.sin(2 * math.pi * i / count))
            for i, w in enumerate(wings)}


def _room_spot(wings: tuple[str, ...], spot: dict[str, tuple[float, float]],
               crowd: dict[tuple[str, ...], int]) -> tuple[float, float]:
    """Between the room's wings (a lone wing's rooms ring it), spiralling out as rooms share a spot."""
    n = crowd[wings] = crowd.get(wings, 0) + 1
    cx = sum(spot[w][0] for w in wings) / len(wings)
    cy = sum(spot[w][1] for w in wings) / len(wings)
    if len(wings) == 1:
        cx, cy = cx * 1.25, cy * 1.25
    angle, reach = n * 2.4, 30 + 14 * math.sqrt(n)  # the golden angle keeps neighbours apart
    return round(cx + reach * math.cos(angle), 1), round(cy + reach * math.sin(angle), 1)


def _safe(text: str) -> str:
    """Names go into the page as JSON (pyvis escapes it for a script) and are drawn as plain text.
    pyvis switches every tooltip to raw HTML as soon as one holds "href", so that word is broken."""
    return text.replace("href", "hr\u200bef")
