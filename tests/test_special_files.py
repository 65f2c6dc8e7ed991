"""FIFOs, devices and sockets among what is ingested or synced are never read (opening a FIFO waits for
a writer that never comes): each is skipped with a note naming what it is, and every reader refuses one
put in a file's place after the check. A sync the shared palace's host started that runs past its time
limit is stopped, its lock freed and the stop shown in the sources' status."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main
from mempalace.cli import sync_timer
from mempalace.errors import SourceRefusedError
from mempalace.formats import slack
from mempalace.formats.base import Source
from mempalace.formats.confined import read_file
from mempalace.catalog.source_book import sources_path
from mempalace.sources.sync import SYNC_LOCK_SUFFIX, book_of, sync_sources, sync_turn

from test_sources import session

GENEROUS_SECONDS = 60.0  # each of these finishes in a second or two once nothing blocks


def finishes(work: Callable[[], Any], fifos: list[Path]) -> Any:
    """`work`'s result, run aside; fails the test when it is still blocked after GENEROUS_SECONDS (the
    FIFOs are then opened for writing once, so the blocked reader gets an end of file and lets go)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # noqa: BLE001 (raised again in the test)
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(GENEROUS_SECONDS)
    if worker.is_alive():
        for fifo in fifos:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        worker.join(GENEROUS_SECONDS)
        pytest.fail(f"still blocked after {GENEROUS_SECONDS:.0f} s: a FIFO was opened for reading")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def test_a_fifo_in_a_synced_folder_is_skipped_and_the_sync_finishes(palace: Palace, tmp_path: Path) -> None:
    filed = session(tmp_path / "src" / "a.jsonl", 2)
    fifo = tmp_path / "src" / "pipe.jsonl"
    os.mkfifo(fifo)
    (tmp_path / "src" / "zero.jsonl").symlink_to("/dev/zero")
    book_of(palace).add(tmp_path / "src")
    [report] = finishes(lambda: sync_sources(palace), [fifo])
    assert report.added > 0 and report.files_seen == 3
    notes = dict(report.errors)
    assert "named pipe (FIFO)" in notes[str(fifo)] and "skipped" in notes[str(fifo)]
    assert "device" in notes[str(tmp_path / "src" / "zero.jsonl")]
    assert str(filed) not in notes
    assert book_of(palace).entry(report.source).errors == report.errors  # shown in `sources list` and the panel
    with sync_turn(palace, 0) as mine:
        assert mine  # the sync let go of its lock
    [again] = finishes(lambda: sync_sources(palace), [fifo])
    assert again.files_changed == 0  # not tried again every minute


def test_ingest_of_a_folder_with_a_fifo_finishes_and_notes_it_skipped(tmp_path: Path) -> None:
    session(tmp_path / "chats" / "a.jsonl", 1)
    fifo = tmp_path / "chats" / "pipe.txt"
    os.mkfifo(fifo)
    result = finishes(lambda: CliRunner().invoke(main, ["--palace", str(tmp_path / "p"), "ingest",
                                                        str(tmp_path / "chats")]), [fifo])
    assert result.exit_code == 0, result.output
    assert "pipe.txt: a named pipe (FIFO), not a regular file: skipped" in result.stdout
    assert "2 sources: added 1 drawer, 0 already in the palace, 0 failed, 1 skipped." in result.stdout


def test_every_reader_refuses_a_fifo_put_in_a_files_place_after_the_check(tmp_path: Path) -> None:
    fifo = tmp_path / "late.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(SourceRefusedError, match="named pipe"):
        finishes(lambda: read_file(fifo), [fifo])
    swapped = Source(name=fifo.name, path=fifo)  # what a Source made before the swap holds
    with pytest.raises(SourceRefusedError, match="named pipe"):
        finishes(lambda: swapped.head(), [fifo])
    with pytest.raises(SourceRefusedError, match="named pipe"):
        Source.from_path(fifo)


def test_a_fifo_inside_a_slack_export_folder_is_passed_over(tmp_path: Path) -> None:
    export = tmp_path / "export"
    (export / "general").mkdir(parents=True)
    (export / "users.json").write_text(json.dumps([{"id": "U1", "name": "ada", "real_name": "Ada"}]))
    (export / "channels.json").write_text(json.dumps([{"id": "C1", "name": "general"}]))
    (export / "general" / "2024-01-02.json").write_text(json.dumps(
        [{"type": "message", "user": "U1", "text": "the buoy is fixed", "ts": "1704196800.000100"}]))
    fifo = export / "general" / "2024-01-03.json"
    os.mkfifo(fifo)
    [conversation] = finishes(lambda: slack.parse(Source.from_path(export)), [fifo])
    assert conversation.id == "general/2024-01-02"


HOLD_THE_LOCK = "import sys, time; from filelock import FileLock; held = FileLock(sys.argv[1]); held.acquire(); time.sleep(600)"


def test_a_sync_child_past_its_time_limit_is_stopped_its_lock_freed_and_the_stop_shown(
        palace: Palace, palace_path: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    session(tmp_path / "src" / "a.jsonl", 1)
    book = book_of(palace)
    book.add(tmp_path / "src")
    lock = str(sources_path(palace.catalog_path)) + SYNC_LOCK_SUFFIX
    started: list[subprocess.Popen] = []
    real_popen = subprocess.Popen

    def hanging_sync(args, **kwargs):  # a sync that never ends, holding the lock as a real one does
        started.append(real_popen([sys.executable, "-c", HOLD_THE_LOCK, lock]))
        return started[-1]

    monkeypatch.setattr(sync_timer.subprocess, "Popen", hanging_sync)
    timer = sync_timer.SyncTimer(palace_path, every=0.0, limit=0.5)
    try:
        timer.tick()
        assert timer.busy
        deadline = time.monotonic() + GENEROUS_SECONDS
        while _lock_free(palace):
            assert time.monotonic() < deadline, "the hanging sync never took the lock"
            time.sleep(0.05)
        time.sleep(0.6)
        timer.tick()
        assert started[0].poll() is not None and not timer.busy  # stopped (killed)
        assert _lock_free(palace)
        [(where, why)] = book.entry("src").errors
        assert where == str(tmp_path / "src") and "stopped after" in why and "sources_sync_limit_seconds" in why
        assert "stopped" in capsys.readouterr().out  # in the host's log
        timer.tick()
        assert len(started) == 2  # the next sync goes on
    finally:
        for child in started:
            child.kill()
            child.wait()
    [report] = sync_sources(palace)
    assert report.added > 0 and book.entry("src").errors == ()  # a sync that ends clears the stop


def _lock_free(palace: Palace) -> bool:
    with sync_turn(palace, 0) as mine:
        return mine
