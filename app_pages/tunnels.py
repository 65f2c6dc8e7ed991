"""Tunnels: the room network (one SVG; pyvis, offline, on request) and the same data as tables: tunnels,
traverse, merges. The walk and the re-rooming panel are drawn when their toggles are on."""

import streamlit as st

from dashboard import charts
from dashboard.render import md
from dashboard.rename import rename_panel
from dashboard.reroom import HOW_ROOMS_ARE_CHOSEN, rehall_panel, reroom_panel
from dashboard.tables import merge_panel, tunnel_table, walk_table
from dashboard.views import SEARCH_PAGE, key, merges, network, palace, stats, tunnels, walk
from mempalace import HALLS, MempalaceError
from mempalace.text.counts import counted

ANY = "(any)"
p = palace()
st.title("Tunnels")
st.caption("A room filed in two or more wings is a tunnel between them. Wings are boxes, each in its own colour; "
           "rooms are dots sized by drawers; tunnel rooms are orange, with edges as wide as the tunnel is "
           "informative. Hover for full names; click a room or a wing to list its drawers; Ctrl+scroll or a pinch "
           "zooms, a drag moves, a double click shows it all. "
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
interactive = st.toggle("Move rooms about: the interactive network (pyvis, slower to draw)", key="network_interactive")
drawn = network(p, key(p), tuple(shown_wings), min_wings, None if hall == ANY else hall, interactive)
if not drawn.drawn:
    st.info("No room matches these filters.")
elif interactive:
    st.iframe(drawn.html, height=650)
elif place := charts.show(drawn.html, key="network"):
    st.switch_page(SEARCH_PAGE, query_params=place)
if 0 < drawn.drawn < drawn.matched:
    st.warning(f"Showing the {drawn.drawn} most connected of {counted(drawn.matched, 'room')}; the tables below are complete.")

st.subheader("Tunnels between two wings")
pick = st.columns(2)
wing_a = pick[0].selectbox("Wing A", [ANY, *wings])
wing_b = pick[1].selectbox("Wing B", [ANY, *wings])
found = tunnels(p, key(p), None if wing_a == ANY else wing_a, None if wing_b == ANY else wing_b)
tunnel_table(found)
st.caption(f"{counted(len(found), 'tunnel')}; {stats(p).tunnel_rooms} in the whole palace.")

st.subheader("Walk from a room")
if st.toggle("Walk the network from a room you choose", key="walk_open"):  # drawn on request: a table costs
    walk_cols = st.columns([3, 1])
    start = walk_cols[0].selectbox("Start room", rooms, key="walk_start")
    hops = walk_cols[1].slider("Hops", 0, 5, 2, key="walk_hops")
    try:
        walk_table(walk(p, key(p), start, hops))
    except MempalaceError as exc:
        st.error(md(str(exc)))

merge_panel(p, merges(p, key(p)))
rename_panel(p, rooms)

if p.may("reroom"):
    reroom_panel(p)
    rehall_panel(p)
