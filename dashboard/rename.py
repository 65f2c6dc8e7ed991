"""Room names people give: renaming on the Tunnels page (earlier names that still find their rooms, a
form for those who may merge rooms; a rename makes the name theirs) and "did you mean" on Ingest."""

from collections.abc import Sequence

import streamlit as st

from dashboard.render import md
from dashboard.views import key, other_names
from mempalace import MempalaceError
from mempalace.graph.merges import same_concept_room
from mempalace.scoped.palace import ScopedPalace

SHOWN_ALIASES = 20


def rename_panel(p: ScopedPalace, rooms: Sequence[str]) -> None:
    """Earlier room names, and (for those allowed, on request) a form to rename a room."""
    aliases = sorted(p.room_aliases().items())
    if aliases:
        st.caption("Earlier names that still find their room (filters, links, `room=`): " + md(", ".join(
            f"{old} → {new}" for old, new in aliases[:SHOWN_ALIASES])) + (" …" if len(aliases) > SHOWN_ALIASES else ""))
    if not rooms or not p.may("merge") or not st.toggle("Rename a room", key="rename_open"):
        return
    row = st.columns([2, 2, 1], vertical_alignment="bottom")
    old = row[0].selectbox("Room", rooms, key="rename_room")
    new = row[1].text_input("New name", key="rename_new", max_chars=100)
    if row[2].button("Rename", key="rename_go") and new.strip():
        _rename(p, old, new)
    other_names_row(p, old, "rename_to")


def other_names_row(p: ScopedPalace, room: str, prefix: str, follow: str | None = None) -> None:
    """A room's best other names: buttons that rename it in one click for those who may (`prefix` keys
    them; `follow`: the page address's room parameter, set to the new name), else a caption."""
    try:
        others = other_names(p, key(p), room)
    except MempalaceError:
        return  # no longer a room here (renamed or emptied meanwhile): nothing to offer
    if not others:
        return
    if not p.may("merge"):
        st.caption(md(f"Other names for {room}: " + ", ".join(others)))
        return
    st.caption(md(f"Other names from {room}'s own conversations, best first (a click renames it):"))
    for column, name in zip(st.columns(len(others)), others):
        if column.button(md(name), key=f"{prefix}_{name}"):
            _rename(p, room, name, follow)


def _rename(p: ScopedPalace, old: str, new: str, follow: str | None = None) -> None:
    try:
        result = p.rename_room(old, new)
    except MempalaceError as exc:
        st.error(md(str(exc)))
        return
    st.toast(md(f"Renamed {result.old} to {result.new}; its old name still finds it."))
    if follow:
        st.query_params[follow] = result.new
    st.rerun()


def offer_similar_room(p: ScopedPalace, room: str | None, field: str) -> None:
    """Under a room typed for filing: when it is new but probably an existing room's concept, say so
    and offer that room (it replaces what was typed in the widget `field`); never silently."""
    try:
        similar = same_concept_room(p, room) if room else None
    except MempalaceError:
        return  # not a room name at all: filing says why
    if similar:
        row = st.columns([4, 1], vertical_alignment="center")
        row[0].info(md(f"{room} is a new room: did you mean {similar}?"))
        row[1].button(md(f"Use {similar}"), key=f"{field}_similar",
                      on_click=lambda: st.session_state.update({field: similar}))
