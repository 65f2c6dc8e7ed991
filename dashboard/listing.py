"""A place's drawers, newest conversation first, a page at a time, each as a card (dashboard.cards);
and the controls that move or delete a drawer, each asking first and saying what it did."""

from __future__ import annotations

import streamlit as st

from mempalace import HALLS, MempalaceError
from mempalace.models import NO_HALL, Drawer
from mempalace.text.names import hall_change, room_slug, wing_name
from mempalace.scoped.palace import ScopedPalace
from mempalace.text.counts import counted

from .cards import show_cards
from .hits import Actions
from .render import NO_HALL_LABEL, md, unlinked
from .trash_view import offer_undo, undo_box
from .views import key as key_of

PAGE = 25
FIELD_NAMES = {"wing": "wing", "room": "room", "hall": "hall", "source": "source file", "after": "From",
               "before": "To"}  # as a dropped filter's warning names them


@st.cache_data(show_spinner=False, max_entries=64)
def page_of(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int], wing: str | None, room: str | None,
            hall: str | None, offset: int) -> tuple[int, tuple[Drawer, ...]]:
    """(drawers in the place, one page of them newest conversation first), per palace revision."""
    total, drawers = _p.browse(wing, room, hall, offset=offset, limit=PAGE, newest=True)
    return total, tuple(drawers)


def place_name(wing: str | None, room: str | None, hall: str | None) -> str:
    """'wing_kai / auth-migration / hall_facts', or 'the palace' when nothing narrows it."""
    return " / ".join(n for n in (wing, room, hall_shown(hall) if hall else None) if n) or "the palace"


def stale_filters(dropped: list[tuple[str, str]], wing: str | None) -> str:
    """What a form could not keep (Search's or Drawers'), said plainly as Markdown, names escaped: a
    filter silently dropped would show more than the link named. `wing`: the wing chosen, if any."""
    where = {"room": f"in {unlinked(wing)}" if wing else "in this palace"}
    lines = [f"“{unlinked(value)}” is not a day (write it as YYYY-MM-DD): the {FIELD_NAMES[field]} filter is off."
             if field in ("after", "before") else
             f"“{unlinked(value)}” is not a search mode: this search is hybrid." if field == "mode" else
             f"No {FIELD_NAMES[field]} “{unlinked(value)}” {where.get(field, 'in this palace')}: "
             f"that filter is off, so this shows every {FIELD_NAMES[field]}." for field, value in dropped]
    return "  \n".join(lines)


def hall_shown(hall: str) -> str:
    """A hall filter's value as a person reads it: NO_HALL is "(no hall)"."""
    return "(no hall)" if hall == NO_HALL else hall


def span(offset: int, shown: int, total: int) -> str:
    """'drawers 26–50 of 1,234' (or 'drawer 1 of 1')."""
    if total == 1:
        return "drawer 1 of 1"
    return f"drawers {offset + 1:,}–{offset + shown:,} of {total:,}"


def show_place(p: ScopedPalace, wing: str | None, room: str | None, hall: str | None, key: str,
               actions: Actions | None = None) -> None:
    """The drawers in this wing, room and hall (each None for any), newest conversation first, PAGE
    at a time with Previous / Next and a page number; `key` keeps this listing's page in the
    session (a new place starts at page 1). `actions` as for `dashboard.hits.show_drawer`."""
    page_key, place = f"{key}_page", (wing, room, hall)
    if st.session_state.get(f"{key}_place") != place:
        st.session_state[f"{key}_place"], st.session_state[page_key] = place, 1
    page = max(1, int(st.session_state.get(page_key) or 1))
    total, drawers = page_of(p, key_of(p), wing, room, hall, (page - 1) * PAGE)
    pages = max(1, -(-total // PAGE))
    if page > pages:  # the place shrank (a delete, another client): its last page
        page = pages
        total, drawers = page_of(p, key_of(p), wing, room, hall, (page - 1) * PAGE)
    st.session_state[page_key] = page
    if not drawers:
        st.info(md(f"There are no drawers in {place_name(wing, room, hall)}."))
        return
    _pager(key, page, pages, span((page - 1) * PAGE, len(drawers), total))
    show_cards(p, [(drawer, "") for drawer in drawers], key, actions=actions)
    if pages > 1:
        _pager(key, page, pages, span((page - 1) * PAGE, len(drawers), total), end=True)


GONE_SHOWN = 200  # drawers of gone files listed at most (the newest conversations' first)


def gone_toggle(p: ScopedPalace) -> set[str] | None:
    """A switch, shown when some synced file is gone, that keeps the listing to those files' drawers:
    their conversations (parent ids) when on, else None."""
    parents = p.synced.gone_parents()
    if parents and st.toggle("Only drawers whose source file is gone", key="drawers_gone",
                             help="Files a synced source no longer holds. Their drawers stay: the palace is the archive."):
        return parents
    return None


def show_gone(p: ScopedPalace, parents: set[str], wing: str | None, room: str | None, hall: str | None,
              key: str, actions: Actions | None = None) -> None:
    """The drawers of gone source files in this place (each filter None for any), newest conversation first."""
    drawers = [d for parent in sorted(parents) for d in p.drawers_of(parent)
               if wing in (None, d.wing) and room in (None, d.room) and hall in (None, d.hall or NO_HALL)]
    drawers.sort(key=lambda d: (d.conversation_date or "", d.filed_at or ""), reverse=True)
    if not drawers:
        st.info(md(f"No drawer in {place_name(wing, room, hall)} comes from a file that is gone."))
        return
    st.caption(f"{counted(len(drawers), 'drawer')} from files that are gone" +
               (f"; the newest {GONE_SHOWN} shown" if len(drawers) > GONE_SHOWN else ""))
    show_cards(p, [(drawer, "") for drawer in drawers[:GONE_SHOWN]], key, actions=actions)


def _turn(page_key: str, step: int) -> None:
    st.session_state[page_key] = max(1, int(st.session_state.get(page_key) or 1) + step)


def _pager(key: str, page: int, pages: int, shown: str, end: bool = False) -> None:
    """Previous, a page number to jump to (at the top only), where this page is, Next."""
    page_key, tail = f"{key}_page", "_end" if end else ""
    if pages == 1:
        st.caption(f"{shown} · newest conversation first")
        return
    st.caption(f"{shown} · page {page:,} of {pages:,} · newest conversation first")
    back, number, ahead, _ = st.columns([1, 1, 1, 2], vertical_alignment="center")  # room for the labels
    back.button("Previous", key=f"{key}_prev{tail}", disabled=page <= 1, on_click=_turn, args=(page_key, -1))
    if not end:  # in a popover: its box is drawn only when opened (each element costs the browser)
        with number.popover(f"Page {page:,}"):
            st.number_input("Go to page", min_value=1, max_value=pages, step=1, key=page_key)
    ahead.button("Next", key=f"{key}_next{tail}", disabled=page >= pages, on_click=_turn, args=(page_key, 1))


# -- moving and deleting a drawer ----------------------------------------------------------------


def manage(p: ScopedPalace) -> Actions:
    """Move and delete controls for an open drawer, as far as the person's role allows; what the
    last of them did is said in the run it asked for, with an Undo."""
    undo_box(p)

    def controls(drawer: Drawer) -> None:
        if p.may("move", drawer.wing):
            _move(p, drawer)
        if p.may("delete", drawer.wing):
            _delete(p, drawer)

    return controls


def destination(drawer: Drawer, wing: str, room: str, hall: str) -> tuple[str | None, str | None, str | None]:
    """update_drawer's (wing, room, hall) for what was typed: None where nothing changes."""
    current = drawer.hall or NO_HALL_LABEL
    return (None if wing == drawer.wing else wing_name(wing), None if room == drawer.room else room_slug(room),
            None if hall == current else hall_change("" if hall == NO_HALL_LABEL else hall))


def _move(p: ScopedPalace, drawer: Drawer) -> None:
    cols = st.columns(4, vertical_alignment="bottom")
    typed = (cols[0].text_input("Wing", drawer.wing, key=f"w_{drawer.id}"),
             cols[1].text_input("Room", drawer.room, key=f"r_{drawer.id}"))
    current = drawer.hall or NO_HALL_LABEL
    halls = list(dict.fromkeys([NO_HALL_LABEL, *HALLS, current]))  # a hall another tool wrote stays listed
    typed += (cols[2].selectbox("Hall", halls, halls.index(current), key=f"h_{drawer.id}"),)
    asking = f"moving_{drawer.id}"
    if cols[3].button("Move", key=f"move_{drawer.id}"):
        try:
            st.session_state[asking] = (typed, destination(drawer, *typed))
        except MempalaceError as exc:
            st.error(md(str(exc)))
    asked, to = st.session_state.get(asking, (None, None))
    if asked != typed:  # nothing asked, or the destination was edited since: ask again
        st.session_state.pop(asking, None)
        return
    if to == (None, None, None):
        st.session_state.pop(asking, None)
        st.info("The drawer is already there.")
        return
    where = place_name(to[0] or drawer.wing, to[1] or drawer.room,
                       (drawer.hall if to[2] is None else to[2]) or None)
    st.warning(md(f"Move this drawer from {place_name(drawer.wing, drawer.room, drawer.hall)} to {where}?"))
    yes, no, _ = st.columns([1, 1, 3])
    if no.button("Cancel", key=f"move_no_{drawer.id}"):
        st.session_state.pop(asking, None)
        st.rerun()
    if yes.button("Yes, move it", key=f"move_yes_{drawer.id}", type="primary"):
        st.session_state.pop(asking, None)
        try:
            moved = p.update_drawer(drawer.id, *to)
        except MempalaceError as exc:
            st.error(md(str(exc)))
            return
        offer_undo(f"Moved the drawer to {place_name(moved.wing, moved.room, moved.hall)}.", p.last_change())
        st.rerun()


def _delete(p: ScopedPalace, drawer: Drawer) -> None:
    sure = st.checkbox("I want to delete this drawer", key=f"confirm_{drawer.id}")
    if st.button("Delete", key=f"delete_{drawer.id}", disabled=not sure, type="primary"):
        try:
            gone = p.delete_drawer(drawer.id)
        except MempalaceError as exc:
            st.error(md(str(exc)))
            return
        if st.query_params.get("drawer") == drawer.id:  # its deep link: back to the list of its place
            st.query_params.from_dict({"wing": gone.wing, "room": gone.room})
        offer_undo(f"Deleted the drawer from {place_name(gone.wing, gone.room, gone.hall)}.", p.last_change())
        st.rerun()
