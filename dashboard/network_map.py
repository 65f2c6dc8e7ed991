"""The tunnel network as one SVG drawn by the charts' component (dashboard.charts): the same layout as
the pyvis page (dashboard.network), but plain markup, so it arrives with the page instead of after a
690 KB script, and a click on a room or a wing lists its drawers. Every name is escaped here."""

from __future__ import annotations

import html
import math
import re

from mempalace.models import RoomNode

from .colours import text_on
from .network import (BOX_MARGIN, INK, ROOM, ROOM_PX, ROOM_RIM, TUNNEL, TUNNEL_RIM, WING_PX, layout, room_tip,
                      wing_box)

_PAD = 16  # px round the drawing
_BREAK = re.compile(r"(?<=[_\-. /])")  # where a long wing name may wrap: after a separator


def _attr(value: object) -> str:
    return html.escape(str(value), quote=True)


def wing_lines(wing: str, wrap: float) -> list[str]:
    """A wing's name in lines no wider than `wrap` px (the same estimate as its box), broken after a
    separator where one is near, else mid-word: the whole name is always shown."""
    most = max(1, int(wrap // (0.56 * WING_PX)))
    lines: list[str] = []
    for piece in _BREAK.split(wing):
        while piece:
            room = most - len(lines[-1]) if lines else 0
            if lines and len(piece) <= room:
                lines[-1] += piece
                piece = ""
            elif len(piece) <= most:
                lines.append(piece)
                piece = ""
            else:
                lines.append(piece[:most])
                piece = piece[most:]
    return lines or [""]


def _room_radius(room: RoomNode) -> float:
    return 3 + 1.6 * math.sqrt(room.count)  # as the pyvis page's dots (a vis-network dot's size is its radius)


def network_svg(rooms: list[RoomNode], height: int = 620) -> str:
    """Wings as coloured boxes round the edge, rooms as dots (tunnels orange) joined to their wings by
    lines in the wing's colour, as wide as the tunnel is informative; hover text names everything."""
    plan = layout(rooms, height)
    edges, dots, boxes = [], [], []
    xs, ys = [0.0], [0.0]
    for room, (x, y) in plan.room_at:
        tunnel = len(room.wings) > 1
        for wing in room.wings:
            wx, wy = plan.wing_at[wing]
            edges.append(f'<line x1="{x}" y1="{y}" x2="{wx}" y2="{wy}" stroke="{plan.colour[wing]}" '
                         f'stroke-width="{1 + 4 * room.weight if tunnel else 1:.2f}"/>')
        r = _room_radius(room)
        fill, rim = (TUNNEL, TUNNEL_RIM) if tunnel else (ROOM, ROOM_RIM)
        dots.append(f'<g class="mp-room" data-room="{_attr(room.room)}" tabindex="0" role="link">'
                    f"<title>{html.escape(room_tip(room))}</title>"
                    f'<circle cx="{x}" cy="{y}" r="{r:.1f}" fill="{fill}" stroke="{rim}" '
                    f'stroke-width="{2 if tunnel else 1}"/>'
                    f'<text x="{x}" y="{y + r + ROOM_PX:.1f}">{html.escape(room.room)}</text></g>')
        xs += [x - 60, x + 60]
        ys += [y - r, y + r + ROOM_PX + 4]
    for wing in plan.wings:
        boxes.append(_wing_box_svg(wing, rooms, plan.wing_at[wing], plan.colour[wing], plan.wrap))
        w, h = wing_box(wing, plan.wrap)
        xs += [plan.wing_at[wing][0] - w / 2, plan.wing_at[wing][0] + w / 2]
        ys += [plan.wing_at[wing][1] - h / 2, plan.wing_at[wing][1] + h / 2]
    left, top = min(xs) - _PAD, min(ys) - _PAD
    width, tall = max(xs) - left + _PAD, max(ys) - top + _PAD
    return (f'<svg class="mp-net" viewBox="{left:.0f} {top:.0f} {width:.0f} {tall:.0f}" width="100%" '
            f'height="{height}" role="group" aria-label="Tunnel network: {len(plan.wings)} wings, {len(rooms)} rooms">'
            f'<g class="mp-edges">{"".join(edges)}</g>{"".join(dots)}{"".join(boxes)}</svg>')


def _wing_box_svg(wing: str, rooms: list[RoomNode], at: tuple[float, float], colour: str, wrap: float) -> str:
    shown = [r for r in rooms if wing in r.wings]
    lines = wing_lines(wing, wrap)
    w, h = wing_box(wing, wrap)
    h = max(h, len(lines) * 1.25 * WING_PX + 2 * BOX_MARGIN)
    x, y = at
    first = y - (len(lines) - 1) * 0.625 * WING_PX + 0.35 * WING_PX
    spans = "".join(f'<tspan x="{x}" y="{first + i * 1.25 * WING_PX:.1f}">{html.escape(line)}</tspan>'
                    for i, line in enumerate(lines))
    tip = f"wing {wing}\n{len(shown)} rooms shown, {sum(r.count for r in shown)} drawers"
    return (f'<g class="mp-wing" data-wing="{_attr(wing)}" tabindex="0" role="link"><title>{html.escape(tip)}</title>'
            f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" fill="{colour}"/>'
            f'<text fill="{text_on(colour)}">{spans}</text></g>')


CSS = f"""
.mp-net {{ display: block; font-family: sans-serif; }}
.mp-edges line {{ stroke-opacity: 0.6; }}
.mp-room text {{ font-size: {ROOM_PX}px; fill: {INK}; text-anchor: middle; paint-order: stroke;
                 stroke: #ffffff; stroke-width: 3px; stroke-linejoin: round; }}
.mp-wing text {{ font-size: {WING_PX}px; text-anchor: middle; }}
.mp-room, .mp-wing {{ cursor: pointer; }}
.mp-net g:hover, .mp-net g:focus {{ outline: none; }}
.mp-room:hover circle, .mp-room:focus circle {{ stroke: #31333f; stroke-width: 3; }}
.mp-wing:hover rect, .mp-wing:focus rect {{ stroke: #31333f; stroke-width: 2; }}
"""
