"""Audit (admins): every write to the palace, who made it, when and from where; filter and export."""

import json

import pandas as pd
import streamlit as st

from dashboard.render import md, readable_detail, readable_time
from dashboard.views import palace
from mempalace import MempalaceError
from mempalace.access.rules import VIA
from mempalace.access.audit import AUDIT_ACTIONS
from mempalace.archive.export import AUDIT_COLUMNS, audit_to_csv
from mempalace.text.counts import counted

ANY = "(any)"
p = palace()
st.title("Audit log")
st.caption("Every write to this palace, newest first: kept with the palace, append-only, each entry "
           "chained to the one before so a change made outside MemPalace shows.")
check, gone = p.audit_check()
for problem in gone + ([] if check.intact else [check.summary()]):
    st.error(md(problem), icon=":material/gpp_bad:")
if check.intact:
    st.caption(md(check.summary()))
cols = st.columns([2, 1, 1, 1], vertical_alignment="bottom")
who = cols[0].text_input("Who", placeholder="an e-mail or token:name")
via = cols[1].selectbox("From", [ANY, *VIA])
action = cols[2].selectbox("Action", [ANY, *AUDIT_ACTIONS])
narrowed = sum(bool(st.session_state.get(k)) for k in ("audit_since", "audit_until", "audit_drawer"))
with cols[3].popover("Dates, drawer" + (f" ({narrowed} set)" if narrowed else ""), key="audit_more", width="stretch"):
    since = st.date_input("From date", value=None, key="audit_since")
    until = st.date_input("To date", value=None, key="audit_until")
    drawer = st.text_input("Drawer id", placeholder="entries that touched this drawer", key="audit_drawer")
try:
    entries = p.audit_entries(who=who.strip() or None, via=None if via == ANY else via,
                              action=None if action == ANY else action, since=since and since.isoformat(),
                              until=until and until.isoformat(), drawer=drawer.strip() or None, limit=5_000)
except MempalaceError as exc:
    st.error(md(str(exc)))
    st.stop()
rows = [{"when": e.at, "who": e.who, "from": e.via, "action": e.action, "drawers": len(e.ids),
         "details": json.dumps(e.detail, ensure_ascii=False), "ids": " ".join(e.ids)} for e in entries]
shown = [{**r, "when": readable_time(e.at), "details": readable_detail(e.detail)} for r, e in zip(rows, entries)]
table = pd.DataFrame(shown, columns=list(AUDIT_COLUMNS))  # the exports keep the exact values
st.caption(counted(len(rows), "entry") + (" (the newest 5,000)" if len(rows) == 5_000 else ""))
st.dataframe(table, hide_index=True, width="stretch")
left, right = st.columns(2)
left.download_button("Export CSV", audit_to_csv(entries), file_name="mempalace-audit.csv", mime="text/csv")
right.download_button("Export JSON", json.dumps([{**r, "ids": r["ids"].split()} for r in rows], ensure_ascii=False,
                                                indent=1), file_name="mempalace-audit.json", mime="application/json")
