"""`mempalace hooks`: installing into a settings file that already holds the user's own hooks (merged,
idempotent, backed up, refused when broken, cleanly removed), reading the hook's stdin JSON, and the
installed command run with each tool's documented payload against a real palace."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mempalace import Palace
from mempalace.cli.commands import _LazyGroup, main
from mempalace.cli.hooks import hooks_group
from mempalace.config import Settings
from mempalace.errors import InvalidInputError
from mempalace.sources.hooks import MAX_PAYLOAD_BYTES, TOOLS, install, status, transcript_from_payload, uninstall

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
    assert list(data["hooks"]) == ["PreToolUse", "SessionEnd", "PreCompact", "SessionStart"]
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
    assert shown["installed"] is True and shown["events"] == ["SessionEnd", "PreCompress", "SessionStart"]
    data = json.loads(path.read_text())
    assert list(data["hooks"]) == ["SessionEnd", "PreCompress", "SessionStart"]
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


def test_a_link_planted_in_the_backups_place_is_refused_and_its_target_never_created(
        claude_settings: Path, tmp_path: Path, palace_path: Path) -> None:
    planted = tmp_path / "elsewhere" / "created-by-the-backup"  # a cloned project's .claude/ may hold this link
    planted.parent.mkdir()
    backup = claude_settings.with_name("settings.json.mempalace-backup")
    backup.symlink_to(planted)
    before = claude_settings.read_bytes()
    assert_user_error(hooks_cli(palace_path, "install", "claude-code", "--settings", str(claude_settings)),
                      "settings.json.mempalace-backup is a symbolic link", "nothing was changed")
    assert not planted.exists() and backup.is_symlink()
    assert claude_settings.read_bytes() == before


def test_uninstall_never_removes_or_reads_what_a_link_in_the_backups_place_leads_to(
        claude_settings: Path, tmp_path: Path, palace_path: Path) -> None:
    ok(hooks_cli(palace_path, "install", "claude-code", "--settings", str(claude_settings)))
    victim = tmp_path / "victim.json"
    victim.write_text(json.dumps(OWN_SETTINGS))
    backup = claude_settings.with_name("settings.json.mempalace-backup")
    backup.unlink()
    backup.symlink_to(victim)
    ok(hooks_cli(palace_path, "uninstall", "claude-code", "--settings", str(claude_settings)))
    assert json.loads(victim.read_text()) == OWN_SETTINGS and not backup.is_symlink()
    assert json.loads(claude_settings.read_text()) == OWN_SETTINGS


def test_a_settings_link_leading_nowhere_is_refused_and_nothing_is_created(tmp_path: Path,
                                                                          palace_path: Path) -> None:
    link = tmp_path / "project" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    planted = tmp_path / "elsewhere" / "autostart.json"
    link.symlink_to(planted)
    assert_user_error(hooks_cli(palace_path, "install", "claude-code", "--settings", str(link)),
                      "is a symbolic link to", "which does not exist")
    assert not planted.exists() and not planted.parent.exists()


def test_a_settings_file_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path: Path, palace_path: Path) -> None:
    from test_special_files import finishes

    fifo = tmp_path / "fifo-settings.json"
    os.mkfifo(fifo)
    device = tmp_path / "device-settings.json"
    device.symlink_to("/dev/zero")  # read to its end, it never ends
    for path in (fifo, device):
        result = finishes(lambda: hooks_cli(palace_path, "status", "claude-code", "--settings", str(path)), [fifo])
        assert_user_error(result, "not a regular file")


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
    assert one["events"] == ["SessionEnd", "PreCompact", "SessionStart"] and one["installed"] is True


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


def test_an_unknown_tool_is_refused_with_the_known_ones(palace_path: Path) -> None:
    result = hooks_cli(palace_path, "install", "cursor")
    assert result.exit_code == 2 and "claude-code" in result.stderr and "copilot-cli" in result.stderr
