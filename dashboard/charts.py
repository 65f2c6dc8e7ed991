"""Altair charts of the palace's places; data comes in as plain rows, names are data, never markup."""

from __future__ import annotations

import altair as alt
import pandas as pd

TOP_ROOMS = 12


def taxonomy_bars(places: list[dict]) -> alt.Chart:
    """Drawers per wing, stacked by room (the biggest rooms by name, the rest as 'other rooms')."""
    frame = pd.DataFrame(places)
    top = frame.groupby("room")["drawers"].sum().nlargest(TOP_ROOMS).index
    frame["room"] = frame["room"].where(frame["room"].isin(top), "other rooms")
    frame = frame.groupby(["wing", "room"], as_index=False)["drawers"].sum()
    return alt.Chart(frame).mark_bar().add_params(alt.selection_point(name="place", fields=["wing", "room"])).encode(
        y=alt.Y("wing:N", sort="-x", title=None), x=alt.X("drawers:Q", title="drawers"),
        color=alt.Color("room:N", legend=alt.Legend(title="room", orient="bottom", columns=4)),
        tooltip=["wing", "room", "drawers"])


def hall_heatmap(places: list[dict]) -> alt.Chart:
    """Wing × hall: how many drawers each wing has in each hall."""
    frame = pd.DataFrame(places).groupby(["wing", "hall"], as_index=False)["drawers"].sum()
    return alt.Chart(frame).mark_rect().add_params(alt.selection_point(name="place", fields=["wing", "hall"])).encode(
        x=alt.X("hall:N", title=None), y=alt.Y("wing:N", title=None),
        color=alt.Color("drawers:Q", scale=alt.Scale(scheme="purples")), tooltip=["wing", "hall", "drawers"])


def filed_over_time(days: dict[str, int]) -> alt.Chart:
    """Drawers filed per day."""
    frame = pd.DataFrame({"day": pd.to_datetime(list(days)), "drawers": list(days.values())})
    return alt.Chart(frame).mark_bar().encode(x=alt.X("day:T", title=None), y=alt.Y("drawers:Q"),
                                              tooltip=[alt.Tooltip("day:T"), "drawers"])


def picked(event: object) -> dict[str, str]:
    """The wing/room/hall of a clicked bar or cell (from st.altair_chart's selection), or {}."""
    points = getattr(getattr(event, "selection", None), "place", None) or []
    if isinstance(event, dict):
        points = event.get("selection", {}).get("place", [])
    point = points[0] if points else {}
    return {k: v for k, v in point.items() if k in ("wing", "room", "hall") and v not in (None, "other rooms", "(none)")}
