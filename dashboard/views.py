"""The palace in use and the views pages draw from, cached at the edge.

`st.cache_resource` keeps one `Palace` per location for every session (it is thread-safe);
`st.cache_data` keeps derived views keyed on every argument plus the palace's revision, which
changes with any write (ours, another client's or another tool's), so no page shows stale data.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import streamlit as st

from mempalace import Palace
from mempalace.scoped.palace import ScopedPalace
from mempalace.graph import build_graph, find_tunnels, graph_stats, suggest_room_merges, traverse
from mempalace.models import GraphStats, MergeSuggestion, SearchHit, TraversalStep, Tunnel

from . import charts
from .render import hall_help
from .network import Drawn, choose_rooms, network_page
from .network_map import network_svg

SEARCH_PAGE = "app_pages/search.py"
DRAWERS_PAGE = "app_pages/drawers.py"


def _close(palace: Palace) -> None:
    palace.close()


@st.cache_resource(show_spinner=False, on_release=_close)
def open_palace(path: str | None, url: str | None, _create: bool = True) -> Palace:
    """The one `Palace` at this resolved path or URL for every session; `_create` (not part of the
    key) says whether a missing palace may be made. Kept in use (its sources syncing) while open,
    however idle its tabs; closed when its entry is cleared, once no session holds it (see `hold`)."""
    palace = Palace.open(path, url, create=_create)
    palace.keep_in_use()
    return palace


class Holders:
    """How many sessions hold each palace (key: the path and URL given to `open_palace`).

    Releasing design: a session holds exactly the palace its sidebar names (`hold`, a session-scoped
    cache entry, one per session). Choosing another palace evicts that entry, and a session that
    disconnects has its session cache cleared; both call `let_go`. When the last session lets go,
    the palace's `open_palace` entry is cleared, which closes it (an embedded palace's lock, a shared
    one's lease). A palace another session still holds is never closed under it: taking and letting
    go both happen under one lock, so a session that takes a palace being released either counts
    before the release (nothing closes) or finds the entry gone and opens a fresh one."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: dict[tuple[str | None, str | None], int] = {}

    def take(self, key: tuple[str | None, str | None]) -> None:
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1

    def let_go(self, key: tuple[str | None, str | None]) -> None:
        with self.lock:
            left = self.counts.get(key, 0) - 1
            if left > 0:
                self.counts[key] = left
                return
            self.counts.pop(key, None)
            open_palace.clear(*key)  # closes it (on_release), still under the lock


@st.cache_resource(show_spinner=False)
def holders() -> Holders:
    return Holders()


@dataclass(frozen=True)
class Hold:
    key: tuple[str | None, str | None]
    holders: Holders


def _let_go(held: Hold) -> None:
    held.holders.let_go(held.key)


@st.cache_resource(show_spinner=False, scope="session", max_entries=1, on_release=_let_go)
def hold(path: str | None, url: str | None) -> Hold:
    """This session's claim on the palace at `path`/`url` (see `Holders`); a new claim ends the old."""
    counts = holders()
    counts.take((path, url))
    return Hold((path, url), counts)


def release_held() -> None:
    """This session holds no palace any more (it chose something that is not one)."""
    hold.clear()


def palace() -> ScopedPalace:
    """The palace chosen in the sidebar, as the person here may see it (set by app.py on every run)."""
    return st.session_state["palace"]


def key(p: ScopedPalace) -> tuple[str, tuple[str, ...], int]:
    """What cached views are keyed on besides their own arguments: the palace, the wings the
    viewer may see (two people never share a cached view) and its revision."""
    return p.location, p.scope_key, p.revision()


@st.cache_data(show_spinner=False, max_entries=32)
def overview(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int]) -> dict[str, Any]:
    """Everything the Overview page draws, in one cached bundle (the charts' markup too: 30-40 ms a run)."""
    places = [{"wing": w, "room": r, "hall": h or None, "drawers": n} for w, r, h, n in _p.places()]
    count = sum(p["drawers"] for p in places)  # from the same read as the places, so they always agree
    talks, days = _p.conversations_per_day(), _p.filed_per_day()
    return {"places": places, "stats": graph_stats(_p), "count": count,
            "halls": {h: n for h, n in _p.hall_counts().items() if h}, "hall_help": hall_help(_p.hall_counts()),
            "bars": charts.taxonomy_bars(places), "cells": charts.hall_heatmap(places),
            "talks": charts.timeline(talks, "conversations", "conversation"),
            "filed": charts.timeline(days, "drawers filed", "drawer filed")}


@st.cache_data(show_spinner=False, max_entries=64)
def other_names(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int], room: str) -> tuple[str, ...]:
    """A room's best other names (read from its drawers and ranked by meaning: a second or so)."""
    from mempalace.ingest.room_alternatives import name_alternatives

    return name_alternatives(_p, room)


@st.cache_data(show_spinner=False, max_entries=64)
def search(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int], query: str, filters: tuple[tuple[str, str], ...], mode: str,
           limit: int) -> list[SearchHit]:
    return _p.search(query, mode=mode, limit=limit, **dict(filters))


@st.cache_data(show_spinner=False, max_entries=16)
def network(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int], wings: tuple[str, ...], min_wings: int,
            hall: str | None, interactive: bool = False) -> Drawn:
    """The tunnel network for these filters: one SVG (dashboard.network_map), or the pyvis page
    (dashboard.network) when `interactive`."""
    nodes, _ = build_graph(_p)
    rooms, matched = choose_rooms(nodes, wings, min_wings, hall)
    palette = _p.wings_oldest_first()  # a wing keeps its colour whatever the filters and whatever is added
    if interactive:
        return network_page(rooms, matched, palette=palette)
    return Drawn(network_svg(rooms, hall=hall, palette=palette), matched, len(rooms))


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
