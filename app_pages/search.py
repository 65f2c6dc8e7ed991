"""Search: a query and filters from the taxonomy; ranked verbatim drawers; the URL holds the search."""

import streamlit as st

from dashboard.hits import show_hit
from dashboard.render import md, query_terms
from dashboard.views import key, palace, search
from mempalace import HALLS, MempalaceError
from mempalace.export import hits_to_csv, hits_to_markdown

ANY = "(any)"
MODES = {"hybrid": "Hybrid (meaning + words)", "semantic": "Semantic (meaning only)"}
FIELDS = {"q": "", "wing": ANY, "room": ANY, "hall": ANY, "source": "", "mode": "hybrid"}

p = palace()
st.title("Search")
params = {k: st.query_params.get(k, v) for k, v in FIELDS.items()}
if st.session_state.get("search_applied") != params:  # a link or the address bar: load it into the form
    for field, value in params.items():
        st.session_state[f"search_{field}"] = value
wings = [ANY, *p.list_wings()]
if st.session_state["search_wing"] not in wings:
    st.session_state["search_wing"] = ANY
chosen_wing = None if st.session_state["search_wing"] == ANY else st.session_state["search_wing"]
rooms = [ANY, *p.list_rooms(chosen_wing)]
if st.session_state["search_room"] not in rooms:
    st.session_state["search_room"] = ANY
if st.session_state["search_hall"] not in (ANY, *HALLS):
    st.session_state["search_hall"] = ANY
if st.session_state["search_mode"] not in MODES:
    st.session_state["search_mode"] = "hybrid"

query = st.text_input("Search your palace", key="search_q", placeholder="e.g. why did logins break after the switch?")
cols = st.columns(5)
wing = cols[0].selectbox("Wing", wings, key="search_wing")
room = cols[1].selectbox("Room", rooms, key="search_room")
hall = cols[2].selectbox("Hall", [ANY, *HALLS], key="search_hall")
source = cols[3].text_input("Source file", key="search_source", placeholder="any")
mode = cols[4].selectbox("Mode", list(MODES), format_func=MODES.get, key="search_mode")
current = {"q": query, "wing": wing, "room": room, "hall": hall, "source": source, "mode": mode}
st.session_state["search_applied"] = current
st.query_params.from_dict({k: v for k, v in current.items() if v != FIELDS[k]})

if not query.strip():
    st.info("Type a question or some words; narrow it with a wing, room, hall or source.")
    st.stop()
filters = tuple((k, v) for k, v in {"wing": wing, "room": room, "hall": hall, "source_file": source.strip()}.items()
                if v and v != ANY)
try:
    hits = search(p, key(p), query, filters, mode, 20)
except MempalaceError as exc:
    st.error(md(str(exc)))
    st.stop()
st.caption(f"{len(hits)} result(s)")
if hits:
    left, right = st.columns(2)
    left.download_button("Export Markdown", hits_to_markdown(query, hits, dict(filters), p.location),
                         file_name="mempalace-search.md", mime="text/markdown")
    right.download_button("Export CSV", hits_to_csv(hits), file_name="mempalace-search.csv", mime="text/csv")
terms = query_terms(query)
for hit in hits:
    show_hit(p, hit, terms)
