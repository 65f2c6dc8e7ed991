"""Tunnels: the room network (pyvis, offline) and the same data as tables: tunnels, traverse, merges."""

import pandas as pd
import streamlit as st

from dashboard.render import md
from dashboard.reroom import HOW_ROOMS_ARE_CHOSEN, reroom_panel
from dashboard.views import key, merges, network, palace, stats, tunnels, walk
from mempalace import HALLS, MempalaceError
from mempalace.graph import merge_rooms

ANY = "(any)"
# Both tables fit the page's width (about 900 px at 1400 px): the numbers next to the room (to two places,
# with what weight and score mean on hovering their headers), then the lists of wings and halls as chips.
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
p = palace()
st.title("Tunnels")
st.caption("A room filed in two or more wings is a tunnel between them. Wings are boxes, each in its own colour; "
           "rooms are dots sized by drawers; tunnel rooms are orange, with edges as wide as the tunnel is "
           "informative. Hover for full names; scroll to zoom. "
           + HOW_ROOMS_ARE_CHOSEN)
wings = list(p.list_wings())
rooms = [r for r in p.list_rooms() if r not in p.settings.graph_hidden_rooms]
if not wings:
    st.info("The palace is empty: load the demo palace on the Overview page or upload transcripts.")
    st.stop()
cols = st.columns([3, 1, 1])
shown_wings = cols[0].multiselect("Wings", wings, placeholder="all wings")
most = max(2, max((len(t.wings) for t in tunnels(p, key(p), None, None)), default=2))
min_wings = cols[1].slider("Minimum wings per room", 1, most, 1)
hall = cols[2].selectbox("Hall", [ANY, *HALLS])
drawn = network(p, key(p), tuple(shown_wings), min_wings, None if hall == ANY else hall)
if drawn.drawn:
    st.iframe(drawn.html, height=650)
    if drawn.drawn < drawn.matched:
        st.warning(f"Showing the {drawn.drawn} most connected of {drawn.matched} rooms; the tables below are complete.")
else:
    st.info("No room matches these filters.")

st.subheader("Tunnels between two wings")
pick = st.columns(2)
wing_a = pick[0].selectbox("Wing A", [ANY, *wings])
wing_b = pick[1].selectbox("Wing B", [ANY, *wings])
found = tunnels(p, key(p), None if wing_a == ANY else wing_a, None if wing_b == ANY else wing_b)
st.dataframe(pd.DataFrame([t.to_dict() for t in found], columns=list(TUNNEL_COLUMNS)),
             hide_index=True, width="stretch", column_config=TUNNEL_COLUMNS,
             column_order=("room", "count", "weight", "score", "wings", "halls"))
st.caption(f"{len(found)} tunnel(s); {stats(p).tunnel_rooms} in the whole palace.")

st.subheader("Walk from a room")
walk_cols = st.columns([3, 1])
start = walk_cols[0].selectbox("Start room", rooms)
hops = walk_cols[1].slider("Hops", 0, 5, 2)
try:
    steps = walk(p, key(p), start, hops)
    st.dataframe(pd.DataFrame([s.to_dict() for s in steps]), hide_index=True, width="stretch",
                 column_config=WALK_COLUMNS, column_order=("room", "hop", "count", "connected_via", "wings"))
except MempalaceError as exc:
    st.error(md(str(exc)))

st.subheader("Rooms that are probably one concept")
suggestions = merges(p, key(p))
if not suggestions:
    st.write("No likely duplicate rooms.")
for number, suggestion in enumerate(suggestions[:15]):
    row = st.columns([4, 1])
    row[0].text(f"{suggestion.source} ({suggestion.source_count}) → {suggestion.target} ({suggestion.target_count})"
                f"   score {suggestion.score:.2f}: {'; '.join(suggestion.reasons)}")
    if p.may("merge") and row[1].button("Merge", key=f"merge_{number}_{suggestion.source}_{suggestion.target}"):
        try:
            result = merge_rooms(p, suggestion.source, suggestion.target)
            st.toast(f"Moved {result.moved} drawer(s) into {result.target}.")
            st.rerun()
        except MempalaceError as exc:
            st.error(md(str(exc)))

if p.may("reroom"):
    reroom_panel(p)
