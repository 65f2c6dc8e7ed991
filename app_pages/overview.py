"""Overview: what the palace holds, its tunnels and silos, and when its conversations happened; every
place links to the Search page, which lists that place's drawers."""

import streamlit as st

from dashboard import charts
from dashboard.rename import rename_panel
from dashboard.render import counts, md
from dashboard.sources_panel import sync_lines
from dashboard.start import demo_removal, empty_palace
from dashboard.views import SEARCH_PAGE, key, link_to_search, overview, palace
from mempalace.text.counts import counted

p = palace()
st.title("Palace overview")
demo_removal(p)
if p.count() == 0:
    empty_palace(p)
    sync_lines(p)
    st.stop()
view = overview(p, key(p))
stats = view["stats"]
st.html(counts([(label, f"{value:,}", "") for label, value in [
    ("Drawers", view["count"]), ("Wings", stats.total_wings), ("Rooms", stats.total_rooms),
    ("Tunnel rooms", stats.tunnel_rooms), ("Halls in use", len(view["halls"]))]], columns=5, size="2.25rem"))
sync_lines(p)
st.caption(f"Found by meaning with the `{p.settings.embedder}` embedder (`mempalace embedder --to NAME` moves the palace).")

left, right = st.columns([3, 2])
with left:
    st.subheader("Wings and rooms")
    bars = charts.show(view["bars"], key="bars")
with right:
    st.subheader("Wing × hall")
    cells = charts.show(view["cells"], key="cells")
    st.caption(md(view["hall_help"]))
st.caption("Click a bar or a cell to list that place's drawers.")
for place in (bars, cells):
    if place:
        st.switch_page(SEARCH_PAGE, query_params=place)

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
rename_panel(p, sorted({r for _, r in rows}))

tunnels, silos = st.columns([3, 2])
with tunnels:
    st.subheader("Top tunnels")
    st.caption("Ranked by informativeness weight × (wings − 1): rooms found in every wing weigh little.")
    for tunnel in stats.top_tunnels:
        link_to_search(f"{md(tunnel.room)} · {counted(len(tunnel.wings), 'wing')} · {counted(tunnel.count, 'drawer')} · "
                       f"weight {tunnel.weight:.2f}", room=tunnel.room)
    if not stats.top_tunnels:
        st.write("No room spans two wings yet.")
with silos:
    st.subheader("Rooms per wing")
    for wing, count in stats.rooms_per_wing.items():
        link_to_search(f"{md(wing)} · {counted(count, 'room')}", wing=wing)
    if stats.isolated_wings:
        st.caption("Not linked to another wing by a tunnel room yet (usual for separate exports): "
                   + ", ".join(map(md, stats.isolated_wings)))

st.subheader("Over time")
by = st.segmented_control("Count", ["conversations by their date", "drawers by filing date"],
                          default="conversations by their date", key="timeline_by")
filed = by == "drawers by filing date"
charts.show(view["filed"] if filed else view["talks"], key="timeline")
if not filed:
    st.caption("Each conversation on the day it happened, as its source says; one without a date on the day it was "
               "filed.")
