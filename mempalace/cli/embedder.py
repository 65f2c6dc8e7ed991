"""`mempalace embedder`: the palace's embedder and the others; `--to NAME` moves the palace to NAME in
place (see `mempalace.palace.embedder_move`: resumable, safe to stop, searchable until the switch)."""

from __future__ import annotations

import sys

import click

from ..palace.embedder_move import EmbedderInfo, MoveProgress, MoveReport, embedder_info, move_embedder
from ..palace.palace import Palace
from ..text.counts import counted
from .support import echo, emit, palace_command


@click.command("embedder")
@click.option("--to", "target", metavar="NAME", help="Move the palace to this embedder (every drawer embedded again).")
@click.option("--dry-run", is_flag=True, help="With --to: check the move and say what it would do; change nothing.")
@click.option("--yes", "-y", is_flag=True, help="With --to: move without asking (only a terminal is asked).")
@palace_command()
def embedder_command(ctx: click.Context, palace: Palace, target: str | None, dry_run: bool, yes: bool) -> None:
    """The palace's embedder and the available ones; --to NAME moves the palace to NAME (run it again to resume)."""
    if (dry_run or yes) and not target:
        raise click.UsageError("--dry-run and --yes go with --to.")
    if not target:
        info = embedder_info(palace)
        emit(ctx, info, lambda: _info_text(info))
        return
    if not dry_run and not yes and sys.stdin.isatty():
        plan = move_embedder(palace, target, dry_run=True)
        echo(f"Every drawer's vector ({counted(plan.drawers, 'drawer')}) will be computed again with {target} "
             f"(now {plan.before}). Searches and writes go on meanwhile; writes wait while it switches. Close any "
             "MemPalace older than this one that has the palace open first: its writes around the switch would be lost.",
             err=True)
        if not click.confirm("Move the palace?", default=False, err=True):
            echo("Nothing moved.", err=True)
            sys.exit(1)
    report = move_embedder(palace, target, dry_run=dry_run, told=_progress)
    emit(ctx, report, lambda: _report_text(report))


def _info_text(info: EmbedderInfo) -> str:
    told = info.embedder if info.recorded else f"{info.embedder} (configured: the palace records none)"
    lines = [f"Embedder:  {told}", f"Drawers:   {info.drawers:,}",
             "Available: " + ", ".join(info.available),
             "Move with: mempalace embedder --to NAME"]
    if info.leftovers:
        lines.append(f"An interrupted move left {', '.join(info.leftovers)}: run `mempalace embedder --to NAME` "
                     "again to finish it (or to delete it).")
    return "\n".join(lines)


def _progress(step: MoveProgress) -> None:
    end = "\r" if sys.stderr.isatty() else "\n"
    click.echo(f"{step.phase}: {step.done:,} / {counted(step.total, 'drawer')} ({step.rate:,.0f} embedded/s)", err=True,
               nl=False)
    click.echo(end, err=True, nl=False)


def _report_text(report: MoveReport) -> str:
    if report.dry_run:
        return f"Would move {counted(report.drawers, 'drawer')} from {report.before} to {report.after}; nothing changed."
    if report.before == report.after:
        return f"The palace already uses {report.after}; deleted {', '.join(report.dropped) or 'nothing'} left by a move."
    resumed = f", {report.resumed:,} kept from the interrupted run" if report.resumed else ""
    rate = report.embedded / report.seconds if report.seconds else 0.0
    return (f"\nMoved {counted(report.drawers, 'drawer')} from {report.before} to {report.after} in "
            f"{report.seconds:.1f} s ({report.embedded:,} embedded, {rate:,.0f}/s{resumed}).")
