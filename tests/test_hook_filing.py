"""`mempalace hooks run`: the installed hook, run with each tool's documented payload, answers at once
and hands the filing to one background process, which files it into a real palace (recorded in the
audit log as `via hook`), keeps a copy until it is filed, and logs what it could not file."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from filelock import FileLock

from mempalace import Palace
from mempalace.cli.commands import _LazyGroup, main
from mempalace.cli.hooks import hooks_group
from mempalace.config import Settings
from mempalace.sources.hooks import TOOLS
from mempalace.catalog.source_book import sources_path
from mempalace.sources.sync import SYNC_LOCK_SUFFIX

from _cli import describe, ok

BACKGROUND = "in the background"


def hooks_cli(palace_path: Path, *args: str, stdin: bytes | None = None) -> Result:
    """`mempalace --palace PALACE hooks ARGS`, the group driven directly."""
    return CliRunner().invoke(hooks_group, list(args), input=stdin,
                              obj={"palace": palace_path, "url": None, "json": False})


def wait_for_filing(home: Path, timeout: float = 300) -> Any:
    """Poll until the background filing has emptied the queue and stopped; the queue's state then."""
    from mempalace.sources.hook_queue import log_path, queue_state

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = queue_state(home)
        if not state.waiting and not state.running:
            return state
        time.sleep(0.1)
    log = log_path(home)
    pytest.fail(f"the background filing did not end within {timeout} s; its log:\n"
                + (log.read_text(errors="replace") if log.exists() else "(none)"))


def sync_lock(palace_path: Path, settings: Settings) -> FileLock:
    """The palace's sync lock (made with the palace), as another process syncing would hold it."""
    with Palace.open(palace_path, settings=settings) as palace:
        return FileLock(str(sources_path(palace.catalog_path)) + SYNC_LOCK_SUFFIX)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The background filings hooks start, recorded instead of started: the test files the queue here."""
    calls: list[Path] = []
    monkeypatch.setattr("mempalace.sources.hook_queue.start_filing", lambda home: calls.append(Path(home)))
    return calls


def file_here(home: Path) -> list[str]:
    """What a hook's background process does, done in this process: the lines it logs."""
    from mempalace.cli.hook_worker import main as worker

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert worker([str(home)]) == 0
    return out.getvalue().splitlines()


def hook_vias(palace: Palace) -> set[str]:
    return {e.via for e in palace.access.entries() if e.action != "log-start"}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")


def _claude_code(home: Path) -> tuple[Path, str]:
    session = "6f1c0d9e-2b7a-4e3f-9c8d-1a2b3c4d5e6f"
    path = home / ".claude" / "projects" / "-home-ada-projects-lighthouse" / f"{session}.jsonl"

    def record(kind: str, message: dict[str, Any], n: int) -> dict[str, Any]:
        return {"parentUuid": None, "isSidechain": False, "userType": "external",
                "cwd": "/home/ada/projects/lighthouse", "sessionId": session, "version": "2.1.38",
                "gitBranch": "main", "type": kind, "message": message, "uuid": f"uuid-{n}",
                "timestamp": f"2026-02-10T21:1{n}:00.000Z"}

    def said(text: str) -> dict[str, Any]:
        return {"model": "claude-opus-4-6", "id": "msg_1", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}], "stop_reason": None}

    records = [record("user", {"role": "user", "content": "Why does the lighthouse tile cache grow without bound?"}, 1),
               record("assistant", said("The tile cache never evicts: its LRU size is never set."), 2),
               record("user", {"role": "user", "content": "Cap it at 512 tiles then."}, 3),
               record("assistant", said("Done: the cache keeps 512 tiles and evicts the least recently used."), 4)]
    _write(path, "".join(json.dumps(r) + "\n" for r in records))
    return path, "512 tiles"


def _gemini_cli(home: Path) -> tuple[Path, str]:
    path = home / ".gemini" / "tmp" / "9f2c41d0ab" / "chats" / "session-2026-03-04T05-06-4a1b2c3d.json"
    said = [("user", "Which port does the orchard sensor gateway listen on?"),
            ("gemini", "The orchard gateway listens on port 7443 behind the greenhouse proxy.")]
    session = {"sessionId": "4a1b2c3d-0000-4000-8000-00000000g001", "projectHash": "9f2c41d0ab",
               "startTime": "2026-03-04T05:06:00.000Z", "lastUpdated": "2026-03-04T05:07:30.000Z",
               "messages": [{"id": f"m{n}", "timestamp": f"2026-03-04T05:06:{n}0.000Z", "type": kind, "content": text}
                            for n, (kind, text) in enumerate(said, start=1)]}
    _write(path, json.dumps(session, indent=2))
    return path, "port 7443"


def _codex_cli(home: Path) -> tuple[Path, str]:
    path = home / ".codex" / "sessions" / "2026" / "01" / "02" / "rollout-2026-01-02T03-04-05-0199aa.jsonl"

    def record(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": "2026-01-02T03:04:05.000Z", "type": kind, "payload": payload}) + "\n"

    def said(role: str, text: str) -> str:
        kind = "input_text" if role == "user" else "output_text"
        return record("response_item", {"type": "message", "role": role, "content": [{"type": kind, "text": text}]})

    _write(path, record("session_meta", {"id": "0199aa00-1111-4111-8111-111111111111",
                                         "timestamp": "2026-01-02T03:04:05Z", "cwd": "/home/me/projects/quarry"})
           + said("user", "Why is the quarry ledger export missing March?")
           + said("assistant", "The export filter used an exclusive end date, so March 31 was dropped."))
    return path, "exclusive end date"


def _copilot_cli(home: Path) -> tuple[Path, str]:
    path = home / ".copilot" / "session-state" / "5f0c2a7e-3b1d-4c8e-9a6f-2d7b8e1c4a90" / "events.jsonl"
    _write(path, (Path(__file__).parent / "data" / "formats" / "copilot_cli" / "events.jsonl").read_text("utf-8"))
    return path, "tide_level"


# Each tool's documented payload for the event MemPalace hooks (the transcript path is filled in).
RUNS = {
    "claude-code": (_claude_code, {"session_id": "6f1c0d9e-2b7a-4e3f-9c8d-1a2b3c4d5e6f",
                                   "cwd": "/home/ada/projects/lighthouse", "hook_event_name": "SessionEnd",
                                   "reason": "prompt_input_exit"}, "transcript_path"),
    "gemini-cli": (_gemini_cli, {"session_id": "4a1b2c3d-0000-4000-8000-00000000g001", "cwd": "/home/me/orchard",
                                 "hook_event_name": "SessionEnd", "timestamp": "2026-03-04T05:07:31.000Z",
                                 "reason": "exit"}, "transcript_path"),
    "codex-cli": (_codex_cli, {"session_id": "0199aa00-1111-4111-8111-111111111111", "turn_id": "0199aa00-t2",
                               "cwd": "/home/me/projects/quarry", "hook_event_name": "Stop", "model": "gpt-5.5",
                               "permission_mode": "default", "stop_hook_active": False,
                               "last_assistant_message": "The export filter used an exclusive end date."},
                  "transcript_path"),
    "copilot-cli": (_copilot_cli, {"sessionId": "5f0c2a7e-3b1d-4c8e-9a6f-2d7b8e1c4a90", "timestamp": 1776155400000,
                                   "cwd": "/home/dana/projects/tidepool", "stopReason": "end_turn",
                                   "stop_hook_active": False}, "transcriptPath"),
}


@pytest.mark.parametrize("tool", list(RUNS))
def test_every_tools_hook_hands_its_session_to_the_background(tool: str, tmp_path: Path, palace_path: Path,
                                                              home: Path, settings: Settings, started: list[Path],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    make, payload, field = RUNS[tool]
    transcript, phrase = make(tmp_path / "user")
    settings_file = tmp_path / "tool-settings.json"
    ok(hooks_cli(palace_path, "install", tool, "--settings", str(settings_file)))
    argv = shlex.split(_installed_command(tool, settings_file))
    assert argv[:3] == [sys.executable, "-m", "mempalace"] and argv[-3:] == ["hooks", "run", tool]
    monkeypatch.setitem(_LazyGroup.LAZY, "hooks", "hooks:hooks_group")
    stdin = json.dumps({**payload, field: str(transcript)}).encode()
    first = CliRunner().invoke(main, argv[3:], input=stdin)
    assert (first.exit_code, first.stdout) == (0, ""), describe(first)
    assert first.stderr.count("\n") == 1 and BACKGROUND in first.stderr and transcript.name in first.stderr
    assert started == [home] and not palace_path.exists()  # nothing done yet but the hand-over
    (line,) = file_here(home)
    assert f"{tool}: {transcript} filed: " in line
    with Palace.open(palace_path, settings=settings) as palace:
        filed = palace.count()
        hits = palace.search(phrase, limit=3)
        assert hook_vias(palace) == {"hook"}
    assert filed > 0
    assert hits and phrase in hits[0].content and hits[0].source_file and transcript.name in hits[0].source_file
    again = CliRunner().invoke(main, argv[3:], input=stdin)  # the next turn, or the end after a compaction
    assert (again.exit_code, again.stdout) == (0, "") and BACKGROUND in again.stderr, describe(again)
    assert " filed: " in file_here(home)[0]
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.count() == filed


def _installed_command(tool: str, settings_file: Path) -> str:
    data = json.loads(settings_file.read_text())
    entry = TOOLS[tool]
    first = data["hooks"][entry.events[0]][0]
    handler = first["hooks"][0] if entry.grouped else first
    return handler[entry.command_key]


def test_the_hook_answers_at_once_and_the_filing_outlives_it(tmp_path: Path, palace_path: Path, home: Path,
                                                             settings: Settings) -> None:
    """The installed command, run as the tool runs it (its output read to the end): it answers while
    the palace is busy, and the process it leaves behind files the session once the palace is free."""
    transcript, phrase = _claude_code(tmp_path / "user")
    settings_file = tmp_path / "settings.json"
    ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(settings_file)))
    argv = shlex.split(_installed_command("claude-code", settings_file))
    with sync_lock(palace_path, settings):  # another process is syncing the palace: no filing can finish
        started = time.monotonic()
        ran = subprocess.run(argv, input=json.dumps({"transcript_path": str(transcript)}).encode(),
                             capture_output=True, timeout=120, env={**os.environ})
        answered = time.monotonic() - started
        assert (ran.returncode, ran.stdout) == (0, b""), ran.stderr
        assert BACKGROUND in ran.stderr.decode()
        assert answered < 10  # the tool's budget is 60 s; a first run once took 53 s
        from mempalace.sources.hook_queue import queue_state

        assert queue_state(home).waiting == 1
    wait_for_filing(home)
    with Palace.open(palace_path, settings=settings) as palace:
        assert phrase in palace.search(phrase, limit=1)[0].content
        assert hook_vias(palace) == {"hook"}


def test_a_transcript_removed_right_after_the_hook_is_filed_all_the_same(tmp_path: Path, palace_path: Path,
                                                                         home: Path, settings: Settings,
                                                                         started: list[Path]) -> None:
    transcript, phrase = _claude_code(tmp_path / "user")
    ran = hooks_cli(palace_path, "run", "claude-code", stdin=json.dumps({"transcript_path": str(transcript)}).encode())
    assert BACKGROUND in ran.stderr, describe(ran)
    transcript.unlink()  # or rewritten: a compaction
    assert " filed: " in file_here(home)[0]
    with Palace.open(palace_path, settings=settings) as palace:
        assert phrase in palace.search(phrase, limit=1)[0].content
    assert not list((home / "hooks" / "queue").iterdir())  # the copy goes once filed


def test_one_filing_at_a_time_and_what_waits_is_filed_by_the_next(tmp_path: Path, palace_path: Path, home: Path,
                                                                  settings: Settings, started: list[Path]) -> None:
    from mempalace.sources.hook_queue import filing_lock, queue_state

    transcript, _ = _codex_cli(tmp_path / "user")
    stdin = json.dumps({"transcript_path": str(transcript)}).encode()
    with filing_lock(home):  # a background filing is running
        ok(hooks_cli(palace_path, "run", "codex-cli", stdin=stdin))
        with transcript.open("a", encoding="utf-8") as grown:  # the next turn
            grown.write(json.dumps({"timestamp": "2026-01-02T03:05:00.000Z", "type": "response_item",
                                    "payload": {"type": "message", "role": "user", "content": [
                                        {"type": "input_text", "text": "And the quarry invoices for April?"}]}}) + "\n")
        ok(hooks_cli(palace_path, "run", "codex-cli", stdin=stdin))
        assert file_here(home) == []  # the second filing leaves the queue to the one running
        assert queue_state(home).waiting == 2 and not palace_path.exists()
    first, second = file_here(home)
    assert first.endswith("filed: a later copy holds all of it") and " filed: " in second
    assert queue_state(home).waiting == 0
    with Palace.open(palace_path, settings=settings) as palace:
        assert "quarry invoices for April" in palace.search("quarry invoices April", limit=1)[0].content
        assert "exclusive end date" in palace.search("exclusive end date", limit=1)[0].content


def test_claude_codes_precompact_payload_files_the_transcript(tmp_path: Path, palace_path: Path, home: Path,
                                                              settings: Settings, started: list[Path]) -> None:
    transcript, phrase = _claude_code(tmp_path / "user")
    payload = {"session_id": "6f1c0d9e-2b7a-4e3f-9c8d-1a2b3c4d5e6f", "transcript_path": str(transcript),
               "cwd": "/home/ada/projects/lighthouse", "hook_event_name": "PreCompact", "trigger": "auto",
               "custom_instructions": None}
    ran = hooks_cli(palace_path, "run", "claude-code", stdin=json.dumps(payload).encode())
    assert (ran.exit_code, ran.stdout) == (0, "") and BACKGROUND in ran.stderr, describe(ran)
    file_here(home)
    with Palace.open(palace_path, settings=settings) as palace:
        assert phrase in palace.search(phrase, limit=1)[0].content


def test_a_session_in_a_source_goes_to_its_wing_and_the_next_sync_skips_it(tmp_path: Path, palace_path: Path,
                                                                             home: Path, settings: Settings,
                                                                             started: list[Path]) -> None:
    from mempalace.sources.sync import book_of, sync_sources

    transcript, phrase = _claude_code(tmp_path / "user")
    with Palace.open(palace_path, settings=settings) as palace:
        book_of(palace).add(tmp_path / "user" / ".claude" / "projects", wing="wing_work")
    ok(hooks_cli(palace_path, "run", "claude-code", stdin=json.dumps({"transcript_path": str(transcript)}).encode()))
    assert " filed: " in file_here(home)[0]
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.search(phrase, limit=1)[0].wing == "wing_work"
        [after] = sync_sources(palace)
        assert (after.files_seen, after.files_changed) == (1, 0)


# -- what goes wrong -----------------------------------------------------------------------------


@pytest.mark.parametrize("stdin, complaint", [
    (b"not json at all", "is not JSON"),
    (b'{"session_id": "s", "hook_event_name": "SessionEnd", "reason": "clear"}', "names no transcript"),
    (b'{"transcript_path": "/gone/session.jsonl", "hook_event_name": "SessionEnd"}', "does not exist"),
])
def test_run_never_breaks_the_session(palace_path: Path, home: Path, stdin: bytes, complaint: str) -> None:
    ran = hooks_cli(palace_path, "run", "claude-code", stdin=stdin)
    assert ran.exit_code == 0 and ran.exception is None, describe(ran)
    assert ran.stdout == ""
    assert ran.stderr.startswith("mempalace hooks run: ") and ran.stderr.count("\n") == 1
    assert complaint in ran.stderr
    assert not palace_path.exists()  # nothing was filed, no palace made
    assert not (home / "hooks" / "queue").exists() or not any((home / "hooks" / "queue").iterdir())


def test_a_transcript_that_cannot_be_filed_is_kept_and_logged(tmp_path: Path, palace_path: Path,
                                                              home: Path) -> None:
    transcript = tmp_path / "user" / "broken.jsonl"
    transcript.parent.mkdir()
    transcript.write_bytes(b"this is no Claude Code transcript\n")
    ran = hooks_cli(palace_path, "run", "claude-code", stdin=json.dumps({"transcript_path": str(transcript)}).encode())
    assert BACKGROUND in ran.stderr, describe(ran)
    state = wait_for_filing(home)
    assert (state.waiting, state.failed) == (0, 1)
    assert ran.stderr.rstrip().endswith(f"{state.log}.")  # the hook says where problems are logged
    (kept,) = Path(state.failed_folder).glob("*/broken.jsonl")
    assert kept.read_bytes() == transcript.read_bytes()
    log = Path(state.log).read_text()
    assert f"{transcript} NOT FILED" in log and f"ingest {kept}`" in log
    shown = ok(hooks_cli(palace_path, "status")).stdout
    assert f"1 failed (see {state.log})" in shown


def test_a_palace_that_cannot_be_reached_keeps_the_session_queued(tmp_path: Path, home: Path, started: list[Path],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.sources.hook_queue import queue_state

    transcript, _ = _claude_code(tmp_path / "user")
    ran = CliRunner().invoke(hooks_group, ["run", "claude-code"],
                             input=json.dumps({"transcript_path": str(transcript)}).encode(),
                             obj={"palace": None, "url": "http://127.0.0.1:9", "json": False})
    assert BACKGROUND in ran.stderr, describe(ran)
    (line,) = file_here(home)
    assert "No Chroma server answers at http://127.0.0.1:9" in line and "tried again" in line
    assert (queue_state(home).waiting, queue_state(home).failed) == (1, 0)
    monkeypatch.setattr("mempalace.sources.hook_queue.MAX_ATTEMPTS", 2)
    (line,) = file_here(home)
    assert "NOT FILED" in line and f"mempalace --url http://127.0.0.1:9 ingest {home}" in line
    assert (queue_state(home).waiting, queue_state(home).failed) == (0, 1)


def test_a_filing_that_raises_is_logged_and_kept(tmp_path: Path, palace_path: Path, home: Path,
                                                 started: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.sources.hook_queue import queue_state

    transcript, _ = _claude_code(tmp_path / "user")

    def file_transcript(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk full\nwhile filing")

    monkeypatch.setattr("mempalace.sources.sync.file_transcript", file_transcript)
    ok(hooks_cli(palace_path, "run", "claude-code", stdin=json.dumps({"transcript_path": str(transcript)}).encode()))
    (line,) = file_here(home)
    assert f"{transcript} not filed yet: RuntimeError: disk full while filing;" in line
    assert queue_state(home).waiting == 1


def test_a_transcript_over_the_size_cap_is_refused_before_it_is_copied(tmp_path: Path, home: Path) -> None:
    from mempalace.errors import InvalidInputError
    from mempalace.sources.hook_queue import enqueue, queue_state

    transcript = tmp_path / "huge.jsonl"
    with open(transcript, "wb") as out:
        out.truncate(5_000_000)  # sparse: no disk used
    with pytest.raises(InvalidInputError, match=r"huge\.jsonl is 5\.0 MB; the limit is 1 MB"):
        enqueue(home, "claude-code", "claude_code", transcript, str(tmp_path / "palace"), None, max_bytes=1_000_000)
    assert (queue_state(home).waiting, list((home / "hooks" / "queue").iterdir())) == (0, [])


def test_a_transcript_failing_turn_after_turn_keeps_one_failed_copy(tmp_path: Path, palace_path: Path,
                                                                    home: Path, started: list[Path]) -> None:
    from mempalace.sources.hook_queue import queue_state

    transcript = tmp_path / "user" / "broken.jsonl"
    transcript.parent.mkdir()
    for turn in range(3):  # Codex and Copilot hooks run at the end of every turn
        transcript.write_bytes(f"this is no transcript, turn {turn}\n".encode())
        hooks_cli(palace_path, "run", "claude-code", stdin=json.dumps({"transcript_path": str(transcript)}).encode())
        file_here(home)
    state = queue_state(home)
    assert (state.waiting, state.failed) == (0, 1)
    (kept,) = Path(state.failed_folder).glob("*/broken.jsonl")
    assert kept.read_bytes() == transcript.read_bytes()  # the newest
