"""What an empty palace (or an empty view of one) offers: the demo for those who may file it, else
the way to upload."""

import streamlit as st

from mempalace import MempalaceError
from mempalace.demo import DEMO_WINGS
from mempalace.scoped import ScopedPalace

from .render import md


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
        from mempalace.demo import load_demo

        bar = st.progress(0.0, text="Filing the demo conversations…")
        try:
            load_demo(p, progress=lambda done, total: bar.progress(done / total, text=f"{done} of {total} filed"))
        except MempalaceError as exc:
            st.error(md(str(exc)))
            return
        st.rerun()
    st.page_link("app_pages/ingest.py", label="Upload transcripts", icon=":material/upload_file:")
