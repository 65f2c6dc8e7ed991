"""MCP tools for agents starting and keeping their work: the wake-up (tool and prompt), an agent's own
diary, drawers listed page by page or read several at once, and following a room's tunnels to the
same room in other wings. Names and arguments follow upstream MemPalace's where they mean the same:
`diary_write(agent_name, entry, topic)`, `diary_read(agent_name, last_n)`."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, Callable

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from ..errors import MempalaceError
from ..models import Drawer
from ..text.names import wing_name

PREVIEW_CHARS = 300
Text = Annotated[str, Field(description="Verbatim text.")]
Agent = Annotated[str, Field(description="The agent's name: its diary is wing_<name>, room diary.")]


def _brief(drawer: Drawer) -> dict[str, Any]:
    """A drawer as a list shows it: place, day, id and the first words (get_drawer gives it whole)."""
    text = drawer.content if len(drawer.content) <= PREVIEW_CHARS else drawer.content[:PREVIEW_CHARS] + " …"
    return {"id": drawer.id, "wing": drawer.wing, "room": drawer.room, "hall": drawer.hall,
            "date": drawer.conversation_date or (drawer.filed_at or "")[:10], "preview": text}


def agent_tools(server: Any, tool: Callable[..., Any], scope: Callable[[], Any]) -> None:
    @tool("What to know at the start of a session: the person's identity text, the most active rooms and their "
          "tunnels, and the newest facts, decisions, preferences, advice and open threads, each with its drawer id. "
          "Within a token budget (approximate); from the wings this caller may see.")
    def wake_up(wing: Annotated[str | None, Field(description="The wing the session is about (default: every wing).")]
                = None, tokens: Annotated[int, Field(ge=50, le=20_000)] = 800) -> dict[str, Any]:
        return scope().wake_up(wing, tokens)

    @server.prompt(name="mempalace_wake_up", description="Start a session with what the palace holds that matters "
                                                         "(the same text as the mempalace_wake_up tool).")
    def wake_up_prompt(wing: str | None = None) -> str:
        try:
            return scope().wake_up(wing).text
        except MempalaceError as exc:
            raise ToolError(str(exc)) from None

    _diary_tools(tool, scope)
    _reading_tools(tool, scope)


def _diary_tools(tool: Callable[..., Any], scope: Callable[[], Any]) -> None:
    @tool("Write a dated entry in this agent's diary (its own wing, room diary), verbatim and searchable.")
    def diary_write(agent_name: Agent, entry: Text,
                    topic: Annotated[str, Field(description="What the entry is about.")] = "general") -> dict[str, Any]:
        today = datetime.now(timezone.utc).date().isoformat()
        return scope().add_drawer(entry, wing_name(f"wing_{agent_name}"), "diary", topic=topic,
                                  conversation_date=today, added_by=f"diary:{agent_name}")

    @tool("This agent's newest diary entries, newest first, whole.")
    def diary_read(agent_name: Agent, last_n: Annotated[int, Field(ge=1, le=100)] = 10) -> dict[str, Any]:
        wing = wing_name(f"wing_{agent_name}")
        view = scope()
        if wing not in view.list_wings():
            return {"agent": agent_name, "wing": wing, "entries": [], "total": 0}
        total, found = view.browse(wing, "diary", offset=0, limit=last_n, newest=True)
        entries = [{"id": d.id, "date": d.conversation_date, "topic": d.extra.get("topic"), "content": d.content}
                   for d in found]
        return {"agent": agent_name, "wing": wing, "total": total, "entries": entries}


def _reading_tools(tool: Callable[..., Any], scope: Callable[[], Any]) -> None:
    @tool("The drawers of a wing, room and/or hall, a page at a time (newest conversation first if asked), with "
          "the total count; each as a preview (get_drawer or get_drawers reads it whole).")
    def list_drawers(wing: Annotated[str | None, Field(description="A wing.")] = None,
                     room: Annotated[str | None, Field(description="A room.")] = None,
                     hall: Annotated[str | None, Field(description="A hall.")] = None,
                     offset: Annotated[int, Field(ge=0)] = 0, limit: Annotated[int, Field(ge=1, le=100)] = 20,
                     newest: bool = False) -> dict[str, Any]:
        total, found = scope().browse(wing, room, hall, offset=offset, limit=limit, newest=newest)
        return {"total": total, "offset": offset, "drawers": [_brief(d) for d in found]}

    @tool("Several drawers at once, whole, by id (those not found are listed as missing).")
    def get_drawers(drawer_ids: Annotated[list[str], Field(min_length=1, max_length=100)]) -> dict[str, Any]:
        found = scope().get_drawers(drawer_ids)
        return {"drawers": [found[i] for i in drawer_ids if i in found],
                "missing": [i for i in drawer_ids if i not in found]}

    @tool("From a room in one wing to the same room in the other wings (its tunnels): their newest drawers as "
          "previews.")
    def follow_tunnels(room: Annotated[str, Field(description="A room that is a tunnel.")],
                       wing: Annotated[str | None, Field(description="The wing you are in (left out).")] = None,
                       per_wing: Annotated[int, Field(ge=1, le=20)] = 3) -> dict[str, Any]:
        view = scope()
        stored = view.stored_room(room)
        here = wing_name(wing) if wing else None
        wings = sorted(w for w in view.list_wings() if stored in view.list_rooms(w) and w != here)
        return {"room": stored, "wings": {w: [_brief(d) for d in view.browse(w, stored, limit=per_wing, newest=True)[1]]
                                          for w in wings}}
