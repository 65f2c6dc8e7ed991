"""The Sources panel of the Ingest page, and the Overview's lines on whether the sources sync now and
how fresh the palace is.

Every source with its path, format, wing, last sync, files seen and gone and each file's error; "Sync
now"; adding a suggested tool folder or a typed path, and removing one (admins; editors sync).
"""

from __future__ import annotations

from datetime import datetime, timezone

import pandas as pd
import streamlit as st

from mempalace import MempalaceError
from mempalace.scoped.palace import ScopedPalace
from mempalace.catalog.source_book import SourceEntry
from mempalace.text.counts import counted

from .render import md, readable_time, unlinked

SYNC_LINES_SECONDS = 10  # how often the Overview's lines on syncing are redrawn


def ago(moment: str | None, now: datetime | None = None) -> str:
    """`2 min ago`, `3 h ago`, `5 days ago`; "never" for no time."""
    if not moment:
        return "never"
    try:
        then = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    except ValueError:
        return moment
    seconds = max(0, int(((now or datetime.now(timezone.utc)) - then).total_seconds()))
    for size, unit, units in ((86_400, "day", "days"), (3_600, "h", "h"), (60, "min", "min")):
        if seconds >= size:
            return f"{counted(seconds // size, unit, units)} ago"
    return "just now"


def freshness(entries: list[SourceEntry], now: datetime | None = None) -> str:
    """One line per source for the Overview: `claude-code synced 2 min ago, 3 new conversations 1 h ago`."""
    lines = []
    for entry in entries:
        line = f"{entry.name} synced {ago(entry.last_sync, now)}"
        if entry.last_new_at:
            line += f", {counted(entry.last_new_conversations, 'new conversation')} {ago(entry.last_new_at, now)}"
        lines.append(line)
    return "; ".join(lines)


@st.fragment(run_every=SYNC_LINES_SECONDS)
def sync_lines(p: ScopedPalace) -> None:
    """The Overview's lines on the sources, if it has any: whether they sync now (and when the timer
    looks next), and how fresh each is; redrawn every few seconds while the page is open."""
    if entries := p.synced.entries():
        st.caption(md(p.synced.status().summary()))
        st.caption(md("Kept in sync: " + freshness(entries)))


def show_sources(p: ScopedPalace) -> None:
    """The panel: the sources table, each failing file, sync, remove and add."""
    sources = p.synced
    entries = sources.entries()
    if not entries and not sources.may_change:
        return
    st.subheader("Sources kept in sync")
    st.caption(f"Filed by themselves every {p.settings.sources_sync_seconds:g} s while the palace is in use "
               "(and by `mempalace sources watch`); a file already filed is not read again until it changes.")
    if entries:
        st.dataframe(pd.DataFrame([_row(e) for e in entries]), hide_index=True, width="stretch")
        for entry in entries:
            if entry.errors and sources.may_change:
                with st.expander(md(f"{entry.name}: {counted(len(entry.errors), 'file')} failed")):
                    st.text("\n".join(f"{path}: {message}" for path, message in entry.errors))
            elif entry.errors:
                st.caption(md(f"{entry.name}: {counted(len(entry.errors), 'file')} failed; an admin sees which "
                              "and why."))
        _actions(p, entries)
    else:
        st.caption("No sources yet: add a folder below and new conversations in it are filed by themselves.")
    if sources.may_change:
        _add(p)
    _say_done()


def _row(entry: SourceEntry) -> dict:
    """A source's row, the counts before the (long) path so a narrow page shows them."""
    return {"source": entry.name, "last sync": readable_time(entry.last_sync) if entry.last_sync else "never",
            "files": entry.files_seen, "gone": entry.files_gone, "filed by last sync": entry.last_added,
            "failed": len(entry.errors), "wing": entry.wing_shown(),
            "format": entry.format or "detected", **({"path": entry.path} if entry.path else {})}


def _actions(p: ScopedPalace, entries: list[SourceEntry]) -> None:
    left, right = st.columns(2)
    if p.synced.may_sync and left.button("Sync now", key="sources_sync"):
        with st.spinner("Syncing…"):
            _do(_sync_now(p))
    if p.synced.may_change:
        name = right.selectbox("Source to remove", [e.name for e in entries], key="sources_remove_name")
        if right.button("Remove source", key="sources_remove", help="Stops syncing it; its drawers stay."):
            _do(lambda: f"Removed {p.synced.remove(name).name}; its drawers stay in the palace.")


def _sync_now(p: ScopedPalace):
    """The sync, as a panel action: a sync in which a file failed is said as a warning."""
    def run() -> str:
        reports = p.synced.sync()
        said = "; ".join(r.summary() for r in reports) or "No source to sync."
        if any(r.errors for r in reports):
            raise _Failed(said)
        return said
    return run


class _Failed(MempalaceError):
    """A sync that filed what it could and failed on some files."""


def _add(p: ScopedPalace) -> None:
    for item in p.synced.suggestions():
        if item.path in {e.path for e in p.synced.entries()}:
            continue
        if st.button(md(f"Add {item.tool}: {item.path} ({counted(item.files, 'file')})"), key=f"suggest_{item.name}"):
            _do(lambda item=item: _added(p.synced.add(item.path, name=item.name)))
    cols = st.columns([3, 2, 1], vertical_alignment="bottom")
    path = cols[0].text_input("Folder or file to keep in sync", key="sources_path",
                              placeholder="~/.claude/projects").strip()
    wing = cols[1].text_input("Wing (optional)", key="sources_wing", placeholder="chosen per conversation",
                              help="Empty: a coding tool's session goes to its project's wing, an export to its "
                                   "service's or workspace's, plain text to one wing named after the source.").strip()
    per_file = st.checkbox("A wing per text file", key="sources_wing_per_file", disabled=bool(wing),
                           help="Plain text goes to a wing named after each file, not to the source's wing.")
    if cols[2].button("Add source", key="sources_add", disabled=not path):
        _do(lambda: _added(p.synced.add(path, wing or None, wing_per_file=per_file and not wing)))


def _added(entry: SourceEntry) -> str:
    return f"Added {entry.name}: the next sync files what it holds. Wing: {entry.wing_rule()}."


def _do(action) -> None:
    """Run a panel action; what it did (or its error) is said after the rerun that shows its effect."""
    try:
        st.session_state["sources_said"] = ("success", action())
    except _Failed as exc:
        st.session_state["sources_said"] = ("warning", str(exc))
    except MempalaceError as exc:
        st.session_state["sources_said"] = ("error", str(exc))
    st.rerun()


def _say_done() -> None:
    said = st.session_state.pop("sources_said", None)
    if said:
        {"success": st.success, "warning": st.warning}.get(said[0], st.error)(unlinked(said[1]))
