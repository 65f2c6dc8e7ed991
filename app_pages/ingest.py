"""Ingest: upload transcripts, see what would be filed and what is already there, then file them."""

import streamlit as st

from dashboard.rename import offer_similar_room
from dashboard.render import md
from dashboard.uploads import file_all, preview, show_preview
from dashboard.views import link_to_search, palace
from mempalace.formats import FORMATS
from mempalace.wording import counted

FROM_FILE = "(from each file)"
p = palace()
st.title("Ingest conversations")
st.caption("Conversations from the formats listed below. Nothing is written until you press File.")
files = st.file_uploader("Transcript files", accept_multiple_files=True, key="ingest_files")
cols = st.columns(2)
anywhere = p.may("ingest", "*")  # an editor of some wings files only into those, never "from each file"
chosen, wings = st.session_state.get("ingest_wing"), [w for w in p.list_wings() if p.may("ingest", w)]
wing_options = [*([FROM_FILE] if anywhere else []), *wings,
                *([chosen] if chosen and chosen not in wings and chosen != FROM_FILE else [])]
wing_choice = cols[0].selectbox("Wing", wing_options, accept_new_options=True, key="ingest_wing",
                                help="Pick a wing or type a new one; by default each conversation goes to its "
                                     "service's, Slack workspace's or project's wing (a plain text file's name last).")
room = cols[1].text_input("Room (optional)", placeholder="chosen from each conversation's words",
                          key="ingest_room").strip() or None
offer_similar_room(p, room, "ingest_room")
wing = None if wing_choice in (None, FROM_FILE) else wing_choice
if wing is None and not anywhere:
    st.info("Pick or type one of your wings to file into.")
    st.stop()
if not files:
    st.info("Drop one or more files above.")
    st.markdown("**Formats**, detected in this order:\n\n" + "\n".join(
        f"- **{md(m.LABEL)}**: {md(m.READS)}" for m in FORMATS.values()))
    st.stop()

request = (tuple(f.file_id for f in files), wing, room)
if st.session_state.get("ingest_request") != request:
    st.session_state.update(ingest_request=request, ingest_preview=None, ingest_done=None)
if st.session_state["ingest_done"] is None and (st.button("Preview") or st.session_state["ingest_preview"] is not None):
    if st.session_state["ingest_preview"] is None:
        st.session_state["ingest_preview"] = preview(p, files, wing, room)  # shows its own progress bar
    reports = st.session_state["ingest_preview"]
    new = sum(r.new for r in reports if r.ok)
    st.subheader(f"Preview: {sum(r.already_present for r in reports if r.ok)} already in the palace, {new} new")
    for report in reports:
        show_preview(report)
    if new and st.session_state["ingest_done"] is None and st.button(f"File {counted(new, 'new drawer')}", type="primary"):
        st.session_state["ingest_done"] = file_all(p, files, wing, room)
        st.rerun()  # so the sidebar and this page show the palace as it is now

done = st.session_state.get("ingest_done")
if done:
    st.subheader("Filed")
    for report in done:
        (st.error if report.errors else st.success)(md(report.summary()))
    for added_wing in sorted({w for r in done for w in r.wings}):
        link_to_search(f"Search what was added to {md(added_wing)}", wing=added_wing)
