"""The Changes page's list: each change of place (a move, a rename or merge of rooms, a re-rooming, a
delete, a restore, an undo), newest first, with an Undo for those that can still be reverted."""

from __future__ import annotations

import streamlit as st

from mempalace.scoped.palace import ScopedPalace
from mempalace.text.counts import counted

from .render import md, readable_detail
from .trash_view import undo, when

SHOWN = 50


def changes_list(p: ScopedPalace) -> None:
    found = p.change_list(SHOWN)
    if not found:
        st.info("No changes yet: moves, renames, merges, re-roomings and deletes are listed here.")
        return
    for change in found:
        with st.container(border=True):
            said, act = st.columns([5, 1], vertical_alignment="center")
            said.markdown(md(f"{when(change.at)} · {change.who} · {change.action} · "
                             f"{counted(change.drawers, 'drawer')}"))
            undone = f" · undone by {change.undone_by}" if change.undone_by else ""
            said.caption(md(f"change {change.id}" + (f" · {readable_detail(change.detail)}" if change.detail else "")
                            + undone))
            if not change.undone_by and change.action != "undo" and act.button(
                    "Undo", key=f"undo_{change.id}", help="Put its drawers back as they were before it"):
                undo(p, change.id)
