"""Sources at their edges: a palace or model failure is tried again, an unreadable file is reported, a
file replaced by one of the same size and time or a SQLite store's log is seen, a JSONL file that ends
without a newline is filed whole, a hook never waits long, and a source removed mid-sync leaves nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.errors import EmbeddingModelError, PalaceBusyError
from mempalace.ingest import pipeline
from mempalace.sources import sync as syncing
from mempalace.catalog.source_book import stat_file
from mempalace.sources.sync import book_of, file_transcript, sync_sources, sync_turn

from test_sources import _said, drawer_count, record, session


def test_a_model_failure_is_reported_and_the_file_is_filed_at_the_next_sync(palace: Palace, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    session(tmp_path / "src" / "a.jsonl", 2)
    book_of(palace).add(tmp_path / "src")

    def model_gone(*args, **kwargs):
        raise EmbeddingModelError("The embedding model could not run.")

    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "classify", model_gone)
        [failed] = sync_sources(palace)
    assert failed.errors and "could not run" in failed.errors[0][1] and drawer_count(palace) == 0
    assert book_of(palace).files(failed.source) == {}  # not recorded as the file's own error
    [again] = sync_sources(palace)
    assert again.files_changed == 1 and again.added > 0 and not again.errors


def test_an_unreadable_file_is_reported_and_tried_again_once_its_permissions_change(
        palace: Palace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = session(tmp_path / "src" / "a.jsonl", 1)
    (tmp_path / "src" / "b.md").write_text("User: is neap tide low?\n\nAssistant: It is the smallest range.\n")
    book_of(palace).add(tmp_path / "src")
    real_open = syncing.open_regular

    def refused(opened: Path, *args, **kwargs):
        if opened == path:
            raise PermissionError(13, "Permission denied", str(opened))
        return real_open(opened, *args, **kwargs)

    with monkeypatch.context() as patch:  # tests run as root here, which chmod cannot lock out
        patch.setattr(syncing, "open_regular", refused)
        [report] = sync_sources(palace)
    assert report.errors == ((str(path), "a.jsonl cannot be read (Permission denied); it is tried again once "
                                         "that changes."),)
    assert book_of(palace).entry(report.source).errors == report.errors  # shown, not "not a transcript"
    [same] = sync_sources(palace)
    assert same.files_changed == 0  # not read again every minute
    os.chmod(path, 0o600)  # the permission mended: its change time moves
    [mended] = sync_sources(palace)
    assert mended.files_changed == 1 and mended.added > 0 and not mended.errors


def test_a_file_replaced_by_one_of_the_same_size_and_time_is_read_again(palace: Palace, tmp_path: Path) -> None:
    path = session(tmp_path / "src" / "a.jsonl", 1)
    book_of(palace).add(tmp_path / "src")
    sync_sources(palace)
    before = path.stat()
    other = path.with_name("a.jsonl.new")
    other.write_text(path.read_text(encoding="utf-8").replace("harbour", "habrour"), encoding="utf-8")
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    other.replace(path)
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    [report] = sync_sources(palace)
    assert report.files_changed == 1 and report.added > 0 and _said(palace, "habrour")


def test_a_sqlite_stores_write_ahead_log_counts_as_a_change(tmp_path: Path) -> None:
    store = tmp_path / "state.vscdb"
    store.write_bytes(b"x" * 100)
    alone = stat_file(store)
    store.with_name("state.vscdb-wal").write_bytes(b"y" * 50)
    with_log = stat_file(store)
    assert with_log.size == 150 and with_log != alone


def test_a_jsonl_file_ending_without_a_newline_is_filed_whole_but_a_half_line_waits(palace: Palace,
                                                                                  tmp_path: Path) -> None:
    path = session(tmp_path / "src" / "s.jsonl", 1)
    with path.open("a", encoding="utf-8") as out:
        out.write(record("user", "A last question the tool wrote without a newline", 50).rstrip("\n"))
    book_of(palace).add(tmp_path / "src")
    sync_sources(palace)
    assert _said(palace, "without a newline")
    with path.open("a", encoding="utf-8") as out:
        out.write("\n" + record("assistant", "An answer cut off mid-wri", 51)[:60])
    [report] = sync_sources(palace)
    assert report.files_changed == 1 and not _said(palace, "cut off")
    with path.open("a", encoding="utf-8") as out:
        out.write(record("assistant", "An answer cut off mid-wri", 51)[60:].rstrip("\n"))
    sync_sources(palace)
    assert _said(palace, "cut off")  # whole now, though still without its newline


def test_a_hook_leaves_a_file_in_a_source_to_the_next_sync_while_another_process_syncs(palace: Palace,
                                                                                       tmp_path: Path) -> None:
    in_source = session(tmp_path / "projects" / "s.jsonl", 1)
    elsewhere = session(tmp_path / "other" / "t.jsonl", 1, 2)
    book_of(palace).add(tmp_path / "projects")
    with sync_turn(palace, 0):
        left = file_transcript(palace, in_source, wait_seconds=0.1)
        assert left.skipped and "the next sync of projects files it" in left.notes[0]
        with pytest.raises(PalaceBusyError, match="was not filed"):
            file_transcript(palace, elsewhere, wait_seconds=0.1)
    assert drawer_count(palace) == 0
    [report] = sync_sources(palace)
    assert report.added > 0


def test_a_hook_through_a_link_records_the_file_as_the_sources_scan_lists_it(palace: Palace, tmp_path: Path) -> None:
    real = session(tmp_path / "data" / "projects" / "s.jsonl", 1)
    (tmp_path / "link").symlink_to(tmp_path / "data")
    book_of(palace).add(tmp_path / "data" / "projects")
    assert file_transcript(palace, tmp_path / "link" / "projects" / "s.jsonl").added > 0
    assert list(book_of(palace).files("projects")) == [str(real)]
    [report] = sync_sources(palace)
    assert report.files_changed == 0


def test_a_source_removed_during_its_sync_leaves_no_rows_and_no_error(palace: Palace, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    session(tmp_path / "src" / "a.jsonl", 1)
    book = book_of(palace)
    book.add(tmp_path / "src")
    real = syncing._file_group

    def removed_meanwhile(palace, book, entry, items, tally):
        book_of(palace).remove(entry.name)
        real(palace, book, entry, items, tally)

    monkeypatch.setattr(syncing, "_file_group", removed_meanwhile)
    [report] = sync_sources(palace)
    assert report.added > 0 and book.entries() == [] and book.files("src") == {}


def test_the_hosts_timer_counts_a_running_sync_as_use_and_outlives_a_failed_start(tmp_path: Path, capsys,
                                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    from mempalace.cli import sync_timer
    from mempalace.catalog.source_book import SOURCES_FILE, SourceBook

    session(tmp_path / "src" / "a.jsonl", 1)
    SourceBook(tmp_path / SOURCES_FILE).add(tmp_path / "src")
    timer = sync_timer.SyncTimer(tmp_path, every=0.0)

    def no_process(*args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

    real_popen = subprocess.Popen
    monkeypatch.setattr(sync_timer.subprocess, "Popen", no_process)
    timer.tick()
    assert not timer.busy and "Starting a sync failed" in capsys.readouterr().out
    long_sync = [sys.executable, "-c", "import time; time.sleep(30)"]
    monkeypatch.setattr(sync_timer.subprocess, "Popen", lambda args, **kwargs: real_popen(long_sync))
    timer.tick()
    try:
        assert timer.busy  # the host's idle clock treats this as use
    finally:
        timer._child.kill()
        timer._child.wait()
    assert not timer.busy
