"""The tunnel network as a self-contained pyvis page: wings as boxes, rooms as dots sized by drawers,
tunnel rooms highlighted with edges as wide as they are informative. No request leaves the page,
and names (from users and transcripts) only ever reach it as JSON data shown as text."""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pyvis.network import Network

from mempalace.models import RoomNode
from mempalace.text.counts import counted

from .colours import named_colours, text_on
from .network_space import apart
from .widths import LATIN_EM, cut_to, em_width, prefix_within

MAX_ROOMS = 300
MAX_RADIUS = 40  # px: a dot's largest radius (its room's drawers are on hover)
RADIUS_SCALE, DOT_SHARE = 1.6, 0.12  # px of radius per √drawer; the most of the frame dots may cover
(TUNNEL, TUNNEL_RIM), (ROOM, ROOM_RIM), INK = ("#f28e2b", "#8a4200"), ("#b7c4d6", "#8796ab"), "#1f2430"
FRAME_WIDTH = 900  # px: the network's width on the Tunnels page at 1400 px; its height is `height`
ROOM_PX, WING_PX = 12, 14  # label sizes in px when the first view is at scale 1 (zooming in enlarges them, to 24 px)
WING_WRAP, _MIN_WRAP = 130, 70  # px: a longer wing name wraps onto more lines in its box (narrower for many wings)
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


@dataclass(frozen=True)
class Layout:
    """Where everything goes, in screen px round (0, 0): wings round the frame's edge, each room
    between its wings, no two rooms' labels on each other (`apart`); `wrap` is the width wing names
    wrap at."""

    wings: tuple[str, ...]
    colour: Mapping[str, str]
    wing_at: Mapping[str, tuple[float, float]]
    room_at: tuple[tuple[RoomNode, tuple[float, float]], ...]
    wrap: float
    unlabelled: frozenset[str] = frozenset()  # rooms with no room for their label: named on hover only
    radius: Mapping[str, float] = field(default_factory=dict)  # each room's dot, in px (`room_radius`)


def layout(rooms: list[RoomNode], height: int = 620, palette: Iterable[str] = ()) -> Layout:
    """The network's layout for a frame FRAME_WIDTH × `height` px, every wing in its own colour, fixed by
    its place in `palette` (the palace's wings, oldest first), so neither a filter nor a new wing
    recolours one."""
    wings = sorted({w for room in rooms for w in room.wings})
    spot, wrap = _wing_spots(wings, FRAME_WIDTH, height)
    crowd: dict[tuple[str, ...], int] = {}
    anchors = [_room_spot(room.wings, spot, crowd, wrap) for room in rooms]
    walls = [(*spot[w], *(side / 2 + _GAP for side in wing_box(w, wrap))) for w in wings]
    frame = (max([FRAME_WIDTH / 2 / _FIT] + [abs(x) + w for x, _, w, _ in walls]),  # as far as the wings' ring grew
             max([height / 2 / _FIT] + [abs(y) + h for _, y, _, h in walls]))
    scale = dot_scale(rooms, 4 * frame[0] * frame[1])
    radius = {room.room: room_radius(room, scale) for room in rooms}
    placed = apart(anchors, [_room_extent(room, radius[room.room]) for room in rooms], walls, frame)
    ordered = [*palette, *sorted(set(wings) - set(palette))]  # the palace's wings oldest first, then any other
    colours = {w: c for w, c in named_colours(ordered, avoid=(TUNNEL, ROOM)).items() if w in spot}
    return Layout(tuple(wings), colours, spot, tuple((room, (x, y)) for room, (x, y, _) in zip(rooms, placed)), wrap,
                  frozenset(room.room for room, (_, _, labelled) in zip(rooms, placed) if not labelled), radius)


def dot_scale(rooms: list[RoomNode], area: float) -> float:
    """How fast dots grow with drawers (radius = 3 + scale × √drawers): RADIUS_SCALE, or less when the
    dots would cover more than DOT_SHARE of the frame's `area` (a palace of big rooms), so they leave
    room for the labels."""
    drawers = sum(room.count for room in rooms)
    return min(RADIUS_SCALE, math.sqrt(DOT_SHARE * area / (math.pi * drawers))) if drawers else RADIUS_SCALE


def room_box(room: RoomNode, r: float, labelled: bool = True) -> tuple[float, float, float]:
    """What a room draws round its spot, its dot of radius `r` and (if `labelled`) its label under
    it: (half width, px above the spot, px below it)."""
    if not labelled:
        return r, r, r
    return max(r, label_width(room_label(room)) / 2), r, r + ROOM_PX + 4


def _room_extent(room: RoomNode, r: float) -> tuple[float, float, float, float]:
    """`room_box` with `_SPACE` kept clear round it, then the dot's own half size, for `apart`."""
    half, up, down = room_box(room, r)
    return half + _SPACE, up + _SPACE, down + _SPACE, r + _SPACE


def room_label(room: RoomNode) -> str:
    """A room's label under its dot: its name, cut to LABEL_EMS wide so one long name cannot take the
    whole drawing (whole on hover)."""
    return cut_to(room.room, LABEL_EMS)


def label_width(text: str, size: float = ROOM_PX) -> float:
    """An estimate of a label's width in px, each character by its script (dashboard.widths): a CJK
    one a whole em, a Latin one CHAR_EM."""
    return em_width(text) * size


def network_page(rooms: list[RoomNode], matched: int, height: int = 620, palette: Iterable[str] = ()) -> Drawn:
    """A pyvis page for `rooms`, laid out here (see `layout`) so the browser draws it at once and at
    full size; every name is escaped."""
    plan = layout(rooms, height, palette)
    colour, wrap = plan.colour, plan.wrap
    net = Network(height=f"{height}px", width="100%", cdn_resources="in_line", bgcolor="#ffffff")
    net.set_options(json.dumps(OPTIONS))
    for wing in plan.wings:
        x, y = plan.wing_at[wing]
        lines = "\n".join(wing_lines(wing, wrap))  # the lines the layout made room for
        net.add_node(f"w:{wing}", label=_safe(lines), shape="box", color=colour[wing], x=x, y=y,
                     font={"color": text_on(colour[wing]), "size": WING_PX}, margin=BOX_MARGIN,
                     widthConstraint={"maximum": wrap}, title=_safe(wing_tip(wing, rooms)))
    for room, at in plan.room_at:
        _add_room(net, room, at, colour, plan.radius[room.room], room.room not in plan.unlabelled)
    page = _EXTERNAL.sub("", net.generate_html())
    return Drawn(page, matched, len(rooms))


def wing_tip(wing: str, rooms: list[RoomNode]) -> str:
    """A wing's hover text: how many of its rooms are drawn, and how many of those are tunnels (a room's
    drawer count is the whole room's, every wing's, so it is told on the room, not added up here)."""
    shown = [r for r in rooms if wing in r.wings]
    tunnels = sum(len(r.wings) > 1 for r in shown)
    return f"wing {wing}\n{counted(len(shown), 'room')} shown, {counted(tunnels, 'tunnel')}"


def room_radius(room: RoomNode, scale: float = RADIUS_SCALE) -> float:
    """A room's dot radius in px, growing with its drawers up to MAX_RADIUS (a vis-network dot's `size`
    is its radius): one room of 100,000 drawers would otherwise cover the drawing."""
    return min(3 + scale * math.sqrt(room.count), MAX_RADIUS)


def edge_width(room: RoomNode) -> float:
    """A room's edges are as wide as it is informative as a tunnel; a lone wing's room's are thin."""
    return 1 + 4 * room.weight if len(room.wings) > 1 else 1


def room_tip(room: RoomNode) -> str:
    """A room's hover text: drawers, wings, halls and (for a tunnel) its weight."""
    return (f"room {room.room}\n{counted(room.count, 'drawer')}\nwings: {', '.join(room.wings)}"
            + (f"\nhalls: {', '.join(room.halls)}" if room.halls else "")
            + (f"\ntunnel weight {room.weight:.2f}" if len(room.wings) > 1 else ""))


# vis-network: the layout is done here (no physics); straight, half-transparent edges (drawn before
# the nodes, so under every label); labels grow with zooming in up to 24 px and vanish below 6 px.
OPTIONS = {"physics": {"enabled": False}, "edges": {"smooth": False},
           "nodes": {"scaling": {"label": {"maxVisible": 24, "drawThreshold": 6}}}}
BOX_MARGIN, HALO = 6, 3  # px: a wing box's padding; the white outline that keeps a room's label clear of edges
_FIT, _GAP = 1.1, 8  # vis-network's fit leaves a 10 % margin round the drawing; px between wing boxes
_INWARD = 0.45  # a tunnel room sits at this share of its wings' centre, inside the ring
_LABEL_HALF = (50, 14)  # px: half a typical room label's width, and its height below the dot
CHAR_EM, LINE_EM = LATIN_EM, 1.25  # a Latin character's width and a line's height, in em: estimates for the layout
LABEL_EMS = 48 * CHAR_EM  # a room's label under its dot is at most this wide (48 Latin letters, 26 Chinese
# characters); a longer name ends in "…" there (whole on hover)
_SPACE = 2  # px kept clear round a room's dot and label
_BREAK = re.compile(r"(?<=[_\-. /])")  # where a long wing name may wrap: after a separator


def _add_room(net: Network, room: RoomNode, at: tuple[float, float], colour: dict[str, str], radius: float,
              labelled: bool = True) -> None:
    """A room's dot (orange with a dark rim for a tunnel), its label (where the layout made room for
    it, as in the SVG) and tooltip, and its edges to its wings."""
    tunnel = len(room.wings) > 1
    tip = room_tip(room)
    fill = {"background": TUNNEL, "border": TUNNEL_RIM} if tunnel else {"background": ROOM, "border": ROOM_RIM}
    shown = _safe(room_label(room)) if labelled else " "  # pyvis shows the id for an empty label
    net.add_node(f"r:{room.room}", label=shown, shape="dot", size=radius, color=fill, title=_safe(tip),
                 borderWidth=2 if tunnel else 1, x=at[0], y=at[1],
                 font={"size": ROOM_PX, "color": INK, "strokeWidth": HALO, "strokeColor": "#ffffff"})
    for wing in room.wings:
        net.add_edge(f"r:{room.room}", f"w:{wing}", color={"color": colour[wing], "opacity": 0.6},
                     width=edge_width(room))


def wing_lines(wing: str, wrap: float = WING_WRAP) -> list[str]:
    """A wing's name in lines of at most `wrap` px (as `label_width` estimates them), broken after a
    separator where one falls in the line, else mid-word (anywhere in Chinese or Japanese, written
    without spaces): every character is always shown."""
    most = wrap / WING_PX
    lines: list[str] = []
    for piece in _BREAK.split(wing):
        while piece:
            take = prefix_within(piece, most) or piece[0]  # a character wider than the line: alone on it
            if lines and em_width(lines[-1] + take) <= most + 1e-9:
                lines[-1] += take
            else:
                lines.append(take)
            piece = piece[len(take):]
    return lines or [""]


def wing_box(wing: str, wrap: float = WING_WRAP) -> tuple[float, float]:
    """A wing box's width and height in px, its name in `wing_lines` (an estimate: vis measures the
    text itself, and the SVG's boxes are fitted to it in the browser)."""
    lines = wing_lines(wing, wrap)
    return (max(label_width(line, WING_PX) for line in lines) + 2 * BOX_MARGIN,
            len(lines) * LINE_EM * WING_PX + 2 * BOX_MARGIN)


def _wing_spots(wings: list[str], width: float, height: float) -> tuple[dict[str, tuple[float, float]], float]:
    """Wings evenly round a rounded rectangle that fills the frame, first at the right, and the width
    their names wrap at: narrower when many share the edge. Only if neighbouring boxes would still
    overlap does the ring grow until they don't (and the first view shows it smaller)."""
    if not wings:
        return {}, WING_WRAP
    ring, along = _ring([wing_box(w) for w in wings], width, height)
    wrap = max(_MIN_WRAP, min(WING_WRAP, along[-1] / len(wings) - _GAP - 2 * BOX_MARGIN))
    boxes = [wing_box(w, wrap) for w in wings]
    ring, along = _ring(boxes, width, height)
    spots = [_point_at(ring, along, along[-1] * i / len(wings)) for i in range(len(wings))]
    grow = max([1.0] + [_overlap(spots[i - 1], spots[i], boxes[i - 1], boxes[i]) for i in range(1, len(wings))]
               + [_overlap(spots[-1], spots[0], boxes[-1], boxes[0])] * (len(wings) > 2))
    return {w: (round(x * grow, 1), round(y * grow, 1)) for w, (x, y) in zip(wings, spots)}, wrap


def _ring(boxes: list[tuple[float, float]], width: float,
          height: float) -> tuple[list[tuple[float, float]], list[float]]:
    """Points round a squircle that keeps boxes of these sizes inside the frame, and each one's distance
    along it from the first."""
    a = width / (2 * _FIT) - max(w for w, _ in boxes) / 2
    b = height / (2 * _FIT) - max(h for _, h in boxes) / 2
    ring = [(a * _signed_root(math.cos(t)), b * _signed_root(math.sin(t)))
            for t in (2 * math.pi * i / 720 for i in range(721))]
    along = [0.0]
    for (x0, y0), (x1, y1) in zip(ring, ring[1:]):
        along.append(along[-1] + math.hypot(x1 - x0, y1 - y0))
    return ring, along


def _point_at(ring: list[tuple[float, float]], along: list[float], distance: float) -> tuple[float, float]:
    """The point `distance` along the ring (`along` holds each sample's distance from the first)."""
    k = max(1, bisect.bisect_left(along, distance))
    share = (distance - along[k - 1]) / ((along[k] - along[k - 1]) or 1.0)
    (x0, y0), (x1, y1) = ring[k - 1], ring[k]
    return x0 + share * (x1 - x0), y0 + share * (y1 - y0)


def _overlap(p: tuple[float, float], q: tuple[float, float], box_p: tuple[float, float],
             box_q: tuple[float, float]) -> float:
    """How much the layout must grow for boxes centred at p and q to be apart (1 or less: they are)."""
    across = (box_p[0] + box_q[0]) / 2 + _GAP
    down = (box_p[1] + box_q[1]) / 2 + _GAP
    dx, dy = abs(p[0] - q[0]), abs(p[1] - q[1])
    return min(across / dx if dx else math.inf, down / dy if dy else math.inf)


def _signed_root(v: float) -> float:
    return math.copysign(math.sqrt(abs(v)), v)


def _room_spot(wings: tuple[str, ...], spot: dict[str, tuple[float, float]], crowd: dict[tuple[str, ...], int],
               wrap: float) -> tuple[float, float]:
    """Inside the ring: a tunnel towards the middle of its wings, a lone wing's room just clear of the
    wing's box; spiralling out as rooms share a spot."""
    n = crowd[wings] = crowd.get(wings, 0) + 1
    cx, cy = (sum(spot[w][i] for w in wings) / len(wings) for i in (0, 1))
    if len(wings) > 1:
        cx, cy = _INWARD * cx, _INWARD * cy
    elif distance := math.hypot(cx, cy):
        ux, uy = -cx / distance, -cy / distance  # towards the middle
        width, height = wing_box(wings[0], wrap)
        clear = abs(ux) * (width / 2 + _LABEL_HALF[0]) + abs(uy) * (height / 2 + _LABEL_HALF[1]) + 22
        cx, cy = cx + ux * clear, cy + uy * clear
    # The golden angle keeps neighbours apart; the spiral is tall and narrow, as labels are wide and short.
    phase = sum(list(spot).index(w) for w in wings) * 0.9  # rooms of other wings that meet here start elsewhere
    angle, reach = phase + n * 2.4, 8 + 12 * math.sqrt(n)
    return round(cx + 0.7 * reach * math.cos(angle), 1), round(cy + 1.3 * reach * math.sin(angle), 1)


def _safe(text: str) -> str:
    """Names go into the page as JSON (pyvis escapes it for a script) and are drawn as plain text.
    pyvis switches every tooltip to raw HTML as soon as one holds "href", so that word is broken."""
    return text.replace("href", "hr\u200bef")
