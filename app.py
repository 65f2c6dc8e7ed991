"""MemPalace dashboard: navigation and the shared sidebar; each page lives in app_pages/.

The folder is not called pages/: Streamlit would then run a deep link such as /search as a bare
legacy page, without this router, on the first request after the server starts."""

import argparse
import logging
import os
import sys
from pathlib import Path

import streamlit as st

from dashboard.picker import cannot_open, chosen_palace, palace_box, sidebar_summary
from dashboard.render import md
from dashboard.signin import (current_grant, refuse_foreign_host, refuse_signed_out, refuse_unless_loopback,
                              sign_in_configured, signed_in_panel)
from mempalace import MempalaceError
from mempalace.access.rules import is_loopback
from mempalace.config import load_settings
from mempalace.scoped.palace import ScopedPalace

st.set_page_config(page_title="MemPalace", page_icon="🏛️", layout="wide")
# `streamlit run app.py -- --url http://127.0.0.1:8000` (or --palace DIR) picks the palace; else MEMPALACE_URL.
parser = argparse.ArgumentParser(add_help=False)
parser.add_argument("--url")
parser.add_argument("--palace")
chosen = parser.parse_known_args(sys.argv[1:])[0]
team = sign_in_configured()
refuse_unless_loopback(team or is_loopback(st.get_option("server.address") or "0.0.0.0"))
refuse_foreign_host(team)
try:
    settings = load_settings()
    grant = current_grant(settings, team)
except MempalaceError as exc:  # before sign-in, a team's visitors are not shown the settings' details
    logging.getLogger("mempalace.dashboard").error("%s", exc)
    st.error("MemPalace's settings cannot be read; the dashboard's log says why." if team else md(str(exc)))
    st.stop()
# A --palace path on the command line is the shell's (relative to where it ran); the box's are the home folder's.
given = chosen.url or (chosen.palace and str(Path(chosen.palace).expanduser().absolute())) or os.environ.get(
    "MEMPALACE_URL", "")
with st.sidebar:
    st.header("MemPalace")
    target = given if team else palace_box(given, settings)  # a team's palace is fixed: nobody opens another
try:
    palace = ScopedPalace(chosen_palace(target, settings, team), grant)
    refuse_signed_out(palace, team)
    with st.sidebar:
        signed_in_panel(palace, team)
        sidebar_summary(palace, team)
except MempalaceError as exc:
    cannot_open(exc, team)
st.session_state["palace"] = palace

pages = [
    st.Page("app_pages/overview.py", title="Overview", icon=":material/account_balance:", default=True),
    st.Page("app_pages/search.py", title="Search", icon=":material/search:"),
    st.Page("app_pages/tunnels.py", title="Tunnels", icon=":material/hub:"),
    st.Page("app_pages/ingest.py", title="Ingest", icon=":material/upload_file:") if grant.may("ingest") else None,
    st.Page("app_pages/drawers.py", title="Drawers", icon=":material/inventory_2:"),
    st.Page("app_pages/wakeup.py", title="Wake-up", icon=":material/wb_sunny:"),
    st.Page("app_pages/changes.py", title="Changes", icon=":material/history:") if grant.may("ingest") else None,
    st.Page("app_pages/trash.py", title="Trash", icon=":material/delete:") if grant.may("ingest") else None,
    st.Page("app_pages/audit.py", title="Audit", icon=":material/policy:") if grant.may("audit", "*") else None,
]
st.navigation([p for p in pages if p]).run()
