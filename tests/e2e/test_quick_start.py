"""The README's quick start, in its order, on the default palace with no flags: the dashboard open in a
browser, then `mempalace ingest` and `mempalace search` in another terminal, then an agent's MCP
client; the dashboard shows what they filed on its next run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from playwright.sync_api import Page, expect

from _dashboard import Dashboard, metric, open_app, sidebar

pytestmark = pytest.mark.e2e
TRANSCRIPT = """User: We need to pick a vector store for the memory palace.
Assistant: Chroma runs embedded or as a server, so one palace can be shared by the dashboard and the agents.
User: Then every process uses one Chroma server that MemPalace starts by itself.
Assistant: Yes: the first process starts it, the others connect, and it stops when nobody uses it.
"""


@pytest.fixture
def shared_app(dashboard) -> Dashboard:
    return dashboard()  # the palace shared, as people run it; its server stops with the dashboard


def _mempalace(app: Dashboard, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMPALACE_HOME": str(app.home), "MEMPALACE_EMBEDDER": "minilm-int8"}
    env.pop("MEMPALACE_SHARED")  # exactly as a person types it: the defaults
    done = subprocess.run([sys.executable, "-m", "mempalace", *args], capture_output=True, text=True, env=env,
                          timeout=180)
    assert done.returncode == 0, done.stderr
    return done


async def _agent_remembers(app: Dashboard) -> dict:
    env = {**os.environ, "MEMPALACE_HOME": str(app.home), "MEMPALACE_EMBEDDER": "minilm-int8"}
    env.pop("MEMPALACE_SHARED")
    params = StdioServerParameters(command=sys.executable, args=["-m", "mempalace", "mcp"], env=env)
    async with Client(params) as client:
        added = await client.call_tool("mempalace_add_drawer", {
            "wing": "wing_agent", "room": "vector-store",
            "content": "The agent noted: the shared Chroma server listens on loopback only."})
        assert not added.is_error, added.content
        found = await client.call_tool("mempalace_search", {"query": "who starts the Chroma server", "limit": 3})
        assert not found.is_error, found.content
        return found.structured_content


def test_dashboard_cli_and_agent_share_the_default_palace(page: Page, shared_app: Dashboard,
                                                          tmp_path: Path) -> None:
    open_app(page, shared_app)
    expect(sidebar(page).get_by_text("Shared palace", exact=False)).to_be_visible()
    assert metric(sidebar(page), "Drawers") == "0"

    chat = tmp_path / "vector-store-chat.txt"
    chat.write_text(TRANSCRIPT, encoding="utf-8")
    filed = json.loads(_mempalace(shared_app, "ingest", str(chat), "--wing", "wing_kai", "--json").stdout)
    assert filed[0]["added"] >= 1
    hits = json.loads(_mempalace(shared_app, "search", "who starts the Chroma server", "--json").stdout)
    assert hits[0]["wing"] == "wing_kai" and "starts it" in hits[0]["content"]

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API already runs an event loop in this thread
        found = pool.submit(anyio.run, _agent_remembers, shared_app).result()
    assert {h["wing"] for h in found["hits"]} == {"wing_kai", "wing_agent"}

    open_app(page, shared_app)
    assert metric(sidebar(page), "Drawers") == str(filed[0]["added"] + 1)
    assert metric(sidebar(page), "Wings") == "2"
