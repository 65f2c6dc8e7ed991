"""`mempalace mcp`: the palace as Model Context Protocol tools, for AI agents (stdio or streamable HTTP).

A front end like the CLI: every tool calls the core and returns plain JSON; a `MempalaceError`
becomes a tool error carrying its message, so a bad call never takes the server down. Tools work on
a `ScopedPalace`, never the palace itself: over stdio the local user's (admin of every wing, writes
recorded as via "mcp"); over HTTP the one of the palace token the request carries (the SDK's bearer
auth answers 401 to a missing, wrong or revoked token before any tool runs).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import anyio
import click
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from .. import __version__
from ..access.rules import full_grant, is_loopback, local_user, token_grant
from ..errors import AccessDeniedError, InvalidInputError, MempalaceError, PalaceNotFoundError
from ..files.paths import checked_path, shown_path
from ..formats.confined import inside
from ..graph import find_tunnels, graph_stats, suggest_room_merges, traverse
from ..graph.merges import same_concept_room
from ..palace.palace import Palace
from ..scoped.palace import ScopedPalace
from ..text.names import room_slug, wing_name
from .support import jsonable, place_options, user_errors

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
HallFilter = Annotated[str | None, Field(description="facts, events, discoveries, preferences or advice; "
                                                     "none for the drawers in no hall.")]
DrawerId = Annotated[str, Field(description="A drawer id as returned by search or add_drawer.")]
NO_TOKEN = ("`mcp --http` lets in only agents that send a palace token, and this palace has no active token "
            "yet. Create one with `mempalace token create --role viewer --name my-agent` (editor to let the "
            "agent file drawers, --wing W to keep it to some wings) and give the agent its secret as the "
            "header `Authorization: Bearer <secret>`.")
Scope = Callable[[], ScopedPalace]


def _guarded(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run a tool; a MemPalace error becomes a tool error with its message for the agent."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return jsonable(func(*args, **kwargs))
        except MempalaceError as exc:
            raise ToolError(str(exc)) from None

    return wrapper


def build_server(palace: Palace, allowed_dirs: Sequence[str | Path] = (), http_url: str | None = None) -> MCPServer:
    """An MCP server whose `mempalace_*` tools work on `palace`; `ingest` reads only under `allowed_dirs`.

    Without `http_url` the tools act for the local user (stdio). With it (the endpoint the server will
    be served at) every request needs an active palace token, and each tool sees what that token may."""
    scope = local_scope(palace) if http_url is None else token_scope(palace)
    auth = {} if http_url is None else _token_auth(palace, http_url)
    server = MCPServer(name="mempalace", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING",
                       **auth)  # stderr is for warnings: a refused call is the client's answer, not a log line
    roots = [Path(d).expanduser().resolve() for d in allowed_dirs]

    def tool(description: str, name: str | None = None) -> Callable[[Callable[..., Any]], Any]:
        """Register as `mempalace_<name>` (default: the function's name, which may not shadow the core's)."""
        def register(func: Callable[..., Any]) -> Any:
            return server.tool(name=f"mempalace_{name or func.__name__}", description=description)(_guarded(func))
        return register

    _map_tools(tool, scope)
    _drawer_tools(tool, scope, roots)
    _graph_tools(tool, scope)
    from .mcp_agents import agent_tools

    agent_tools(server, tool, scope)
    return server


class PalaceTokens:
    """The SDK's token verifier over the palace's tokens: asked on every HTTP request, so a revoked
    token stops working at once; the AccessToken carries the token's name, role and wings."""

    def __init__(self, palace: Palace):
        self._palace = palace
        self._said: set[str] = set()

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            info = await anyio.to_thread.run_sync(self._palace.access.verify_token, token)
        except MempalaceError as exc:  # every token refused (the audit log disagrees with its anchor): say why, once
            if str(exc) not in self._said:
                self._said.add(str(exc))
                click.echo(f"Warning: {exc}", err=True)
            return None
        if info is None:
            return None
        return AccessToken(token=token, client_id=info.id, subject=info.name, scopes=[info.role],
                           claims={"name": info.name, "role": info.role, "wings": list(info.wings)})


def _token_auth(palace: Palace, http_url: str) -> dict[str, Any]:
    """The SDK's bearer auth for serving at `http_url`: the palace's tokens, and no OAuth server of ours
    (our verifier checks each token against the palace, so the SDK need not check its audience)."""
    settings = AuthSettings(issuer_url=http_url.rsplit("/", 1)[0], resource_server_url=http_url,
                            validate_token_resource=False)
    return {"token_verifier": PalaceTokens(palace), "auth": settings}


def local_scope(palace: Palace) -> Scope:
    """The palace as its owner uses it over stdio: admin of every wing, writes recorded as via "mcp"."""
    scoped = ScopedPalace(palace, full_grant(local_user(), "mcp"))
    return lambda: scoped


def token_scope(palace: Palace) -> Scope:
    """The palace as the current request's token may see and change it (its role on its wings)."""

    def scope() -> ScopedPalace:
        token = get_access_token()
        claims = (token.claims if token else None) or {}
        if not claims.get("name"):  # only reachable in-process: over HTTP the SDK answered 401 already
            raise AccessDeniedError("This server serves only requests that carry a palace token.")
        return ScopedPalace(palace, token_grant(claims["name"], claims["role"], tuple(claims["wings"])))

    return scope


Registrar = Callable[..., Callable[[Callable[..., Any]], Any]]


def _map_tools(tool: Registrar, scope: Scope) -> None:
    """Status, wings, rooms, taxonomy and search."""

    @tool("Where the palace is and how many drawers, wings and rooms it holds.")
    def status() -> dict[str, Any]:
        return scope().status()

    @tool("Every wing with its drawer count.")
    def list_wings() -> dict[str, Any]:
        return {"wings": scope().list_wings()}

    @tool("Rooms with their drawer counts, in one wing or in all of them.")
    def list_rooms(wing: Annotated[str | None, Field(description="Only this wing.")] = None) -> dict[str, Any]:
        seen = scope()
        rooms = seen.list_rooms(wing)
        return {"rooms": rooms, "aliases": {a: r for a, r in seen.room_aliases().items() if r in rooms}}

    @tool("The whole map: wing → room → drawer count.")
    def get_taxonomy() -> dict[str, Any]:
        return {"taxonomy": scope().taxonomy()}

    @tool("Find drawers by meaning and keywords, optionally within a wing, room, hall and dates. "
          "Results carry drawer ids, the verbatim text, the conversation's date and title, and `close`: "
          "false when a result has none of the query's words and a meaning no nearer than chance.")
    def search(query: Annotated[str, Field(description="What to look for, in plain words.")],
               wing: Annotated[str | None, Field(description="Only this wing.")] = None,
               room: Annotated[str | None, Field(description="Only this room.")] = None,
               hall: HallFilter = None,
               limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_LIMIT, description="How many drawers.")] = 10,
               after: Annotated[str | None, Field(description="Only conversations of this day (YYYY-MM-DD) "
                                                  "or later; undated ones count by their filing day.")] = None,
               before: Annotated[str | None, Field(description="Only conversations of this day (YYYY-MM-DD) "
                                                   "or earlier.")] = None,
               ) -> dict[str, Any]:
        hits = scope().search(query, wing=wing, room=room, hall=hall, limit=limit, after=after, before=before)
        return {"hits": hits, "close_matches": sum(h.close for h in hits)}



def _drawer_tools(tool: Registrar, scope: Scope, roots: list[Path]) -> None:
    """Filing, reading, moving and deleting drawers; duplicate checks; ingest under the allowed roots."""

    @tool("Stored drawers at least `threshold` similar to `content` (1.0 = identical meaning).")
    def check_duplicate(content: Text, threshold: Annotated[float, Field(gt=0, le=1)] = 0.9) -> dict[str, Any]:
        return {"matches": scope().check_duplicate(content, threshold)}

    @tool("File a memory verbatim: the exact words, never summarised. A near-duplicate of a stored "
          "drawer is refused and its matches are returned (status 'duplicate').")
    def add_drawer(wing: Wing, room: Room, content: Text, hall: Hall = None,
                   closest_room: Annotated[bool, Field(description="If `room` is new but an existing room is "
                                                       "probably the same concept, file into that one.")] = False,
                   ) -> dict[str, Any]:
        seen = scope()
        similar = same_concept_room(seen, room)
        if similar and closest_room:
            room, similar = similar, None
        result = seen.add_drawer(content, wing, room, hall=hall)
        return {"status": result.status, "drawer_ids": result.drawer_ids, "matches": result.matches,
                "room": seen.resolve_room(room_slug(room)), "did_you_mean": similar}

    @tool("One drawer's verbatim text and place.")
    def get_drawer(drawer_id: DrawerId) -> dict[str, Any]:
        return scope().get_drawer(drawer_id)

    @tool("Move a drawer to another wing, room or hall; its text never changes.")
    def update_drawer(drawer_id: DrawerId, wing: Annotated[str | None, Field(description="New wing.")] = None,
                      room: Annotated[str | None, Field(description="New room.")] = None,
                      hall: Annotated[str | None, Field(description="New hall: facts, events, discoveries, "
                                                        "preferences or advice; \"\" takes it out of its hall.")] = None,
                      ) -> dict[str, Any]:
        return scope().update_drawer(drawer_id, wing=wing, room=room, hall=hall)

    @tool("Delete a drawer into the trash (kept for the palace's trash_days, 30 by default, until a person "
          "restores or empties it); returns what was deleted.")
    def delete_drawer(drawer_id: DrawerId) -> dict[str, Any]:
        return scope().delete_drawer(drawer_id)

    @tool("Ingest a transcript file or folder on the server's machine (only under the directories the "
          "server was started with --allow-dir).")
    def ingest(path: Annotated[str, Field(description="A file or folder path on the server's machine.")],
               wing: Annotated[str | None, Field(description="File everything in this wing.")] = None,
               ) -> dict[str, Any]:
        from ..ingest import ingest_paths

        view = scope()
        view.grant.check("ingest", wing_name(wing) if wing else None)  # refused before any file is read
        reports = ingest_paths(view, [_allowed(path, roots)], wing=wing, roots=roots)
        return {"reports": [r.to_dict() for r in reports]}



def _graph_tools(tool: Registrar, scope: Scope) -> None:
    """The room graph: traversal, tunnels, stats and merge suggestions."""

    @tool("Rooms reachable from a room through shared wings, breadth first, up to max_hops.", "traverse")
    def traverse_rooms(start_room: Room, max_hops: Annotated[int, Field(ge=1, le=20)] = 2) -> dict[str, Any]:
        return {"steps": traverse(scope(), start_room, max_hops)}

    @tool("Tunnels: rooms that appear in two or more wings (optionally linking wing_a and wing_b).", "find_tunnels")
    def tunnels(wing_a: Annotated[str | None, Field(description="A wing.")] = None,
                wing_b: Annotated[str | None, Field(description="Another wing.")] = None) -> dict[str, Any]:
        return {"tunnels": find_tunnels(scope(), wing_a, wing_b)}

    @tool("Counts of the room graph: rooms, tunnels, edges, the best-connected rooms, isolated wings.",
          "graph_stats")
    def stats() -> dict[str, Any]:
        return graph_stats(scope())

    @tool("Give a room a new name in every wing; its old names keep finding it (as `room=` anywhere). "
          "A name a person gives is never changed by ingest.", "rename_room")
    def rename(room: Room, new_name: Annotated[str, Field(description="The room's new name.")]) -> dict[str, Any]:
        return scope().rename_room(room, new_name).to_dict()

    @tool("Pairs of rooms that are probably the same concept spelled differently, best first.",
          "suggest_room_merges")
    def room_merges(min_score: Annotated[float, Field(gt=0, le=1)] = 0.8) -> dict[str, Any]:
        return {"suggestions": suggest_room_merges(scope(), min_score=min_score)}


def _allowed(path: str, roots: list[Path]) -> Path:
    """`path` resolved, if it and every link inside it (a folder is walked) stay in the allowed directories."""
    if not roots:
        raise InvalidInputError("This server reads no files: start it with --allow-dir DIR to allow ingest.")
    allowed = ", ".join(str(r) for r in roots)
    resolved = checked_path(Path(path).expanduser()).resolve()
    if not inside(resolved, roots):
        raise InvalidInputError(f"{shown_path(path)} is outside the directories this server may read ({allowed}).")
    for link in _links_under(resolved):
        if not inside(link.resolve(), roots):
            raise InvalidInputError(f"{link} links to {link.resolve()}, outside the directories this server may "
                                    f"read ({allowed}); nothing was ingested.")
    return resolved


def _links_under(path: Path) -> Iterator[Path]:
    """Every symbolic link below the folder `path`, files and folders (links are not followed)."""
    if path.is_dir():
        for folder, dirs, files in os.walk(path, followlinks=False):
            yield from (Path(folder) / name for name in [*dirs, *files] if (Path(folder) / name).is_symlink())


@click.command("mcp")
@click.option("--http", is_flag=True, help="Serve streamable HTTP (at /mcp) instead of stdio; every request "
              "needs a token (`mempalace token create`).")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http: the address to listen on.")
@click.option("--port", type=int, default=8765, show_default=True, help="With --http: the port.")
@click.option("--allow-dir", "allowed", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="A directory the ingest tool may read (repeat for more; none: ingest is refused).")
@place_options
@click.pass_context
def mcp_command(ctx: click.Context, http: bool, host: str, port: int, allowed: tuple[Path, ...]) -> None:
    """Serve the palace to AI agents over the Model Context Protocol."""
    if not http:
        with user_errors(), Palace.open(ctx.obj["palace"], ctx.obj["url"]) as palace:
            build_server(palace, allowed).run()
        return
    url = _endpoint(host, port)
    if not is_loopback(host):
        click.echo(f"Serving MCP on {host}: tokens travel in clear text over plain HTTP, so put this behind an "
                   "HTTPS reverse proxy (or a VPN) before agents on other machines use it.", err=True)
    with user_errors(), _token_palace(ctx) as palace:
        build_server(palace, allowed, http_url=url).run("streamable-http", host=host, port=port)


def _endpoint(host: str, port: int) -> str:
    """The URL `--host` and `--port` serve MCP at (an IPv6 address in brackets)."""
    name = host.strip()
    if not name:
        raise click.UsageError("--host needs an address to listen on, such as 127.0.0.1.")
    return f"http://{f'[{name}]' if ':' in name and not name.startswith('[') else name}:{port}/mcp"


def _token_palace(ctx: click.Context) -> Palace:
    """The palace to serve over HTTP, if it has an active token (tokens are the sign-in; never created here)."""
    try:
        palace = Palace.open(ctx.obj["palace"], ctx.obj["url"], create=False)
    except PalaceNotFoundError:
        raise click.UsageError(NO_TOKEN) from None
    try:
        if not any(t.revoked_at is None for t in palace.access.tokens()):
            raise click.UsageError(NO_TOKEN)
        if palace.access.token_refusal():
            click.echo(f"Warning: {palace.access.token_refusal()}", err=True)
    except BaseException:
        palace.close()
        raise
    return palace
