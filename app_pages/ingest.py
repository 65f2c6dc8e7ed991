"""Ingest: upload transcripts, see what would be filed and what is already there, then file them; and
the sources the palace keeps in sync by itself."""

import streamlit as st

from dashboard.sources_panel import show_sources
from dashboard.uploads import upload_section
from dashboard.views import palace

p = palace()
st.title("Ingest conversations")
upload_section(p)
show_sources(p)
