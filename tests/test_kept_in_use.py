"""An open dashboard keeps its shared palace in use: the palace's host, which runs the sources' sync
timer, keeps running (and syncing) while a tab is open and idle, and the palace is released once no
tab holds it. The Overview says whether syncing runs now. Streamlit's AppTest, the fake embedder,
the real host and Chroma server, with a small `server_idle_seconds`."""

from __future__ import annotations

import os
import re
import signal
import time
from dataclasses import replace
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.config import load_settings
from mempalace.server.starting import CLIENTS_DIR, SERVER_FILE, ServerInfo, host_alive
from mempalace.catalog.source_book import SOURCES_FILE, SourceBook
from mempalace.sources.sync import sync_sources
from _apptest import start
from _processes import eventually
from test_sharing import _kill, _wait_gone
from test_sources import session

IDLE_SECONDS = 2  # the host stops after this long without a lease renewed


@pytest.fixture
def shared_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """MEMPALACE_HOME whose default palace is shared, stops after IDLE_SECONDS unused and checks its
    sources every second; every host started for it is stopped afterwards."""
    monkeypatch.setenv("MEMPALACE_SHARED", "1")
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f"server_idle_seconds = {IDLE_SECONDS}\nsources_sync_seconds = 1\n",
                                      encoding="utf-8")
    yield home
    info = ServerInfo.read(home / "palace")
    if info and host_alive(home / "palace", info.pid):  # (never a pid a test's file merely names)
        _kill(info.pid, signal.SIGTERM)
        _wait_gone(info.pid)


def _palace_with_a_source(folder: Path, sources: Path) -> None:
    """A palace with one drawer and one registered source, synced and used shared before; no host
    runs for it now."""
    session(sources / "first.jsonl", 1)
    with Palace.open(folder, private=True) as palace:
        palace.add_drawer("The harbour master posts the ferry times each morning.", "wing_harbour", "ferry-times")
        SourceBook(folder / SOURCES_FILE).add(sources, name="sessions")
        assert sync_sources(palace)[0].added > 0
    Palace.open(folder, settings=replace(load_settings(), server_idle_seconds=60)).close()  # its host stays up
    host = ServerInfo.read(folder)
    _kill(host.pid, signal.SIGTERM)
    assert _wait_gone(host.pid)


def _filed(folder: Path, path: Path) -> bool:
    """Whether a sync recorded `path` as filed (read from the sources' book: no lease is touched)."""
    return str(path) in SourceBook(folder / SOURCES_FILE).files("sessions")


def _our_leases(folder: Path) -> list[str]:
    """The leases this process (the dashboard's) holds on the palace (a sync's own child holds one too)."""
    return [p.name for p in (folder / CLIENTS_DIR).glob(f"*-{os.getpid()}-*")]


def _host_alive(folder: Path) -> bool:
    """Whether the host named in the folder's server file runs (neither gone nor a zombie)."""
    info = ServerInfo.read(folder)
    try:
        return info is not None and Path(f"/proc/{info.pid}/stat").read_text().split()[2] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone, or reaped while its stat was read
        return False


def test_an_idle_open_dashboard_keeps_syncing_and_lets_go_once_no_tab_holds_the_palace(
        shared_home: Path, tmp_path: Path) -> None:
    folder, sources = shared_home / "palace", tmp_path / "sessions"
    _palace_with_a_source(folder, sources)
    at = start()  # a tab opens the Overview, then is left alone: no rerun, no read from here on
    assert at.session_state["palace"].mode == "shared"
    time.sleep(4 * IDLE_SECONDS)  # far longer than the host waits for an unused palace
    dropped = session(sources / "dropped.jsonl", 2, session_number=2)
    assert eventually(lambda: _filed(folder, dropped), 60.0)  # the host's timer filed it, nobody searched
    assert _host_alive(folder) and _our_leases(folder)

    host = ServerInfo.read(folder)
    at.session_state["palace_target"] = "ftp://nowhere"  # the tab names no palace any more
    at.run()
    assert not _our_leases(folder)  # the palace is released
    assert _wait_gone(host.pid, seconds=60)  # and its host, unused, stops


def test_the_overview_says_syncing_runs_now_and_when_it_checks_next(shared_home: Path, tmp_path: Path) -> None:
    folder, sources = shared_home / "palace", tmp_path / "sessions"
    _palace_with_a_source(folder, sources)
    at = start()
    assert eventually(lambda: _host_alive(folder), 60.0)
    lines = []
    for _ in range(100):  # the host's first look at the sources comes a moment after it started
        at.run()
        lines = [c.value.replace("\\", "") for c in at.main.caption if c.value.replace("\\", "").startswith(
            ("Syncing now", "Not syncing"))]
        if lines and re.fullmatch(r"Syncing now: 1 source watched, (next check in \d+ s|checking now|a sync is "
                                  r"filing what changed)\.", lines[0]):
            break
        time.sleep(0.2)
    assert lines and re.fullmatch(r"Syncing now: 1 source watched, (next check in \d+ s|checking now|a sync is "
                                  r"filing what changed)\.", lines[0]), lines


def test_the_overview_says_why_a_private_palace_does_not_sync_by_itself(settings, tmp_path: Path) -> None:
    sources = tmp_path / "sessions"
    session(sources / "first.jsonl", 1)
    with Palace.open(settings=settings) as palace:
        palace.add_drawer("The harbour master posts the ferry times each morning.", "wing_harbour", "ferry-times")
        SourceBook(palace.catalog_path.with_name(SOURCES_FILE)).add(sources, name="sessions")
    at = start()
    lines = [c.value.replace("\\", "") for c in at.main.caption]
    assert any(line.startswith("Not syncing by itself: this palace is private") for line in lines), lines
    assert any(line.startswith("Kept in sync: sessions synced never") for line in lines), lines


def test_a_host_that_cannot_start_is_said_and_its_details_kept_for_admins(shared_home: Path, tmp_path: Path) -> None:
    from mempalace.server.keep_alive import sync_status

    folder, sources = shared_home / "palace", tmp_path / "sessions"
    _palace_with_a_source(folder, sources)
    ServerInfo("http://127.0.0.1:9", 0, "another-machine", "token").write(folder)  # a server file from elsewhere
    try:
        with Palace.open(folder) as palace:
            palace.keep_in_use()
            assert eventually(lambda: palace.keeper.problem, seconds=30)
            said = sync_status(palace, 1).summary()
            assert said.startswith("Not syncing: the palace's server could not start (") and "another machine" in said
            hidden = sync_status(palace, 1, details=False).summary()
            assert "another machine" not in hidden and "an admin sees why" in hidden
    finally:
        (folder / SERVER_FILE).unlink()
