"""The Tunnels page's tables: tunnels and walks fitted to the page's width (about 900 px at 1400 px:
the numbers next to the room, to two places, with what weight and score mean on their headers, then
the wings and halls as chips), and the room-merge suggestions with a Merge control."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from mempalace import MempalaceError
from mempalace.graph import merge_rooms
from mempalace.models import MergeSuggestion, TraversalStep, Tunnel
from mempalace.scoped.palace import ScopedPalace
from mempalace.text.counts import counted

from .render import md

TUNNEL_COLUMNS = {
    "room": st.column_config.TextColumn("room", width=220),
    "wings": st.column_config.ListColumn("wings", width=290, help="The wings the room is filed in"),
    "halls": st.column_config.ListColumn("halls", width=170),
    "count": st.column_config.NumberColumn("drawers", width=70, help="Drawers in the room, in all its wings"),
    "weight": st.column_config.NumberColumn(
        "weight", width=70, format="%.2f",
        help="How informative the room is as a tunnel, 0 to 1: 1 in two wings, less the more wings it spans"),
    "score": st.column_config.NumberColumn("score", width=70, format="%.2f",
                                           help="weight × (wings − 1): how tunnels are ranked, highest first"),
}
WALK_COLUMNS = {
    "room": st.column_config.TextColumn("room", width=220),
    "hop": st.column_config.NumberColumn("hops", width=60, help="Steps from the start room"),
    "connected_via": st.column_config.ListColumn(
        "via wings", width=260, help="The wings the walk came through to reach the room"),
    "count": st.column_config.NumberColumn("drawers", width=70),
    "wings": st.column_config.ListColumn("wings", width=280, help="The wings the room is filed in"),
}


def tunnel_table(found: Sequence[Tunnel]) -> None:
    st.dataframe(pd.DataFrame([t.to_dict() for t in found], columns=list(TUNNEL_COLUMNS)),
                 hide_index=True, width="stretch", column_config=TUNNEL_COLUMNS,
                 column_order=("room", "count", "weight", "score", "wings", "halls"))


def walk_table(steps: Sequence[TraversalStep]) -> None:
    st.dataframe(pd.DataFrame([s.to_dict() for s in steps]), hide_index=True, width="stretch",
                 column_config=WALK_COLUMNS, column_order=("room", "hop", "count", "connected_via", "wings"))


def merge_panel(p: ScopedPalace, suggestions: Sequence[MergeSuggestion]) -> None:
    """Rooms that are probably one concept, the 15 likeliest as one block of text; those who may merge
    pick one and press Merge (one control, not a button per line: each costs the browser)."""
    st.subheader("Rooms that are probably one concept")
    shown = list(suggestions[:15])
    if not shown:
        st.write("No likely duplicate rooms.")
        return
    st.text("\n".join(f"{s.source} ({s.source_count}) → {s.target} ({s.target_count})   score {s.score:.2f}: "
                      f"{'; '.join(s.reasons)}" for s in shown))
    if not p.may("merge"):
        return
    row = st.columns([4, 1], vertical_alignment="bottom")
    number = row[0].selectbox("Merge rooms", range(len(shown)), key="merge_pick",
                              format_func=lambda i: f"{shown[i].source} → {shown[i].target}")
    if row[1].button("Merge", key="merge_go") and number is not None:
        try:
            result = merge_rooms(p, shown[number].source, shown[number].target)
            st.toast(f"Moved {counted(result.moved, 'drawer')} into {result.target}.")
            st.rerun()
        except MempalaceError as exc:
            st.error(md(str(exc)))
