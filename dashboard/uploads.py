"""Ingest from the browser: a dry-run preview of every uploaded file, then filing them for real."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from mempalace import MempalaceError
from mempalace.scoped import ScopedPalace
from mempalace.ingest import IngestReport, ingest

from .render import md


def preview(p: ScopedPalace, files: list, wing: str | None, room: str | None) -> list[IngestReport]:
    """What each file would add (nothing is written); a file that cannot be read gets an error report."""
    return [_run(p, upload, wing, room, dry_run=True) for upload in files]


def file_all(p: ScopedPalace, files: list, wing: str | None, room: str | None) -> list[IngestReport]:
    """File every upload for real, with a progress bar over the files and over each file's embedding."""
    bar = st.progress(0.0, text="Filing…")
    reports = []
    for number, upload in enumerate(files):
        def step(done: int, total: int, number: int = number) -> None:
            share = (number + (done / total if total else 1)) / len(files)
            bar.progress(min(share, 1.0), text=f"{upload.name}: {done} of {total} drawers embedded")

        reports.append(_run(p, upload, wing, room, dry_run=False, progress=step))
    bar.progress(1.0, text="Done")
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
                 f"({report.conversations} conversation(s), {report.planned} drawer(s)).")
        rows = [{"status": d.status, "wing": d.wing, "room": d.room, "hall": d.hall,
                 "text": d.content[:120].replace("\n", " ")} for d in report.drawers]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=min(400, 38 + 35 * len(rows)))
