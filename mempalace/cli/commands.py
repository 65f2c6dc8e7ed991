"""The `mempalace` command: a thin front end over `Palace` that prints text or `--json`."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import importlib

import click

from ..access.rules import Actor, acting_as, local_user
from ..errors import InvalidInputError, MempalaceError
from ..files.paths import path_error
from ..models import HALLS
from ..palace.palace import Palace
from ..palace.search import LEXICAL_WEIGHT
from ..text.counts import counted
from ..text.names import room_slug
from .support import FormatsListed, echo, emit, palace_command

if TYPE_CHECKING:
    from ..ingest import IngestReport

PREVIEW_CHARS = 600  # of a drawer's text shown before asking to delete it


class _FormatChoice(click.Choice):
    """The transcript formats, read from their registry only when click needs them (help, checking a
    value), so commands that never ingest do not load every format module."""

    def __init__(self) -> None:
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        from ..formats.registry import FORMATS

        return tuple(FORMATS)

    @choices.setter
    def choices(self, _: object) -> None:
        pass


class _LazyGroup(click.Group):
    """Commands kept in their own modules are imported only when run (or listed in --help), so a
    short command never pays for the MCP SDK or the graph code."""

    LAZY = {
        "graph-stats": "graph:graph_stats_command", "tunnels": "graph:tunnels",
        "traverse": "graph:traverse_command", "merge-rooms": "graph:merge_rooms_command",
        "rename-room": "graph:rename_room_command",
        "mcp": "mcp:mcp_command", "serve": "serve:serve_command", "token": "token:token_group",
        "audit": "token:audit_command", "sources": "sources:sources_group", "hooks": "hooks:hooks_group",
        "halls": "halls:halls_command", "rooms": "rooms:rooms_command", "embedder": "embedder:embedder_command",
        "delete": "trash:delete_command", "trash": "trash:trash_group", "changes": "trash:changes_command",
        "undo": "trash:undo_command", "backup": "backups:backup_command", "restore": "backups:restore_command",
        "export": "backups:export_command", "import": "backups:import_command", "wake-up": "wakeup:wake_up_command",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.LAZY])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.LAZY:
            module, _, name = self.LAZY[cmd_name].partition(":")
            return getattr(importlib.import_module(f"{__package__}.{module}"), name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup)
@click.option("--palace", type=click.Path(path_type=Path), help="Palace directory (default $MEMPALACE_HOME/palace).")
@click.option("--url", help="Chroma server URL (or $MEMPALACE_URL) instead of a local palace.")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.version_option(package_name="mempalace")
@click.pass_context
def main(ctx: click.Context, palace: Path | None, url: str | None, as_json: bool) -> None:
    """MemPalace: verbatim AI-conversation memory, found by meaning and by place."""
    ctx.obj = {"palace": palace, "url": url, "json": as_json}
    ctx.with_resource(acting_as(Actor(local_user(), "cli")))  # the audit log records this command's writes as the CLI's


@main.command()
@palace_command(create=True)
def init(ctx: click.Context, palace: Palace) -> None:
    """Create the palace if it does not exist yet."""
    emit(ctx, palace.status(), lambda: f"Palace ready at {palace.location} ({counted(palace.count(), 'drawer')}).")


@main.command()
@palace_command()
def status(ctx: click.Context, palace: Palace) -> None:
    """Where the palace is and what it holds."""
    info = palace.status()
    halls = ", ".join(f"{h or '(no hall)'} {n}" for h, n in info.halls.items()) or "none"
    emit(ctx, info, lambda: (
        f"Palace:  {info.location} ({info.mode}, embedder {info.embedder})\n"
        f"Drawers: {info.drawers}\nWings:   {info.wings}\nRooms:   {info.rooms}\nHalls:   {halls}"
        + "".join(f"\nWarning: {w}" for w in info.warnings)
    ))


@main.command()
@palace_command()
def wings(ctx: click.Context, palace: Palace) -> None:
    """Wings and their drawer counts."""
    found = palace.list_wings()
    emit(ctx, found, lambda: "\n".join(f"{n:6d}  {w}" for w, n in found.items()) or "No wings yet.")


@main.command()
@palace_command()
def taxonomy(ctx: click.Context, palace: Palace) -> None:
    """Every wing with its rooms and counts."""
    tree = palace.taxonomy()
    lines = [f"{w} ({sum(r.values())})\n" + "\n".join(f"  {n:6d}  {room}" for room, n in r.items())
             for w, r in tree.items()]
    emit(ctx, tree, lambda: "\n".join(lines) or "The palace is empty.")


@main.command()
@click.argument("query")
@click.option("--wing")
@click.option("--room")
@click.option("--hall", help="One of: " + ", ".join(HALLS) + " (or without the hall_ prefix); none: drawers in no hall.")
@click.option("--source", "source_file", help="Only drawers from this source file.")
@click.option("--after", metavar="YYYY-MM-DD", help="Only conversations of this day or later (else their filing day).")
@click.option("--before", metavar="YYYY-MM-DD", help="Only conversations of this day or earlier.")
@click.option("--limit", type=int, default=10, show_default=True)
@click.option("--mode", type=click.Choice(["hybrid", "semantic", "vector"]), default="hybrid", show_default=True,
              help="hybrid: meaning and words; semantic (or its old name, vector): meaning only.")
@palace_command()
def search(ctx: click.Context, palace: Palace, query: str, **options: Any) -> None:
    """Find drawers by meaning and keywords.

    Each result's score is 0.6 × its meaning similarity (cosine) + 0.4 × its word match (its
    keyword score over the best one's, times the square of the share of the query's words it
    holds); with --mode semantic, the similarity alone."""
    hits = palace.search(query, **options)
    emit(ctx, hits, lambda: hits_text(hits))


def hits_text(hits: list) -> str:
    """Search results as text: a "no close match" line first when none is close."""
    if not hits:
        return "No drawers match."
    blocks = [] if any(h.close for h in hits) else ["No close match: none has the query's words or a meaning "
                                                    "nearer than chance. The nearest drawers:"]
    for h in hits:
        place = " / ".join(p for p in (h.wing, h.room, h.hall) if p)
        when = "  ".join(p for p in (h.conversation_date or (h.filed_at or "")[:10], h.title) if p)
        head = (f"#{h.rank}  score {h.score:.3f} (meaning {h.similarity:.3f}, words {h.lexical / LEXICAL_WEIGHT:.2f})"
                f"{'' if h.close else '  (weak)'}  {place}" + (f"\n    {when}" if when else ""))
        blocks.append(f"{head}\n    id {h.drawer_id}\n    " + h.content.strip().replace("\n", "\n    ")[:600])
    return "\n\n".join(blocks)


@main.command()
@click.argument("text", required=False)
@click.option("--file", "file", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="Read the content from a file (- for stdin) instead of TEXT.")
@click.option("--wing", required=True)
@click.option("--room", required=True)
@click.option("--hall")
@click.option("--source", "source_file", help="Where the text came from (default: the --file path).")
@click.option("--closest-room", is_flag=True,
              help="If --room is new but an existing room is probably the same concept, file into that one.")
@palace_command(create=True)
def add(ctx: click.Context, palace: Palace, text: str | None, file: Path | None, closest_room: bool,
        **place: Any) -> None:
    """File TEXT (or --file) verbatim into a wing and room."""
    content = _read_content(text, file, palace.settings.max_content_chars)
    if file is not None and str(file) != "-" and not place["source_file"]:
        place["source_file"] = str(file)
    from ..graph.merges import same_concept_room

    similar = same_concept_room(palace, place["room"])
    if similar and closest_room:
        place["room"], similar = similar, None
    result = dataclasses.replace(palace.add_drawer(content, **place), did_you_mean=similar)
    if result.status == "duplicate":
        if ctx.obj["json"]:
            emit(ctx, result, str)
        matches = ", ".join(f"{m.drawer_id} ({m.similarity:.2f}, {m.wing}/{m.room})" for m in result.matches)
        raise MempalaceError(f"Not filed: too similar to {matches}.")
    ids = ", ".join(result.drawer_ids)
    hint = (f"\nNew room {room_slug(place['room'])!r}: did you mean {similar!r}? `--closest-room` files into it."
            if similar else "")
    emit(ctx, result, lambda: (f"Filed {counted(len(result.drawer_ids), 'drawer')}: {ids}" if result.added
                               else f"Already filed here: {ids}") + hint)


def _read_content(text: str | None, file: Path | None, max_chars: int) -> str:
    """TEXT, or the file's (stdin's) text, read no further than one character past the content limit."""
    if (text is None) == (file is None):
        raise click.UsageError("Give the content as TEXT or with --file, not both.")
    if file is None:
        return text or ""
    name = "Standard input" if str(file) == "-" else file.name
    try:
        if str(file) == "-":
            content = sys.stdin.read(max_chars + 1)
        else:
            with open(file, encoding="utf-8", newline="") as handle:
                content = handle.read(max_chars + 1)
    except UnicodeDecodeError as exc:
        raise click.UsageError(f"{name} is not UTF-8 text: {exc}") from exc
    except OSError as exc:
        raise path_error(exc, file) from None
    if len(content) > max_chars:
        raise InvalidInputError(f"{name} is longer than the {max_chars:,}-character limit (setting max_content_chars).")
    return content


def _drawer_text(drawer: Any, limit: int | None = None) -> str:
    """Its id, place and text (the first `limit` characters, if given)."""
    place = " / ".join(p for p in (drawer.wing, drawer.room, drawer.hall) if p)
    shown = drawer.content if limit is None or len(drawer.content) <= limit else drawer.content[:limit] + " …"
    return f"{drawer.id}  {place}\n{shown}"


@main.command()
@click.argument("drawer_id")
@palace_command()
def get(ctx: click.Context, palace: Palace, drawer_id: str) -> None:
    """Show one drawer's verbatim text and place."""
    drawer = palace.get_drawer(drawer_id)
    emit(ctx, drawer, lambda: _drawer_text(drawer))


@main.command()
@click.argument("drawer_id")
@click.option("--room")
@click.option("--wing")
@click.option("--hall")
@click.option("--no-hall", is_flag=True, help="Take the drawer out of its hall.")
@palace_command()
def move(ctx: click.Context, palace: Palace, drawer_id: str, room: str | None, wing: str | None,
         hall: str | None, no_hall: bool) -> None:
    """Move a drawer to another room, wing or hall (its text never changes)."""
    if not (room or wing or hall or no_hall):
        raise click.UsageError("Say where to: --room, --wing and/or --hall (or --no-hall).")
    if hall and no_hall:
        raise click.UsageError("Give --hall or --no-hall, not both.")
    drawer = palace.update_drawer(drawer_id, wing=wing, room=room, hall="" if no_hall else hall)
    emit(ctx, drawer, lambda: f"Moved {drawer.id} to {drawer.wing}/{drawer.room}" + (f"/{drawer.hall}" if drawer.hall else "") + ".")


@main.command()
@palace_command()
def reindex(ctx: click.Context, palace: Palace) -> None:
    """Rebuild the fast catalog from Chroma (after another tool changed the palace)."""
    count = palace.rebuild_index()
    emit(ctx, {"drawers": count}, lambda: f"Catalog rebuilt: {counted(count, 'drawer')}.")


@main.command(name="ingest", cls=FormatsListed)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--wing", help="File everything in this wing (default: the service, Slack workspace or project; "
                              "a plain text file's name last).")
@click.option("--room", help="File everything in this room (default: chosen from each conversation's words).")
@click.option("--format", "format_name", type=_FormatChoice(), help="Skip detection: read as this format.")
@click.option("--dry-run", is_flag=True, help="Show what would be filed, with the real run's figures; write nothing.")
@palace_command(create=True)
def ingest_command(ctx: click.Context, palace: Palace, paths: tuple[Path, ...], wing: str | None, room: str | None,
                   format_name: str | None, dry_run: bool) -> None:
    """File transcripts (the formats below); folders are walked."""
    from ..ingest import ingest_paths

    bars = _ProgressBars(enabled=not ctx.obj["json"] and sys.stderr.isatty())

    def show(report: "IngestReport") -> None:
        bars.close()
        if not ctx.obj["json"]:
            echo(("Error: " if report.errors else "") + report.summary(), err=bool(report.errors))
            for line in report.by_conversation():
                echo("  " + line)

    reports = ingest_paths(palace, paths, wing=wing, room=room, format_name=format_name, dry_run=dry_run,
                           progress=bars.update, on_report=show)
    bars.close()
    if not reports:
        raise InvalidInputError(f"No transcript files found under {', '.join(map(str, paths))}.")
    if ctx.obj["json"]:
        click.echo(json.dumps([r.to_dict(with_drawers=dry_run) for r in reports], ensure_ascii=False, indent=2))
    elif len(reports) > 1:
        added = sum(r.new if dry_run else r.added for r in reports)
        click.echo(f"{counted(len(reports), 'source')}: {'would add' if dry_run else 'added'} {counted(added, 'drawer')}, "
                   f"{sum(r.already_present for r in reports)} already in the palace, "
                   f"{sum(1 for r in reports if r.errors)} failed"
                   + (f", {sum(r.skipped for r in reports)} skipped." if any(r.skipped for r in reports) else "."))
    if any(r.errors for r in reports):
        sys.exit(1)


@main.command(name="demo")
@click.option("--remove", is_flag=True, help="Remove the demo: exactly its drawers, never one of yours.")
@palace_command(create=True)
def demo_command(ctx: click.Context, palace: Palace, remove: bool) -> None:
    """Load the demo: Kai, the Driftwood team and Priya tell one story across three wings (or remove it)."""
    from ..ingest.demo import DEMO_WINGS, load_demo

    if remove:
        removal = palace.remove_demo()
        emit(ctx, removal, removal.summary)
        return
    reports = load_demo(palace)
    failed = [r for r in reports if r.errors]
    if not ctx.obj["json"]:
        for report in failed:
            echo("Error: " + report.summary(), err=True)
    emit(ctx, [r.to_dict(with_drawers=False) for r in reports], lambda: (
        f"Demo loaded into {palace.location}: {counted(len(reports), 'conversation')} in {', '.join(DEMO_WINGS)}; added "
        f"{counted(sum(r.added for r in reports), 'drawer')}, {sum(r.already_present for r in reports)} already in the palace"
        + (f", {len(failed)} failed" if failed else "") + ". Try `mempalace tunnels`."))
    if failed:
        sys.exit(1)


def run() -> None:
    """The `mempalace` program: `main` as a process. Once the command has finished (its palace closed,
    its output flushed) the process ends at once, without the interpreter's slow teardown of the model
    and the catalog, which costs a short command a tenth of its time."""
    try:
        main.main(prog_name="mempalace")
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if code is not None and not isinstance(code, int):
        click.echo(str(code), err=True)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a closed pipe (`mempalace search … | head`): nothing more can be shown
            pass
    os._exit(code or 0)


class _ProgressBars:
    """A terminal progress bar per embedding group, fed (done, total); silent when not on a terminal."""

    def __init__(self, enabled: bool):
        self._enabled = enabled
        self._bar: Any = None
        self._done = 0

    def update(self, done: int, total: int) -> None:
        if not self._enabled or total < 50:
            return
        if self._bar is None or done < self._done:
            self.close()
            self._bar = click.progressbar(length=total, label="Embedding", file=sys.stderr)
            self._bar.__enter__()
            self._done = 0
        self._bar.update(done - self._done)
        self._done = done
        if done >= total:
            self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
