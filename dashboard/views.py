"""The palace in use and the views pages draw from, cached at the edge.

`st.cache_resource` keeps one `Palace` per location for every session (it is thread-safe);
`st.cache_data` keeps derived views keyed on every argument plus the palace's revision, which
changes with any write (ours, another client's or another tool's), so no page shows stale data.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from mempalace import Palace
from mempalace.scoped import ScopedPalace
from mempalace.graph import build_graph, find_tunnels, graph_stats, suggest_room_merges, traverse
from mempalace.models import GraphStats, MergeSuggestion, SearchHit, TraversalStep, Tunnel

from .network import Drawn, choose_rooms, network_page

SEARCH_PAGE = "app_pages/search.py"


@st.cache_resource(show_spinner=False)
def open_palace(path: str | None, url: str | None) -> Palace:
    return Palace.open(path, url)


def palace() -> ScopedPalace:
    """The palace chosen in the sidebar, as the person here may see it (set by app.py on every run)."""
    return st.session_state["palace"]


def key(p: ScopedPalace) -> tuple[str, tuple[str, ...], int]:
    """What cached views are keyed on besides their own arguments: the palace, the wings the
    viewer may see (two people never share a cached view) and its revision."""
    return p.location, p.scope_key, p.revision()


@st.cache_data(show_spinner=False, max_entries=32)
def overview(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int]) -> dict[str, Any]:
    """Everything the Overview page draws, in one cached bundle."""
    places = [{"wing": w, "room": r, "hall": h or "(none)", "drawers": n} for w, r, h, n in _p.places()]
    count = sum(p["drawers"] for p in places)  # from the same read as the places, so they always agree
    return {"places": places, "stats": graph_stats(_p), "days": _p.filed_per_day(), "count": count,
            "halls": {h: n for h, n in _p.hall_counts().items() if h}}


@st.cache_data(show_spinner=False, max_entries=64)
def search(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int], query: str, filters: tuple[tuple[str, str], ...], mode: str,
           limit: int) -> list[SearchHit]:
    return _p.search(query, mode=mode, limit=limit, **dict(filters))


@st.cache_data(show_spinner=False, max_entries=16)
def network(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int], wings: tuple[str, ...], min_wings: int, hall: str | None) -> Drawn:
    """The tunnel network page for these filters (see dashboard.network)."""
    nodes, _ = build_graph(_p)
    rooms, matched = choose_rooms(nodes, wings, min_wings, hall)
    return network_page(rooms, matched)


@st.cache_data(show_spinner=False, max_entries=32)
def tunnels(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int], wing_a: str | None, wing_b: str | None) -> list[Tunnel]:
    return find_tunnels(_p, wing_a, wing_b)


@st.cache_data(show_spinner=False, max_entries=32)
def walk(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int], room: str, hops: int) -> list[TraversalStep]:
    return traverse(_p, room, hops)


@st.cache_data(show_spinner=False, max_entries=8)
def merges(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int]) -> list[MergeSuggestion]:
    return suggest_room_merges(_p)


def stats(p: ScopedPalace) -> GraphStats:
    return graph_stats(p)  # memoised on the palace until it changes


def link_to_search(label: str, **filters: str | None) -> None:
    """A link to the Search page scoped to a place (the label is shown as plain text)."""
    params = {k: v for k, v in filters.items() if v}
    st.page_link(SEARCH_PAGE, label=label, query_params=params, icon=":material/search:")
