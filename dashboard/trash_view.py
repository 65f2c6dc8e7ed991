"""The trash in the dashboard: an Undo after each move or delete, the Trash page's changes with Restore, and
deleting a whole wing or room behind a confirmation that names the count."""

from __future__ import annotations

from datetime import datetime, timezone

import streamlit as st

from mempalace import MempalaceError
from mempalace.scoped.palace import ScopedPalace
from mempalace.palace.trash import trash_summary
from mempalace.text.counts import counted

from .render import md

UNDO = "trash_undo"  # (what was said, its change) of the newest move or delete, until undone or replaced
SHOWN_DRAWERS = 20  # drawers listed under a change before "and N more"


def when(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def offer_undo(message: str, change: str | None) -> None:
    """After a change (a move, a delete): say `message` in the next run, with an Undo that reverts it."""
    st.session_state[UNDO] = (message, change or "")


def undo_box(p: ScopedPalace) -> None:
    """The newest change's message and its Undo button, until it is undone or another replaces it."""
    offered = st.session_state.get(UNDO)
    if not offered:
        return
    message, change = offered
    said, button = st.columns([5, 1], vertical_alignment="center")
    said.success(md(message), icon=":material/check:")
    if change and button.button("Undo", key="trash_undo_button", help="Revert this change"):
        st.session_state.pop(UNDO, None)
        undo(p, change)


def undo(p: ScopedPalace, change: str) -> None:
    """Revert `change`, say what went back (or why it cannot), and run the page again."""
    try:
        done = p.undo(change)
    except MempalaceError as exc:
        st.error(md(str(exc)))
        return
    st.toast(f"Undone: {counted(done.drawers, 'drawer')} back where {'it was' if done.drawers == 1 else 'they were'}.")
    st.rerun()


def trash_changes(p: ScopedPalace) -> int:
    """Each delete the trash still keeps, newest first, with its drawers and a Restore button; returns
    how many drawers it holds."""
    items = p.trash_list()
    if not items:
        st.info("The trash is empty.")
        return 0
    by_change: dict[str, list] = {}
    for t in items:
        by_change.setdefault(t.change, []).append(t)
    for entry in trash_summary(items):
        drawers = by_change[entry["change"]]
        places = ", ".join(f"{place} ({n})" for place, n in sorted(entry["places"].items(), key=lambda i: -i[1]))
        with st.container(border=True):
            top, act = st.columns([5, 1], vertical_alignment="center")
            top.markdown(md(f"{when(entry['deleted_at'])} · {entry['deleted_by'] or 'unknown'} deleted "
                            f"{counted(entry['drawers'], 'drawer')} from {places}"))
            top.caption(md(f"Kept until {when(entry['purge_at'])} · change {entry['change']}"))
            if act.button("Restore", key=f"restore_{entry['change']}", type="primary",
                          help="Put these drawers back exactly where they were"):
                _restore(p, entry["change"])
            with st.expander(f"The {counted(len(drawers), 'drawer')}"):
                for t in drawers[:SHOWN_DRAWERS]:
                    st.markdown(md(f"{t.drawer.wing} / {t.drawer.room}: {t.drawer.content[:200]}"))
                if len(drawers) > SHOWN_DRAWERS:
                    st.caption(f"… and {len(drawers) - SHOWN_DRAWERS} more")
    return len(items)


def _restore(p: ScopedPalace, change: str) -> None:
    try:
        done = p.restore_change(change)
    except MempalaceError as exc:
        st.error(md(str(exc)))
        return
    for drawer_id, why in done.blocked:
        st.warning(md(f"Not restored {drawer_id}: {why}."))
    st.toast(md(f"Restored {counted(len(done.restored), 'drawer')}."))
    if not done.blocked:
        st.rerun()


def empty_trash(p: ScopedPalace, held: int) -> None:
    """For admins of every wing: forget the whole trash (`held` drawers), behind a tick naming the count."""
    if not held or not p.may("delete", "*"):
        return
    sure = st.checkbox(f"I want to forget the {counted(held, 'drawer')} in the trash for good", key="trash_empty_sure")
    if st.button("Empty the trash", disabled=not sure, key="trash_empty"):
        try:
            gone = p.empty_trash()
        except MempalaceError as exc:
            st.error(md(str(exc)))
            return
        st.session_state.pop("trash_empty_sure", None)
        st.toast(f"Emptied the trash: {counted(gone, 'drawer')} forgotten.")
        st.rerun()


def bulk_delete(p: ScopedPalace, wing: str | None, room: str | None) -> None:
    """Delete every drawer of the chosen wing and/or room, for those who may delete in all of its
    wings, behind a confirmation that names the count; an Undo follows."""
    if not (wing or room):
        return
    places = p.deletion_preview(wing, room)
    total = sum(n for _, _, n in places)
    if not total or not all(p.may("delete", w) for w, _, _ in places):
        return
    what = " / ".join(n for n in (wing, room) if n)
    with st.popover(md(f"Delete all of {what}"), icon=":material/delete_sweep:"):
        st.markdown(md(f"Delete all {counted(total, 'drawer')} of {what}? They go to the trash, kept "
                       f"{p.settings.trash_days:g} days, and can be restored."))
        sure = st.checkbox(f"I want to delete these {total}", key=f"bulk_sure_{what}")
        if st.button(f"Delete {total}", disabled=not sure, type="primary", key=f"bulk_delete_{what}"):
            try:
                done = p.delete_where(wing, room)
            except MempalaceError as exc:
                st.error(md(str(exc)))
                return
            offer_undo(f"Deleted {counted(done.deleted, 'drawer')} of {what}.", done.change)
            st.rerun()
