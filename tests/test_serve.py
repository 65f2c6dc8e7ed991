"""`mempalace serve` end to end: one palace shared by an MCP server, the CLI and the dashboard's data layer.

Real processes, the real model and a real `chroma run` under `mempalace serve`: an agent files memories
through the MCP server (streamable HTTP) while the CLI ingests a folder and the dashboard's cached views
read, all at once; afterwards nothing is lost or doubled and the overview counts are exact.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from _processes import answers, free_port, stop
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mempalace import Palace
from mempalace.access.rules import full_grant
from mempalace.config import load_settings
from mempalace.errors import PalaceBusyError
from mempalace.scoped.palace import ScopedPalace

pytestmark = [pytest.mark.server, pytest.mark.model]

STARTUP_SECONDS = 60
MEMORIES = [
    "The staging database ran out of disk because WAL archiving was never pruned.",
    "Priya prefers small pull requests with a screenshot for every UI change.",
    "We chose Postgres over MongoDB for the ledger because we need real transactions.",
    "The flaky checkout test waits on an animation; disabling animations fixed it.",
    "Kai's team holds its retro every second Friday at 4pm in the blue room.",
    "GPU spot instances in us-east-2 were 40% cheaper than on-demand in March.",
    "Rotate the signing key with `vault write -f transit/keys/app/rotate`, then redeploy.",
    "The mobile app crashed on Android 9 because of a missing null check in the camera module.",
]
TRANSCRIPT = "User: {question}\nAssistant: {answer}\n"
CLI_CHATS = [
    ("How do I bake sourdough?", "Feed the starter twice a day and proof the dough overnight in the fridge."),
    ("Which chess opening suits beginners?", "The Italian Game: it develops pieces quickly and controls the centre."),
    ("Why is my tomato plant yellowing?", "Overwatering and nitrogen deficiency are the usual causes."),
    ("What is a good first marathon pace plan?", "Run the first half a little slower than goal pace, then settle."),
]


def wait_until(ready, process: subprocess.Popen, log: Path, what: str) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while not ready():
        if process.poll() is not None:
            pytest.fail(f"{what} exited with {process.returncode}:\n{log.read_text(errors='replace')}")
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not answer within {STARTUP_SECONDS} s:\n{log.read_text(errors='replace')}")
        time.sleep(0.2)


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


class Processes:
    """Background processes of one test, stopped (SIGTERM, then SIGKILL) at the end."""

    def __init__(self, root: Path, env: dict[str, str]):
        self.root, self.env, self.started = root, env, []

    def start(self, name: str, *args: str) -> tuple[subprocess.Popen, Path]:
        log = self.root / f"{name}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen([sys.executable, "-m", "mempalace", *args], stdout=out,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env)
        self.started.append(process)
        return process, log

    def stop(self) -> None:
        for process in reversed(self.started):
            stop(process, timeout=15)

    def serve(self, palace_dir: Path) -> tuple[subprocess.Popen, Path, str]:
        """`mempalace serve` on a free port, once it answers; returns the process, its log and the URL."""
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        process, log = self.start("serve", "serve", "--palace", str(palace_dir), "--port", str(port))
        wait_until(lambda: answers(f"{url}/api/v2/heartbeat"), process, log, "mempalace serve")
        return process, log, url


def agent_token(url: str, env: dict[str, str]) -> str:
    """The secret of a new editor token for the palace at `url` (what `mcp --http` asks agents for)."""
    made = subprocess.run([sys.executable, "-m", "mempalace", "--url", url, "token", "create", "--role", "editor",
                           "--name", "agent", "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    return json.loads(made.stdout)["secret"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The real model for every process; each process keeps its own MEMPALACE_HOME (catalog cache)."""
    return {**os.environ, "MEMPALACE_EMBEDDER": "minilm-int8", "MEMPALACE_HOME": str(tmp_path / "home")}


@pytest.fixture
def served(tmp_path: Path, env: dict[str, str]) -> Iterator[tuple[str, Path, Processes]]:
    processes = Processes(tmp_path, env)
    palace_dir = tmp_path / "palace"
    try:
        process, log, url = processes.serve(palace_dir)
        yield url, palace_dir, processes
    finally:
        processes.stop()
    assert process.returncode == 0, log.read_text(errors="replace")  # SIGTERM stops it cleanly


def test_while_served_a_second_embedded_process_is_told_to_use_the_server(served, env):
    url, palace_dir, _ = served
    with pytest.raises(PalaceBusyError, match=f"--url {url}"):
        Palace.open(palace_dir, settings=load_settings(env["MEMPALACE_HOME"], embedder="minilm-int8"))
    done = subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(palace_dir), "status"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and f"--url {url}" in done.stderr, done.stderr


def test_agents_cli_and_dashboard_share_one_palace_without_losing_or_doubling_anything(served, env, tmp_path):
    from dashboard import views

    url, _, processes = served
    secret = agent_token(url, env)
    mcp_port = free_port()
    mcp, mcp_log = processes.start("mcp", "--url", url, "mcp", "--http", "--port", str(mcp_port))
    wait_until(lambda: listening(mcp_port), mcp, mcp_log, "mempalace mcp --http")
    folder = tmp_path / "chats"
    folder.mkdir()
    for n, (question, answer) in enumerate(CLI_CHATS):
        (folder / f"chat-{n}.txt").write_text(TRANSCRIPT.format(question=question, answer=answer), encoding="utf-8")

    statuses: list[str] = []

    async def agent() -> None:
        async with (httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=300) as http,
                    Client(streamable_http_client(f"http://127.0.0.1:{mcp_port}/mcp", http_client=http)) as client):
            for text in MEMORIES:
                result = await client.call_tool("mempalace_add_drawer", {"wing": "wing_agent", "room": "notes",
                                                                         "content": text})
                assert not result.is_error, result.content
                statuses.append(result.structured_content["status"])

    def cli() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "mempalace", "--url", url, "ingest", str(folder), "--wing",
                               "wing_cli"], env=env, capture_output=True, text=True, timeout=300)

    reader = Palace.open(url=url, settings=load_settings(tmp_path / "reader-home", embedder="minilm-int8"))
    seen = ScopedPalace(reader, full_grant("dashboard-user", "dashboard"))  # what the dashboard's pages get
    results: dict[str, object] = {}
    writers = [threading.Thread(target=lambda: results.__setitem__("agent", anyio.run(agent))),
               threading.Thread(target=lambda: results.__setitem__("cli", cli()))]
    for thread in writers:
        thread.start()
    reads = 0
    while any(t.is_alive() for t in writers):  # the dashboard's data layer, reading throughout
        bundle = views.overview(seen, views.key(seen))
        assert bundle["count"] == sum(p["drawers"] for p in bundle["places"])
        reader.search("database disk", limit=5)
        reads += 1
    for thread in writers:
        thread.join()
    cli_run = results["cli"]
    assert cli_run.returncode == 0, cli_run.stdout + cli_run.stderr
    assert statuses == ["added"] * len(MEMORIES)
    assert reads > 0

    bundle = views.overview(seen, views.key(seen))
    taxonomy = reader.taxonomy()
    assert set(taxonomy) == {"wing_agent", "wing_cli"}
    assert taxonomy["wing_agent"] == {"notes": len(MEMORIES)}
    cli_drawers = sum(taxonomy["wing_cli"].values())
    assert cli_drawers == len(CLI_CHATS)
    assert bundle["count"] == reader.count() == len(MEMORIES) + len(CLI_CHATS)
    for text in MEMORIES:  # each memory is there once, verbatim
        [hit] = reader.search(text, wing="wing_agent", limit=1)
        assert hit.content == text
    fresh = Palace.open(url=url, settings=load_settings(tmp_path / "fresh-home", embedder="minilm-int8"))
    try:
        assert fresh.taxonomy() == taxonomy
    finally:
        fresh.close()
        reader.close()


def test_a_second_server_on_a_taken_port_says_so_and_keeps_its_palace_free(served, env, tmp_path):
    url, palace_dir, _ = served
    port = url.rsplit(":", 1)[1]
    other = tmp_path / "other-palace"
    done = subprocess.run([sys.executable, "-m", "mempalace", "serve", "--palace", str(other), "--port", port],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and f"127.0.0.1:{port} is already in use" in done.stderr, done.stderr
    Palace.open(other, settings=load_settings(env["MEMPALACE_HOME"], embedder="minilm-int8")).close()  # not held
    assert (palace_dir / "mempalace-serve.log").is_file()


def test_the_server_does_not_outlive_a_killed_serve(tmp_path, env):
    """SIGKILL leaves no cleanup to `serve`: the server must still go, or it would serve an unlocked palace."""
    processes = Processes(tmp_path, env)
    try:
        process, _, url = processes.serve(tmp_path / "palace")
        process.kill()
        process.wait()
        deadline = time.monotonic() + 15
        while answers(f"{url}/api/v2/heartbeat") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not answers(f"{url}/api/v2/heartbeat"), "chroma run outlived mempalace serve"
    finally:
        processes.stop()
