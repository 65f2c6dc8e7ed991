"""MemPalace dashboard: navigation and the shared sidebar; each page lives in pages/."""

import os

import streamlit as st

from mempalace import MempalaceError, Palace
from mempalace.config import load_settings


@st.cache_resource(show_spinner=False)
def open_palace(path: str | None, url: str | None) -> Palace:
    return Palace.open(path, url)


st.set_page_config(page_title="MemPalace", page_icon="🏛️", layout="wide")
with st.sidebar:
    st.header("MemPalace")
    target = st.text_input("Palace path or server URL", value=os.environ.get("MEMPALACE_URL", ""),
                           placeholder="default: ~/.mempalace/palace")
    is_url = target.startswith(("http://", "https://"))
    try:
        path = None if is_url else str(target or load_settings().default_palace)
        palace = open_palace(path, target if is_url else None)
    except MempalaceError as exc:
        st.error(str(exc))
        st.stop()
    st.caption(palace.location)
    st.metric("Drawers", f"{palace.count():,}")
    st.metric("Wings", len(palace.list_wings()))
    st.metric("Rooms", len(palace.list_rooms()))
    st.button("Refresh")
st.session_state["palace"] = palace

st.navigation([st.Page("pages/overview.py", title="Overview", icon="🏛️", default=True)]).run()
