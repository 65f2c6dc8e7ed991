"""Drawers: browse a wing and room page by page; open a drawer to read, move or delete it."""

import streamlit as st

from dashboard.hits import place_badges, show_drawer_text
from dashboard.render import md
from dashboard.views import palace
from mempalace import HALLS, MempalaceError

ANY, PAGE = "(all)", 25
p = palace()
st.title("Drawers")
if st.query_params.get("drawer"):  # a deep link to one drawer: one outside your wings is simply not found
    try:
        linked = p.get_drawer(st.query_params["drawer"])
        st.html(place_badges(linked.wing, linked.room, linked.hall, linked.source_file))
        show_drawer_text(p, linked.id, linked.content)
    except MempalaceError as exc:
        st.error(md(str(exc)))
    st.stop()
cols = st.columns([2, 2, 1])
wing = cols[0].selectbox("Wing", [ANY, *p.list_wings()], key="drawers_wing")
room = cols[1].selectbox("Room", [ANY, *p.list_rooms(None if wing == ANY else wing)], key="drawers_room")
total, _ = p.browse(None if wing == ANY else wing, None if room == ANY else room, limit=0)
pages = max(1, -(-total // PAGE))
page = cols[2].number_input(f"Page (of {pages})", 1, pages, 1, key="drawers_page")
_, drawers = p.browse(None if wing == ANY else wing, None if room == ANY else room, offset=(page - 1) * PAGE, limit=PAGE)
st.caption(f"{total:,} drawer(s); showing {len(drawers)} from #{(page - 1) * PAGE + 1 if drawers else 0}.")

for drawer in drawers:
    title = drawer.content[:90].replace("\n", " ")
    with st.expander(f"{md(drawer.room)} · {md(title)}"):
        st.html(place_badges(drawer.wing, drawer.room, drawer.hall, drawer.source_file))
        try:
            full = p.get_drawer(drawer.id)
        except MempalaceError as exc:
            st.error(md(str(exc)))
            continue
        show_drawer_text(p, full.id, full.content)
        st.json({k: v for k, v in full.to_dict().items() if k != "content"}, expanded=False)
        if not p.may("move", full.wing):
            continue
        move = st.columns(4)
        new_wing = move[0].text_input("Wing", full.wing, key=f"w_{full.id}")
        new_room = move[1].text_input("Room", full.room, key=f"r_{full.id}")
        current = full.hall or "(none)"
        halls = list(dict.fromkeys(["(none)", *HALLS, current]))  # a hall another tool wrote stays listed
        new_hall = move[2].selectbox("Hall", halls, halls.index(current), key=f"h_{full.id}")
        if move[3].button("Move", key=f"move_{full.id}"):
            try:
                hall = None if new_hall == current else "" if new_hall == "(none)" else new_hall
                p.update_drawer(full.id, wing=new_wing, room=new_room, hall=hall)
                st.rerun()
            except MempalaceError as exc:
                st.error(md(str(exc)))
        if not p.may("delete", full.wing):
            continue
        confirm = st.checkbox("I want to delete this drawer", key=f"confirm_{full.id}")
        if st.button("Delete", key=f"delete_{full.id}", disabled=not confirm, type="primary"):
            p.delete_drawer(full.id)
            st.rerun()
