"""`mempalace wake-up`: what an assistant should know at the start of a session (mempalace.palace.wakeup)."""

from __future__ import annotations

from pathlib import Path

import click

from ..formats.base import project_name
from ..palace.palace import Palace
from ..palace.wakeup import DEFAULT_TOKENS
from ..text.names import wing_name
from .support import emit, palace_command


@click.command("wake-up")
@click.option("--wing", help="The wing the session is about (default: every wing).")
@click.option("--project", type=click.Path(path_type=Path, file_okay=False),
              help="A project folder: its wing, as ingest names a coding session's (every wing if it has none).")
@click.option("--tokens", default=DEFAULT_TOKENS, show_default=True, type=click.IntRange(50, 20_000),
              help="The budget (approximate tokens: one per CJK character, else one per 4 characters).")
@palace_command()
def wake_up_command(ctx: click.Context, palace: Palace, wing: str | None, project: Path | None, tokens: int) -> None:
    """Print the identity text (MEMPALACE_HOME/identity.md), the most active rooms and their tunnels,
    and the newest facts, decisions, preferences, advice and open threads, each with its drawer id."""
    if wing and project:
        raise click.UsageError("Give --wing or --project, not both.")
    if project:
        named = project_name(str(project.expanduser().absolute()))
        wing = wing_name(named) if named and wing_name(named) in palace.list_wings() else None
    woken = palace.wake_up(wing, tokens)
    emit(ctx, woken, lambda: woken.text.rstrip())
