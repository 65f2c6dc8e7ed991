"""`mempalace mcp`: the palace as Model Context Protocol tools, for AI agents (stdio or streamable HTTP).

A front end like the CLI: every tool calls the core and returns plain JSON; a `MempalaceError`
becomes a tool error carrying its message, so a bad call never takes the server down.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import click
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from ..errors import InvalidInputError, MempalaceError
from ..graph import find_tunnels, graph_stats, suggest_room_merges, traverse
from ..palace import Palace
from .support import is_loopback, jsonable, place_options, user_errors

MAX_SEARCH_LIMIT = 100
INSTRUCTIONS = (
    "MemPalace is long-term memory: verbatim drawers filed by wing (a person or project), room (a topic "
    "slug) and hall (facts, events, discoveries, preferences, advice). Search before you answer from "
    "memory; file what you learn with mempalace_add_drawer using the exact words, never a summary."
)
Text = Annotated[str, Field(description="Exact text, never summarised.")]
Wing = Annotated[str, Field(description="A person, project or domain, e.g. wing_kai.")]
Room = Annotated[str, Field(description="A topic as a lowercase hyphen slug, e.g. auth-migration.")]
Hall = Annotated[str | None, Field(description="facts, events, discoveries, preferences or advice.")]
DrawerId = Annotated[str, Field(description="A drawer id as returned by search or add_drawer.")]


def _guarded(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run a tool; a MemPalace error becomes a tool error with its message for the agent."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return jsonable(func(*args, **kwargs))
        except MempalaceError as exc:
            raise ToolError(str(exc)) from None

    return wrapper


def build_server(palace: Palace, allowed_dirs: Sequence[str | Path] = ()) -> MCPServer:
    """An MCP server whose `mempalace_*` tools work on `palace`; `ingest` reads only under `allowed_dirs`."""
    server = MCPServer(name="mempalace", instructions=INSTRUCTIONS)
    roots = [Path(d).expanduser().resolve() for d in allowed_dirs]

    def tool(description: str, name: str | None = None) -> Callable[[Callable[..., Any]], Any]:
        """Register as `mempalace_<name>` (default: the function's name, which may not shadow the core's)."""
        def register(func: Callable[..., Any]) -> Any:
            return server.tool(name=f"mempalace_{name or func.__name__}", description=description)(_guarded(func))
        return register

    _map_tools(tool, palace)
    _drawer_tools(tool, palace, roots)
    _graph_tools(tool, palace)
    return server


Registrar = Callable[..., Callable[[Callable[..., Any]], Any]]


def _map_tools(tool: Registrar, palace: Palace) -> None:
    """Status, wings, rooms, taxonomy and search."""

    @tool("Where the palace is and how many drawers, wings and rooms it holds.")
    def status() -> dict[str, Any]:
        return palace.status()

    @tool("Every wing with its drawer count.")
    def list_wings() -> dict[str, Any]:
        return {"wings": palace.list_wings()}

    @tool("Rooms with their drawer counts, in one wing or in all of them.")
    def list_rooms(wing: Annotated[str | None, Field(description="Only this wing.")] = None) -> dict[str, Any]:
        return {"rooms": palace.list_rooms(wing)}

    @tool("The whole map: wing → room → drawer count.")
    def get_taxonomy() -> dict[str, Any]:
        return {"taxonomy": palace.taxonomy()}

    @tool("Find drawers by meaning and keywords, optionally within a wing, room and hall. "
          "Results carry drawer ids and the verbatim text.")
    def search(query: Annotated[str, Field(description="What to look for, in plain words.")],
               wing: Annotated[str | None, Field(description="Only this wing.")] = None,
               room: Annotated[str | None, Field(description="Only this room.")] = None,
               hall: Hall = None,
               limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_LIMIT, description="How many drawers.")] = 10,
               ) -> dict[str, Any]:
        return {"hits": palace.search(query, wing=wing, room=room, hall=hall, limit=limit)}



def _drawer_tools(tool: Registrar, palace: Palace, roots: list[Path]) -> None:
    """Filing, reading, moving and deleting drawers; duplicate checks; ingest under the allowed roots."""

    @tool("Stored drawers at least `threshold` similar to `content` (1.0 = identical meaning).")
    def check_duplicate(content: Text, threshold: Annotated[float, Field(gt=0, le=1)] = 0.9) -> dict[str, Any]:
        return {"matches": palace.check_duplicate(content, threshold)}

    @tool("File a memory verbatim: the exact words, never summarised. A near-duplicate of a stored "
          "drawer is refused and its matches are returned (status 'duplicate').")
    def add_drawer(wing: Wing, room: Room, content: Text, hall: Hall = None) -> dict[str, Any]:
        result = palace.add_drawer(content, wing, room, hall=hall)
        return {"status": result.status, "drawer_ids": result.drawer_ids, "matches": result.matches}

    @tool("One drawer's verbatim text and place.")
    def get_drawer(drawer_id: DrawerId) -> dict[str, Any]:
        return palace.get_drawer(drawer_id)

    @tool("Move a drawer to another wing, room or hall; its text never changes.")
    def update_drawer(drawer_id: DrawerId, wing: Annotated[str | None, Field(description="New wing.")] = None,
                      room: Annotated[str | None, Field(description="New room.")] = None,
                      hall: Annotated[str | None, Field(description="New hall: facts, events, discoveries, "
                                                        "preferences or advice; \"\" takes it out of its hall.")] = None,
                      ) -> dict[str, Any]:
        return palace.update_drawer(drawer_id, wing=wing, room=room, hall=hall)

    @tool("Delete a drawer; returns what was deleted.")
    def delete_drawer(drawer_id: DrawerId) -> dict[str, Any]:
        return palace.delete_drawer(drawer_id)

    @tool("Ingest a transcript file or folder on the server's machine (only under the directories the "
          "server was started with --allow-dir).")
    def ingest(path: Annotated[str, Field(description="A file or folder path on the server's machine.")],
               wing: Annotated[str | None, Field(description="File everything in this wing.")] = None,
               ) -> dict[str, Any]:
        from ..ingest import ingest_paths

        reports = ingest_paths(palace, [_allowed(path, roots)], wing=wing)
        return {"reports": [r.to_dict() for r in reports]}



def _graph_tools(tool: Registrar, palace: Palace) -> None:
    """The room graph: traversal, tunnels, stats and merge suggestions."""

    @tool("Rooms reachable from a room through shared wings, breadth first, up to max_hops.", "traverse")
    def traverse_rooms(start_room: Room, max_hops: Annotated[int, Field(ge=1, le=20)] = 2) -> dict[str, Any]:
        return {"steps": traverse(palace, start_room, max_hops)}

    @tool("Tunnels: rooms that appear in two or more wings (optionally linking wing_a and wing_b).", "find_tunnels")
    def tunnels(wing_a: Annotated[str | None, Field(description="A wing.")] = None,
                wing_b: Annotated[str | None, Field(description="Another wing.")] = None) -> dict[str, Any]:
        return {"tunnels": find_tunnels(palace, wing_a, wing_b)}

    @tool("Counts of the room graph: rooms, tunnels, edges, the best-connected rooms, isolated wings.",
          "graph_stats")
    def stats() -> dict[str, Any]:
        return graph_stats(palace)

    @tool("Pairs of rooms that are probably the same concept spelled differently, best first.",
          "suggest_room_merges")
    def room_merges(min_score: Annotated[float, Field(gt=0, le=1)] = 0.8) -> dict[str, Any]:
        return {"suggestions": suggest_room_merges(palace, min_score=min_score)}


def _allowed(path: str, roots: list[Path]) -> Path:
    """`path` resolved, if it and every link inside it (a folder is walked) stay in the allowed directories."""
    if not roots:
        raise InvalidInputError("This server reads no files: start it with --allow-dir DIR to allow ingest.")
    allowed = ", ".join(str(r) for r in roots)
    resolved = Path(path).expanduser().resolve()
    if not _inside(resolved, roots):
        raise InvalidInputError(f"{path} is outside the directories this server may read ({allowed}).")
    for link in _links_under(resolved):
        if not _inside(link.resolve(), roots):
            raise InvalidInputError(f"{link} links to {link.resolve()}, outside the directories this server may "
                                    f"read ({allowed}); nothing was ingested.")
    return resolved


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def _links_under(path: Path) -> Iterator[Path]:
    """Every symbolic link below the folder `path`, files and folders (links are not followed)."""
    if path.is_dir():
        for folder, dirs, files in os.walk(path, followlinks=False):
            yield from (Path(folder) / name for name in [*dirs, *files] if (Path(folder) / name).is_symlink())


@click.command("mcp")
@click.option("--http", is_flag=True, help="Serve streamable HTTP (at /mcp) instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http: the address to listen on.")
@click.option("--port", type=int, default=8765, show_default=True, help="With --http: the port.")
@click.option("--allow-dir", "allowed", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="A directory the ingest tool may read (repeat for more; none: ingest is refused).")
@place_options
@click.pass_context
def mcp_command(ctx: click.Context, http: bool, host: str, port: int, allowed: tuple[Path, ...]) -> None:
    """Serve the palace to AI agents over the Model Context Protocol."""
    if http and not is_loopback(host):
        raise click.UsageError(
            f"Refusing to serve MCP on {host}: `mcp --http` has no sign-in yet, so anyone who can reach the "
            "port could read, file and delete drawers. Keep the default --host 127.0.0.1 (agents on this "
            "machine), or put it behind a reverse proxy that checks a token.")
    with user_errors(), Palace.open(ctx.obj["palace"], ctx.obj["url"]) as palace:
        server = build_server(palace, allowed)
        if http:
            server.run("streamable-http", host=host, port=port)
        else:
            server.run()
