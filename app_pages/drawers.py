"""Drawers: a place's drawers, newest conversation first; open one to read it, move it or delete it.
?wing=&room=&hall= choose the place (the address follows the filters); ?drawer=ID opens one drawer."""

import streamlit as st

from dashboard.hits import show_drawer
from dashboard.listing import gone_toggle, hall_shown, manage, show_gone, show_place, stale_filters
from dashboard.rename import other_names_row
from dashboard.trash_view import bulk_delete
from dashboard.render import hall_help, md, unlinked
from dashboard.views import DRAWERS_PAGE, palace
from mempalace import HALLS, MempalaceError
from mempalace.models import NO_HALL

ANY = "(all)"
FIELDS = ("wing", "room", "hall")
p = palace()
st.title("Drawers")
actions = manage(p)  # says what the last move or delete did, a deep link's too
if st.query_params.get("drawer"):  # a deep link to one drawer: one outside your wings is simply not found
    try:
        linked = p.get_drawer(st.query_params["drawer"])
    except MempalaceError as exc:
        st.error(unlinked(str(exc)))  # it quotes the link's id
        st.page_link(DRAWERS_PAGE, label="All drawers", icon=":material/list:")
        st.stop()
    show_drawer(p, linked, "linked", actions=actions, expanded=True)
    st.page_link(DRAWERS_PAGE, label=md(f"All drawers in {linked.wing} / {linked.room}"),
                 query_params={"wing": linked.wing, "room": linked.room}, icon=":material/list:")
    st.stop()

asked = {f: st.query_params.get(f, ANY) for f in FIELDS}
asked["room"] = p.resolve_room(asked["room"]) if asked["room"] != ANY else ANY  # an earlier name: its room now
linked = st.session_state.get("drawers_applied") != asked
if linked:  # a link or the address bar: load it into the filters
    for field, value in asked.items():
        st.session_state[f"drawers_{field}"] = value


dropped: list[tuple[str, str]] = []


def options(field: str, names: list[str]) -> list[str]:
    """The choices for a filter; a value no longer among them (a forged link, a room just emptied) is
    dropped, and said to be."""
    choices, value = [ANY, *names], st.session_state.get(f"drawers_{field}")
    if value not in choices:
        st.session_state[f"drawers_{field}"] = ANY
        dropped.extend([(field, value)] if value else [])
    return choices


cols = st.columns(3)
wing = cols[0].selectbox("Wing", options("wing", list(p.list_wings())), key="drawers_wing")
in_wing = None if wing == ANY else wing
room = cols[1].selectbox("Room", options("room", list(p.list_rooms(in_wing))), key="drawers_room")
halls = list(dict.fromkeys([*HALLS, *(h for h in p.hall_counts(in_wing) if h), NO_HALL]))  # others' halls too
hall = cols[2].selectbox("Hall", options("hall", halls), key="drawers_hall", format_func=hall_shown,
                         help=hall_help(p.hall_counts(in_wing)))
current = {"wing": wing, "room": room, "hall": hall}
st.session_state["drawers_applied"] = current
st.query_params.from_dict({k: v for k, v in current.items() if v != ANY})
if dropped and linked:  # not after the user's own choice (or move) emptied a filter
    st.warning(stale_filters(dropped, in_wing))
if room != ANY:
    other_names_row(p, room, "drawers_other_name", follow="room")
bulk_delete(p, in_wing, None if room == ANY else room)

place = (in_wing, None if room == ANY else room, None if hall == ANY else hall)
gone = gone_toggle(p)
if gone is None:
    show_place(p, *place, "drawers", actions)
else:
    show_gone(p, gone, *place, "drawers", actions)
