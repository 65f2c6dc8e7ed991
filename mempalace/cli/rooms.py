"""`mempalace rooms`: rooms and their counts, merge suggestions, and re-rooming the palace."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import click

from ..palace.palace import Palace
from ..text.counts import counted
from .support import emit, palace_command

if TYPE_CHECKING:
    from ..ingest.reroom import ReroomReport


@click.command("rooms")
@click.option("--wing", help="Only rooms in this wing.")
@click.option("--suggest-merges", is_flag=True, help="List room names that probably mean the same concept.")
@click.option("--min-score", type=float, help="With --suggest-merges: the lowest score to list (default 0.8).")
@click.option("--names", "names_of", metavar="ROOM", help="A room's earlier names and its best other names.")
@click.option("--rebuild", is_flag=True, help="Choose again the rooms ingest chose (rooms a person chose never move).")
@click.option("--dry-run", is_flag=True, help="With --rebuild: show which drawers would move where, change nothing.")
@palace_command()
def rooms_command(ctx: click.Context, palace: Palace, wing: str | None, suggest_merges: bool, min_score: float | None,
                  names_of: str | None, rebuild: bool, dry_run: bool) -> None:
    """Rooms and their drawer counts; --names shows a room's other names; --rebuild re-rooms the palace."""
    if dry_run and not rebuild:
        raise click.UsageError("--dry-run goes with --rebuild.")
    if names_of is not None:
        if wing or suggest_merges or min_score is not None or rebuild:
            raise click.UsageError("--names shows one room's names; use it alone.")
        show_names(ctx, palace, names_of)
        return
    if rebuild:
        if wing or suggest_merges or min_score is not None:
            raise click.UsageError("--rebuild re-rooms the whole palace; use it alone (or with --dry-run).")
        from ..ingest.reroom import reroom

        show_reroom(ctx, reroom(palace, dry_run=dry_run))
        return
    if suggest_merges:
        if wing:
            raise click.UsageError("--suggest-merges looks at every wing; leave out --wing.")
        from ..graph.merges import DEFAULT_MIN_SCORE
        from .graph import show_merge_suggestions

        show_merge_suggestions(ctx, palace, DEFAULT_MIN_SCORE if min_score is None else min_score)
        return
    if min_score is not None:
        raise click.UsageError("--min-score goes with --suggest-merges.")
    found = palace.list_rooms(wing)
    earlier: dict[str, list[str]] = {}
    for alias, room in sorted(palace.room_aliases().items()):
        earlier.setdefault(room, []).append(alias)
    emit(ctx, found, lambda: "\n".join(f"{n:6d}  {r}" + (f"  (was {', '.join(earlier[r])})" if r in earlier else "")
                                       for r, n in found.items()) or "No rooms yet.")


def show_reroom(ctx: click.Context, report: "ReroomReport") -> None:
    """Print what re-rooming moved (or would move), grouped by wing and rooms."""
    def text() -> str:
        done = f"Would move {len(report.moves)}" if report.dry_run else f"Moved {report.moved}"
        lines = [f"{done} of {counted(report.considered, 'drawer')} whose room ingest chose;"
                 f" {counted(report.kept, 'drawer')} in rooms a person chose "
                 + ("stays where it is." if report.kept == 1 else "stay where they are.")]
        if not report.dry_run and report.moved < len(report.moves):
            changed = len(report.moves) - report.moved
            lines.append(f"{counted(changed, 'drawer')} changed meanwhile and "
                         + ("was left as it is." if changed == 1 else "were left as they are."))
        lines += [f"{n:6d}  {wing}: {old} -> {new}" for wing, old, new, n in report.summary()]
        return "\n".join(lines)

    emit(ctx, {"dry_run": report.dry_run, "considered": report.considered, "kept": report.kept,
               "moved": report.moved, "moves": [dataclasses.asdict(m) for m in report.moves]}, text)


def show_names(ctx: click.Context, palace: Palace, room: str) -> None:
    """A room's earlier names (which still find it) and the best other names for it, to rename it."""
    from ..ingest.room_alternatives import name_alternatives

    stored = palace.stored_room(room)
    earlier = sorted(alias for alias, now in palace.room_aliases().items() if now == stored)
    others = name_alternatives(palace, stored)

    def text() -> str:
        lines = [f"{stored}  ({counted(palace.list_rooms().get(stored, 0), 'drawer')})"]
        lines.append("  earlier names: " + (", ".join(earlier) if earlier else "none"))
        lines.append("  other names: " + (", ".join(others) if others else "none found"))
        if others:
            lines.append(f"  to rename: mempalace rename-room {stored} {others[0]}")
        return "\n".join(lines)

    emit(ctx, {"room": stored, "earlier": earlier, "alternatives": list(others)}, text)
