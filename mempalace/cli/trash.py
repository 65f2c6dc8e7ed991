"""`mempalace delete` (one drawer, many, a wing, a room, a source file, the demo), `mempalace trash`
(list, restore, empty): a delete keeps its drawers in the trash for `trash_days`; `mempalace changes`
and `mempalace undo` list and revert any change of place."""

from __future__ import annotations

import sys
from pathlib import Path
from datetime import datetime, timezone

import click

from ..palace.palace import Palace
from ..palace.trash import trash_summary
from ..text.counts import counted
from .support import echo, emit, palace_command

SHOWN_PLACES = 10  # places listed before asking to delete


def _when(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _ask(question: str, yes: bool) -> None:
    """On a terminal, unless --yes: ask, and stop (exit 1) on no."""
    if not yes and sys.stdin.isatty() and not click.confirm(question, default=False, err=True):
        echo("Nothing deleted.", err=True)
        sys.exit(1)


def _places_text(places: list[tuple[str, str, int]]) -> str:
    lines = [f"  {wing}/{room}: {counted(n, 'drawer')}" for wing, room, n in places[:SHOWN_PLACES]]
    if len(places) > SHOWN_PLACES:
        lines.append(f"  … and {len(places) - SHOWN_PLACES} more places")
    return "\n".join(lines)


@click.command("delete")
@click.argument("drawer_ids", nargs=-1)
@click.option("--wing", help="Delete every drawer of this wing (with --room: of that room in this wing).")
@click.option("--room", help="Delete every drawer of this room (in every wing, unless --wing).")
@click.option("--source", "source_file", help="Delete every drawer filed from this source file (its name, as search shows it).")
@click.option("--demo", is_flag=True, help="Delete the demo: exactly its drawers, never one of yours.")
@click.option("--yes", "-y", is_flag=True, help="Delete without asking (only a terminal is asked).")
@palace_command()
def delete_command(ctx: click.Context, palace: Palace, drawer_ids: tuple[str, ...], wing: str | None,
                   room: str | None, source_file: str | None, demo: bool, yes: bool) -> None:
    """Delete drawers: by id, or every drawer of a wing, room or source file, or the demo. They go to
    the trash for `trash_days` (30 by default): `mempalace trash restore` puts them back. On a
    terminal, what would go is shown first and you are asked, unless --yes."""
    if demo:
        if drawer_ids or wing or room or source_file:
            raise click.UsageError("--demo deletes the demo alone: give no ids, --wing, --room or --source with it.")
        _ask("Delete the demo's drawers?", yes)
        removal = palace.remove_demo()
        kept = " They are in the trash: `mempalace trash` shows how to restore them." if (
            removal.removed and palace.settings.trash_days) else ""
        emit(ctx, removal, lambda: removal.summary() + kept)
        return
    if len(drawer_ids) == 1 and not (wing or room or source_file):
        _delete_one(ctx, palace, drawer_ids[0], yes)
        return
    places = palace.deletion_preview(wing, room, source_file, drawer_ids)
    if not places and source_file and Path(source_file).name != source_file:  # a path typed: sources keep their name
        source_file = Path(source_file).name
        places = palace.deletion_preview(wing, room, source_file, drawer_ids)
    total = sum(n for _, _, n in places)
    if not total:
        emit(ctx, {"deleted": 0}, lambda: "No drawer matches: nothing deleted.")
        return
    if not yes and sys.stdin.isatty():
        echo(f"{counted(total, 'drawer')} will be deleted:\n{_places_text(places)}", err=True)
        _ask(f"Delete {'it' if total == 1 else f'these {total}'}?", yes)
    done = palace.delete_where(wing, room, source_file, drawer_ids)
    they, them = ("It is", "it") if done.deleted == 1 else ("They are", "them")
    kept = (f"{they} in the trash for {done.kept_days:g} days: `mempalace trash restore --all-from {done.change}` "
            f"(or `mempalace undo`) puts {them} back." if done.kept_days else
            f"The trash is off (trash_days = 0): {they.split()[0].lower()} {'is' if done.deleted == 1 else 'are'} gone for good.")
    emit(ctx, done, lambda: f"Deleted {counted(done.deleted, 'drawer')}:\n{_places_text(places)}\n{kept}")


def _delete_one(ctx: click.Context, palace: Palace, drawer_id: str, yes: bool) -> None:
    """One drawer: its text shown before asking; the drawer itself is the JSON output."""
    if not yes and sys.stdin.isatty():
        from .commands import PREVIEW_CHARS, _drawer_text

        echo(f"This drawer will be deleted:\n{_drawer_text(palace.get_drawer(drawer_id), PREVIEW_CHARS)}\n", err=True)
        _ask("Delete it?", yes)
    drawer = palace.delete_drawer(drawer_id)
    kept = (f" It is in the trash for {palace.settings.trash_days:g} days: `mempalace trash restore {drawer.id}` puts "
            "it back." if palace.settings.trash_days else "")
    emit(ctx, drawer, lambda: f"Deleted {drawer.id} from {drawer.wing}/{drawer.room}.{kept}")


@click.group("trash", invoke_without_command=True)
@click.pass_context
def trash_group(ctx: click.Context) -> None:
    """What was deleted, kept for `trash_days`: list it, restore it, or empty it."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_command)


@trash_group.command("list")
@click.option("--change", help="Only the drawers of this change (one delete).")
@click.option("--drawers", "each", is_flag=True, help="List every drawer, not one line per change.")
@palace_command()
def list_command(ctx: click.Context, palace: Palace, change: str | None = None, each: bool = False) -> None:
    """The trash, newest change first: when, by whom, how many drawers and where they were."""
    items = palace.trash_list(change)
    if ctx.obj["json"] or each:
        emit(ctx, items, lambda: "\n".join(
            f"{t.drawer.id}  {t.drawer.wing}/{t.drawer.room}  deleted {_when(t.deleted_at)} ({t.change})" for t in items)
            or "The trash is empty.")
        return
    lines = []
    for entry in trash_summary(items):
        places = ", ".join(f"{p} {n}" for p, n in sorted(entry["places"].items(), key=lambda i: -i[1])[:5])
        more = f" and {len(entry['places']) - 5} more places" if len(entry["places"]) > 5 else ""
        lines.append(f"{entry['change']}  {_when(entry['deleted_at'])} by {entry['deleted_by'] or 'unknown'}: "
                     f"{counted(entry['drawers'], 'drawer')} ({places}{more}); kept until {_when(entry['purge_at'])}")
    echo("\n".join(lines) + "\n`mempalace trash restore --all-from CHANGE` puts a change's drawers back."
         if lines else "The trash is empty.")


@trash_group.command("restore")
@click.argument("drawer_ids", nargs=-1)
@click.option("--all-from", "change", help="Restore every drawer of this change (one delete).")
@palace_command()
def restore_command(ctx: click.Context, palace: Palace, drawer_ids: tuple[str, ...], change: str | None) -> None:
    """Put deleted drawers back exactly where they were (same id, place, hall and dates)."""
    if bool(drawer_ids) == bool(change):
        raise click.UsageError("Give drawer ids or --all-from CHANGE (`mempalace trash` lists the changes).")
    done = palace.restore_change(change) if change else palace.restore_drawers(drawer_ids)
    emit(ctx, done, lambda: "\n".join([f"Restored {counted(len(done.restored), 'drawer')}."]
                                      + [f"Not restored {i}: {why}." for i, why in done.blocked]))
    if done.blocked and not done.restored:
        sys.exit(1)


@trash_group.command("empty")
@click.option("--yes", "-y", is_flag=True, help="Empty it without asking (only a terminal is asked).")
@palace_command()
def empty_command(ctx: click.Context, palace: Palace, yes: bool) -> None:
    """Forget every drawer in the trash for good."""
    held = len(palace.trash_list())
    if held:
        _ask(f"Forget the {counted(held, 'drawer')} in the trash for good?", yes)
    gone = palace.empty_trash()
    emit(ctx, {"forgotten": gone}, lambda: f"Emptied the trash: {counted(gone, 'drawer')} forgotten for good.")


@click.command("changes")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@palace_command()
def changes_command(ctx: click.Context, palace: Palace, limit: int) -> None:
    """The newest changes first: moves, room renames and merges, re-roomings, deletes, restores, undos."""
    found = palace.change_list(limit)

    def text() -> str:
        lines = []
        for c in found:
            what = ", ".join(f"{k}={v}" for k, v in sorted(c.detail.items()) if isinstance(v, (str, int, float)))
            undone = f"  (undone by {c.undone_by})" if c.undone_by else ""
            lines.append(f"{c.id}  {_when(c.at)} {c.who}: {c.action} {counted(c.drawers, 'drawer')}"
                         + (f" ({what})" if what else "") + undone)
        return "\n".join(lines) + "\n`mempalace undo [CHANGE]` reverts the newest change (or CHANGE)." if lines \
            else "No changes yet."

    emit(ctx, found, text)


@click.command("undo")
@click.argument("change", required=False)
@palace_command()
def undo_command(ctx: click.Context, palace: Palace, change: str | None) -> None:
    """Revert the newest change not yet undone (or CHANGE), if nothing done since depends on it."""
    done = palace.undo(change)
    emit(ctx, done, lambda: f"Undid {done.change} ({done.action}, {counted(done.drawers, 'drawer')}); "
                            f"the undo is change {done.undo}.")
