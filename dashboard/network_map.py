"""The tunnel network as one SVG drawn by the charts' component (dashboard.charts): the pyvis page's
layout (dashboard.network) as plain markup, so it arrives with the page instead of after a 690 KB
script. A click on a room or a wing lists its drawers; Ctrl+wheel or a pinch zooms, a drag moves the
view. Every name is escaped here."""

from __future__ import annotations

import html
from collections.abc import Iterable

from mempalace.models import RoomNode
from mempalace.text.counts import counted

from .colours import text_on
from .network import (BOX_MARGIN, FRAME_WIDTH, INK, LINE_EM, ROOM, ROOM_PX, ROOM_RIM, TUNNEL, TUNNEL_RIM, WING_PX,
                      Layout, edge_width, layout, room_box, room_label, room_tip, wing_box, wing_lines,
                      wing_tip)
from .render import place_data

_PAD = 16  # px round the drawing
MIN_HEIGHT = 240  # px: a drawing of one or two wings is short, never a sliver
MIN_LABEL_PX = 10  # a room's label is never drawn smaller at the first view: a narrow page scrolls instead


class _Bounds:
    """The smallest box holding everything drawn so far."""

    def __init__(self) -> None:
        self.left = self.top = self.right = self.bottom = 0.0

    def take(self, x: float, y: float, half_width: float, up: float, down: float) -> None:
        self.left, self.right = min(self.left, x - half_width), max(self.right, x + half_width)
        self.top, self.bottom = min(self.top, y - up), max(self.bottom, y + down)


def network_svg(rooms: list[RoomNode], height: int = 620, hall: str | None = None, palette: Iterable[str] = ()) -> str:
    """Wings as coloured boxes round the edge, rooms as dots (tunnels orange) joined to their wings by
    lines in the wing's colour, as wide as the tunnel is informative; hover text names everything.
    The drawing is `height` px tall at most (less when it is wide and flat); a click names the place,
    in `hall` when the network is filtered by one."""
    plan = layout(rooms, height, palette)  # `palette`: the palace's wings, which fix each one's colour
    bounds = _Bounds()
    edges, dots = [], []
    for room, (x, y) in plan.room_at:
        for wing in room.wings:
            wx, wy = plan.wing_at[wing]
            edges.append(f'<line x1="{x}" y1="{y}" x2="{wx}" y2="{wy}" stroke="{plan.colour[wing]}" '
                         f'stroke-width="{edge_width(room):.2f}"/>')
        labelled = room.room not in plan.unlabelled
        dots.append(_room_svg(room, x, y, plan.radius[room.room], hall, labelled))
        bounds.take(x, y, *room_box(room, plan.radius[room.room], labelled))
    boxes = [_wing_svg(wing, rooms, plan, hall) for wing in plan.wings]
    for wing in plan.wings:
        w, h = wing_box(wing, plan.wrap)
        bounds.take(*plan.wing_at[wing], w / 2, h / 2, h / 2)
    left, top = bounds.left - _PAD, bounds.top - _PAD
    width, tall = bounds.right - left + _PAD, bounds.bottom - top + _PAD
    shown = round(min(height, max(MIN_HEIGHT, FRAME_WIDTH * tall / width)))
    narrowest = round(min(FRAME_WIDTH, width * MIN_LABEL_PX / ROOM_PX))  # a narrower page scrolls the drawing
    return (f'<div class="mp-net-frame"><svg class="mp-net" viewBox="{left:.0f} {top:.0f} {width:.0f} {tall:.0f}" '
            f'width="100%" height="{shown}" style="aspect-ratio:{FRAME_WIDTH}/{shown};min-width:{narrowest}px" '
            f'role="group" aria-label="Tunnel network: {counted(len(plan.wings), "wing")}, {counted(len(rooms), "room")}">'
            f'<g class="mp-edges">{"".join(edges)}</g>{"".join(dots)}{"".join(boxes)}</svg></div>')


def _room_svg(room: RoomNode, x: float, y: float, r: float, hall: str | None, labelled: bool = True) -> str:
    """A room's dot (orange with a dark rim for a tunnel), its label below it (where the layout found
    room for it) and its hover text."""
    tunnel = len(room.wings) > 1
    fill, rim = (TUNNEL, TUNNEL_RIM) if tunnel else (ROOM, ROOM_RIM)
    return (f'<g class="mp-room"{place_data(room=room.room, hall=hall)} tabindex="0" role="link">'
            f"<title>{html.escape(room_tip(room))}</title>"
            f'<circle cx="{x}" cy="{y}" r="{r:.1f}" fill="{fill}" stroke="{rim}" stroke-width="{2 if tunnel else 1}"/>'
            + (f'<text x="{x}" y="{y + r + ROOM_PX:.1f}">{html.escape(room_label(room))}</text>' if labelled else "")
            + "</g>")


def _wing_svg(wing: str, rooms: list[RoomNode], plan: Layout, hall: str | None) -> str:
    """A wing's box in its colour, its whole name over as many lines as it needs, and its hover text."""
    lines = wing_lines(wing, plan.wrap)
    w, h = wing_box(wing, plan.wrap)
    (x, y), colour = plan.wing_at[wing], plan.colour[wing]
    first = y - (len(lines) - 1) * LINE_EM / 2 * WING_PX + 0.35 * WING_PX  # 0.35 em: from the middle to the baseline
    spans = "".join(f'<tspan x="{x}" y="{first + i * LINE_EM * WING_PX:.1f}">{html.escape(line)}</tspan>'
                    for i, line in enumerate(lines))
    return (f'<g class="mp-wing"{place_data(wing=wing, hall=hall)} tabindex="0" role="link">'
            f"<title>{html.escape(wing_tip(wing, rooms))}</title>"
            f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" fill="{colour}" '
            f'data-margin="{BOX_MARGIN}"/><text fill="{text_on(colour)}">{spans}</text></g>')


CSS = f"""
.mp-net-frame {{ overflow-x: auto; }}
.mp-net {{ display: block; height: auto; font-family: sans-serif; touch-action: pan-y; user-select: none; cursor: grab; }}
.mp-edges line {{ stroke-opacity: 0.6; }}
.mp-room text {{ font-size: {ROOM_PX}px; fill: {INK}; text-anchor: middle; paint-order: stroke;
                 stroke: #ffffff; stroke-width: 3px; stroke-linejoin: round; }}
.mp-wing text {{ font-size: {WING_PX}px; text-anchor: middle; }}
.mp-room, .mp-wing {{ cursor: pointer; }}
.mp-net g:hover, .mp-net g:focus {{ outline: none; }}
.mp-room:hover circle, .mp-room:focus circle {{ stroke: #31333f; stroke-width: 3; }}
.mp-wing:hover rect, .mp-wing:focus rect {{ stroke: #31333f; stroke-width: 2; }}
"""

# In the browser: wing boxes widened to their names as drawn (the layout's widths are estimates) and
# the view widened to hold them; Ctrl or Cmd with the wheel (a trackpad's pinch) zooms round the
# pointer, so the page still scrolls past; a drag moves the view and is not a click; a double click
# shows it all again.
JS = """
function fitWings(svg) {
  const box = svg.viewBox.baseVal, pad = 16;
  for (const wing of svg.querySelectorAll(".mp-wing")) {
    const text = wing.querySelector("text").getBBox(), rect = wing.querySelector("rect");
    if (!text.width) return;  // not laid out (a hidden tab): the estimates stay
    const width = Math.max(Number(rect.getAttribute("width")), text.width + 2 * Number(rect.dataset.margin));
    rect.setAttribute("x", text.x + text.width / 2 - width / 2);
    rect.setAttribute("width", width);
  }
  const all = svg.getBBox(), left = Math.min(box.x, all.x - pad), top = Math.min(box.y, all.y - pad);
  [box.width, box.height] = [Math.max(box.x + box.width, all.x + all.width + pad) - left,
                             Math.max(box.y + box.height, all.y + all.height + pad) - top];
  [box.x, box.y] = [left, top];
}
function viewNetwork(svg) {
  fitWings(svg);
  const box = svg.viewBox.baseVal, home = [box.x, box.y, box.width, box.height];
  let start = null, dragged = false;
  svg.addEventListener("wheel", (event) => {
    if (!event.ctrlKey && !event.metaKey) return;  // a plain wheel scrolls the page
    event.preventDefault();
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
    const k = Math.min(Math.max(Math.exp(event.deltaY * 0.002), home[2] / 8 / box.width), 1.5 * home[2] / box.width);
    [box.x, box.y, box.width, box.height] = [p.x - (p.x - box.x) * k, p.y - (p.y - box.y) * k, box.width * k, box.height * k];
  }, { passive: false });
  svg.addEventListener("pointerdown", (event) => {
    start = event.isPrimary && event.button === 0 ? [event.clientX, event.clientY, box.x, box.y] : null;
    dragged = false;
  });
  svg.addEventListener("pointermove", (event) => {
    if (!start || !event.buttons) return;
    const [dx, dy] = [event.clientX - start[0], event.clientY - start[1]];
    if (!dragged && Math.abs(dx) + Math.abs(dy) > 4) {
      dragged = true;
      svg.setPointerCapture(event.pointerId);  // the drag goes on outside the drawing
    }
    const perPixel = 1 / svg.getScreenCTM().a;
    if (dragged) [box.x, box.y] = [start[2] - dx * perPixel, start[3] - dy * perPixel];
  });
  const stop = () => { start = null; };
  svg.addEventListener("pointerup", stop);
  svg.addEventListener("pointercancel", stop);
  svg.addEventListener("dblclick", () => { [box.x, box.y, box.width, box.height] = home; });
  return () => { const was = dragged; dragged = false; return was; };  // once per drag: the click that ends it
}
"""
