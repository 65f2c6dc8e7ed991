"""Renaming rooms on the Tunnels page: earlier names that still find their rooms, and a form for
those who may merge rooms (a rename makes the name theirs: ingest never changes it)."""

from collections.abc import Sequence

import streamlit as st

from dashboard.render import md
from mempalace import MempalaceError
from mempalace.scoped import ScopedPalace

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
        try:
            result = p.rename_room(old, new)
            st.toast(md(f"Renamed {result.old} to {result.new}; its old name still finds it."))
            st.rerun()
        except MempalaceError as exc:
            st.error(md(str(exc)))
