"""The Search page's form: its fields live in the URL (a link or the address bar fills the form, and
the form writes the URL back), its choices come from the palace (wings, rooms, halls, sources)."""

from __future__ import annotations

import datetime as dt
import heapq

import streamlit as st

from mempalace import HALLS
from mempalace.models import NO_HALL
from mempalace.scoped.palace import ScopedPalace

from .listing import hall_shown, stale_filters
from .render import hall_help

ANY = "(any)"
MODES = {"hybrid": "Hybrid", "semantic": "Semantic"}
MODE_HELP = ("Hybrid ranks by meaning and by the query's words: score = 0.6 × meaning similarity + 0.4 × word "
             "match. Semantic ranks by meaning alone.")
SOURCE_CHOICES = 1_000  # source files listed in the filter; in a palace of more, others are typed
FIELDS = {"q": "", "wing": ANY, "room": ANY, "hall": ANY, "source": ANY, "after": "", "before": "", "mode": "hybrid"}
FILTERS = {"wing": "wing", "room": "room", "hall": "hall", "source": "source_file"}
# Any day a conversation can have (Streamlit's own range is ten years either side of today).
DAYS = {"min_value": dt.date(1970, 1, 1), "max_value": dt.date(2100, 12, 31)}


def search_form(p: ScopedPalace) -> dict[str, str]:
    """Draw the form, loaded from the URL when it changed there; returns its values (as URL strings)."""
    params = {k: st.query_params.get(k, v) for k, v in FIELDS.items()}
    params["room"] = p.resolve_room(params["room"]) if params["room"] != ANY else ANY  # an earlier name: its room
    dropped: list[tuple[str, str]] = []
    linked = st.session_state.get("search_applied") != params  # a link, the address bar, or a run that stopped
    if linked:  # a link or the address bar: load it into the form
        for field, value in params.items():
            st.session_state[f"search_{field}"] = _day(value) if field in ("after", "before") else value
            if field in ("after", "before") and value and _day(value) is None:
                dropped.append((field, value))
    dropped += _known("wing", [ANY, *p.list_wings()])
    wing = st.session_state["search_wing"]
    sources = p.sources()
    choices = {"room": [ANY, *p.list_rooms(None if wing == ANY else wing)], "hall": [ANY, *HALLS, NO_HALL],
               "source": [ANY, *sources]}
    for field, options in choices.items():
        dropped += _known(field, options)
    if st.session_state["search_mode"] not in MODES:
        dropped.append(("mode", st.session_state["search_mode"]))
        st.session_state["search_mode"] = "hybrid"
    values = {"q": st.text_input("Search your palace", key="search_q",
                                 placeholder="e.g. why did logins break after the switch?")}
    place, when = st.columns(4), st.columns([3, 3, 3, 2])  # two rows: a narrow page keeps them legible
    values["wing"] = place[0].selectbox("Wing", [ANY, *p.list_wings()], key="search_wing")
    values["room"] = place[1].selectbox("Room", choices["room"], key="search_room")
    values["hall"] = place[2].selectbox("Hall", choices["hall"], key="search_hall", format_func=hall_shown,
                                        help=hall_help(p.hall_counts()))
    many = len(sources) > SOURCE_CHOICES
    values["source"] = place[3].selectbox(
        "Source file", _offered(sources, st.session_state.get("search_source", ANY)), key="search_source",
        accept_new_options=many, help=f"The {SOURCE_CHOICES:,} largest of {len(sources):,} source files are listed: "
        "type a file's whole name for another." if many else "Type to filter the palace's source files.")
    values["after"] = _text(when[0].date_input("From", key="search_after", value=None, **DAYS, help="Conversations of this "
                                               "day or later (undated ones by the day they were filed)."))
    values["before"] = _text(when[1].date_input("To", key="search_before", value=None, **DAYS))
    values["mode"] = when[2].selectbox("Mode", list(MODES), format_func=MODES.get, key="search_mode", help=MODE_HELP)
    st.session_state["search_applied"] = {**values}
    if dropped and linked:  # a choice the user just made that empties another is simply reset
        st.warning(stale_filters(dropped, None if wing == ANY else wing))
    st.query_params.from_dict({k: v for k, v in values.items() if v != FIELDS[k]})
    return values


def _offered(sources: dict[str, int], chosen: str) -> list[str]:
    """The Source file list: every source, or in a palace of very many (a million drawers has tens of
    thousands, and each run sends the list to the browser) the SOURCE_CHOICES largest, by name, and
    the one chosen."""
    if len(sources) <= SOURCE_CHOICES:
        return [ANY, *sources]
    largest = sorted(heapq.nlargest(SOURCE_CHOICES, sources, key=sources.__getitem__))
    return [ANY, *largest, *([chosen] if chosen != ANY and chosen not in largest else [])]


def place_filters(values: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The chosen filters as (search argument, value) pairs, without the unset ones."""
    pairs = [(name, values[field]) for field, name in FILTERS.items()] + [(k, values[k]) for k in ("after", "before")]
    return tuple((k, v) for k, v in pairs if v and v != ANY)


def _known(field: str, options: list[str]) -> list[tuple[str, str]]:
    """Reset the field to ANY when its value is not among the options (a stale link, a hidden wing, a
    room of another wing); returns [(field, the value dropped)] then, else []."""
    value = st.session_state.get(f"search_{field}")
    if value in options:
        return []
    st.session_state[f"search_{field}"] = ANY
    return [(field, value)] if value not in (None, "") else []


def _day(value: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _text(day: dt.date | None) -> str:
    return day.isoformat() if day else ""
