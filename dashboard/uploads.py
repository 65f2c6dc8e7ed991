"""Ingest from the browser: a dry-run preview of every uploaded file, then filing them for real."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from mempalace import MempalaceError
from mempalace.scoped.palace import ScopedPalace
from mempalace.ingest import IngestReport, ingest_uploads
from mempalace.text.counts import counted

from mempalace.formats.registry import FORMATS

from .rename import offer_similar_room
from .render import md
from .text import plain_text
from .views import link_to_search

FROM_FILE = "(from each file)"


def preview(p: ScopedPalace, files: list, wing: str | None, room: str | None) -> list[IngestReport]:
    """What the files would add together (nothing is written; a conversation two files hold counts once,
    as filing them would), with a progress bar over the files and the embedding (the slow part; the
    vectors are kept, so filing afterwards does not embed again). A file that cannot be read gets an
    error report."""
    bar = st.progress(0.0, text="Reading and checking against the palace…")
    reports = _all(p, files, wing, room, bar, dry_run=True)
    bar.empty()
    return reports


def file_all(p: ScopedPalace, files: list, wing: str | None, room: str | None) -> list[IngestReport]:
    """File every upload for real, with a progress bar over the files and the embedding."""
    bar = st.progress(0.0, text="Filing…")
    reports = _all(p, files, wing, room, bar, dry_run=False)
    bar.progress(1.0, text="Done")
    return reports


def _all(p: ScopedPalace, files: list, wing: str | None, room: str | None, bar, dry_run: bool) -> list[IngestReport]:
    """Ingest (or preview) the uploads together, moving `bar` over the files and their drawers."""
    done: list[IngestReport] = []

    def step(embedded: int, total: int) -> None:
        share = (len(done) + (embedded / total if total else 1)) / len(files)
        bar.progress(min(share, 1.0), text=f"{embedded} of {counted(total, 'drawer')} embedded")

    def heard(report: IngestReport) -> None:
        done.append(report)
        rest = ", reading the others…" if len(done) < len(files) else ""
        bar.progress(min(len(done) / len(files), 1.0), text=f"{len(done)} of {counted(len(files), 'file')} done{rest}")

    try:
        return ingest_uploads(p, [(upload.name, upload.getvalue()) for upload in files], wing=wing, room=room,
                              dry_run=dry_run, progress=step, on_report=heard)
    except MempalaceError as exc:  # the files not reported yet were not filed
        return done + [IngestReport(source=upload.name, errors=(str(exc),), dry_run=dry_run) for upload in files[len(done):]]


def show_preview(report: IngestReport) -> None:
    """One file's detected format, its duplicate report and the drawers it would file."""
    with st.container(border=True):
        st.text(f"{report.source} · format: {report.format or 'not recognised'}")
        if report.errors:
            st.error(md(report.errors[0]))
            return
        st.write(f"{report.already_present} already in the palace, {report.new} new "
                 f"({counted(report.conversations, 'conversation')}, {counted(report.planned, 'drawer')}).")
        show_places(report)
        rows = [{"status": d.status, "wing": d.wing, "room": d.room, "hall": d.hall,
                 "text": plain_text(d.content, {"format": report.format})[:120].replace("\n", " "),
                 "conversation": d.title or "", "wing from": d.wing_from or "already filed"} for d in report.drawers]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=min(400, 38 + 35 * len(rows)))


def show_places(report: IngestReport) -> None:
    """Where each conversation of a file went or would go (wing and why, rooms, halls), one line each."""
    if report.places:
        st.markdown("\n".join(f"- {md(line)}" for line in report.by_conversation()))


def upload_section(p: ScopedPalace) -> None:
    """Upload transcripts, preview what would be filed and what is already there, then file them."""
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
        return
    if not files:
        st.info("Drop one or more files above.")
        st.markdown("**Formats**, detected in this order:\n\n" + "\n".join(
            f"- **{md(m.LABEL)}**: {md(m.READS)}" for m in FORMATS.values()))
        return
    _preview_and_file(p, files, wing, room)


def _preview_and_file(p: ScopedPalace, files: list, wing: str | None, room: str | None) -> None:
    """The Preview button, each file's preview, the File button, and what filing did."""
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
            show_places(report)
        for added_wing in sorted({w for r in done for w in r.wings}):
            link_to_search(f"Search what was added to {md(added_wing)}", wing=added_wing)
