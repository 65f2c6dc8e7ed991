"""The graph commands of `mempalace`: graph-stats, tunnels, traverse, merge-rooms, rooms --suggest-merges."""

from __future__ import annotations

import shlex

import click

from ..graph import find_tunnels, graph_stats, merge_rooms, suggest_room_merges, traverse
from ..graph.network import MAX_HOPS
from ..models import GraphStats, MergeSuggestion, Tunnel
from ..palace.palace import Palace
from ..text.counts import counted
from .support import emit, palace_command


@click.command(name="graph-stats")
@palace_command()
def graph_stats_command(ctx: click.Context, palace: Palace) -> None:
    """Rooms, tunnels between wings, the most informative tunnels and isolated wings."""
    stats = graph_stats(palace)
    emit(ctx, stats, lambda: _stats_text(stats))


def _stats_text(stats: GraphStats) -> str:
    lines = [f"Rooms:   {stats.total_rooms} in {counted(stats.total_wings, 'wing')}",
             f"Tunnels: {counted(stats.tunnel_rooms, 'room')} span{'s' if stats.tunnel_rooms == 1 else ''} two or more"
             f" wings ({counted(stats.total_edges, 'wing-to-wing link')})",
             "Rooms per wing:", *(f"  {n:6d}  {w}" for w, n in stats.rooms_per_wing.items())]
    if stats.top_tunnels:
        lines += ["Top tunnels (score = informativeness weight × (wings − 1)):",
                  *(_tunnel_line(t) for t in stats.top_tunnels)]
    if stats.isolated_wings:
        lines.append("Isolated wings (no informative tunnel to another wing): " + ", ".join(stats.isolated_wings))
    return "\n".join(lines)


def _tunnel_line(tunnel: Tunnel) -> str:
    return (f"  {tunnel.count:6d}  {tunnel.room}  [{counted(len(tunnel.wings), 'wing')}: {', '.join(tunnel.wings)}]"
            f"  weight {tunnel.weight:.2f}  score {tunnel.score:.2f}")


@click.command()
@click.option("--wing-a", help="Only tunnels touching this wing.")
@click.option("--wing-b", help="Only tunnels touching this wing too (with --wing-a: linking both).")
@palace_command()
def tunnels(ctx: click.Context, palace: Palace, wing_a: str | None, wing_b: str | None) -> None:
    """Rooms that span two or more wings, most drawers first."""
    found = find_tunnels(palace, wing_a, wing_b)
    emit(ctx, found, lambda: "\n".join(
        _tunnel_line(t) + (f"  halls: {', '.join(t.halls)}" if t.halls else "") for t in found) or "No tunnels.")


@click.command(name="traverse")
@click.argument("room")
@click.option("--max-hops", type=int, default=2, show_default=True, help=f"How far to walk (0–{MAX_HOPS}).")
@palace_command()
def traverse_command(ctx: click.Context, palace: Palace, room: str, max_hops: int) -> None:
    """Rooms reachable from ROOM, breadth first through shared wings (at most 50)."""
    steps = traverse(palace, room, max_hops)
    emit(ctx, steps, lambda: "\n".join(
        f"hop {s.hop}  {s.count:6d}  {s.room}" + (f"  via {', '.join(s.connected_via)}" if s.connected_via else "")
        for s in steps))


@click.command(name="merge-rooms")
@click.argument("source")
@click.argument("target")
@palace_command()
def merge_rooms_command(ctx: click.Context, palace: Palace, source: str, target: str) -> None:
    """Move every drawer of room SOURCE into room TARGET, in every wing (text and ids unchanged)."""
    result = merge_rooms(palace, source, target)
    emit(ctx, result, lambda: f"Moved {counted(result.moved, 'drawer')} from {result.source!r} to {result.target!r}"
         + (f" in {', '.join(result.wings)}." if result.wings else "."))


@click.command(name="rename-room")
@click.argument("room")
@click.argument("new_name")
@palace_command()
def rename_room_command(ctx: click.Context, palace: Palace, room: str, new_name: str) -> None:
    """Give ROOM the name NEW_NAME in every wing; its old names keep finding it, and ingest never renames it."""
    result = palace.rename_room(room, new_name)
    emit(ctx, result, lambda: f"Renamed {result.old!r} to {result.new!r} ({counted(result.moved, 'drawer')});"
         f" {', '.join(result.aliases)} still find{'s' if len(result.aliases) == 1 else ''} it.")


def show_merge_suggestions(ctx: click.Context, palace: Palace, min_score: float) -> None:
    """`rooms --suggest-merges`: likely duplicate room names, best first."""
    found = suggest_room_merges(palace, min_score=min_score)
    emit(ctx, found, lambda: "\n".join(_suggestion_line(s) for s in found) or "No likely duplicate rooms.")


def _suggestion_line(s: MergeSuggestion) -> str:
    return (f"{s.score:.2f}  {s.source} ({s.source_count}) → {s.target} ({s.target_count})  "
            f"{'; '.join(s.reasons)}\n      mempalace merge-rooms -- {shlex.quote(s.source)} {shlex.quote(s.target)}")


GRAPH_COMMANDS = [graph_stats_command, tunnels, traverse_command, merge_rooms_command, rename_room_command]
