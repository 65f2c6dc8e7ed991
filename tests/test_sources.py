"""Sources that sync themselves: registered files and folders are filed when new or grown, once, with
nothing read when nothing changed; a line still being written waits; a gone file's drawers stay;
syncs take turns; the shared palace's host syncs by itself; a sync killed part-way loses nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main
from mempalace.errors import InvalidInputError, PlaceNotFoundError
from mempalace.ingest import ingest_paths
from mempalace.server.starting import ServerInfo
from mempalace.sources.suggest import suggest
from mempalace.sources import sync as syncing
from mempalace.sources.sync import book_of, file_transcript, sync_sources, sync_turn
from _processes import eventually

SESSION = "9f1c2a3b-0000-4000-8000-00000000000{n}"


def record(kind: str, text: str, number: int, session: int = 1, cwd: str = "/home/ada/projects/lighthouse") -> str:
    """One Claude Code JSONL record, newline included."""
    message = ({"role": "user", "content": text} if kind == "user" else
               {"role": "assistant", "type": "message", "content": [{"type": "text", "text": text}]})
    return json.dumps({"type": kind, "sessionId": SESSION.format(n=session), "uuid": f"u{session}-{number}",
                       "cwd": cwd, "timestamp": f"2026-02-10T21:{number:02d}:00.000Z", "message": message}) + "\n"


def session(path: Path, exchanges: int, session_number: int = 1, start: int = 0) -> Path:
    """Append `exchanges` question-and-answer pairs to a Claude Code session file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        for i in range(start, start + exchanges):
            out.write(record("user", f"Question {i} of session {session_number}: how do the tide tables "
                                     f"for harbour {i} change in spring?", 2 * i, session_number))
            out.write(record("assistant", f"Answer {i}: spring tides at harbour {i} rise higher because sun "
                                          f"and moon pull together; check table {i}.", 2 * i + 1, session_number))
    return path


def drawer_count(palace: Palace) -> int:
    return palace.status().drawers


def test_a_new_file_is_filed_and_an_unchanged_source_reads_nothing(palace: Palace, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "projects"
    session(folder / "lighthouse" / "a.jsonl", 2)
    book_of(palace).add(folder)
    [first] = sync_sources(palace)
    assert (first.files_seen, first.files_changed, first.new_conversations) == (1, 1, 1) and first.added > 0
    filed = drawer_count(palace)

    read: list[str] = []
    monkeypatch.setattr(syncing, "_file_one", lambda *args, **kwargs: read.append(args[1]))
    [again] = sync_sources(palace)
    assert (again.files_seen, again.files_changed, again.added) == (1, 0, 0) and read == []  # nothing opened
    assert drawer_count(palace) == filed


def test_a_grown_session_files_only_what_was_added_and_a_half_written_line_waits(palace: Palace,
                                                                                 tmp_path: Path) -> None:
    path = session(tmp_path / "src" / "s.jsonl", 3)
    book_of(palace).add(tmp_path / "src")
    sync_sources(palace)
    before = drawer_count(palace)
    session(path, 2, start=3)
    with path.open("a", encoding="utf-8") as out:
        out.write(record("user", "A question still being typed", 99)[:40])  # no newline yet
    [grown] = sync_sources(palace)
    assert grown.files_changed == 1 and grown.added >= 1 and not grown.errors
    after = drawer_count(palace)
    assert after > before
    assert not _said(palace, "still being typed")  # the half line is not filed
    with path.open("a", encoding="utf-8") as out:
        out.write(record("user", "A question still being typed", 99)[40:])
    [completed] = sync_sources(palace)
    assert completed.added >= 1 and _said(palace, "still being typed")


def _said(palace: Palace, words: str) -> bool:
    """Whether some drawer holds `words` (the hash embedder's search still matches words)."""
    return any(words in hit.content for hit in palace.search(words, limit=50))


def test_a_gone_file_keeps_its_drawers_and_is_counted_and_a_returning_one_is_seen_again(palace: Palace,
                                                                                        tmp_path: Path) -> None:
    keep, lose = session(tmp_path / "src" / "keep.jsonl", 1, 1), session(tmp_path / "src" / "lose.jsonl", 1, 2)
    book = book_of(palace)
    book.add(tmp_path / "src", name="logs")
    sync_sources(palace)
    filed = drawer_count(palace)
    saved = lose.read_bytes()
    lose.unlink()
    [report] = sync_sources(palace)
    assert report.files_gone == 1 and report.files_seen == 1 and drawer_count(palace) == filed
    assert book.entry("logs").files_gone == 1 and len(book.gone_parents()) == 1
    lose.write_bytes(saved)
    [back] = sync_sources(palace)
    assert back.files_gone == 0 and back.files_seen == 2 and back.added == 0 and not book.gone_parents()
    assert keep.exists()


def test_syncs_take_turns_and_a_timer_sync_skips_while_another_runs(palace: Palace, tmp_path: Path) -> None:
    session(tmp_path / "src" / "a.jsonl", 1)
    book_of(palace).add(tmp_path / "src")
    with sync_turn(palace, 0) as mine:
        assert mine
        [report] = sync_sources(palace, wait=False)
        assert report.busy and report.added == 0
    [report] = sync_sources(palace, wait=False)
    assert not report.busy and report.added > 0


def test_a_hook_files_a_transcript_and_the_next_sync_does_not_read_it_again(palace: Palace, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = session(tmp_path / "projects" / "lighthouse" / "s.jsonl", 2)
    book_of(palace).add(tmp_path / "projects")
    report = file_transcript(palace, path)
    assert report.ok and report.added > 0
    read: list[str] = []
    monkeypatch.setattr(syncing, "_file_one", lambda *args, **kwargs: read.append(args[1]))
    [after] = sync_sources(palace)
    assert after.files_changed == 0 and read == []


def test_a_file_that_changes_while_read_is_read_again_next_time(palace: Palace, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.formats import plain_text

    text = tmp_path / "src" / "notes.md"
    text.parent.mkdir()
    text.write_text("User: what is the spring tide?\n\nAssistant: The highest tide of the month.\n", encoding="utf-8")
    book_of(palace).add(tmp_path / "src")
    real = plain_text.parse

    def writer_appends_meanwhile(source):
        found = real(source)
        with text.open("a", encoding="utf-8") as out:
            out.write("\nUser: and the neap tide?\n")
        return found

    monkeypatch.setattr(plain_text, "parse", writer_appends_meanwhile)
    [report] = sync_sources(palace)
    assert report.files_changed == 1 and book_of(palace).files(report.source) == {}  # not recorded: retried
    monkeypatch.setattr(plain_text, "parse", real)
    [again] = sync_sources(palace)
    assert again.files_changed == 1 and str(text) in book_of(palace).files(again.source)
    assert _said(palace, "neap tide")


def test_sources_cli_add_list_sync_remove(tmp_path: Path) -> None:
    palace_dir = tmp_path / "p"
    session(tmp_path / "src" / "a.jsonl", 1)
    run = lambda *args: CliRunner().invoke(main, ["--palace", str(palace_dir), *args])  # noqa: E731
    added = run("sources", "add", str(tmp_path / "src"), "--name", "Claude Code", "--wing", "Lighthouse")
    assert added.exit_code == 0, added.output
    assert "Added the source claude-code" in added.output
    synced = run("--json", "sources", "sync")
    assert synced.exit_code == 0 and json.loads(synced.output)[0]["added"] > 0
    [entry] = json.loads(run("--json", "sources", "list").output)
    assert (entry["name"], entry["wing"], entry["files_seen"], entry["errors"]) == ("claude-code", "lighthouse", 1, [])
    assert run("sources", "add", str(tmp_path / "src")).exit_code == 1  # the same folder twice
    missing = run("sources", "sync", "nope")
    assert missing.exit_code == 1 and "No source named 'nope'" in missing.output
    assert run("sources", "remove", "claude-code").exit_code == 0
    assert "No sources yet" in run("sources", "list").output
    assert json.loads(run("--json", "status").output)["drawers"] > 0  # its drawers stay


def test_bad_sources_are_refused_clearly(palace: Palace, tmp_path: Path) -> None:
    book = book_of(palace)
    with pytest.raises(InvalidInputError, match="does not exist"):
        book.add(tmp_path / "nowhere")
    with pytest.raises(PlaceNotFoundError, match="No source named"):
        book.remove("nothing")


def test_suggest_lists_the_tools_folders_with_file_counts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    session(home / ".claude" / "projects" / "-home-ada-lighthouse" / "s.jsonl", 1)
    session(home / ".claude" / "projects" / "-home-ada-lighthouse" / "t.jsonl", 1)
    (home / ".codex" / "sessions" / "2026" / "01").mkdir(parents=True)
    repo = tmp_path / "code" / "orchard"
    repo.mkdir(parents=True)
    (repo / ".aider.chat.history.md").write_text("# aider chat started at 2026-01-01 10:00:00\n", encoding="utf-8")
    found = {s.name: s for s in suggest(home=home, aider_folders=[tmp_path / "code"])}
    assert found["claude-code"].files == 2 and found["claude-code"].path == str(home / ".claude" / "projects")
    assert found["codex"].files == 0 and "gemini-cli" not in found
    assert found["aider-orchard"].path == str(repo / ".aider.chat.history.md")


def test_the_shared_palaces_host_syncs_new_and_grown_files_by_itself(home: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMPALACE_SHARED", "1")
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("sources_sync_seconds = 1\n", encoding="utf-8")
    folder = tmp_path / "shared"
    src = tmp_path / "sessions"
    first = session(src / "one.jsonl", 1)
    try:
        with Palace.open(folder, create=True) as palace:
            book_of(palace).add(src)
            assert eventually(lambda: palace.status().drawers > 0)  # no command: the host's timer filed it
            session(first, 1, start=1)  # grown
            session(src / "two.jsonl", 1, 2)  # and new
            assert eventually(lambda: _said(palace, "Question 1 of session 1") and _said(palace, "of session 2"))
    finally:
        info = ServerInfo.read(folder)
        if info:
            os.kill(info.pid, signal.SIGTERM)


def test_a_sync_killed_part_way_files_the_rest_next_time_and_nothing_twice(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for n in range(40):  # files are filed in groups of about 512 drawers: these make three or four
        session(src / f"s{n:02d}.jsonl", 100, n + 1)
    palace_dir = tmp_path / "p"
    env = {**os.environ, "MEMPALACE_SHARED": "0"}
    cli = [sys.executable, "-m", "mempalace", "--palace", str(palace_dir)]
    subprocess.run([*cli, "sources", "add", str(src)], check=True, env=env, capture_output=True)
    sync = subprocess.Popen([*cli, "sources", "sync"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    eventually(lambda: len(_recorded(palace_dir)) >= 5, 120)
    sync.send_signal(signal.SIGKILL)
    sync.wait()
    part = len(_recorded(palace_dir))
    assert 0 < part < 40  # killed part-way
    again = subprocess.run([*cli, "--json", "sources", "sync"], env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert len(_recorded(palace_dir)) == 40
    with Palace.open(palace_dir) as palace:
        stored = palace.status().drawers
    with Palace.open(tmp_path / "fresh", create=True) as fresh:
        expected = sum(r.added for r in ingest_paths(fresh, [src]))
    assert stored == expected  # none lost, none twice


def _recorded(palace_dir: Path) -> list[str]:
    import sqlite3

    path = palace_dir / "mempalace_sources.sqlite3"
    if not path.exists():
        return []
    with sqlite3.connect(path, timeout=5) as db:
        return [row[0] for row in db.execute("SELECT path FROM files")]


def test_a_file_beside_the_sessions_that_is_no_transcript_is_passed_over_not_failed(palace: Palace,
                                                                                  tmp_path: Path) -> None:
    session(tmp_path / "tmp" / "abc" / "chats" / "session-1.jsonl", 1)
    (tmp_path / "tmp" / "abc" / "logs.json").write_text('{"level": "info", "n": 3}', encoding="utf-8")
    (tmp_path / "tmp" / "abc" / "events.jsonl").write_text('{"metric": 1}\n', encoding="utf-8")
    (tmp_path / "tmp" / "abc" / "broken.json").write_text('{"mapping": ', encoding="utf-8")
    book_of(palace).add(tmp_path / "tmp", name="gemini")
    [report] = sync_sources(palace)
    assert report.added > 0 and report.files_seen == 4
    assert [Path(path).name for path, _ in report.errors] == ["broken.json"]  # a broken JSON file says where
    assert book_of(palace).entry("gemini").errors[0][1].startswith("broken.json")
