"""`mempalace halls`: how many drawers each hall holds (and how many none), and `--rebuild` to choose
again the halls ingest chose, with the rule of today (a hall only when the drawer is clearly of it)."""

from __future__ import annotations

import dataclasses

import click

from ..palace.palace import Palace
from ..text.counts import counted
from .support import emit, palace_command

NO_HALL_SHOWN = "(no hall)"


@click.command("halls")
@click.option("--rebuild", is_flag=True, help="Choose again the halls ingest chose (a hall a person set never changes).")
@click.option("--dry-run", is_flag=True, help="With --rebuild: show which drawers would change, change nothing.")
@palace_command()
def halls_command(ctx: click.Context, palace: Palace, rebuild: bool, dry_run: bool) -> None:
    """Drawers per hall (a hall is given only to drawers clearly of its kind); --rebuild re-halls the palace."""
    if dry_run and not rebuild:
        raise click.UsageError("--dry-run goes with --rebuild.")
    if rebuild:
        from ..ingest.rehall import rehall

        report = rehall(palace, dry_run=dry_run)
        emit(ctx, {"dry_run": report.dry_run, "considered": report.considered, "kept": report.kept,
                   "changed": report.changed, "changes": [dataclasses.asdict(c) for c in report.changes]},
             lambda: _rehall_text(report))
        return
    found = palace.hall_counts()
    emit(ctx, found, lambda: "\n".join(f"{n:6d}  {hall or NO_HALL_SHOWN}" for hall, n in found.items())
         or "No drawers yet.")


def _rehall_text(report) -> str:
    done = f"Would change {len(report.changes)}" if report.dry_run else f"Changed {report.changed}"
    lines = [f"{done} of {counted(report.considered, 'drawer')} whose hall ingest chose; "
             f"{counted(report.kept, 'drawer')} with a hall a person set "
             + ("keeps it." if report.kept == 1 else "keep theirs.")]
    if not report.dry_run and report.changed < len(report.changes):
        lines.append(f"{counted(len(report.changes) - report.changed, 'drawer')} changed meanwhile, left as found.")
    lines += [f"{n:6d}  {old or NO_HALL_SHOWN} -> {new or NO_HALL_SHOWN}" for old, new, n in report.summary()]
    return "\n".join(lines)
