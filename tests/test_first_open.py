"""A palace's first open (no catalog yet, as an upstream palace arrives): a shared palace's host builds
the catalog from Chroma's files before it serves, clients wait for it however long it takes as long as
it says how far it got, and the CLI shows that on stderr."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import sys
import time
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.catalog.catalog import CATALOG_FILE, Catalog
from mempalace.catalog.build_progress import ProgressFile, catalog_built, progress_path, read_progress
from mempalace.server.starting import HOST_LOG
from mempalace.store.chroma import STATE_COLLECTION

from test_sharing import _kill, _wait_gone


def _upstream_palace(folder: Path, settings, drawers: int = 30) -> int:
    """A palace with drawers and no catalog (as another tool left it); returns how many it holds."""
    with Palace.open(folder, settings=settings, private=True) as palace:
        for n in range(drawers):
            palace.add_drawer(f"Drawer {n}: the tide table for harbour {n} moved in spring.", "wing_kai", "tides")
        stored = palace.count()
    for name in (CATALOG_FILE, CATALOG_FILE + "-wal", CATALOG_FILE + "-shm"):
        (folder / name).unlink(missing_ok=True)
    return stored


def test_the_host_builds_a_missing_catalog_from_chromas_files_before_it_serves(
        settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "upstream"
    stored = _upstream_palace(folder, settings)
    monkeypatch.setenv("MEMPALACE_SHARED", "1")
    try:
        done = subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(folder), "--json", "status"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["drawers"] == stored > 20
        deadline = time.monotonic() + 30  # the client went on once the catalog was whole: the host says so after
        while "Built the palace's catalog" not in (log := (folder / HOST_LOG).read_text(encoding="utf-8")):
            assert time.monotonic() < deadline, log
            time.sleep(0.1)
        assert "Built the palace's catalog from Chroma's files" in log  # not through the server
        assert catalog_built(folder / CATALOG_FILE) and not progress_path(folder / CATALOG_FILE).exists()
    finally:
        _stop_host(folder)


@pytest.mark.parametrize("recorded", [True, False], ids=["ours", "another-tools"])
def test_a_first_shared_open_takes_the_embedder_from_the_catalog_its_host_built(
        settings, tmp_path: Path, recorded: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.server import starting as sharing

    waits = []
    served_by = sharing._served_by
    monkeypatch.setattr(sharing, "_served_by", lambda *args: waits.append(served_by(*args)) or waits[-1])
    folder = tmp_path / "upstream"
    stored = _upstream_palace(folder, settings)
    if not recorded:  # a palace another tool made: Chroma records no embedder for it
        import chromadb

        chromadb.PersistentClient(path=str(folder)).delete_collection(STATE_COLLECTION)
    try:
        with Palace.open(folder, settings=settings, private=False) as palace:
            assert palace.count() == stored
            assert waits == [None]  # it went on once the catalog was built, not waiting for Chroma's server
            hits = palace.search("tide table harbour", mode="semantic", limit=3)
            assert len(hits) == 3 and "tide table" in hits[0].content
            assert not palace._store.connected  # the catalog answered, and the search went by REST
        catalog = Catalog(folder / CATALOG_FILE)
        assert catalog.get_state("embedder") == (settings.embedder if recorded else "")
        catalog.close()
    finally:
        _stop_host(folder)


def test_the_catalogs_embedder_is_used_whatever_is_configured_without_connecting(
        settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.config import load_settings
    from mempalace.server.shared_store import SharedStore

    folder = tmp_path / "p"
    try:
        with Palace.open(folder, settings=settings, private=False) as palace:
            palace.add_drawer("The tide table for the harbour moved in spring.", "wing_kai", "tides")
        monkeypatch.setattr(SharedStore, "_connect", lambda self: pytest.fail("connected to learn the embedder"))
        with Palace.open(folder, settings=load_settings(settings.home, embedder="minilm-int8"), private=False) as again:
            assert again.settings.embedder == again.status().embedder == "hash"
            assert "tide table" in again.search("tide table harbour", mode="semantic", limit=1)[0].content
    finally:
        _stop_host(folder)


def test_an_empty_palace_another_tool_made_records_ours_when_opened_to_write_and_then_keeps_it(
        settings, tmp_path: Path) -> None:
    from mempalace.config import load_settings

    import chromadb

    folder = tmp_path / "empty"
    _upstream_palace(folder, settings, drawers=0)
    chromadb.PersistentClient(path=str(folder)).delete_collection(STATE_COLLECTION)
    try:
        with Palace.open(folder, settings=settings, private=False, create=False) as palace:
            assert palace.count() == 0
        catalog = Catalog(folder / CATALOG_FILE)
        assert catalog.get_state("embedder") == ""  # none recorded yet: any embedder may still open it
        with Palace.open(folder, settings=settings, private=False) as palace:
            palace.add_drawer("The tide table for the harbour moved in spring.", "wing_kai", "tides")
        assert catalog.get_state("embedder") == settings.embedder
        catalog.close()
        with Palace.open(folder, settings=load_settings(settings.home, embedder="minilm-int8"), private=False) as again:
            assert again.settings.embedder == "hash"
    finally:
        _stop_host(folder)


def test_reaching_a_new_server_lets_go_of_the_old_ones_handles(settings, tmp_path: Path) -> None:
    folder = tmp_path / "p"
    try:
        with Palace.open(folder, settings=settings, private=False) as palace:
            palace.add_drawer("Before: the cache warms in ten minutes.", "wing_ops", "cache")
            assert palace._store.connected
            _stop_host(folder, signal.SIGKILL)
            palace._store.reach()  # finds the server gone and starts a new one
            assert not palace._store.connected
            palace.add_drawer("After: the host is back on a new port.", "wing_ops", "restarts")
            assert palace.count() == 2 and palace._store.connections == 2
    finally:
        _stop_host(folder)


def _stop_host(folder: Path, how: signal.Signals = signal.SIGTERM) -> None:
    """Stop the folder's host, also one still starting Chroma (a client goes on once the catalog is built)."""
    from mempalace.server.starting import host_pid

    pid = host_pid(folder)
    if pid:
        _kill(pid, how)
        _wait_gone(pid)


def test_a_private_first_open_leaves_no_progress_behind_and_the_catalog_is_whole(settings, tmp_path: Path) -> None:
    folder = tmp_path / "upstream"
    stored = _upstream_palace(folder, settings)
    assert not catalog_built(folder / CATALOG_FILE)
    with Palace.open(folder, settings=settings, private=True) as palace:
        assert palace.count() == stored > 20
    assert catalog_built(folder / CATALOG_FILE) and not progress_path(folder / CATALOG_FILE).exists()


def test_progress_is_read_only_while_its_builder_lives(tmp_path: Path) -> None:
    catalog = tmp_path / CATALOG_FILE
    told = ProgressFile(catalog, total=1000)
    told.tell(250, force=True)
    found = read_progress(catalog)
    assert found is not None and found.pid == os.getpid() and found.fraction == 0.25
    assert "250 of 1,000 drawers" in found.said()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    progress_path(catalog).write_text(json.dumps({"pid": int(gone.stdout), "done": 1, "total": 2, "at": time.time()}))
    assert read_progress(catalog) is None  # its builder died: nobody waits for it
    told.close()
    assert not progress_path(catalog).exists()


def test_a_client_waits_past_the_start_limit_while_the_host_says_it_is_building(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.server import starting as sharing

    folder = tmp_path / "p"
    folder.mkdir()
    monkeypatch.setattr(sharing, "START_SECONDS", 1.0)
    told = ProgressFile(folder / CATALOG_FILE, total=10)
    assert sharing._building(folder) and sharing._building(folder, os.getpid())
    assert not sharing._building(folder, os.getpid() + 1)  # another host's build
    told.close()
    assert not sharing._building(folder)


def test_the_cli_shows_how_far_a_shared_first_open_has_got_while_it_opens(
        tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.cli import support
    from mempalace.store.chroma import CHROMA_FILE

    folder = tmp_path / "upstream"
    folder.mkdir()
    (folder / CHROMA_FILE).touch()  # a palace another tool left, with no catalog yet

    class Opened:  # what a shared open returns once its host's build is whole
        catalog_path = folder / CATALOG_FILE

        def __enter__(self) -> "Opened":
            return self

        def __exit__(self, *_: object) -> None:
            pass

    def opening(*args, **kwargs) -> Opened:  # the open waits for the host, which tells how far it got
        told = ProgressFile(folder / CATALOG_FILE, total=200)
        told.tell(50, force=True)
        time.sleep(1.2)
        told.close()
        Catalog(folder / CATALOG_FILE).set_state("collection", "c")
        return Opened()

    monkeypatch.setattr(support.Palace, "open", opening)
    with support.opened(folder, None, create=False, dry_run=False) as palace:
        assert isinstance(palace, Opened)
    assert "first open): 50 of 200 drawers (25%)" in capsys.readouterr().err


def test_the_cli_shows_how_far_a_build_has_got(tmp_path: Path, capsys) -> None:
    from mempalace.cli.support import showing_build

    catalog = tmp_path / CATALOG_FILE
    told = ProgressFile(catalog, total=200)
    told.tell(50, force=True)
    with showing_build(catalog):
        time.sleep(1.2)
    told.close()
    err = capsys.readouterr().err
    assert "Building the palace's catalog from Chroma (first open): 50 of 200 drawers (25%)" in err


def test_the_dashboard_opens_a_palace_without_a_catalog_and_shows_its_counts(settings) -> None:
    from test_app import app_palace, open_page

    stored = _upstream_palace(settings.default_palace, settings)
    assert not catalog_built(settings.default_palace / CATALOG_FILE)
    at = open_page("overview")
    assert catalog_built(settings.default_palace / CATALOG_FILE) and app_palace(at).count() == stored
    assert not at.main.get("progress")  # the bar is gone once built
    assert any("wing\\_kai" in c.value for c in at.main.caption)  # the Overview shows the palace's wing


def test_a_palace_searches_its_hnsw_index_wider_than_chromas_default(settings, tmp_path: Path) -> None:
    from mempalace.store.connecting import HNSW_EF_SEARCH

    folder = tmp_path / "p"
    with Palace.open(folder, settings=settings, private=True) as palace:
        collection = palace._store._collection
        assert collection.configuration_json["hnsw"]["ef_search"] == HNSW_EF_SEARCH == 400
        collection.modify(configuration={"hnsw": {"ef_search": 100}})  # as upstream MemPalace leaves it
    with Palace.open(folder, settings=settings, private=True) as palace:
        assert palace._store._collection.configuration_json["hnsw"]["ef_search"] == 400


def test_a_client_waits_for_a_host_still_starting_instead_of_calling_it_private(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.server import starting as sharing
    from mempalace.errors import PalaceUnavailableError

    from filelock import FileLock

    folder = tmp_path / "p"
    folder.mkdir()
    host = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "mempalace.cli.host", str(folder)])
    held = FileLock(str(folder / "mempalace.lock"), is_singleton=False, thread_local=False)
    held.acquire()  # as the host holds it
    try:
        (folder / "mempalace.owner").write_text(f"{host.pid} shared", encoding="utf-8")  # locked, not yet serving
        deadline = time.monotonic() + 10
        while not sharing._hosts(host.pid, folder) and time.monotonic() < deadline:
            time.sleep(0.02)  # until the child runs its own command line
        assert sharing._starting_host(folder) == host.pid and sharing._private_holder(folder) is None
        monkeypatch.setattr(sharing, "START_SECONDS", 0.5)
        monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail("a second host was started"))
        with pytest.raises(PalaceUnavailableError, match="did not answer within"):
            sharing._start(folder, idle_seconds=60, enough=None)
    finally:
        held.release()
        host.kill()
        host.wait()
    assert sharing._starting_host(folder) is None  # its host is gone (and the lock free)


def test_read_ahead_stops_when_its_consumer_fails_near_the_end() -> None:
    from mempalace.catalog.sync import read_ahead

    def consume() -> None:
        for page in read_ahead(iter([[1], [2], [3]]), depth=1):
            raise RuntimeError(f"the catalog failed on page {page}")

    finished = threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            consume()
        except RuntimeError as exc:
            failure.append(exc)
        finished.set()

    threading.Thread(target=run, daemon=True).start()
    assert finished.wait(10), "read_ahead hung after its consumer failed"
    assert "page [1]" in str(failure[0])


def test_a_progress_file_stays_fresh_while_nothing_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.catalog import build_progress as catalog_build

    monkeypatch.setattr(catalog_build, "HEARTBEAT_SECONDS", 0.2)
    told = ProgressFile(tmp_path / CATALOG_FILE, total=10)
    told.tell(10, force=True)
    first = read_progress(tmp_path / CATALOG_FILE).at
    time.sleep(0.7)  # indexes being built: no page read
    assert read_progress(tmp_path / CATALOG_FILE).at > first
    told.close()
    assert read_progress(tmp_path / CATALOG_FILE) is None
