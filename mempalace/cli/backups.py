"""`mempalace backup` (write, or --verify, a consistent snapshot), `mempalace restore` (a backup into a
new palace folder) and `mempalace export` / `mempalace import` (drawers as portable JSON Lines)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..archive.backup import prune_daily, restore_backup, stamp_name, verify_backup, write_backup
from ..config import load_settings
from ..palace.palace import Palace
from ..text.counts import counted
from ..text.names import wing_name
from .support import emit, opened, palace_command, place_options, user_errors


class _Bar:
    """A progress bar on a terminal's stderr, fed (done, total); nothing elsewhere."""

    def __init__(self, label: str):
        self._label, self._bar, self._done = label, None, 0

    def __call__(self, done: int, total: int) -> None:
        if not sys.stderr.isatty() or total < 500:
            return
        if self._bar is None:
            self._bar = click.progressbar(length=total, label=self._label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


@click.command("backup")
@click.argument("dest", required=False, type=click.Path(path_type=Path))
@click.option("--verify", "check", is_flag=True, help="Check the backup at DEST against its manifest instead.")
@click.option("--daily", is_flag=True, help="Then keep only the newest backups_keep backups beside it (the host's timer).")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@place_options
@click.pass_context
def backup_command(ctx: click.Context, dest: Path | None, check: bool, daily: bool, as_json: bool) -> None:
    """Write a consistent snapshot of the palace (in use or not) to the new folder DEST (default: a
    dated folder under MEMPALACE_HOME/backups), or check one with --verify."""
    ctx.obj["json"] = as_json or ctx.obj["json"]
    with user_errors():
        if check:
            if dest is None:
                raise click.UsageError("--verify needs the backup's folder.")
            _verify(ctx, dest)
            return
        with opened(ctx.obj["palace"], ctx.obj["url"], False, False) as palace:
            _write(ctx, palace, dest, daily)


def _verify(ctx: click.Context, dest: Path) -> None:
    report = verify_backup(dest)
    emit(ctx, report, lambda: (f"The backup at {report.path} verifies: {counted(report.drawers, 'drawer')}, "
                               f"{report.trashed} in the trash, embedder {report.embedder}, made {report.created_at}."
                               if not report.problems else
                               f"The backup at {report.path} does NOT verify: {'; '.join(report.problems)}."))
    if report.problems:
        sys.exit(1)


def _write(ctx: click.Context, palace: Palace, dest: Path | None, daily: bool) -> None:
    target = dest or palace.settings.backups_folder / stamp_name()
    bar = _Bar("Backing up")
    try:
        report = write_backup(palace, target, bar)
    finally:
        bar.close()
    pruned = prune_daily(Path(report.path).parent, palace.settings.backups_keep) if daily else []
    emit(ctx, report, lambda: f"Backed up {counted(report.drawers, 'drawer')} ({report.trashed} in the trash) to "
                              f"{report.path}." + (f" Removed {counted(len(pruned), 'older backup')}." if pruned else "")
                              + f"\n`mempalace backup --verify {report.path}` checks it.")


@click.command("restore")
@click.argument("source", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--replace", is_flag=True, help="Move the palace already at --palace aside first (never deleted).")
@click.pass_context
def restore_command(ctx: click.Context, source: Path, replace: bool) -> None:
    """Restore the backup SOURCE into a new palace folder: --palace NEW (default $MEMPALACE_HOME/palace)."""
    if ctx.obj.get("url"):
        raise click.UsageError("A backup is restored into a palace folder (--palace), not a server.")
    with user_errors():
        settings = load_settings()
        target = ctx.obj.get("palace") or settings.default_palace
        bar = _Bar("Restoring")
        try:
            report = restore_backup(source, target, settings, replace, bar)
        finally:
            bar.close()
    emit(ctx, report, lambda: f"Restored {counted(report.drawers, 'drawer')} ({report.trashed} in the trash, embedder "
                              f"{report.embedder}, backed up {report.created_at}) into {report.path}.")


@click.command("export")
@click.argument("dest", type=click.File("w", encoding="utf-8", lazy=True))
@click.option("--wing", help="Only this wing's drawers.")
@click.option("--room", help="Only this room's drawers.")
@click.option("--vectors", is_flag=True, help="With each drawer's vector (a palace with the same embedder keeps it).")
@palace_command()
def export_command(ctx: click.Context, palace: Palace, dest: Any, wing: str | None, room: str | None,
                   vectors: bool) -> None:
    """Write the palace's drawers to DEST (`-` for standard output) as JSON Lines: id, text, place,
    hall, dates and all metadata, one drawer per line, for `mempalace import` into any palace."""
    from ..archive.portable import export_lines

    count = export_lines(palace, dest, wing_name(wing) if wing else None, palace.stored_room(room) if room else None,
                         vectors)
    if dest.name not in ("-", "<stdout>"):  # (standard output stays open: the program flushes it as it ends)
        dest.close()
        emit(ctx, {"exported": count}, lambda: f"Exported {counted(count, 'drawer')} to {dest.name}.")


@click.command("import")
@click.argument("source", type=click.File("r", encoding="utf-8"))
@click.option("--wing", help="File every drawer in this wing instead of its own.")
@palace_command(create=True)
def import_command(ctx: click.Context, palace: Palace, source: Any, wing: str | None) -> None:
    """File the drawers of a JSON Lines export (SOURCE, `-` for standard input) exactly as written:
    ids already in the palace are left as they are; vectors of another embedder are made anew."""
    from ..archive.portable import import_lines

    report = import_lines(palace, source, wing)
    emit(ctx, report, lambda: f"Imported {counted(report.added, 'drawer')} ({report.present} already in the palace; "
                              f"{report.embedded} embedded anew).")
