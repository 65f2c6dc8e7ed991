"""`mempalace sources`: folders and files the palace keeps in sync by itself.

A front end over `mempalace.catalog.source_book` (what is registered, what each sync saw) and
`mempalace.sources.sync` (filing what is new); the shared palace's host syncs every
`sources_sync_seconds` while the palace is in use, `sources watch` keeps syncing in the foreground.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import click

from ..access.rules import local_user
from ..catalog.source_book import SourceEntry
from ..palace.palace import Palace
from ..text.counts import counted
from ..text.names import wing_name
from .commands import _FormatChoice
from .support import FormatsListed, echo, emit, jsonable, palace_command


@click.group("sources")
def sources_group() -> None:
    """Folders and files of conversations the palace keeps in sync by itself."""


@sources_group.command("add", cls=FormatsListed)
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--wing", help="File everything from it in this wing (default: chosen per conversation, plain text "
                              "in the source's own wing).")
@click.option("--wing-per-file", is_flag=True, help="File plain text in a wing named after each file, not in the "
                                                     "source's wing.")
@click.option("--format", "format_name", type=_FormatChoice(), help="Read every file as this format.")
@click.option("--name", help="What to call the source (default: the folder's or file's name).")
@palace_command(create=True)
def add_command(ctx: click.Context, palace: Palace, path: Path, wing: str | None, wing_per_file: bool,
                format_name: str | None, name: str | None) -> None:
    """Keep PATH (a file or folder ingest can read) in sync; the next sync files what it holds."""
    from ..sources.sync import book_of

    entry = book_of(palace).add(path, wing_name(wing) if wing else None, format_name, name, added_by=local_user(),
                                wing_per_file=wing_per_file)
    hint = "" if entry.wing or entry.wing_per_file else " (`--wing-per-file` gives each text file a wing of its own)"
    emit(ctx, entry, lambda: f"Added the source {entry.name} ({entry.path}).\nWing: {entry.wing_rule()}{hint}.\n"
                             f"`mempalace sources sync {entry.name}` files it now; the palace also syncs it by itself.")


@sources_group.command("list")
@palace_command()
def list_command(ctx: click.Context, palace: Palace) -> None:
    """Every source: path, format, wing, last sync, files seen and gone, each failing file's error."""
    from ..sources.sync import book_of

    found = book_of(palace).entries()
    emit(ctx, found, lambda: "\n".join(_entry_text(e) for e in found) if found else
         "No sources yet. `mempalace sources suggest` lists where this machine's tools keep conversations.")


def _entry_text(entry: SourceEntry) -> str:
    synced = f"last synced {entry.last_sync}, {counted(entry.last_added, 'drawer')} added" if entry.last_sync else "never synced"
    lines = [f"{entry.name}: {entry.path}", f"  format {entry.format or 'detected per file'}, "
             f"wing {entry.wing_shown()}; {synced}; {counted(entry.files_seen, 'file')}"
             + (f", {entry.files_gone} gone (their drawers stay)" if entry.files_gone else "")]
    lines += [f"  error in {path}: {message}" for path, message in entry.errors]
    return "\n".join(lines)


@sources_group.command("remove")
@click.argument("name")
@palace_command()
def remove_command(ctx: click.Context, palace: Palace, name: str) -> None:
    """Stop syncing NAME; what it filed stays in the palace."""
    from ..sources.sync import book_of

    entry = book_of(palace).remove(name)
    emit(ctx, entry, lambda: f"Removed the source {entry.name}; its drawers stay in the palace.")


@sources_group.command("sync")
@click.argument("names", nargs=-1)
@click.option("--auto", is_flag=True, hidden=True, help="A timer's sync: skip it if another is running.")
@palace_command()
def sync_command(ctx: click.Context, palace: Palace, names: tuple[str, ...], auto: bool) -> None:
    """File what is new or grown in the sources (all, or those named) now."""
    from ..sources.sync import sync_sources

    reports = sync_sources(palace, names, wait=not auto)
    emit(ctx, reports, lambda: "\n".join(r.summary() for r in reports) or "No sources to sync.")


@sources_group.command("watch")
@click.option("--every", type=click.FloatRange(min=1), default=None,
              help="Seconds between syncs (default: the setting sources_sync_seconds).")
@palace_command()
def watch_command(ctx: click.Context, palace: Palace, every: float | None) -> None:
    """Keep syncing in the foreground (Ctrl-C stops): for a palace always kept up to date."""
    from ..sources.sync import sync_sources

    pause = every or palace.settings.sources_sync_seconds
    echo(f"Syncing every {pause:g} s; Ctrl-C stops.")
    try:
        while True:
            for report in sync_sources(palace, wait=False):
                if report.files_changed or report.errors:
                    echo(time.strftime("%H:%M:%S ") + report.summary())
            time.sleep(pause)
    except KeyboardInterrupt:
        echo("Stopped.")


@sources_group.command("suggest")
@click.option("--aider", "aider_folders", multiple=True, type=click.Path(path_type=Path),
              help="A folder to search for Aider histories (repeat for more).")
@click.pass_context
def suggest_command(ctx: click.Context, aider_folders: Sequence[Path]) -> None:
    """Where this machine's tools keep conversations, with file counts and the command that adds each."""
    import json

    from ..sources.suggest import suggest

    found = suggest(aider_folders=aider_folders)
    if ctx.obj["json"]:
        click.echo(json.dumps(jsonable(found), ensure_ascii=False, indent=2))
        return
    if not found:
        echo("No known tool's conversations found on this machine (Claude Code, Codex, Gemini CLI, Copilot CLI, "
             "Cursor, Continue; Aider with --aider FOLDER).")
    for item in found:
        echo(f"{item.tool}: {item.path} ({counted(item.files, 'file')})\n  mempalace sources add '{item.path}' --name {item.name}")
