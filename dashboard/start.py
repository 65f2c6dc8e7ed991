"""What an empty palace (or an empty view of one) offers: the demo for those who may file it, else
the way to upload; and, once the demo is loaded, the way to remove it."""

import streamlit as st

from mempalace import MempalaceError
from mempalace.palace.demo_drawers import DEMO_WINGS, demo_drawers
from mempalace.scoped.palace import ScopedPalace
from mempalace.text.counts import counted

from .render import md
from .trash_view import offer_undo, undo_box

ASKED = "demo_removal_asked"  # the person pressed "Remove the demo" and is asked to confirm
SAID = "demo_removal_said"  # what the removal did, shown by the run after it


def empty_palace(p: ScopedPalace) -> None:
    """The Overview of a palace with no drawers the person may see."""
    if not all(p.may("ingest", wing) for wing in DEMO_WINGS):  # the demo files into its own wings
        st.info("There are no drawers in the wings you may see yet.")
        if p.may("ingest"):
            st.page_link("app_pages/ingest.py", label="Upload transcripts", icon=":material/upload_file:")
        return
    st.info("The palace is empty. Upload conversations on the Ingest page, or load a demo palace: a few "
            "synthetic conversations about Kai, Driftwood and Priya's auth migration.")
    if st.button("Load the demo palace", type="primary"):
        from mempalace.ingest.demo import load_demo  # ingest and its models, only when the demo is loaded

        bar = st.progress(0.0, text="Filing the demo conversations…")
        try:
            load_demo(p, progress=lambda done, total: bar.progress(done / total, text=f"{done} of {total} filed"))
        except MempalaceError as exc:
            st.error(md(str(exc)))
            return
        st.rerun()
    st.page_link("app_pages/ingest.py", label="Upload transcripts", icon=":material/upload_file:")


def demo_removal(p: ScopedPalace) -> None:
    """On the Overview of a palace holding the demo, for those who may delete in its wings: "Remove
    the demo", behind a confirmation naming how many drawers go. Says what the last removal did."""
    if said := st.session_state.pop(SAID, None):
        st.success(md(said))
    undo_box(p)
    found = p.derived(("demo-drawers",), lambda: tuple(demo_drawers(p)))
    wings = {d.wing for d in found}
    if not found or not all(p.may("delete", wing) for wing in wings):
        return
    if not st.session_state.get(ASKED):
        if st.button("Remove the demo", help="Delete the demo's drawers (Kai, the Driftwood team and Priya); "
                                            "drawers of yours stay, also in rooms the demo used."):
            st.session_state[ASKED] = True
            st.rerun()
        return
    rooms = {d.room for d in found}
    yours = sum(n for _, room, _, n in p.places() if room in rooms) - len(found)
    st.warning(md(f"Remove the demo's {counted(len(found), 'drawer')} (Kai, the Driftwood team and Priya)? Drawers "
                  "of yours stay" + (f", also {yours} in {'a room' if yours == 1 else 'rooms'} the demo used." if yours
                                     else ".")))
    yes, no, _ = st.columns([2, 1, 3])  # room for the whole label
    if no.button("Cancel", key="demo_removal_no"):
        st.session_state.pop(ASKED, None)
        st.rerun()
    if yes.button("Yes, remove the demo", key="demo_removal_yes", type="primary"):
        st.session_state.pop(ASKED, None)
        try:
            removal = p.remove_demo()
        except MempalaceError as exc:
            st.error(md(str(exc)))
            return
        if removal.change:
            offer_undo(removal.summary(), removal.change)
        else:
            st.session_state[SAID] = removal.summary()
        st.rerun()
