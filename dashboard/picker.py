"""The sidebar's "Palace path or server URL" box: what it names, and opening that palace without ever
making one from a typo.

- Empty: the default palace, created on first use (a fresh machine's `make dashboard`).
- A folder path (`~` expands; a relative one is taken from the home folder, never the working
  directory): opened if a palace is there; a missing or empty folder shows "No palace at …" and a
  button that creates one; a file or a folder of other things is an error.
- http:// or https://: a Chroma server. Any other `scheme://` is refused.

Errors are shown in the main area with what to do, and in the sidebar beside the box, which stays
usable. The session holds only the palace it names (`views.hold`): choosing another releases it.
"""

from __future__ import annotations

import re

import streamlit as st

from mempalace import MempalaceError, Palace
from mempalace.config import Settings
from mempalace.errors import InvalidInputError, NotAPalaceError, PalaceUnavailableError
from mempalace.palace.opening import Target, describe_target
from mempalace.scoped.palace import ScopedPalace

from .first_open import catalog_ready
from .render import counts, md
from .views import hold, open_palace, release_held, stats

BOX = "Palace path or server URL"
MODE_LABELS = {
    "shared": "Shared palace (every MemPalace process on this machine uses it at once)",
    "embedded": "Private palace (only this dashboard has it open)",
    "server": "Chroma server",
}
ROOMS_HELP = ("Rooms in the palace's graph, as on the Overview (the graph_hidden_rooms setting, such as "
              "general, is left out).")
HOST_PORT = re.compile(r"^[\w.-]+:\d+(/.*)?$")  # localhost:8000, typed without http://


def palace_box(given: str, settings: Settings) -> str:
    """The box in the sidebar (call it inside `st.sidebar`); returns what it holds."""
    return st.text_input(
        BOX, value=given, placeholder=f"default: {settings.default_palace}", key="palace_target",
        help="A palace folder (shared with every MemPalace process on this machine): `~/work/palace`, or "
             "a path relative to your home folder. Or a Chroma server: http://host:port or https://host. "
             "A folder with no palace in it is never created unless you ask.")


def chosen_palace(text: str, settings: Settings, team: bool) -> Palace:
    """The palace `text` names, held for this session. A folder with no palace stops the run after
    offering to create one; errors are raised (`cannot_open` shows them)."""
    try:
        target = describe_target(text, settings)
    except MempalaceError:
        release_held()
        raise
    asked = target.kind == "missing" and not (target.default or team)  # a team's palace is its admin's choice
    if asked:
        release_held()
        offer_to_create(target, text)
    path = None if target.path is None else str(target.path)
    hold(path, target.url)
    try:
        palace = open_palace(path, target.url, target.kind != "palace")
        catalog_ready(palace)
    except MempalaceError:
        release_held()
        raise
    if asked:
        st.rerun()  # the page drawn so far offered to create it
    return palace


FORMS = ("search_applied", "drawers_applied")  # what the Search and Drawers forms last took from the URL


def forget_forms() -> None:
    """A run that stops before the page leaves its form's fields blank in the browser once the page
    is back: forgetting what the forms took from the URL makes them load it again, so nothing is lost."""
    for name in FORMS:
        st.session_state.pop(name, None)


def offer_to_create(target: Target, text: str) -> None:
    """"No palace at …" and a button; returns only once it is clicked (the caller then creates it),
    else stops the run."""
    forget_forms()
    st.title("No palace here")
    st.warning(md(f"No palace at {target.path}"))
    hint = " For a Chroma server, write http:// before its address." if HOST_PORT.match(text.strip()) else ""
    st.markdown("Nothing has been created. Check the path in the sidebar's box (a relative path is taken "
                f"from your home folder), or make a new, empty palace in this folder.{hint}")
    if not st.button("Create a palace here", type="primary"):
        st.stop()


def cannot_open(exc: MempalaceError, team: bool) -> None:
    """Why the palace cannot be opened, in the main area and the sidebar, and what to do; stops the run."""
    forget_forms()
    st.sidebar.error(md(str(exc)))
    st.title("Cannot open this palace")
    st.error(md(str(exc)))
    st.markdown(what_to_do(exc, team))
    st.stop()


def what_to_do(exc: MempalaceError, team: bool) -> str:
    if team:
        return "Ask whoever runs this dashboard to check the palace it was started with."
    if isinstance(exc, PalaceUnavailableError):
        advice = "check the server's address (`http://host:port`) and that its Chroma server is running"
    elif isinstance(exc, NotAPalaceError):
        advice = "give the palace folder itself (it holds chroma.sqlite3), or a new or empty folder"
    elif isinstance(exc, InvalidInputError):
        advice = "give a palace folder, or a Chroma server's `http://` or `https://` address"
    else:
        advice = "give another palace folder or server address"
    return f"In the sidebar's **{BOX}** box, {advice}. Leave it empty for the default palace."


def sidebar_summary(palace: ScopedPalace, team: bool) -> None:
    """Where the palace is, what kind it is and its counts (rooms counted as the Overview counts them)."""
    st.caption(md("Team palace" if team else MODE_LABELS.get(palace.mode, palace.mode) + f": {palace.location}"))
    st.html(counts([("Drawers", f"{palace.count():,}", ""), ("Wings", len(palace.list_wings()), ""),
                    ("Rooms", stats(palace).total_rooms, ROOMS_HELP)], size="1.5rem"))
    st.button("Refresh", help="Read the palace again (other clients and tools may have written to it).")
    for warning in palace.warnings():
        st.warning(md(warning), icon=":material/lock_open:")
