"""The Tunnels page's re-rooming and re-halling panels: preview which drawers would move where (or
change hall), then apply."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from mempalace import MempalaceError
from mempalace.ingest.rehall import apply_changes, rehall
from mempalace.ingest.reroom import apply_moves, reroom
from mempalace.scoped import ScopedPalace
from mempalace.wording import counted

from .render import NO_HALL_LABEL, md
from .views import key

HOW_ROOMS_ARE_CHOSEN = (
    "Ingest cuts each conversation where its topic changes and files each part in the room whose drawers "
    "it is most like, in any wing, by meaning (the embedding of the text, minus what all of a wing's chats "
    "share) and by its specific words. So the same concept gets the same room in every wing, and that room is "
    "a tunnel. A room is named from all its conversations: of the phrases enough of them use that are specific "
    "to it, the one nearest the room's meaning. Places and products may name a room; people, dates, numbers "
    "and everyday words never do. As a room grows, ingest renames it when a clearly better name appears "
    "(never a name a person gave); its old names keep finding it, in filters, links and `room=`.")


def reroom_panel(p: ScopedPalace) -> None:
    """Preview and apply `mempalace rooms --rebuild`; rooms a person chose are never touched. Drawn
    when its toggle is on (the panel is seldom used, and each element costs the browser)."""
    if not st.toggle("Re-room the palace", key="reroom_open"):
        return
    st.caption("Re-rooming chooses again the rooms ingest chose for every drawer, as ingest would today; "
               "rooms a person chose (moves, merges, --room, add) stay.")
    if st.button("Preview re-rooming", key="reroom_preview"):
        try:
            with st.spinner("Choosing every room again…"):
                st.session_state["reroom_plan"] = (key(p), reroom(p, dry_run=True))
        except MempalaceError as exc:
            st.error(md(str(exc)))
    made_for, preview = st.session_state.get("reroom_plan", (None, None))
    if preview is None or made_for != key(p):  # another palace, or this one changed since: preview again
        return
    st.write(f"{len(preview.moves)} of {counted(preview.considered, 'drawer')} would move; "
             f"{preview.kept} in rooms a person chose " + ("stays." if preview.kept == 1 else "stay."))
    rows = [{"wing": w, "from room": old, "to room": new, "drawers": n} for w, old, new, n in preview.summary()]
    st.dataframe(pd.DataFrame(rows, columns=["wing", "from room", "to room", "drawers"]), hide_index=True,
                 width="stretch")
    if preview.moves and st.button("Apply re-rooming", key="reroom_apply", type="primary"):
        try:
            moved = apply_moves(p, preview.moves)
            st.session_state.pop("reroom_plan", None)
            st.toast(f"Moved {counted(moved, 'drawer')}.")
            st.rerun()
        except MempalaceError as exc:
            st.error(md(str(exc)))


def rehall_panel(p: ScopedPalace) -> None:
    """Preview and apply `mempalace halls --rebuild`; a hall a person set is never touched. Drawn when
    its toggle is on."""
    if not st.toggle("Re-hall the palace", key="rehall_open"):
        return
    st.caption("Re-halling chooses again the hall ingest chose for every drawer, as ingest would today: a hall "
               "only for a drawer clearly of its kind, none otherwise. A hall a person set (moves, add --hall) stays.")
    if st.button("Preview re-halling", key="rehall_preview"):
        try:
            with st.spinner("Choosing every hall again…"):
                st.session_state["rehall_plan"] = (key(p), rehall(p, dry_run=True))
        except MempalaceError as exc:
            st.error(md(str(exc)))
    made_for, preview = st.session_state.get("rehall_plan", (None, None))
    if preview is None or made_for != key(p):
        return
    st.write(f"{len(preview.changes)} of {counted(preview.considered, 'drawer')} would change; "
             f"{counted(preview.kept, 'drawer')} with a hall a person set " + ("keeps it." if preview.kept == 1 else "keep theirs."))
    rows = [{"from hall": old or NO_HALL_LABEL, "to hall": new or NO_HALL_LABEL, "drawers": n}
            for old, new, n in preview.summary()]
    st.dataframe(pd.DataFrame(rows, columns=["from hall", "to hall", "drawers"]), hide_index=True, width="stretch")
    if preview.changes and st.button("Apply re-halling", key="rehall_apply", type="primary"):
        try:
            changed = apply_changes(p, preview.changes)
            st.session_state.pop("rehall_plan", None)
            st.toast(f"Changed the hall of {counted(changed, 'drawer')}.")
            st.rerun()
        except MempalaceError as exc:
            st.error(md(str(exc)))
