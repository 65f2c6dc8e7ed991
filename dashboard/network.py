"""The tunnel network as a self-contained pyvis page: wings as boxes, rooms as dots sized by drawers,
tunnel rooms highlighted with edges as wide as they are informative. No request leaves the page."""

from __future__ import annotations

import html
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
    """A pyvis page for `rooms`; every name is escaped before it goes into the page's data."""
    net = Network(height=f"{height}px", width="100%", cdn_resources="in_line", bgcolor="#ffffff")
    net.barnes_hut(gravity=-6000, spring_length=140)
    wings = sorted({w for room in rooms for w in room.wings})
    colour = {w: WING_COLOURS[i % len(WING_COLOURS)] for i, w in enumerate(wings)}
    for wing in wings:
        drawers = sum(r.count for r in rooms if wing in r.wings)
        net.add_node(f"w:{wing}", label=_safe(wing), shape="box", color=colour[wing],
                     font={"color": "#ffffff"}, title=_safe(f"wing {wing}\nrooms shown: "
                                                          f"{sum(wing in r.wings for r in rooms)}"),
                     mass=3, value=drawers)
    for room in rooms:
        tunnel = len(room.wings) > 1
        tip = (f"room {room.room}\n{room.count} drawers\nwings: {', '.join(room.wings)}"
               + (f"\nhalls: {', '.join(room.halls)}" if room.halls else "")
               + (f"\ntunnel weight {room.weight:.2f}" if tunnel else ""))
        net.add_node(f"r:{room.room}", label=_safe(room.room), shape="dot", size=8 + 4 * math.sqrt(room.count),
                     color=TUNNEL if tunnel else ROOM, title=_safe(tip), borderWidth=2 if tunnel else 1)
        for wing in room.wings:
            net.add_edge(f"r:{room.room}", f"w:{wing}", color=colour[wing],
                         width=1 + 5 * room.weight if tunnel else 1)
    page = _EXTERNAL.sub("", net.generate_html())
    return Drawn(page, matched, len(rooms))


def _safe(text: str) -> str:
    """Names come from users and transcripts: no markup may reach the page's script or tooltips."""
    return html.escape(text, quote=True)
