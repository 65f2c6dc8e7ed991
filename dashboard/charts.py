"""Altair charts of the palace's places; data comes in as plain rows, names are data, never markup.
Every series gets its own colour (the rest is grey), and names are shown whole, on the axes, in the
legends and in the tooltips."""

from __future__ import annotations

import altair as alt
import pandas as pd

from .colours import OTHER, distinct

TOP_ROOMS = 12
OTHER_ROOMS = "other rooms"
LABEL_LIMIT = 360  # px: any sensible wing or room name fits (Streamlit's theme cuts at 100); tooltips have all
LEGEND_WIDTH = 520  # px the room legend may take: the Overview's bar chart column on a laptop screen
_CHAR_PX, _ENTRY_PX = 7.5, 40  # a legend label's width per character, and its symbol and padding


def taxonomy_bars(places: list[dict]) -> alt.Chart:
    """Drawers per wing, stacked by room (the biggest rooms by name, the rest as 'other rooms', grey)."""
    frame = pd.DataFrame(places)
    sizes = frame.groupby("room")["drawers"].sum().reset_index().sort_values(["drawers", "room"],
                                                                             ascending=[False, True])
    top = list(sizes["room"][:TOP_ROOMS])
    domain = top + ([OTHER_ROOMS] if len(sizes) > len(top) else [])
    frame["room"] = frame["room"].where(frame["room"].isin(top), OTHER_ROOMS)
    frame = frame.groupby(["wing", "room"], as_index=False)["drawers"].sum()
    frame["order"] = frame["room"].map({room: i for i, room in enumerate(domain)})
    scale = alt.Scale(domain=domain, range=distinct(len(top)) + [OTHER] * (len(domain) - len(top)))
    entry = legend_entry_px(domain)
    legend = alt.Legend(title="room", orient="bottom", labelLimit=LABEL_LIMIT, symbolLimit=0,
                        columns=alt.ExprRef(f"max(1, floor(width / {entry}))"))
    chart = alt.Chart(frame).mark_bar().add_params(alt.selection_point(name="place", fields=["wing", "room"]))
    return chart.encode(
        y=alt.Y("wing:N", sort="-x", title=None, axis=alt.Axis(labelLimit=LABEL_LIMIT)),
        x=alt.X("drawers:Q", title="drawers"), order=alt.Order("order:Q"),
        color=alt.Color("room:N", scale=scale, sort=domain, legend=legend),
        tooltip=[alt.Tooltip("wing:N", title="wing"), alt.Tooltip("room:N", title="room"),
                 alt.Tooltip("drawers:Q", title="drawers")])


def legend_entry_px(labels: list[str]) -> int:
    """The width of a legend column for `labels` (px), so no label is cut short."""
    return round(min(LABEL_LIMIT, max((len(label) for label in labels), default=0) * _CHAR_PX) + _ENTRY_PX)


def hall_heatmap(places: list[dict]) -> alt.Chart:
    """Wing × hall: how many drawers each wing has in each hall."""
    frame = pd.DataFrame(places).groupby(["wing", "hall"], as_index=False)["drawers"].sum()
    return alt.Chart(frame).mark_rect().add_params(alt.selection_point(name="place", fields=["wing", "hall"])).encode(
        x=alt.X("hall:N", title=None, axis=alt.Axis(labelLimit=LABEL_LIMIT, labelAngle=-40, labelOverlap=False)),
        y=alt.Y("wing:N", title=None, axis=alt.Axis(labelLimit=LABEL_LIMIT)),
        color=alt.Color("drawers:Q", scale=alt.Scale(scheme="purples"), legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("wing:N", title="wing"), alt.Tooltip("hall:N", title="hall"),
                 alt.Tooltip("drawers:Q", title="drawers")])


# (longest span in days, unit): a bar per day up to three months, per week up to two years, then per month.
_UNITS = ((92, "day"), (731, "week"))


def timeline(days: dict[str, int], label: str) -> alt.Chart:
    """Counts per day ({YYYY-MM-DD: n}) as bars, per week or month when the span is long so each bar stays
    wide enough to see and hover; `label` names the count (the y axis and tooltip), e.g. "conversations"."""
    frame = pd.DataFrame({"day": pd.to_datetime(list(days)), "count": list(days.values())}, columns=["day", "count"])
    span = (frame["day"].max() - frame["day"].min()).days if len(frame) else 0
    unit = next((name for longest, name in _UNITS if span <= longest), "month")
    frame["start"] = {"day": lambda d: d, "week": lambda d: d - pd.to_timedelta(d.dt.weekday, unit="D"),
                      "month": lambda d: d.dt.to_period("M").dt.start_time}[unit](frame["day"].dt.normalize())
    frame = frame.groupby("start", as_index=False)["count"].sum()
    step = {"day": pd.DateOffset(days=1), "week": pd.DateOffset(days=7), "month": pd.DateOffset(months=1)}[unit]
    frame["end"] = frame["start"] + step
    shown = {"day": "%Y-%m-%d", "week": "week of %Y-%m-%d", "month": "%B %Y"}[unit]
    frame["period"] = frame["start"].dt.strftime(shown)
    return alt.Chart(frame).mark_bar(stroke="white", strokeWidth=0.5).encode(
        x=alt.X("start:T", title=None), x2="end:T", y=alt.Y("count:Q", title=label), y2=alt.datum(0),
        tooltip=[alt.Tooltip("period:N", title=unit), alt.Tooltip("count:Q", title=label)])


def filed_over_time(days: dict[str, int]) -> alt.Chart:
    """Drawers filed per day (or week, or month): the Overview's chart until it calls `timeline` itself."""
    return timeline(days, "drawers filed")


def picked(event: object) -> dict[str, str]:
    """The wing/room/hall of a clicked bar or cell (from st.altair_chart's selection), or {}."""
    points = getattr(getattr(event, "selection", None), "place", None) or []
    if isinstance(event, dict):
        points = event.get("selection", {}).get("place", [])
    point = points[0] if points else {}
    return {k: v for k, v in point.items() if k in ("wing", "room", "hall") and v not in (None, OTHER_ROOMS, "(none)")}
