"""Search: a query and filters from the taxonomy; ranked verbatim drawers; the URL holds the search.
A place link (no query, a wing, room or hall) lists that place's drawers."""

import streamlit as st

from dashboard.cards import show_hits
from dashboard.listing import show_place
from dashboard.render import query_terms, unlinked
from dashboard.search_form import place_filters, search_form
from dashboard.views import key, palace, search
from mempalace import MempalaceError
from mempalace.archive.export import hits_to_csv, hits_to_markdown
from mempalace.text.counts import counted

STEP = 20
p = palace()
st.title("Search")
values = search_form(p)
query, filters = values["q"].strip(), place_filters(values)
place = {k: v for k, v in filters if k in ("wing", "room", "hall")}
if not query and place:
    show_place(p, place.get("wing"), place.get("room"), place.get("hall"), key="search_place")
    st.stop()
if not query:
    st.info("Type a question or some words; narrow it with a wing, room, hall, source or dates.")
    st.stop()
asked = (query, filters, values["mode"])
if st.session_state.get("search_asked") != asked:
    st.session_state.update(search_asked=asked, search_limit=STEP, search_weak=False)
try:
    hits = search(p, key(p), query, filters, values["mode"], st.session_state["search_limit"])
except MempalaceError as exc:
    st.error(unlinked(str(exc)))  # it may quote the URL's query
    st.stop()
close = [h for h in hits if h.close]
shown = hits if st.session_state["search_weak"] else close
if hits and not close:
    st.info(unlinked(f"No close match for “{query}”: no drawer holds its words or comes near its meaning. "
               "Try other words, or widen the filters."))
weaker = f", {counted(len(hits) - len(close), 'weaker result')}" if len(hits) > len(close) else ""
st.caption(counted(len(close), "close match") + weaker if hits else "No drawers match.")
if len(hits) > len(close):
    st.toggle("Show weaker results", key="search_weak",
              help="Results with fewer than half of the query's words and a meaning not far from chance.")
if shown:
    left, right, _ = st.columns([1, 1, 4])  # side by side, where the results begin
    left.download_button("Export Markdown", hits_to_markdown(query, shown, dict(filters), p.shown_location),
                         file_name="mempalace-search.md", mime="text/markdown")
    right.download_button("Export CSV", hits_to_csv(shown), file_name="mempalace-search.csv", mime="text/csv")
terms = query_terms(query)
show_hits(p, shown, terms)
if len(hits) == st.session_state["search_limit"] and (close[-1:] == hits[-1:] or st.session_state["search_weak"]):
    if st.button(f"Show {STEP} more"):
        st.session_state["search_limit"] += STEP
        st.rerun()
