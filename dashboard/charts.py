"""The Overview's charts as plain HTML bars and cells, drawn by one small component that also says
which place was clicked (it draws the Tunnels page's SVG network too: dashboard.network_map).
Vega-Lite cost a full page load about 0.9 s in the browser for three charts (benchmarks README);
these cost about a third of that. Names are data: every one is escaped here, and shown whole in
labels, legends and hover text. Every series gets its own colour; the rest is grey."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

import pandas as pd
import streamlit as st

from mempalace import HALLS
from mempalace.models import NO_HALL
from mempalace.text.counts import counted

from .colours import OTHER, distinct, text_on
from .network_map import CSS as NETWORK_CSS
from .network_map import JS as NETWORK_JS
from .render import NO_HALL_LABEL, attr, place_data, place_from

TOP_ROOMS = 12
OTHER_ROOMS = "other rooms"
HEAT_LOW, HEAT_HIGH = (0xef, 0xed, 0xf5), (0x3f, 0x00, 0x7d)  # light to dark purple, as Vega's "purples"

CSS = """
.mp-chart { font-size: 0.8rem; line-height: 1.3; }
.mp-rows { display: grid; grid-template-columns: fit-content(45%) minmax(6rem, 1fr) auto; gap: 3px 0.5rem;
           align-items: center; }
.mp-label { overflow-wrap: break-word; text-align: right; }  /* at a separator (<wbr>), mid-word only if it must */
.mp-track { display: flex; height: 1.1rem; }
.mp-n { opacity: 0.7; font-variant-numeric: tabular-nums; }
[data-wing] { cursor: pointer; }
[data-wing]:hover, [data-wing]:focus { outline: 2px solid #31333f; outline-offset: -1px; }
.mp-legend { display: flex; flex-wrap: wrap; gap: 0.2rem 0.9rem; margin-top: 0.6rem; }
.mp-key { display: inline-flex; align-items: center; gap: 0.3rem; overflow-wrap: anywhere; }
.mp-swatch { width: 0.75rem; height: 0.75rem; border-radius: 2px; flex: none; }
.mp-heat { display: grid; gap: 2px; align-items: center; overflow-x: auto; }
.mp-heat .mp-label, .mp-rows .mp-label { min-width: 4.5rem; }  /* a narrow page wraps names, not letters */
.mp-cell { text-align: center; padding: 0.15rem 0.2rem; border-radius: 2px; font-variant-numeric: tabular-nums; }
.mp-hall { text-align: center; opacity: 0.8; }
@media (max-width: 1100px) {  /* a narrow page stands the hall names up, so all six columns fit */
  .mp-hall { writing-mode: vertical-rl; transform: rotate(180deg); justify-self: center; }
}
.mp-time { display: flex; align-items: flex-end; justify-content: center; gap: 1px; height: 9rem; border-bottom: 1px solid #bbb; }
.mp-bar { flex: 1 1 0; max-width: 3rem; background: #4e79a7; min-height: 1px; }
.mp-axis { display: flex; justify-content: space-between; opacity: 0.7; margin-top: 0.2rem; }
.mp-ticks { display: flex; justify-content: center; gap: 1px; height: 1.4rem; opacity: 0.75; font-size: 0.85em; }
.mp-tick { flex: 1 1 0; max-width: 3rem; position: relative; }
.mp-tick span { position: absolute; left: 0; top: 0; white-space: nowrap; border-left: 1px solid #bbb; padding: 0.1rem 0 0 0.2rem; }
"""
JS = NETWORK_JS + """
export default function ({ parentElement, data, setTriggerValue }) {
  const root = parentElement.querySelector(".mp-root");
  root.innerHTML = data;  // built by dashboard.charts or dashboard.network_map, every name escaped
  const net = root.querySelector("svg.mp-net"), endOfDrag = net ? viewNetwork(net) : () => false;
  const pick = (event) => {
    const place = event.target.closest("[data-wing], [data-room]");
    if (event.type === "click" && (endOfDrag() || event.detail > 1)) return;  // a drag's end, a double click's second
    if (place && (event.type === "click" || (event.key === "Enter" && !event.repeat))) setTriggerValue("picked", { ...place.dataset });
  };
  // Assigned, not added: Streamlit calls a cleanup only on unmount, so added listeners would pile up on each run.
  root.onclick = root.onkeydown = pick;
  return () => { root.onclick = root.onkeydown = null; };
}
"""
_component = st.components.v2.component("mempalace.chart", html='<div class="mp-root"></div>', css=CSS + NETWORK_CSS,
                                        js=JS)


def show(markup: str, key: str) -> dict[str, str]:
    """Draw a chart's markup; the wing/room/hall of the bar or cell just clicked, or {}."""
    return picked(_component(data=markup, key=key, on_picked_change=lambda: None))


def picked(result: object) -> dict[str, str]:
    """The place a click named ({wing, room, hall} as far as it names them), or {}."""
    point = getattr(result, "picked", None) or (result.get("picked") if isinstance(result, Mapping) else None) or {}
    return place_from(point)


def _drawers(n: int) -> str:
    return counted(n, "drawer")


def _place(title: str, **place: str | None) -> str:
    """The attributes of a clickable bar or cell: the place it names, its hover text, keyboard focus."""
    return f'{place_data(**place)} title="{attr(title)}" tabindex="0" role="link"'


# -- Wings and rooms -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Bars:
    """Drawers per wing stacked by room: the legend's rooms in order (the biggest first, then None for
    the rest, if any) with their colours, and each wing's (room, drawers) segments, biggest wing first.
    The rest is None, not a name: a room may well be called "other rooms"."""
    legend: tuple[tuple[str | None, str], ...]
    wings: tuple[tuple[str, tuple[tuple[str | None, int], ...]], ...]


def room_bars(places: list[dict]) -> Bars:
    sizes: dict[str, int] = {}
    for place in places:
        sizes[place["room"]] = sizes.get(place["room"], 0) + place["drawers"]
    ranked = sorted(sizes, key=lambda room: (-sizes[room], room))
    top = ranked[:TOP_ROOMS]
    legend: list[tuple[str | None, str]] = list(zip(top, distinct(len(top))))
    legend += [(None, OTHER)] if len(ranked) > len(top) else []
    order = {room: i for i, (room, _) in enumerate(legend)}
    per_wing: dict[str, dict[str | None, int]] = {}
    for place in places:
        room = place["room"] if place["room"] in order else None
        segments = per_wing.setdefault(place["wing"], {})
        segments[room] = segments.get(room, 0) + place["drawers"]
    wings = sorted(per_wing.items(), key=lambda item: (-sum(item[1].values()), item[0]))
    return Bars(tuple(legend), tuple((wing, tuple(sorted(rooms.items(), key=lambda r: order[r[0]])))
                                     for wing, rooms in wings))


def taxonomy_bars(places: list[dict]) -> str:
    """Drawers per wing, stacked by room (the biggest rooms by name, the rest as 'other rooms', grey)."""
    bars = room_bars(places)
    colour = dict(bars.legend)
    most = max((sum(n for _, n in rooms) for _, rooms in bars.wings), default=1)
    rows = []
    for wing, rooms in bars.wings:
        total = sum(n for _, n in rooms)
        segments = "".join(  # the rest's segment names only its wing, and says so
            f'<span style="width:{100 * n / most:.3f}%;background:{colour[room]}"'
            f'{_place(_bar_tip(wing, room, n), wing=wing, room=room)}></span>' for room, n in rooms)
        rows.append(f'<span class="mp-label">{breakable(wing)}</span><span class="mp-track">{segments}</span>'
                    f'<span class="mp-n">{total:,}</span>')
    return f'<div class="mp-chart"><div class="mp-rows">{"".join(rows)}</div>{_legend(bars.legend)}</div>'


def _bar_tip(wing: str, room: str | None, drawers: int) -> str:
    """A segment's hover text; the grey rest is several rooms, so its click lists the whole wing."""
    if room is None:
        return f"{wing} · {OTHER_ROOMS}: {_drawers(drawers)} (a click lists all of {wing})"
    return f"{wing} · {room}: {_drawers(drawers)}"


def breakable(name: str) -> str:
    """A name as escaped HTML that may wrap after its separators (`wing_` / `driftwood`), not mid-word."""
    return _SEPARATOR.sub(r"\1<wbr>", html.escape(name))


_SEPARATOR = re.compile(r"([_\-./])")


def _legend(entries: Iterable[tuple[str | None, str]]) -> str:
    keys = "".join(f'<span class="mp-key"><span class="mp-swatch" style="background:{colour}"></span>'
                   f"{html.escape(name or OTHER_ROOMS)}</span>" for name, colour in entries)
    return f'<div class="mp-legend">{keys}</div>'


# -- Wing × hall ---------------------------------------------------------------------------------


def hall_cells(places: list[dict]) -> tuple[list[str], list[str | None], dict[tuple[str, str | None], int]]:
    """(wings, halls, drawers per (wing, hall)): the five halls in their order, others after, no hall
    (None, shown as NO_HALL_LABEL) last."""
    counts: dict[tuple[str, str | None], int] = {}
    for place in places:
        cell = (place["wing"], place["hall"] or None)
        counts[cell] = counts.get(cell, 0) + place["drawers"]
    present = {hall for _, hall in counts if hall}
    halls: list[str | None] = [h for h in HALLS if h in present] + sorted(present - set(HALLS))
    halls += [None] if any(hall is None for _, hall in counts) else []
    return sorted({wing for wing, _ in counts}), halls, counts


def heat(share: float) -> str:
    """The colour of a cell `share` of the way (0 to 1) from the emptiest cell's count to the fullest's."""
    return "#" + "".join(f"{round(low + (high - low) * share):02x}" for low, high in zip(HEAT_LOW, HEAT_HIGH))


def hall_heatmap(places: list[dict]) -> str:
    """Wing × hall: how many drawers each wing has in each hall, the count in each cell."""
    wings, halls, counts = hall_cells(places)
    least, most = min(counts.values(), default=0), max(counts.values(), default=0)
    cells = ['<span></span>'] + [f'<span class="mp-hall">{html.escape((h or NO_HALL_LABEL).removeprefix("hall_"))}</span>'
                                 for h in halls]
    for wing in wings:
        cells.append(f'<span class="mp-label">{breakable(wing)}</span>')
        for hall in halls:
            n = counts.get((wing, hall), 0)
            if not n:
                cells.append("<span></span>")
                continue
            fill = heat(0.15 + 0.85 * (n - least) / (most - least) if most > least else 1.0)
            cells.append(f'<span class="mp-cell" style="background:{fill};color:{text_on(fill)}"'
                         f'{_place(f"{wing} · {hall or NO_HALL_LABEL}: {_drawers(n)}", wing=wing, hall=hall or NO_HALL)}>{n:,}</span>')
    layout = f"grid-template-columns:fit-content(45%) repeat({len(halls)},minmax(min-content,1fr))"
    return f'<div class="mp-chart"><div class="mp-heat" style="{layout}">{"".join(cells)}</div></div>'


# -- Over time -----------------------------------------------------------------------------------

# (longest span in days, unit): a bar per day up to three months, per week up to two years, per month up
# to 12.5 years (150 bars), then per year: a stray old date cannot make the bars too thin to see.
_UNITS = ((92, "day"), (731, "week"), (4_566, "month"))
_STARTS = {"day": lambda d: d, "week": lambda d: d - pd.to_timedelta(d.dt.weekday, unit="D"),
           "month": lambda d: d.dt.to_period("M").dt.start_time, "year": lambda d: d.dt.to_period("Y").dt.start_time}
_STEPS = {"day": "D", "week": "W-MON", "month": "MS", "year": "YS"}
_NAMES = {"day": "%Y-%m-%d", "week": "week of %Y-%m-%d", "month": "%B %Y", "year": "%Y"}


def periods(days: dict[str, int]) -> tuple[str, list[tuple[str, str, int]]]:
    """(unit, [(first day, what the period is called, count)]) for counts per day ({YYYY-MM-DD: n}), per
    week or month when the span is long, so that each bar stays wide enough to see and hover."""
    frame = pd.DataFrame({"day": pd.to_datetime(list(days), errors="coerce", format="%Y-%m-%d"),
                          "count": list(days.values())}, columns=["day", "count"]).dropna()  # no such day: left out
    span = (frame["day"].max() - frame["day"].min()).days if len(frame) else 0
    unit = next((name for longest, name in _UNITS if span <= longest), "year")
    frame["start"] = _STARTS[unit](frame["day"].dt.normalize())
    frame = frame.groupby("start", as_index=False)["count"].sum()
    if len(frame):  # every period in the span, the empty ones too, so the bars keep time's proportions
        every = pd.DataFrame({"start": pd.date_range(frame["start"].min(), frame["start"].max(), freq=_STEPS[unit])})
        frame = every.merge(frame, on="start", how="left").fillna({"count": 0})
    return unit, [(start.strftime("%Y-%m-%d"), start.strftime(_NAMES[unit]), int(count))
                  for start, count in zip(frame["start"], frame["count"])]


def timeline(days: dict[str, int], label: str, one: str) -> str:
    """Counts per day as bars (see `periods`); `label` names the count (axis, hover text), e.g.
    "conversations", and `one` names a count of 1 ("conversation")."""
    unit, bars = periods(days)
    if not bars:
        return f'<div class="mp-chart"><div class="mp-axis"><span>No {html.escape(label)} yet.</span></div></div>'
    most = max(count for _, _, count in bars) or 1
    drawn = "".join(f'<span class="mp-bar" style="height:{100 * count / most:.3f}%" '
                    f'title="{attr(f"{period}: {counted(count, one, label)}")}"></span>' for _, period, count in bars)
    ticks = "".join(f'<span class="mp-tick">{f"<span>{html.escape(tick)}</span>" if tick else ""}</span>'
                    for tick in ticks_for(unit, [start for start, _, _ in bars]))
    span = bars[0][1] if len(bars) == 1 else f"{bars[0][1]} to {bars[-1][1]}"
    axis = (f"<span>{html.escape(span)}</span>"
            f"<span>{html.escape(label)} per {unit}, at most {most:,}</span>")
    return (f'<div class="mp-chart"><div class="mp-time">{drawn}</div><div class="mp-ticks">{ticks}</div>'
            f'<div class="mp-axis">{axis}</div></div>')


# (unit, label format, which bars start one): each bar unit's tick levels, finest first
_TICKS = {
    "day": (("%d %b", lambda d: True), ("%d %b", lambda d: d.weekday() == 0), ("%b %Y", lambda d: d.day == 1)),
    "week": (("%d %b", lambda d: True), ("%b %Y", lambda d: d.day <= 7), ("%b %Y", lambda d: d.day <= 7 and d.month % 3 == 1),
             ("%Y", lambda d: d.day <= 7 and d.month == 1)),
    "month": (("%b %Y", lambda d: True), ("%b %Y", lambda d: d.month % 3 == 1), ("%Y", lambda d: d.month == 1),
              ("%Y", lambda d: d.month == 1 and d.year % 2 == 0), ("%Y", lambda d: d.month == 1 and d.year % 5 == 0)),
    "year": (("%Y", lambda d: True), ("%Y", lambda d: d.year % 2 == 0), ("%Y", lambda d: d.year % 5 == 0),
             ("%Y", lambda d: d.year % 10 == 0)),
}
MAX_TICKS = 10


def ticks_for(unit: str, starts: list[str]) -> list[str]:
    """A label for each bar that starts a tick ("" for the others): the finest of the unit's levels
    (every bar, each month, quarter, year…) that gives at most MAX_TICKS, so the axis reads at any span."""
    days = [datetime.strptime(start, "%Y-%m-%d") for start in starts]
    levels = _TICKS[unit]
    for shape, starts_one in levels:
        if sum(map(starts_one, days)) <= MAX_TICKS or (shape, starts_one) == levels[-1]:
            picked = [starts_one(day) for day in days]
            every = max(1, -(-sum(picked) // MAX_TICKS))  # the coarsest level may still need thinning
            chosen = [i for i, pick in enumerate(picked) if pick][::every]
            return [days[i].strftime(shape) if i in chosen else "" for i in range(len(days))]
    return [""] * len(days)
