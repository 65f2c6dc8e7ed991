"""`mempalace mcp --http` lets in only agents with a palace token, and each sees what its token may.

One real server per module (a subprocess on a shared palace, as users run it, so the CLI can revoke a
token while it runs), driven by the SDK's streamable HTTP client with an `Authorization: Bearer`
header; requests without a good token are sent by hand to see the bare HTTP answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from _cli import as_json, ok
from _processes import free_port, stop
from click.testing import CliRunner
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from mempalace.access.rules import HIDDEN_WING, local_user
from mempalace.cli import main
from mempalace.cli.mcp import build_server
from mempalace.server.starting import ServerInfo
from test_mcp import call, refused, threaded

STARTUP_SECONDS = 60
KAI = "Kai: we cut over login to OAuth2 with PKCE on Tuesday."
PRIYA = "Priya: the auth migration kept sessions in Redis for a week."
NO_SUCH_ID = "drawer_000000000000000000000000"
VAULT = "Priya: the staging vault unseal keys live in the blue binder."
TOKENS = {"ops-agent": ["--role", "admin"], "kai-reader": ["--role", "viewer", "--wing", "wing_kai"],
          "temp-agent": ["--role", "editor"]}
SEARCH_CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"name": "mempalace_search", "arguments": {"query": "vault unseal keys"}}}


@dataclass
class Served:
    """The running server, its palace and what was put in it before it started."""

    url: str
    palace: Path
    env: dict[str, str | None]
    secrets: dict[str, str]
    ids: dict[str, str]

    def cli(self, *args: str) -> Any:
        """`mempalace --palace <palace> ARGS... --json` in-process, on the server's (shared) palace."""
        return CliRunner().invoke(main, ["--palace", str(self.palace), *args, "--json"], env=self.env)

    def audit(self, *filters: str) -> list[dict[str, Any]]:
        """`mempalace audit FILTERS... --json`: the entries, newest first."""
        return json.loads(ok(self.cli("audit", *filters)).stdout)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("mcp-auth")
    env: dict[str, str | None] = {"MEMPALACE_HOME": str(root / "home"), "MEMPALACE_EMBEDDER": "hash",
                                  "MEMPALACE_SHARED": "1", "MEMPALACE_URL": None}
    port = free_port()
    served = Served(f"http://127.0.0.1:{port}/mcp", root / "palace", env, {}, {})
    try:
        for key, wing, room, text in [("kai", "wing_kai", "auth-migration", KAI),
                                      ("priya", "wing_priya", "auth-migration", PRIYA),
                                      ("vault", "wing_priya", "vault", VAULT)]:
            served.ids[key] = as_json(served.cli("add", "--wing", wing, "--room", room, text))["drawer_ids"][0]
        for name, options in TOKENS.items():
            served.secrets[name] = as_json(served.cli("token", "create", "--name", name, *options))["secret"]
        process = _start(served, port, root / "mcp.log")
        try:
            yield served
        finally:
            stop(process)
    finally:
        _stop_palace_server(served.palace)


def _start(served: Served, port: int, log: Path) -> subprocess.Popen:
    """`mempalace mcp --http` on `port`, once it accepts connections."""
    env = {k: v for k, v in {**os.environ, **served.env}.items() if v is not None}
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "mempalace", "--palace", str(served.palace), "mcp",
                                    "--http", "--port", str(port)], stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + STARTUP_SECONDS
    while not _listening(port):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            pytest.fail(f"mempalace mcp --http did not start:\n{log.read_text(errors='replace')}")
        time.sleep(0.1)
    return process


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _stop_palace_server(folder: Path) -> None:
    """Stop the Chroma server MemPalace started for the shared palace (it would outlive the test)."""
    info = ServerInfo.read(folder)
    if info is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(info.pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and Path(f"/proc/{info.pid}").exists():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # reaped while its stat was read
            if Path(f"/proc/{info.pid}/stat").read_text().split()[2] == "Z":
                return
        time.sleep(0.05)


@contextlib.asynccontextmanager
async def agent(url: str, secret: str) -> AsyncIterator[Client]:
    """An MCP client session that sends `secret` as its bearer token on every request."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


def post(url: str, **headers: str) -> httpx2.Response:
    """A bare tool call (a search that would find a drawer) with these headers."""
    return httpx2.post(url, json=SEARCH_CALL, timeout=30,
                       headers={"Accept": "application/json, text/event-stream", **headers})


def assert_turned_away(response: httpx2.Response) -> None:
    """401 with the SDK's bearer challenge and an error body, and nothing from the palace."""
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith("Bearer ")
    assert set(response.json()) == {"error", "error_description"}
    assert "vault" not in response.text.lower() and "binder" not in response.text


def test_an_admin_token_works_and_its_writes_are_audited_under_its_name(served: Served) -> None:
    filed: list[str] = []

    @threaded
    async def session() -> None:
        async with agent(served.url, served.secrets["ops-agent"]) as client:
            assert set((await call(client, "list_wings"))["wings"]) >= {"wing_kai", "wing_priya"}
            assert (await call(client, "get_drawer", drawer_id=served.ids["vault"]))["content"] == VAULT
            added = await call(client, "add_drawer", wing="wing_ops", room="runbooks",
                               content="Ops: restart the ingest worker before rotating its key.")
            assert added["status"] == "added"
            filed.extend(added["drawer_ids"])

    session()
    [drawer_id] = filed
    [entry] = served.audit("--drawer", drawer_id)
    assert (entry["who"], entry["via"], entry["action"], entry["ids"]) == ("token:ops-agent", "mcp", "add", [drawer_id])


def test_a_viewer_token_of_one_wing_sees_only_that_wing_and_changes_nothing(served: Served) -> None:
    @threaded
    async def session() -> None:
        async with agent(served.url, served.secrets["kai-reader"]) as client:
            assert (await call(client, "list_wings"))["wings"] == {"wing_kai": 1}
            assert (await call(client, "get_taxonomy"))["taxonomy"] == {"wing_kai": {"auth-migration": 1}}
            hits = (await call(client, "search", query="auth migration sessions Redis vault keys"))["hits"]
            assert [h["drawer_id"] for h in hits] == [served.ids["kai"]]
            foreign = await refused(client, "get_drawer", drawer_id=served.ids["vault"])
            missing = await refused(client, "get_drawer", drawer_id=NO_SUCH_ID)
            assert foreign.replace(served.ids["vault"], "ID") == missing.replace(NO_SUCH_ID, "ID")
            [tunnel] = (await call(client, "find_tunnels"))["tunnels"]
            assert tunnel["room"] == "auth-migration" and set(tunnel["wings"]) == {"wing_kai", HIDDEN_WING}
            assert "editor" in await refused(client, "add_drawer", wing="wing_kai", room="notes", content="Mine now.")
            assert "admin" in await refused(client, "delete_drawer", drawer_id=served.ids["kai"])
            assert "editor" in await refused(client, "update_drawer", drawer_id=served.ids["kai"], room="elsewhere")
            status = await call(client, "status")
            assert (status["drawers"], status["wings"]) == (1, 1)
            assert status["location"] == "the team's palace" and str(served.palace) not in json.dumps(status)

    session()
    assert served.audit("--who", "token:kai-reader") == []


def test_over_http_a_scoped_token_wakes_up_lists_follows_and_writes_no_diary_without_the_right(
        served: Served) -> None:
    @threaded
    async def session() -> None:
        async with agent(served.url, served.secrets["kai-reader"]) as client:
            woken = await call(client, "wake_up")
            assert woken["wings"] == ["wing_kai"] and "wing_priya" not in woken["text"] and "vault" not in woken["text"]
            prompt = await client.get_prompt("mempalace_wake_up", {})
            assert prompt.messages[0].content.text == woken["text"]
            page = await call(client, "list_drawers")
            assert page["total"] == 1 and [d["id"] for d in page["drawers"]] == [served.ids["kai"]]
            several = await call(client, "get_drawers", drawer_ids=[served.ids["kai"], served.ids["vault"]])
            assert several["missing"] == [served.ids["vault"]]  # another wing's drawer: not found, as any unknown id
            assert (await call(client, "follow_tunnels", room="auth-migration", wing="wing_kai"))["wings"] == {}
            assert "editor" in await refused(client, "diary_write", agent_name="kai-bot", entry="Not mine to write.")
        async with agent(served.url, served.secrets["ops-agent"]) as client:
            written = await call(client, "diary_write", agent_name="ops", entry="Rotated the ingest key.")
            assert written["status"] == "added"
            assert [e["content"] for e in (await call(client, "diary_read", agent_name="ops"))["entries"]] == [
                "Rotated the ingest key."]

    session()


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer mpt_not-a-real-token"},
                                     {"Authorization": "Bearer mpt_"}, {"Authorization": "Basic b3BzOmFnZW50"}],
                         ids=["no token", "wrong token", "empty token", "not a bearer token"])
def test_a_request_without_a_good_token_gets_401_and_no_data(served: Served, headers: dict[str, str]) -> None:
    assert_turned_away(post(served.url, **headers))


def test_a_wrong_token_cannot_open_a_session(served: Served) -> None:
    @threaded
    async def session() -> None:
        with pytest.raises(ExceptionGroup) as raised:
            async with agent(served.url, "mpt_" + served.secrets["ops-agent"][4:][::-1]):
                pass
        assert raised.group_contains(MCPError, match="error response", depth=None)

    session()


def test_a_revoked_token_is_refused_at_once_by_the_running_server(served: Served) -> None:
    secret = served.secrets["temp-agent"]

    @threaded
    async def session() -> None:
        async with agent(served.url, secret) as client:
            assert "wing_priya" in (await call(client, "list_wings"))["wings"]
            assert ok(served.cli("token", "revoke", "temp-agent"))
            with pytest.raises(MCPError):
                await client.call_tool("mempalace_add_drawer", {"wing": "wing_kai", "room": "notes",
                                                                "content": "Filed after my token was revoked."})

    session()
    assert_turned_away(post(served.url, Authorization=f"Bearer {secret}"))
    [token] = [t for t in as_json(served.cli("token", "list")) if t["name"] == "temp-agent"]
    assert token["revoked_at"]
    assert served.audit("--who", "token:temp-agent") == []


@threaded
async def test_in_process_a_token_server_refuses_calls_that_carry_no_token(palace) -> None:
    async with Client(build_server(palace, http_url="http://127.0.0.1:8765/mcp")) as client:
        assert "token" in await refused(client, "add_drawer", wing="wing_kai", room="notes", content="No token.")
        assert "token" in await refused(client, "list_wings")
    assert palace.count() == 0


@threaded
async def test_over_stdio_writes_are_the_local_users_and_recorded_as_via_mcp(palace) -> None:
    async with Client(build_server(palace)) as client:
        added = await call(client, "add_drawer", wing="wing_kai", room="notes", content="Filed over stdio.")
    [entry] = palace.access.entries(action="add")
    assert (entry.who, entry.via, entry.ids) == (local_user(), "mcp", tuple(added["drawer_ids"]))
