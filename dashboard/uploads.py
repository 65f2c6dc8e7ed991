"""Ingest from the browser: a dry-run preview of every uploaded file, then filing them for real."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from mempalace import MempalaceError
from mempalace.scoped import ScopedPalace
from mempalace.ingest import IngestReport, ingest
from mempalace.wording import counted

from .render import md
from .text import plain_text


def preview(p: ScopedPalace, files: list, wing: str | None, room: str | None) -> list[IngestReport]:
    """What each file would add (nothing is written), with a progress bar over the files and over each
    file's embedding (the slow part; the vectors are kept, so filing afterwards does not embed again).
    A file that cannot be read gets an error report."""
    bar = st.progress(0.0, text="Reading and checking against the palace…")
    reports = _each(p, files, wing, room, bar, dry_run=True)
    bar.empty()
    return reports


def file_all(p: ScopedPalace, files: list, wing: str | None, room: str | None) -> list[IngestReport]:
    """File every upload for real, with a progress bar over the files and over each file's embedding."""
    bar = st.progress(0.0, text="Filing…")
    reports = _each(p, files, wing, room, bar, dry_run=False)
    bar.progress(1.0, text="Done")
    return reports


def _each(p: ScopedPalace, files: list, wing: str | None, room: str | None, bar, dry_run: bool) -> list[IngestReport]:
    """Ingest (or preview) the uploads one by one, moving `bar` over the files and their drawers."""
    reports = []
    for number, upload in enumerate(files):
        name = md(upload.name)  # the bar's text is Markdown
        bar.progress(number / len(files), text=f"{name}: reading…")

        def step(done: int, total: int, number: int = number, name: str = name) -> None:
            share = (number + (done / total if total else 1)) / len(files)
            bar.progress(min(share, 1.0), text=f"{name}: {done} of {counted(total, 'drawer')} embedded")

        reports.append(_run(p, upload, wing, room, dry_run=dry_run, progress=step))
    return reports


def _run(p: ScopedPalace, upload, wing: str | None, room: str | None, dry_run: bool, progress=None) -> IngestReport:
    try:
        return ingest(p, upload.getvalue(), filename=upload.name, wing=wing, room=room, dry_run=dry_run,
                      progress=progress)
    except MempalaceError as exc:
        return IngestReport(source=upload.name, errors=(str(exc),), dry_run=dry_run)


def show_preview(report: IngestReport) -> None:
    """One file's detected format, its duplicate report and the drawers it would file."""
    with st.container(border=True):
        st.text(f"{report.source} · format: {report.format or 'not recognised'}")
        if report.errors:
            st.error(md(report.errors[0]))
            return
        st.write(f"{report.already_present} already in the palace, {report.new} new "
                 f"({counted(report.conversations, 'conversation')}, {counted(report.planned, 'drawer')}).")
        rows = [{"status": d.status, "wing": d.wing, "room": d.room, "hall": d.hall,
                 "text": plain_text(d.content, {"format": report.format})[:120].replace("\n", " "),
                 "conversation": d.title or "", "wing from": d.wing_from or "already filed"} for d in report.drawers]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=min(400, 38 + 35 * len(rows)))
