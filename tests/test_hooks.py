"""`mempalace hooks`: installing into a settings file that already holds the user's own hooks (merged,
idempotent, backed up, refused when broken, cleanly removed), reading the hook's stdin JSON, and the
installed command run with each tool's documented payload against a real palace."""

from __future__ import annotations

import json
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mempalace import Palace
from mempalace.cli import _LazyGroup, main
from mempalace.cli.hooks import hooks_group
from mempalace.config import Settings
from mempalace.errors import InvalidInputError
from mempalace.hooks import MAX_PAYLOAD_BYTES, TOOLS, install, status, transcript_from_payload, uninstall

from _cli import as_json, assert_user_error, describe, ok

OWN_HOOKS = {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]}],
    "SessionEnd": [{"matcher": "clear", "hooks": [{"type": "command", "command": "echo bye >> ~/sessions.log"}]}],
}
OWN_SETTINGS = {"model": "opus", "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
                "statusLine": {"type": "command", "command": "~/bin/status.sh"}, "hooks": OWN_HOOKS,
                "env": {"TZ": "Europe/Oslo"}}


@pytest.fixture
def claude_settings(tmp_path: Path) -> Path:
    """A Claude Code settings file with the user's own hooks and settings, owner-only as some keep it."""
    path = tmp_path / "dot-claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(OWN_SETTINGS, indent=4) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def hooks_cli(palace_path: Path, *args: str, stdin: bytes | None = None) -> Result:
    """`mempalace --palace PALACE hooks ARGS`, the group driven directly."""
    return CliRunner().invoke(hooks_group, list(args), input=stdin,
                              obj={"palace": palace_path, "url": None, "json": False})


def our_commands(data: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for group in data["hooks"].get(event, []) for h in group["hooks"]
            if " hooks run " in h["command"]]


# -- installing, merging, removing ---------------------------------------------------------------


def test_install_merges_with_the_users_hooks_and_keeps_a_backup(claude_settings: Path, palace_path: Path) -> None:
    before = claude_settings.read_bytes()
    result = ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(claude_settings)))
    assert "Installed the Claude Code hook" in result.stdout
    data = json.loads(claude_settings.read_text())
    assert {k: v for k, v in data.items() if k != "hooks"} == {k: v for k, v in OWN_SETTINGS.items() if k != "hooks"}
    assert list(data["hooks"]) == ["PreToolUse", "SessionEnd", "PreCompact"]
    assert data["hooks"]["PreToolUse"] == OWN_HOOKS["PreToolUse"]
    assert data["hooks"]["SessionEnd"][0] == OWN_HOOKS["SessionEnd"][0]  # the user's own entry stays first
    ours = data["hooks"]["SessionEnd"][1]
    assert ours == {"hooks": [{"type": "command", "command": ours["hooks"][0]["command"], "timeout": 60}]}
    expected = shlex.join([sys.executable, "-m", "mempalace", "--palace", str(palace_path.resolve()),
                           "hooks", "run", "claude-code"])
    assert our_commands(data, "SessionEnd") == our_commands(data, "PreCompact") == [expected]
    assert stat.S_IMODE(claude_settings.stat().st_mode) == 0o600
    assert (claude_settings.parent / "settings.json.mempalace-backup").read_bytes() == before
    assert sorted(p.name for p in claude_settings.parent.iterdir()) == ["settings.json",
                                                                       "settings.json.mempalace-backup"]


def test_installing_twice_changes_nothing(claude_settings: Path, palace_path: Path) -> None:
    original = claude_settings.read_bytes()
    ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(claude_settings)))
    once = claude_settings.read_bytes()
    again = ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(claude_settings), "--json"))
    assert json.loads(again.stdout)["changed"] is False
    assert claude_settings.read_bytes() == once
    assert (claude_settings.parent / "settings.json.mempalace-backup").read_bytes() == original


def test_installing_for_another_palace_replaces_mempalace_entries(claude_settings: Path, tmp_path: Path) -> None:
    install("claude-code", shlex.join([sys.executable, "-m", "mempalace", "--palace", "/old/palace",
                                       "hooks", "run", "claude-code"]), claude_settings)
    ok(hooks_cli(tmp_path / "new-palace", "install", "claude-code", "--settings", str(claude_settings)))
    data = json.loads(claude_settings.read_text())
    for event in ("SessionEnd", "PreCompact"):
        (command,) = our_commands(data, event)
        assert str(tmp_path / "new-palace") in command and "/old/palace" not in command
    assert data["hooks"]["SessionEnd"][0] == OWN_HOOKS["SessionEnd"][0]


def test_the_hook_names_the_palace_or_server_in_use_at_install_time(tmp_path: Path, home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    settings_file = tmp_path / "hooks.json"

    def installed(obj_palace: Path | None, *extra: str) -> str:
        result = CliRunner().invoke(hooks_group, ["install", "codex-cli", "--settings", str(settings_file),
                                                  "--json", *extra],
                                    obj={"palace": obj_palace, "url": None, "json": False})
        return as_json(result)["command"]

    assert shlex.split(installed(None, "--palace", str(tmp_path / "p2")))[3:5] == ["--palace", str(tmp_path / "p2")]
    monkeypatch.setenv("MEMPALACE_URL", "http://127.0.0.1:8000")
    assert shlex.split(installed(None))[3:5] == ["--url", "http://127.0.0.1:8000"]
    monkeypatch.delenv("MEMPALACE_URL")
    assert shlex.split(installed(None))[3:5] == ["--palace", str((home / "palace").resolve())]
    (only,) = our_commands(json.loads(settings_file.read_text()), "Stop")
    assert only.endswith("hooks run codex-cli")


def test_uninstall_leaves_exactly_the_users_settings(claude_settings: Path, palace_path: Path) -> None:
    ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(claude_settings)))
    result = ok(hooks_cli(palace_path, "uninstall", "claude-code", "--settings", str(claude_settings)))
    assert "Removed the Claude Code hook" in result.stdout
    assert json.loads(claude_settings.read_text()) == OWN_SETTINGS
    assert stat.S_IMODE(claude_settings.stat().st_mode) == 0o600
    again = ok(hooks_cli(palace_path, "uninstall", "claude-code", "--settings", str(claude_settings)))
    assert "nothing to remove" in again.stdout


def test_uninstall_restores_the_file_byte_for_byte_and_drops_the_backup(claude_settings: Path,
                                                                        palace_path: Path) -> None:
    before = claude_settings.read_bytes()
    ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(claude_settings)))
    ok(hooks_cli(palace_path, "uninstall", "claude-code", "--settings", str(claude_settings)))
    assert claude_settings.read_bytes() == before
    assert [p.name for p in claude_settings.parent.iterdir()] == ["settings.json"]


@pytest.mark.parametrize("tool", list(TOOLS))
def test_install_then_uninstall_where_there_was_no_file_leaves_no_file(tool: str, tmp_path: Path,
                                                                       palace_path: Path) -> None:
    path = tmp_path / "tool" / "settings.json"
    ok(hooks_cli(palace_path, "install", tool, "--settings", str(path)))
    ok(hooks_cli(tmp_path / "other-palace", "install", tool, "--settings", str(path)))  # installed again, elsewhere
    result = ok(hooks_cli(palace_path, "uninstall", tool, "--settings", str(path)))
    assert "Removed the" in result.stdout
    assert list(path.parent.iterdir()) == []  # no settings file, no backup
    assert "nothing to remove" in ok(hooks_cli(palace_path, "uninstall", tool, "--settings", str(path))).stdout
    assert not path.exists()


def test_uninstall_keeps_the_users_later_edits_and_removes_only_our_entries(claude_settings: Path,
                                                                            tmp_path: Path) -> None:
    ok(hooks_cli(tmp_path / "p1", "install", "claude-code", "--settings", str(claude_settings)))
    ok(hooks_cli(tmp_path / "p2", "install", "claude-code", "--settings", str(claude_settings)))
    edited = json.loads(claude_settings.read_text())
    edited["model"] = "sonnet"
    edited["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "~/bin/done.sh"}]}]
    claude_settings.write_text(json.dumps(edited, indent=2))
    ok(hooks_cli(tmp_path / "p1", "uninstall", "claude-code", "--settings", str(claude_settings)))
    expected = {**OWN_SETTINGS, "model": "sonnet",
                "hooks": {**OWN_HOOKS, "Stop": [{"hooks": [{"type": "command", "command": "~/bin/done.sh"}]}]}}
    assert json.loads(claude_settings.read_text()) == expected
    assert [p.name for p in claude_settings.parent.iterdir()] == ["settings.json"]


def test_a_file_created_by_install_and_edited_since_is_kept(tmp_path: Path, palace_path: Path) -> None:
    path = tmp_path / "settings.json"
    ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(path)))
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "model": "opus"}))
    ok(hooks_cli(palace_path, "uninstall", "claude-code", "--settings", str(path)))
    assert json.loads(path.read_text()) == {"model": "opus"}
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_a_backup_holding_mempalaces_hook_is_not_taken_for_the_original(claude_settings: Path,
                                                                        palace_path: Path) -> None:
    original = json.loads(claude_settings.read_text())
    install("claude-code", shlex.join([sys.executable, "-m", "mempalace", "--palace", "/p", "hooks", "run",
                                       "claude-code"]), claude_settings)
    stale = claude_settings.with_name("settings.json.mempalace-backup")
    stale.write_text(claude_settings.read_text())  # left by an older MemPalace's uninstall
    claude_settings.write_text(json.dumps(original))  # the hook removed by hand
    ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(claude_settings)))
    assert json.loads(stale.read_text()) == OWN_SETTINGS
    ok(hooks_cli(palace_path, "uninstall", "claude-code", "--settings", str(claude_settings)))
    assert json.loads(claude_settings.read_text()) == OWN_SETTINGS and not stale.exists()


def test_a_hook_group_shared_with_the_users_command_keeps_the_users_command(claude_settings: Path) -> None:
    command = shlex.join([sys.executable, "-m", "mempalace", "--palace", "/p", "hooks", "run", "claude-code"])
    data = json.loads(claude_settings.read_text())
    data["hooks"]["PreCompact"] = [{"hooks": [{"type": "command", "command": "~/bin/snap.sh"},
                                              {"type": "command", "command": command}]}]
    claude_settings.write_text(json.dumps(data))
    partial = status("claude-code", claude_settings)
    assert (partial.events, partial.installed) == (("PreCompact",), False)
    removed = uninstall("claude-code", claude_settings)
    assert removed.changed and removed.events == ()
    assert json.loads(claude_settings.read_text())["hooks"]["PreCompact"] == [
        {"hooks": [{"type": "command", "command": "~/bin/snap.sh"}]}]


@pytest.mark.parametrize("text, complaint", [
    ('{\n  // my settings\n  "model": "opus"\n}\n', "is not valid JSON (line 2"),
    ('["hooks"]', "does not hold a JSON object"),
    ('{"hooks": [{"SessionEnd": []}]}', "`hooks` is a list"),
    ('{"hooks": {"PreCompact": {"command": "x"}}}', "`hooks.PreCompact` is not a list"),
    ('{"hooks": {"SessionEnd": [{"matcher": "", "hooks": "x.sh"}]}}', "entry's `hooks` is not a list"),
])
def test_a_broken_settings_file_is_refused_untouched(tmp_path: Path, palace_path: Path, text: str,
                                                     complaint: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    error = assert_user_error(hooks_cli(palace_path, "install", "claude-code", "--settings", str(path)),
                              complaint, "nothing was changed", one_line=True)
    assert str(path) in error
    assert path.read_text(encoding="utf-8") == text
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no backup, no temporary file


def test_a_missing_settings_file_is_created_with_its_folder(tmp_path: Path, palace_path: Path) -> None:
    path = tmp_path / "fresh" / ".gemini" / "settings.json"
    shown = as_json(hooks_cli(palace_path, "install", "gemini-cli", "--settings", str(path), "--json"))
    assert shown["installed"] is True and shown["events"] == ["SessionEnd", "PreCompress"]
    data = json.loads(path.read_text())
    assert list(data["hooks"]) == ["SessionEnd", "PreCompress"]
    handler = data["hooks"]["SessionEnd"][0]["hooks"][0]
    assert handler["timeout"] == 60_000 and handler["name"] == "mempalace" and handler["command"] == shown["command"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]


def test_copilot_hooks_go_to_mempalaces_own_file_which_uninstall_removes(tmp_path: Path, palace_path: Path) -> None:
    path = tmp_path / ".copilot" / "hooks" / "mempalace.json"
    ok(hooks_cli(palace_path, "install", "copilot-cli", "--settings", str(path)))
    data = json.loads(path.read_text())
    assert data["version"] == 1 and list(data["hooks"]) == ["agentStop", "preCompact"]
    (handler,) = data["hooks"]["agentStop"]
    assert handler["type"] == "command" and handler["timeoutSec"] == 60 and handler["bash"].endswith(
        "hooks run copilot-cli")
    ok(hooks_cli(palace_path, "uninstall", "copilot-cli", "--settings", str(path)))
    assert not path.exists()


def test_a_symlinked_settings_file_is_written_through(claude_settings: Path, tmp_path: Path,
                                                      palace_path: Path) -> None:
    link = tmp_path / "linked-settings.json"
    link.symlink_to(claude_settings)
    ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(link)))
    assert link.is_symlink()
    assert our_commands(json.loads(claude_settings.read_text()), "SessionEnd")


def test_status_of_every_tool_reads_the_default_locations(tmp_path: Path, palace_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    for moved in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(moved, raising=False)
    rows = as_json(hooks_cli(palace_path, "status", "--json"))
    assert [r["tool"] for r in rows] == list(TOOLS) == ["claude-code", "gemini-cli", "codex-cli", "copilot-cli"]
    assert not any(r["installed"] for r in rows)
    ok(hooks_cli(palace_path, "install", "claude-code"))
    assert (tmp_path / "me" / ".claude" / "settings.json").is_file()
    (tmp_path / "me" / ".codex").mkdir()
    (tmp_path / "me" / ".codex" / "hooks.json").write_text("{not json")
    text = ok(hooks_cli(palace_path, "status")).stdout.splitlines()
    assert text[0].startswith(f"Claude Code: installed in {tmp_path / 'me' / '.claude' / 'settings.json'}")
    assert text[1].startswith("Gemini CLI: not installed")
    assert text[2].startswith("Codex CLI: ") and "is not valid JSON" in text[2]
    one = as_json(hooks_cli(palace_path, "status", "claude-code", "--json"))
    assert one["events"] == ["SessionEnd", "PreCompact"] and one["installed"] is True


def test_a_tool_folder_moved_by_its_environment_variable_is_followed(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "copilot-home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert TOOLS["copilot-cli"].settings_path() == tmp_path / "copilot-home" / "hooks" / "mempalace.json"
    assert TOOLS["codex-cli"].settings_path() == tmp_path / "codex-home" / "hooks.json"
    assert TOOLS["codex-cli"].settings_path("~/elsewhere.json") == Path.home() / "elsewhere.json"


# -- the hook's stdin ----------------------------------------------------------------------------


@pytest.mark.parametrize("payload, complaint", [
    (b"\xff\xfe", "is not JSON"),
    (b"SessionEnd", "is not JSON"),
    (b'["/tmp/t.jsonl"]', "is not a JSON object"),
    (b'{"session_id": "s", "transcript_path": null}', "names no transcript (transcript_path is missing)"),
    (b'{"transcript_path": "projects/t.jsonl"}', "relative transcript path"),
    (b'{"transcript_path": "/nowhere/at/all.jsonl"}', "transcript /nowhere/at/all.jsonl the Claude Code hook named"),
    (b" " * (MAX_PAYLOAD_BYTES + 1), "over 1 MB"),
])
def test_a_bad_payload_is_a_clear_error(payload: bytes, complaint: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        transcript_from_payload("claude-code", payload)
    assert complaint in str(caught.value)


# -- running the installed hook ------------------------------------------------------------------


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
def test_the_installed_hook_files_the_session_into_the_palace(tool: str, tmp_path: Path, palace_path: Path,
                                                              settings: Settings,
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
    assert (first.exit_code, first.stdout, first.stderr) == (0, "", ""), describe(first)
    with Palace.open(palace_path, settings=settings) as palace:
        filed = palace.count()
        hits = palace.search(phrase, limit=3)
    assert filed > 0
    assert hits and phrase in hits[0].content and hits[0].source_file and transcript.name in hits[0].source_file
    again = CliRunner().invoke(main, argv[3:], input=stdin)  # the next turn, or the end after a compaction
    assert (again.exit_code, again.stdout, again.stderr) == (0, "", ""), describe(again)
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.count() == filed


def _installed_command(tool: str, settings_file: Path) -> str:
    data = json.loads(settings_file.read_text())
    entry = TOOLS[tool]
    first = data["hooks"][entry.events[0]][0]
    handler = first["hooks"][0] if entry.grouped else first
    return handler[entry.command_key]


def test_claude_codes_precompact_payload_files_the_transcript(tmp_path: Path, palace_path: Path,
                                                              settings: Settings) -> None:
    transcript, phrase = _claude_code(tmp_path / "user")
    payload = {"session_id": "6f1c0d9e-2b7a-4e3f-9c8d-1a2b3c4d5e6f", "transcript_path": str(transcript),
               "cwd": "/home/ada/projects/lighthouse", "hook_event_name": "PreCompact", "trigger": "auto",
               "custom_instructions": None}
    ran = hooks_cli(palace_path, "run", "claude-code", stdin=json.dumps(payload).encode())
    assert (ran.exit_code, ran.stdout, ran.stderr) == (0, "", ""), describe(ran)
    with Palace.open(palace_path, settings=settings) as palace:
        assert phrase in palace.search(phrase, limit=1)[0].content


@pytest.mark.parametrize("stdin, complaint", [
    (b"not json at all", "is not JSON"),
    (b'{"session_id": "s", "hook_event_name": "SessionEnd", "reason": "clear"}', "names no transcript"),
    (b'{"transcript_path": "/gone/session.jsonl", "hook_event_name": "SessionEnd"}', "does not exist"),
])
def test_run_never_breaks_the_session(palace_path: Path, stdin: bytes, complaint: str) -> None:
    ran = hooks_cli(palace_path, "run", "claude-code", stdin=stdin)
    assert ran.exit_code == 0 and ran.exception is None, describe(ran)
    assert ran.stdout == ""
    assert ran.stderr.startswith("mempalace hooks run: ") and ran.stderr.count("\n") == 1
    assert complaint in ran.stderr
    assert not palace_path.exists()  # nothing was filed, no palace made


def test_run_survives_a_filing_that_fails(tmp_path: Path, palace_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    transcript, _ = _claude_code(tmp_path / "user")

    def file_transcript(palace: Palace, path: Path, format_name: str) -> Any:
        raise RuntimeError(f"disk full\nwhile filing {path.name} as {format_name}")

    monkeypatch.setattr("mempalace.syncing.file_transcript", file_transcript)
    ran = hooks_cli(palace_path, "run", "claude-code",
                    stdin=json.dumps({"transcript_path": str(transcript)}).encode())
    assert (ran.exit_code, ran.stdout) == (0, ""), describe(ran)
    assert ran.stderr == f"mempalace hooks run: RuntimeError: disk full while filing {transcript.name} as claude_code\n"


def test_an_unknown_tool_is_refused_with_the_known_ones(palace_path: Path) -> None:
    result = hooks_cli(palace_path, "install", "cursor")
    assert result.exit_code == 2 and "claude-code" in result.stderr and "copilot-cli" in result.stderr
