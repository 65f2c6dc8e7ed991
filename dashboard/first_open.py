"""A palace's first open builds its catalog from Chroma (seconds at 100k drawers, minutes at a million):
the dashboard shows how far it got instead of a page that seems to hang."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import streamlit as st

from mempalace import Palace
from mempalace.catalog.build_progress import catalog_built, read_progress

POLL_SECONDS = 0.25


def catalog_ready(palace: Palace) -> None:
    """Return once the palace's catalog is built, with a progress bar while a build says how far it got
    (a new or empty palace shows none)."""
    if catalog_built(palace.catalog_path):
        return
    bar = None
    with ThreadPoolExecutor(max_workers=1) as pool:
        built = pool.submit(palace.count)  # the first read builds the catalog (or waits for the host's build)
        while not built.done():
            found = read_progress(palace.catalog_path)
            if found is not None:
                bar = bar or st.progress(0.0)
                bar.progress(found.fraction, text=f"Opening the palace. {found.said()}…")
            time.sleep(POLL_SECONDS)
    if bar is not None:
        bar.empty()
    built.result()  # its error, if any, is the page's as usual
