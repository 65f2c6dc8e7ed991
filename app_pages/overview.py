"""Overview: what the palace holds, its tunnels and silos, and when its conversations happened; every
place leads to the Search page, which lists that place's drawers. The timeline is drawn when asked for."""

import streamlit as st

from dashboard import charts
from dashboard.render import md
from dashboard.start import empty_palace
from dashboard.views import SEARCH_PAGE, key, overview, palace, search_pills

TALKS = "conversations by their date"
TIMELINE = {TALKS: ("talks", "conversations"), "drawers by filing date": ("days", "drawers filed")}
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
st.caption("Click a bar or a cell to list that place's drawers.")
for event in (bars, cells):
    if charts.picked(event):
        st.switch_page(SEARCH_PAGE, query_params=charts.picked(event))

st.subheader("Places")
st.caption("Select a row to list that wing and room's drawers.")
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
    search_pills("Top tunnels", "top_tunnels", {
        f"{md(t.room)} · {len(t.wings)} wings · {t.count} drawers · weight {t.weight:.2f}": {"room": t.room}
        for t in stats.top_tunnels})
    if not stats.top_tunnels:
        st.write("No room spans two wings yet.")
with silos:
    st.subheader("Rooms per wing")
    search_pills("Rooms per wing", "wing_rooms",
                 {f"{md(wing)} · {count} rooms": {"wing": wing} for wing, count in stats.rooms_per_wing.items()})
    if stats.isolated_wings:
        st.caption("Not linked to another wing by a tunnel room yet (usual for separate exports): "
                   + ", ".join(map(md, stats.isolated_wings)))

st.subheader("Over time")
by = st.segmented_control("Count", list(TIMELINE), key="timeline_by")
if by:  # drawn when asked for: a chart costs the browser a good part of a page load
    counts, label = TIMELINE[by]
    st.altair_chart(charts.timeline(view[counts], label), width="stretch")
if by in (TALKS, None):
    st.caption("Each conversation on the day it happened, as its source says; one without a date on the day it "
               "was filed." if by else "Choose what to count to draw the timeline.")
