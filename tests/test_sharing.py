"""One palace folder, many processes: the shared server MemPalace starts, finds, restarts and stops.

Real processes on one palace: this test process, CLI subprocesses, Python subprocesses and MCP stdio
servers driven by the SDK client, with the real Chroma server MemPalace starts for the folder.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from mempalace import Palace
from mempalace.errors import PalaceBusyError, PalaceUnavailableError
from mempalace.server.starting import CLIENTS_DIR, SERVER_FILE, ServerInfo

from test_mcp import call, threaded

CLI = [sys.executable, "-m", "mempalace"]


@pytest.fixture
def shared(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A palace folder opened the default (shared) way; its server is stopped afterwards."""
    monkeypatch.setenv("MEMPALACE_SHARED", "1")
    folder = tmp_path / "shared-palace"
    yield folder
    info = ServerInfo.read(folder)
    if info:
        _kill(info.pid, signal.SIGTERM)
        _wait_gone(info.pid)


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "MEMPALACE_SHARED": "1", **extra}


def _cli(folder: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*CLI, "--palace", str(folder), *args], capture_output=True, text=True, env=_env(),
                          timeout=120)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _wait_gone(pid: int, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return True
        except (FileNotFoundError, ProcessLookupError):  # reaped between the two looks, or while read
            return True
        time.sleep(0.05)
    return False


def _chroma_child(host_pid: int) -> int:
    children = Path(f"/proc/{host_pid}/task/{host_pid}/children").read_text().split()
    assert len(children) == 1
    return int(children[0])


def test_processes_share_one_palace_and_see_each_others_writes(shared: Path) -> None:
    with Palace.open(shared) as palace:
        palace.add_drawer("Kai moved the login to OIDC with PKCE last spring.", "wing_kai", "auth-migration")
        assert palace.mode == "shared"
        info = ServerInfo.read(shared)
        assert info and info.url.startswith("http://127.0.0.1:")
        # a CLI process writes while this one holds the palace open
        added = json.loads(_cli(shared, "add", "--wing", "wing_priya", "--room", "gpu-pricing", "--json",
                                "Priya compared spot GPU prices across three clouds.").stdout)
        assert added["status"] == "added"
        assert palace.count() == 2 and palace.list_wings() == {"wing_kai": 1, "wing_priya": 1}
        hits = palace.search("spot GPU prices", limit=1)
        assert hits[0].drawer_id == added["drawer_ids"][0]
        # and a CLI reader sees this process's move at once
        palace.update_drawer(added["drawer_ids"][0], room="cloud-costs")
        rooms = json.loads(_cli(shared, "rooms", "--json").stdout)
        assert rooms == {"auth-migration": 1, "cloud-costs": 1}
        assert ServerInfo.read(shared) == info  # everyone used the one server
    assert not any((shared / CLIENTS_DIR).iterdir())  # every process gave its lease back


def test_a_private_palace_and_a_shared_one_refuse_each_other_clearly(shared: Path) -> None:
    with Palace.open(shared) as palace:
        palace.add_drawer("Shared first.", "wing_kai", "notes")
        with pytest.raises(PalaceBusyError, match="shared by MemPalace's own server"):
            Palace.open(shared, private=True)
        assert palace.count() == 1
    info = ServerInfo.read(shared)
    _kill(info.pid, signal.SIGTERM)
    assert _wait_gone(info.pid)
    with Palace.open(shared, private=True) as private, Palace.open(shared) as reader:
        assert reader.count() == 1  # the catalog answers reads while a private process holds Chroma
        with pytest.raises(PalaceBusyError, match=f"open as a private palace by process {os.getpid()}"):
            reader.add_drawer("Refused while the palace is private.", "wing_kai", "notes")
        private.add_drawer("Written by the private process.", "wing_kai", "notes")
        assert reader.count() == 2 and private.count() == 2


def test_a_killed_server_is_restarted_by_the_next_call_and_nothing_is_lost(shared: Path) -> None:
    with Palace.open(shared) as palace:
        first = palace.add_drawer("Before the crash: the cache warms in ten minutes.", "wing_ops", "cache")
        info = ServerInfo.read(shared)
        _kill(_chroma_child(info.pid), signal.SIGKILL)  # Chroma's own server dies
        assert _wait_gone(info.pid)  # and its host notices and leaves
        assert palace.get_drawer(first.drawer_ids[0]).content.startswith("Before the crash")
        restarted = ServerInfo.read(shared)
        assert restarted and restarted.pid != info.pid
        palace.add_drawer("After the crash: the host is back on a new port.", "wing_ops", "restarts")
        _kill(restarted.pid, signal.SIGKILL)  # now the host itself, without a chance to clean up
        assert _wait_gone(restarted.pid)
        hits = palace.search("host back on a new port", limit=1)  # a read: asked again of a new server
        assert hits[0].content.startswith("After the crash")
        assert palace.count() == 2
    with Palace.open(shared) as searcher:  # only ever used the REST search path, then its server dies
        assert searcher.search("cache warms", limit=1)[0].content.startswith("Before the crash")
        info = ServerInfo.read(shared)
        _kill(info.pid, signal.SIGKILL)
        assert _wait_gone(info.pid)
        assert searcher.get_drawer(first.drawer_ids[0]).content.startswith("Before the crash")


def test_a_writer_killed_half_way_leaves_nothing_half_there(shared: Path) -> None:
    long_text = "\n\n".join(f"Paragraph {i}: the migration notes run long, part {i} of many." * 8
                            for i in range(12))  # split into several drawers
    script = textwrap.dedent(f"""
        import os, signal
        from mempalace import Palace
        from mempalace.store import ChromaStore
        real_add = ChromaStore.add
        def add_then_die(self, ids, documents, metadatas, embeddings):
            real_add(self, ids[:2], documents[:2], metadatas[:2], embeddings[:2])
            os.kill(os.getpid(), signal.SIGKILL)
        ChromaStore.add = add_then_die
        palace = Palace.open({str(shared)!r})
        palace.add_drawer({long_text!r}, "wing_kai", "migration-notes")
    """)
    with Palace.open(shared) as palace:
        palace.add_drawer("A drawer that was there before.", "wing_kai", "notes")
        killed = subprocess.run([sys.executable, "-c", script], env=_env(), capture_output=True, timeout=120)
        assert killed.returncode == -signal.SIGKILL
        assert palace.count() == 1  # this read repaired the dead writer's half-done add
        assert palace.list_rooms() == {"notes": 1}
        assert palace._store.count() == 1  # Chroma agrees: the two drawers that landed were taken out
        again = palace.add_drawer(long_text, "wing_kai", "migration-notes")
        assert again.status == "added" and palace.count() == 1 + len(again.drawer_ids)


def test_the_server_stops_once_nobody_has_used_the_palace_for_a_while(shared: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMPALACE_HOME", str(shared.parent / "idle-home"))
    (shared.parent / "idle-home").mkdir()
    (shared.parent / "idle-home" / "config.toml").write_text("server_idle_seconds = 2\n", encoding="utf-8")
    with Palace.open(shared) as palace:
        palace.add_drawer("Short-lived server.", "wing_kai", "notes")
        info = ServerInfo.read(shared)
    assert _wait_gone(info.pid, seconds=30)
    assert not (shared / SERVER_FILE).exists()
    assert _cli(shared, "status", "--json").returncode == 0  # a catalog read needs no server at all
    assert not (shared / SERVER_FILE).exists()
    assert json.loads(_cli(shared, "search", "short-lived", "--json").stdout)[0]["content"] == "Short-lived server."


def test_short_commands_import_neither_chromadb_nor_the_mcp_sdk(shared: Path) -> None:
    with Palace.open(shared) as palace:
        palace.add_drawer("Imports stay light.", "wing_kai", "notes")
    probe = textwrap.dedent(f"""
        import sys
        from mempalace.cli import main
        for args in (["status"], ["search", "light imports"], ["taxonomy"], ["tunnels"]):
            try:
                main(["--palace", {str(shared)!r}, *args], standalone_mode=False)
            except SystemExit:
                pass
        print(sorted({{m.split(".")[0] for m in sys.modules}} & {{"chromadb", "mcp", "streamlit"}}))
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert "Imports stay light." in done.stdout


def test_clear_messages_where_sharing_cannot_work(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Palace.open(shared) as palace:
        palace.add_drawer("Somewhere else.", "wing_kai", "notes")
        info = ServerInfo.read(shared)
    _kill(info.pid, signal.SIGTERM)
    assert _wait_gone(info.pid)
    ServerInfo("http://127.0.0.1:9", 4242, "another-machine").write(shared)  # (its loopback: nothing here)
    with pytest.raises(PalaceUnavailableError, match="served by another machine .another-machine"):
        Palace.open(shared).search("anything")
    (shared / SERVER_FILE).unlink()
    monkeypatch.setattr("mempalace.server.starting.os.access", lambda *_: False)
    with pytest.raises(PalaceUnavailableError, match="cannot write to"):
        Palace.open(shared)


@threaded
async def test_two_mcp_servers_and_the_cli_write_and_read_one_palace(shared: Path) -> None:
    def params() -> StdioServerParameters:
        return StdioServerParameters(command=sys.executable, args=[*CLI[1:], "--palace", str(shared), "mcp"],
                                     env=_env())

    async with Client(params()) as first, Client(params()) as second:
        added = await call(first, "add_drawer", wing="wing_agent_a", room="deploys",
                           content="Agent A learned the deploy needs a warm cache.")
        assert added["status"] == "added"
        assert (await call(second, "status"))["drawers"] == 1
        await call(second, "add_drawer", wing="wing_agent_b", room="deploys",
                   content="Agent B saw the rollout stall on cold nodes.")
        _cli(shared, "add", "--wing", "wing_cli", "--room", "deploys", "A script filed last night's deploy log.")
        hits = (await call(first, "search", query="rollout stall cold nodes", limit=1))["hits"]
        assert hits[0]["wing"] == "wing_agent_b"
        tunnels = (await call(first, "find_tunnels"))["tunnels"]
        assert tunnels[0]["room"] == "deploys" and len(tunnels[0]["wings"]) == 3


def test_a_stale_server_file_never_leads_to_another_palace(shared: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-palace"
    with Palace.open(other) as neighbour:
        neighbour.add_drawer("The neighbour's only drawer.", "wing_other", "notes")
        with Palace.open(shared) as palace:
            palace.add_drawer("Ours.", "wing_kai", "notes")
            ours = ServerInfo.read(shared)
            _kill(ours.pid, signal.SIGKILL)  # our host dies; its file stays behind
            assert _wait_gone(ours.pid)
            theirs = ServerInfo.read(other)
            ServerInfo(theirs.url, ours.pid, ours.machine).write(shared)  # its port now answers for them
            palace.add_drawer("Filed after the crash, and into our own palace.", "wing_kai", "notes")
            assert ServerInfo.read(shared).url != theirs.url
            assert palace.count() == 2 and palace._store.count() == 2
        assert neighbour.count() == 1 and neighbour._store.count() == 1
    for folder in (other,):
        info = ServerInfo.read(folder)
        if info:
            _kill(info.pid, signal.SIGTERM)


def test_repair_keeps_an_add_another_writer_acknowledged(shared: Path) -> None:
    from mempalace.catalog.catalog import JournalEntry
    from mempalace.store.chroma import SEQ_KEY

    with Palace.open(shared) as palace:
        kept = palace.add_drawer("Acknowledged by its writer.", "wing_kai", "notes").drawer_ids[0]
        stamp = int(palace._store.get([kept])[0].metadata[SEQ_KEY])
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout.strip()  # a pid that has exited
        palace._catalog.open_write(JournalEntry("t1", f"{os.uname().nodename}:{dead}:x", "add", stamp,
                                                (kept, "drawer_never_landed")))
        assert palace.count() == 1  # the read repairs the entry: half there, yet the landed row is held
        assert palace._store.count() == 1 and palace._catalog.open_writes() == []
