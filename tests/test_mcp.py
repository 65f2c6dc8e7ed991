"""The MCP server, driven through the official SDK's client: every tool, errors, and an agent's session.

Each test's client runs in an event loop of its own thread (`threaded`): the browser tests' Playwright
keeps an event loop running in the main thread for the whole session.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from mempalace.cli.mcp import MAX_SEARCH_LIMIT, build_server

TOOLS = {"status", "list_wings", "list_rooms", "get_taxonomy", "search", "check_duplicate", "add_drawer",
         "get_drawer", "update_drawer", "delete_drawer", "ingest", "traverse", "find_tunnels", "graph_stats",
         "suggest_room_merges", "rename_room", "wake_up", "diary_write", "diary_read", "list_drawers", "get_drawers",
         "follow_tunnels"}


def threaded(test):
    """Run an async test to completion in a fresh event loop on a worker thread."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        with ThreadPoolExecutor(1) as pool:
            pool.submit(anyio.run, functools.partial(test, *args, **kwargs)).result()

    return run


@pytest.fixture
def allowed(tmp_path: Path) -> Path:
    folder = tmp_path / "allowed"
    folder.mkdir()
    return folder


@pytest.fixture
def server(palace, allowed):
    return build_server(palace, [allowed])


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(f"mempalace_{tool}", arguments)
    assert not result.is_error, result.content
    return result.structured_content


async def refused(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(f"mempalace_{tool}", arguments)
    assert result.is_error, result.structured_content
    return " ".join(c.text for c in result.content)


@threaded
async def test_every_tool_is_listed_with_a_description_and_typed_parameters(server):
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {f"mempalace_{name}" for name in TOOLS}
    assert all(t.description and len(t.description) > 20 for t in tools.values())
    search = tools["mempalace_search"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["limit"]["maximum"] == MAX_SEARCH_LIMIT
    add = tools["mempalace_add_drawer"]
    assert "never summarised" in add.description
    assert set(add.input_schema["required"]) == {"wing", "room", "content"}


@threaded
async def test_filing_reading_moving_and_deleting_a_drawer(server):
    async with Client(server) as client:
        added = await call(client, "add_drawer", wing="wing_kai", room="Auth Migration", hall="events",
                           content="We moved  auth to OAuth2 with PKCE.\n\n```py\nx = 1\n```")
        assert added["status"] == "added"
        [drawer_id] = added["drawer_ids"]
        drawer = await call(client, "get_drawer", drawer_id=drawer_id)
        assert drawer["content"] == "We moved  auth to OAuth2 with PKCE.\n\n```py\nx = 1\n```"
        assert (drawer["wing"], drawer["room"], drawer["hall"]) == ("wing_kai", "auth-migration", "hall_events")
        moved = await call(client, "update_drawer", drawer_id=drawer_id, wing="wing_priya", hall="advice")
        assert (moved["wing"], moved["room"], moved["hall"]) == ("wing_priya", "auth-migration", "hall_advice")
        assert (await call(client, "update_drawer", drawer_id=drawer_id, hall=""))["hall"] is None
        assert (await call(client, "list_wings"))["wings"] == {"wing_priya": 1}
        assert (await call(client, "list_rooms", wing="wing_priya"))["rooms"] == {"auth-migration": 1}
        assert (await call(client, "get_taxonomy"))["taxonomy"] == {"wing_priya": {"auth-migration": 1}}
        assert (await call(client, "status"))["drawers"] == 1
        deleted = await call(client, "delete_drawer", drawer_id=drawer_id)
        assert deleted["id"] == drawer_id
        assert "no drawer with id" in (await refused(client, "get_drawer", drawer_id=drawer_id)).lower()


@threaded
async def test_a_duplicate_is_refused_with_its_matches(server):
    text = "The zxqv-7 error code means the vault sealed itself after three failed unseal attempts."
    async with Client(server) as client:
        first = await call(client, "add_drawer", wing="wing_ops", room="vault", content=text)
        checked = await call(client, "check_duplicate", content=text)
        assert checked["matches"][0]["drawer_id"] == first["drawer_ids"][0]
        again = await call(client, "add_drawer", wing="wing_ops", room="vault-notes", content=text)
        assert again["status"] == "duplicate" and again["matches"][0]["drawer_id"] == first["drawer_ids"][0]
        assert (await call(client, "status"))["drawers"] == 1


@threaded
async def test_bad_input_comes_back_as_tool_errors_and_stores_nothing(server, palace, settings, tmp_path):
    async with Client(server) as client:
        assert "empty" in (await refused(client, "add_drawer", wing="w", room="r", content="   ")).lower()
        huge = "x " * (settings.max_content_chars // 2 + 10)
        assert f"{settings.max_content_chars:,}" in await refused(client, "add_drawer", wing="w", room="r", content=huge)
        assert "hall" in (await refused(client, "add_drawer", wing="w", room="r", content="hi", hall="kitchen")).lower()
        await refused(client, "search", query="anything", limit=MAX_SEARCH_LIMIT + 1)
        await refused(client, "search", query="anything", limit=0)
        assert "empty" in (await refused(client, "search", query=" ")).lower()
        await refused(client, "traverse", start_room="auth", max_hops=1000)
        await refused(client, "check_duplicate", content="hi", threshold=3)
        outside = tmp_path / "secret.txt"
        outside.write_text("User: my password is hunter2\nAssistant: noted\n", encoding="utf-8")
        assert "outside" in await refused(client, "ingest", path=str(outside))
        assert "outside" in await refused(client, "ingest", path=str(tmp_path / "allowed" / ".." / "secret.txt"))
        await refused(client, "no_such_tool")
    assert palace.count() == 0


@threaded
async def test_ingest_reads_only_under_the_allowed_directories(server, palace, allowed):
    transcript = allowed / "chat.txt"
    transcript.write_text("User: which database did we pick?\nAssistant: Postgres, for the JSONB support.\n",
                          encoding="utf-8")
    async with Client(server) as client:
        done = await call(client, "ingest", path=str(transcript), wing="wing_kai")
        assert done["reports"][0]["added"] == 1
    assert palace.list_wings() == {"wing_kai": 1}


@threaded
async def test_links_out_of_the_allowed_directories_are_refused(server, palace, allowed, tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "s.txt").write_text("User: my password is hunter2\nAssistant: noted\n", encoding="utf-8")
    (allowed / "chat.txt").write_text("User: hello\nAssistant: hi\n", encoding="utf-8")
    sibling = tmp_path / "allowed2"  # shares the allowed folder's name as a prefix
    sibling.mkdir()
    (sibling / "t.txt").write_text("User: not yours\nAssistant: no\n", encoding="utf-8")
    async with Client(server) as client:
        assert "outside" in await refused(client, "ingest", path=str(sibling / "t.txt"))
        (allowed / "link.txt").symlink_to(secret / "s.txt")
        assert "links to" in await refused(client, "ingest", path=str(allowed))
        assert "outside" in await refused(client, "ingest", path=str(allowed / "link.txt"))
        (allowed / "link.txt").unlink()
        (allowed / "nested").mkdir()
        (allowed / "nested" / "folder-link").symlink_to(secret, target_is_directory=True)
        assert "links to" in await refused(client, "ingest", path=str(allowed))
    assert palace.count() == 0


@threaded
async def test_without_allowed_directories_ingest_is_refused(palace, tmp_path):
    async with Client(build_server(palace)) as client:
        assert "--allow-dir" in await refused(client, "ingest", path=str(tmp_path))


@threaded
async def test_an_agent_files_memories_finds_the_duplicate_searches_and_follows_a_tunnel(server):
    """A realistic session: three memories, one repeated, a search, then the tunnel between wings."""
    memories = [
        ("wing_kai", "auth-migration", "events", "Kai: we cut over login to OAuth2 with PKCE on Tuesday."),
        ("wing_driftwood", "auth-migration", "facts", "Driftwood's auth migration keeps sessions in Redis."),
        ("wing_kai", "gpu-pricing", "facts", "Spot A100s were 40% cheaper in us-east-2 last week."),
    ]
    async with Client(server) as client:
        for wing, room, hall, text in memories:
            assert (await call(client, "add_drawer", wing=wing, room=room, hall=hall, content=text))["status"] == "added"
        repeat = await call(client, "add_drawer", wing="wing_kai", room="auth", content=memories[0][3])
        assert repeat["status"] == "duplicate"
        hits = (await call(client, "search", query="OAuth2 PKCE cut over", limit=3))["hits"]
        assert hits[0]["content"] == memories[0][3] and hits[0]["drawer_id"]
        tunnels = (await call(client, "find_tunnels", wing_a="wing_kai", wing_b="wing_driftwood"))["tunnels"]
        assert [t["room"] for t in tunnels] == ["auth-migration"]
        steps = (await call(client, "traverse", start_room="gpu-pricing", max_hops=2))["steps"]
        assert "auth-migration" in {s["room"] for s in steps}
        stats = await call(client, "graph_stats")
        assert stats["tunnel_rooms"] == 1 and stats["total_wings"] == 2
        assert "suggestions" in await call(client, "suggest_room_merges")
        renamed = await call(client, "rename_room", room="gpu-pricing", new_name="gpu-costs")
        assert (renamed["new"], renamed["aliases"]) == ("gpu-costs", ["gpu-pricing"])
        listed = await call(client, "list_rooms")
        assert listed["aliases"] == {"gpu-pricing": "gpu-costs"} and "gpu-costs" in listed["rooms"]
        steps = (await call(client, "traverse", start_room="gpu-pricing", max_hops=1))["steps"]
        assert steps and steps[0]["room"] == "gpu-costs"


@threaded
async def test_the_cli_serves_over_stdio(tmp_path, home):
    palace_dir = tmp_path / "stdio-palace"
    env = {**os.environ, "MEMPALACE_HOME": str(home), "MEMPALACE_EMBEDDER": "hash"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "mempalace", "--palace", str(palace_dir), "mcp"],
                                   env=env)
    async with Client(params) as client:
        added = await call(client, "add_drawer", wing="wing_kai", room="notes", content="Stdio works end to end.")
        assert added["status"] == "added"
        assert json.loads(json.dumps(await call(client, "status")))["drawers"] == 1
        assert (await call(client, "diary_write", agent_name="stdio", entry="Started over stdio."))["status"] == "added"
        assert (await call(client, "diary_read", agent_name="stdio"))["total"] == 1
        assert (await call(client, "wake_up", wing="wing_kai"))["text"].startswith("# Wake-up: wing_kai")
        assert (await call(client, "list_drawers", wing="wing_kai"))["total"] == 1
        assert (await call(client, "get_drawers", drawer_ids=added["drawer_ids"]))["missing"] == []
        assert list((await call(client, "follow_tunnels", room="notes", wing="wing_kai"))["wings"]) == []


@threaded
async def test_a_cursor_write_ahead_log_linked_out_of_the_allowed_directories_is_not_read(server, palace, allowed,
                                                                                          tmp_path):
    from _cursor_store import build, fixture

    build(allowed / "state.vscdb", fixture("global_storage.json"))
    outside = tmp_path / "secret-wal"
    outside.write_bytes(b"User: my password is hunter2\n" * 100)
    (allowed / "state.vscdb-wal").symlink_to(outside)
    async with Client(server) as client:
        [report] = (await call(client, "ingest", path=str(allowed / "state.vscdb")))["reports"]
    assert report["added"] == 0 and "outside the directories" in " ".join(report["errors"]), report
    assert palace.count() == 0


def test_a_link_that_appears_after_the_check_is_refused_when_its_file_is_opened(palace, allowed, tmp_path):
    from mempalace.ingest import ingest_paths

    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "s.txt").write_text("User: my password is hunter2\nAssistant: noted\n", encoding="utf-8")
    (allowed / "chat.txt").write_text("User: which database?\nAssistant: Postgres.\n", encoding="utf-8")
    (allowed / "nested").mkdir()
    (allowed / "nested" / "planted.txt").symlink_to(secret / "s.txt")  # as if planted mid-walk
    reports = {r.source: r for r in ingest_paths(palace, [allowed], wing="wing_kai", roots=[allowed.resolve()])}
    assert reports["chat.txt"].added == 1
    assert "outside the directories" in " ".join(reports["planted.txt"].errors)
    assert all("hunter2" not in d.content for d in palace.browse(wing="wing_kai")[1])


@threaded
async def test_a_viewer_is_refused_ingest_before_any_file_is_read(palace, allowed, monkeypatch):
    from mempalace.access.rules import Actor, Grant
    from mempalace.cli import mcp as mcp_module
    from mempalace.ingest import pipeline
    from mempalace.scoped.palace import ScopedPalace

    (allowed / "chat.txt").write_text("User: hello\nAssistant: hi\n", encoding="utf-8")
    viewer = ScopedPalace(palace, Grant(Actor("token:reader", "mcp"), (("viewer", ("*",)),)))
    monkeypatch.setattr(mcp_module, "local_scope", lambda _palace: lambda: viewer)
    read: list[object] = []
    original = pipeline._prepare
    monkeypatch.setattr(pipeline, "_prepare", lambda *args, **kwargs: read.append(args) or original(*args, **kwargs))
    async with Client(build_server(palace, [allowed])) as client:
        assert "editor" in await refused(client, "ingest", path=str(allowed))
    assert read == [] and palace.count() == 0


@threaded
async def test_a_mistyped_wing_or_room_is_an_error_with_the_nearest_names(server, palace):
    palace.add_drawer("Gmail API answers arrive as base64url.", "chatgpt", "gmail-api")
    async with Client(server) as client:
        said = await refused(client, "search", query="gmail", wing="chatgtp")
        assert "No wing 'chatgtp' in this palace. Did you mean chatgpt?" in said
        assert "Did you mean gmail-api?" in await refused(client, "search", query="gmail", room="gmail-apis")
        assert "Did you mean chatgpt?" in await refused(client, "list_rooms", wing="chatgtp")
        assert (await call(client, "search", query="gmail", wing="chatgpt"))["hits"]


def test_the_stdio_server_says_its_version_and_keeps_stderr_for_warnings(tmp_path):
    import subprocess

    from mempalace import __version__

    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "mempalace_search", "arguments": {"query": "x", "wing": "nope"}}},
    ]
    env = {**os.environ, "MEMPALACE_EMBEDDER": "hash", "MEMPALACE_SHARED": "0"}
    done = subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(tmp_path / "palace"), "mcp"],
                          input="\n".join(json.dumps(m) for m in messages) + "\n", capture_output=True, text=True,
                          env=env, timeout=120)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert answers[0]["result"]["serverInfo"] == {"name": "mempalace", "version": __version__}
    assert "INFO" not in done.stderr and "failed" not in done.stderr, done.stderr
