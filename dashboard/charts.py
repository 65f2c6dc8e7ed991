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
    return alt.Chart(frame).mark_bar().encode(
        y=alt.Y("wing:N", sort="-x", title=None), x=alt.X("drawers:Q", title="drawers"),
        color=alt.Color("room:N", legend=alt.Legend(title="room", orient="bottom", columns=4)),
        tooltip=["wing", "room", "drawers"])


def hall_heatmap(places: list[dict]) -> alt.Chart:
    """Wing × hall: how many drawers each wing has in each hall."""
    frame = pd.DataFrame(places).groupby(["wing", "hall"], as_index=False)["drawers"].sum()
    return alt.Chart(frame).mark_rect().encode(
        x=alt.X("hall:N", title=None), y=alt.Y("wing:N", title=None),
        color=alt.Color("drawers:Q", scale=alt.Scale(scheme="purples")), tooltip=["wing", "hall", "drawers"])


def filed_over_time(days: dict[str, int]) -> alt.Chart:
    """Drawers filed per day."""
    frame = pd.DataFrame({"day": pd.to_datetime(list(days)), "drawers": list(days.values())})
    return alt.Chart(frame).mark_bar().encode(x=alt.X("day:T", title=None), y=alt.Y("drawers:Q"),
                                              tooltip=[alt.Tooltip("day:T"), "drawers"])
