"""Overview: what the palace holds, its tunnels and silos, and how it grew; every place links to a search."""

import streamlit as st

from dashboard import charts
from dashboard.render import md
from dashboard.start import empty_palace
from dashboard.views import SEARCH_PAGE, key, link_to_search, overview, palace

p = palace()
st.title("Palace overview")
if p.count() == 0:
    empty_palace(p)
    st.stop()
view = overview(p, key(p))
stats = view["stats"]
tiles = st.columns(5)
for tile, (label, value) in zip(tiles, [("Drawers", view["count"]), ("Wings", stats.total_wings),
                                        ("Rooms", stats.total_rooms), ("Tunnel rooms", stats.tunnel_rooms),
                                        ("Halls in use", len(view["halls"]))]):
    tile.metric(label, f"{value:,}")

left, right = st.columns([3, 2])
with left:
    st.subheader("Wings and rooms")
    bars = st.altair_chart(charts.taxonomy_bars(view["places"]), width="stretch", on_select="rerun", key="bars")
with right:
    st.subheader("Wing × hall")
    cells = st.altair_chart(charts.hall_heatmap(view["places"]), width="stretch", on_select="rerun", key="cells")
st.caption("Click a bar or a cell to search that place.")
for event in (bars, cells):
    if charts.picked(event):
        st.switch_page(SEARCH_PAGE, query_params=charts.picked(event))

st.subheader("Places")
st.caption("Select a row to search that wing and room.")
rows = {}
for place in view["places"]:
    rows[(place["wing"], place["room"])] = rows.get((place["wing"], place["room"]), 0) + place["drawers"]
table = [{"wing": w, "room": r, "drawers": n} for (w, r), n in rows.items()]
picked = st.dataframe(table, hide_index=True, width="stretch", on_select="rerun",
                      selection_mode="single-row", key="places")
if picked.selection.rows:
    chosen = table[picked.selection.rows[0]]
    st.switch_page(SEARCH_PAGE, query_params={"wing": chosen["wing"], "room": chosen["room"]})

tunnels, silos = st.columns([3, 2])
with tunnels:
    st.subheader("Top tunnels")
    st.caption("Ranked by informativeness weight × (wings − 1): rooms found in every wing weigh little.")
    for tunnel in stats.top_tunnels:
        link_to_search(f"{md(tunnel.room)} · {len(tunnel.wings)} wings · {tunnel.count} drawers · "
                       f"weight {tunnel.weight:.2f}", room=tunnel.room)
    if not stats.top_tunnels:
        st.write("No room spans two wings yet.")
with silos:
    st.subheader("Rooms per wing")
    for wing, count in stats.rooms_per_wing.items():
        link_to_search(f"{md(wing)} · {count} rooms", wing=wing)
    if stats.isolated_wings:
        st.warning("Isolated wings (no informative tunnel to another wing): " + ", ".join(map(md, stats.isolated_wings)))

st.subheader("Drawers filed over time")
st.altair_chart(charts.filed_over_time(view["days"]), width="stretch")
