"""The Tunnels page's re-rooming and re-halling panels: preview which drawers would move where (or
change hall), then apply."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from mempalace import MempalaceError
from mempalace.ingest.rehall import apply_changes, rehall
from mempalace.ingest.reroom import apply_moves, reroom
from mempalace.scoped.palace import ScopedPalace
from mempalace.text.counts import counted

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


@dataclass(frozen=True)
class _Rebuild:
    """What differs between the re-rooming and the re-halling panel (`name` keys their widgets)."""

    name: str
    toggle: str
    doing: str
    caption: str
    spinner: str
    preview: Callable[[ScopedPalace], Any]
    said: Callable[[Any], str]
    rows: Callable[[Any], list[dict[str, Any]]]
    columns: tuple[str, ...]
    changes: Callable[[Any], Sequence[Any]]
    apply: Callable[[ScopedPalace, Any], int]
    done: Callable[[int], str]


REROOM = _Rebuild(
    name="reroom", toggle="Re-room the palace", doing="re-rooming",
    caption="Re-rooming chooses again the rooms ingest chose for every drawer, as ingest would today; "
            "rooms a person chose (moves, merges, --room, add) stay.",
    spinner="Choosing every room again…", preview=lambda p: reroom(p, dry_run=True),
    said=lambda plan: (f"{len(plan.moves)} of {counted(plan.considered, 'drawer')} would move; {plan.kept} in rooms "
                       "a person chose " + ("stays." if plan.kept == 1 else "stay.")),
    rows=lambda plan: [{"wing": w, "from room": old, "to room": new, "drawers": n} for w, old, new, n in plan.summary()],
    columns=("wing", "from room", "to room", "drawers"), changes=lambda plan: plan.moves, apply=apply_moves,
    done=lambda moved: f"Moved {counted(moved, 'drawer')}.")

REHALL = _Rebuild(
    name="rehall", toggle="Re-hall the palace", doing="re-halling",
    caption="Re-halling chooses again the hall ingest chose for every drawer, as ingest would today: a hall "
            "only for a drawer clearly of its kind, none otherwise. A hall a person set (moves, add --hall) stays.",
    spinner="Choosing every hall again…", preview=lambda p: rehall(p, dry_run=True),
    said=lambda plan: (f"{len(plan.changes)} of {counted(plan.considered, 'drawer')} would change; "
                       f"{counted(plan.kept, 'drawer')} with a hall a person set "
                       + ("keeps it." if plan.kept == 1 else "keep theirs.")),
    rows=lambda plan: [{"from hall": old or NO_HALL_LABEL, "to hall": new or NO_HALL_LABEL, "drawers": n}
                       for old, new, n in plan.summary()],
    columns=("from hall", "to hall", "drawers"), changes=lambda plan: plan.changes, apply=apply_changes,
    done=lambda changed: f"Changed the hall of {counted(changed, 'drawer')}.")


def reroom_panel(p: ScopedPalace) -> None:
    """Preview and apply `mempalace rooms --rebuild`; rooms a person chose are never touched."""
    _rebuild_panel(p, REROOM)


def rehall_panel(p: ScopedPalace) -> None:
    """Preview and apply `mempalace halls --rebuild`; a hall a person set is never touched."""
    _rebuild_panel(p, REHALL)


def _rebuild_panel(p: ScopedPalace, kind: _Rebuild) -> None:
    """Preview, then apply, choosing again what ingest chose. Drawn only when its toggle is on (the
    panel is seldom used, and each element costs the browser)."""
    if not st.toggle(kind.toggle, key=f"{kind.name}_open"):
        return
    st.caption(kind.caption)
    if st.button(f"Preview {kind.doing}", key=f"{kind.name}_preview"):
        try:
            with st.spinner(kind.spinner):
                st.session_state[f"{kind.name}_plan"] = (key(p), kind.preview(p))
        except MempalaceError as exc:
            st.error(md(str(exc)))
    made_for, preview = st.session_state.get(f"{kind.name}_plan", (None, None))
    if preview is None or made_for != key(p):  # another palace, or this one changed since: preview again
        return
    st.write(kind.said(preview))
    st.dataframe(pd.DataFrame(kind.rows(preview), columns=list(kind.columns)), hide_index=True, width="stretch")
    if kind.changes(preview) and st.button(f"Apply {kind.doing}", key=f"{kind.name}_apply", type="primary"):
        try:
            done = kind.apply(p, kind.changes(preview))
            st.session_state.pop(f"{kind.name}_plan", None)
            st.toast(kind.done(done))
            st.rerun()
        except MempalaceError as exc:
            st.error(md(str(exc)))
