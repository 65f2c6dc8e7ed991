"""Session hooks: coding tools run `mempalace hooks run TOOL` when a session ends (or before it is
compacted) and the transcript they name is filed into the palace.

`TOOLS` lists the tools whose hook mechanism is documented, in the order `status` shows them. Installing
merges MemPalace's entries into the tool's settings file and never touches the user's own hooks; a
MemPalace entry is recognised by its command (`… -m mempalace … hooks run …`). Tools with no documented
hook (Continue, Aider), or whose hook names no transcript MemPalace reads (Cursor), are filed by
`mempalace sources` syncing instead.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InvalidInputError
from ..files.paths import checked_path
from .settings_file import BACKUP_SUFFIX, keep_backup, read_plain, remove_file, target_file, write_atomically

MAX_PAYLOAD_BYTES = 1_000_000  # a hook's stdin JSON is a few hundred bytes; anything this large is not one
HOOK_TIMEOUT_SECONDS = 60  # Claude Code raises its 1.5 s SessionEnd budget to the largest per-hook timeout (max 60)
_OURS = re.compile(r"(?:^|\s)-m\s+mempalace(?:\s.*)?\shooks\s+run(?:\s|$)")


@dataclass(frozen=True)
class HookTool:
    """One coding tool's documented hook mechanism: where its hooks live, the events MemPalace listens
    to, how the handler entry is spelled, and where the hook's stdin JSON names the transcript."""

    name: str  # as typed on the command line
    label: str
    home: str  # the tool's folder, relative to the home folder
    home_env: str | None  # the environment variable that moves that folder, when the tool has one
    settings: str  # the settings file, relative to the tool's folder
    events: tuple[str, ...]
    format_name: str  # the MemPalace transcript format the named transcript is in
    transcript_keys: tuple[str, ...]  # payload fields that may hold the transcript's path, first found wins
    handler: Callable[[str], dict[str, Any]]  # the handler entry that runs a command
    command_key: str = "command"  # the handler field holding the command line
    grouped: bool = True  # event -> [{matcher, hooks: [handler]}]; else event -> [handler]
    skeleton: Mapping[str, Any] | None = None  # top-level keys a new file starts with
    own_file: bool = False  # the file is MemPalace's alone (removed when uninstalling empties it)
    docs: str = ""
    start_event: str = ""  # the event at a session's start whose output can carry context (the wake-up)

    def settings_path(self, override: str | os.PathLike[str] | None = None) -> Path:
        """The settings file: `override` when given, else where the tool reads it by default."""
        if override is not None:
            return checked_path(Path(override).expanduser())
        moved = os.environ.get(self.home_env) if self.home_env else None
        return checked_path((Path(moved).expanduser() if moved else Path.home() / self.home) / self.settings)


TOOLS: dict[str, HookTool] = {tool.name: tool for tool in (
    HookTool("claude-code", "Claude Code", home=".claude", home_env="CLAUDE_CONFIG_DIR", settings="settings.json",
             events=("SessionEnd", "PreCompact", "SessionStart"), format_name="claude_code",
             transcript_keys=("transcript_path",), start_event="SessionStart",
             handler=lambda command: {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS},
             docs="https://code.claude.com/docs/en/hooks"),
    HookTool("gemini-cli", "Gemini CLI", home=".gemini", home_env=None, settings="settings.json",
             events=("SessionEnd", "PreCompress", "SessionStart"), format_name="gemini_cli",
             transcript_keys=("transcript_path",), start_event="SessionStart",
             handler=lambda command: {"name": "mempalace", "type": "command", "command": command,
                                      "description": "File this session into the MemPalace palace",
                                      "timeout": HOOK_TIMEOUT_SECONDS * 1000},  # Gemini counts milliseconds
             docs="https://geminicli.com/docs/hooks/reference/"),
    HookTool("codex-cli", "Codex CLI", home=".codex", home_env="CODEX_HOME", settings="hooks.json",
             events=("Stop", "PreCompact"), format_name="codex_cli", transcript_keys=("transcript_path",),
             handler=lambda command: {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS},
             docs="https://developers.openai.com/codex/hooks"),
    HookTool("copilot-cli", "GitHub Copilot CLI", home=".copilot", home_env="COPILOT_HOME",
             settings="hooks/mempalace.json", events=("agentStop", "preCompact"), format_name="copilot_cli",
             transcript_keys=("transcriptPath", "transcript_path"),
             handler=lambda command: {"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT_SECONDS},
             command_key="bash", grouped=False, skeleton={"version": 1}, own_file=True,
             docs="https://docs.github.com/en/copilot/reference/hooks-reference"),
)}


@dataclass(frozen=True)
class HookStatus:
    """Where a tool's hooks live and which of MemPalace's events are installed there."""

    tool: str
    settings_file: str
    events: tuple[str, ...]  # MemPalace's events present in the file
    installed: bool  # every event MemPalace listens to is there
    changed: bool = False  # this call rewrote the file


def hook_tool(name: str) -> HookTool:
    """The registry entry for `name`, or an error listing the tools that have hooks."""
    try:
        return TOOLS[name]
    except KeyError:
        raise InvalidInputError(f"No hook support for {name!r}: use one of {', '.join(TOOLS)}.") from None


def is_mempalace_command(command: Any) -> bool:
    """Whether a hook's command line is one MemPalace installed."""
    return isinstance(command, str) and bool(_OURS.search(command))


def install(tool: str, command: str, settings_path: str | os.PathLike[str] | None = None) -> HookStatus:
    """Add a hook running `command` on each of the tool's events, keeping every other hook and setting;
    installing again with the same command changes nothing, with another replaces MemPalace's entries."""
    entry = hook_tool(tool)
    if not is_mempalace_command(command):
        raise InvalidInputError(f"Not a MemPalace hook command: {command!r}.")
    path = entry.settings_path(settings_path)
    data = _read(path)
    original = copy.deepcopy(data)
    if data is None:
        data = dict(entry.skeleton or {})
    hooks = _hooks_table(data, path, create=True)
    for event in entry.events:
        handlers = _event_list(hooks, event, path, entry)
        if _mempalace_commands(handlers, entry) != [command]:
            _drop_mempalace(handlers, entry)
            handlers.append({"hooks": [entry.handler(command)]} if entry.grouped else entry.handler(command))
    changed = data != original
    if changed:
        before_mempalace = original is not None and not _holds_ours(original, entry)
        _write(path, data, backup=before_mempalace and _original(path, entry) is None)
    return _status(entry, path, data, changed)


def uninstall(tool: str, settings_path: str | os.PathLike[str] | None = None) -> HookStatus:
    """Remove MemPalace's hook entries (and only them) from the tool's settings file: the file as it was
    before installing when nothing else changed since (byte for byte), none when install created it and
    nothing but MemPalace's entries is in it; the backup install kept goes too."""
    entry = hook_tool(tool)
    path = entry.settings_path(settings_path)
    data = _read(path)
    if data is None:
        return _status(entry, path, {}, False)
    hooks = _hooks_table(data, path, create=False)
    removed = False
    for event, handlers in list(hooks.items()):
        if isinstance(handlers, list) and _drop_mempalace(handlers, entry):
            removed = True
            if not handlers:
                del hooks[event]
    if not removed:
        return _status(entry, path, data, False)
    if not hooks:
        data.pop("hooks", None)
    before = _original(path, entry)
    if (entry.own_file or before is None) and data in ({}, dict(entry.skeleton or {})):
        remove_file(path)
    elif before is not None and (_parsed(before) or {}) == data:
        _write(path, before)
    else:
        _write(path, data)
    remove_file(_backup(path), follow=False)
    return _status(entry, path, data if path.exists() else {}, True)


def status(tool: str, settings_path: str | os.PathLike[str] | None = None) -> HookStatus:
    """Which of MemPalace's events the tool's settings file holds (none when it does not exist)."""
    entry = hook_tool(tool)
    path = entry.settings_path(settings_path)
    data = _read(path)
    if data is not None:
        _hooks_table(data, path, create=False)
    return _status(entry, path, data or {}, False)


def hook_payload(tool: str, payload: bytes) -> dict[str, Any]:
    """A hook's stdin JSON object, or an error saying what is wrong with it."""
    entry = hook_tool(tool)
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise InvalidInputError(f"The {entry.label} hook input is over {MAX_PAYLOAD_BYTES // 1_000_000} MB; "
                                "a hook's input is a small JSON object.")
    try:
        data = json.loads(payload.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"The {entry.label} hook input is not JSON ({exc}).") from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"The {entry.label} hook input is not a JSON object.")
    return data


def transcript_from_payload(tool: str, payload: bytes | dict[str, Any]) -> Path:
    """The transcript a hook's stdin JSON names: an existing file, given by an absolute path."""
    entry = hook_tool(tool)
    data = payload if isinstance(payload, dict) else hook_payload(tool, payload)
    value = next((data[key] for key in entry.transcript_keys if data.get(key) is not None), None)
    fields = " or ".join(entry.transcript_keys)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"The {entry.label} hook input names no transcript ({fields} is missing).")
    path = checked_path(value)
    if not path.is_absolute():
        raise InvalidInputError(f"The {entry.label} hook gave a relative transcript path ({value!r}); "
                                "an absolute one was expected.")
    if not path.is_file():
        raise InvalidInputError(f"The transcript {value} the {entry.label} hook named does not exist.")
    return path


def _status(entry: HookTool, path: Path, data: Any, changed: bool) -> HookStatus:
    hooks = data.get("hooks") if isinstance(data, dict) else None
    hooks = hooks if isinstance(hooks, dict) else {}
    present = tuple(event for event in entry.events
                    if isinstance(hooks.get(event), list) and _mempalace_commands(hooks[event], entry))
    return HookStatus(entry.name, str(path), present, present == entry.events, changed)


def _read(path: Path) -> dict[str, Any] | None:
    """The settings file as a JSON object, None when it does not exist; anything else is refused."""
    try:
        text = (read_plain(path, follow=True) or b"").decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read {path}: {exc}") from None
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}); nothing was changed. "
                          "Fix the file and try again.") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; nothing was changed.")
    return data


def _hooks_table(data: dict[str, Any], path: Path, create: bool) -> dict[str, Any]:
    """The file's `hooks` object (created when installing); any other shape is refused."""
    if "hooks" not in data and create:
        data["hooks"] = {}
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f"{path}: `hooks` is a {type(hooks).__name__}, not an object of events; "
                          "nothing was changed.")
    return hooks


def _event_list(hooks: dict[str, Any], event: str, path: Path, entry: HookTool) -> list[Any]:
    """The event's list of hook entries (created when missing), checked before anything is changed."""
    handlers = hooks.setdefault(event, [])
    if not isinstance(handlers, list):
        raise ConfigError(f"{path}: `hooks.{event}` is not a list; nothing was changed.")
    for item in handlers:
        inner = item.get("hooks") if isinstance(item, dict) else None
        if entry.grouped and isinstance(item, dict) and "hooks" in item and not isinstance(inner, list):
            raise ConfigError(f"{path}: a `hooks.{event}` entry's `hooks` is not a list; nothing was changed.")
    return handlers


def _handlers_of(item: Any, entry: HookTool) -> list[Any]:
    """The handler entries an event-list item holds: its inner `hooks` list, or the item itself."""
    if not isinstance(item, dict):
        return []
    if entry.grouped:
        inner = item.get("hooks")
        return inner if isinstance(inner, list) else []
    return [item]


def _is_ours(handler: Any, entry: HookTool) -> bool:
    return isinstance(handler, dict) and is_mempalace_command(handler.get(entry.command_key))


def _mempalace_commands(handlers: list[Any], entry: HookTool) -> list[str]:
    """The commands of MemPalace's handlers in an event's list, in order."""
    return [h[entry.command_key] for item in handlers for h in _handlers_of(item, entry) if _is_ours(h, entry)]


def _drop_mempalace(handlers: list[Any], entry: HookTool) -> bool:
    """Remove MemPalace's handlers from an event's list in place (a group left empty by that goes too);
    whether anything was removed."""
    removed = False
    for item in list(handlers):
        if not entry.grouped:
            if _is_ours(item, entry):
                handlers.remove(item)
                removed = True
            continue
        inner = _handlers_of(item, entry)
        kept = [h for h in inner if not _is_ours(h, entry)]
        if len(kept) < len(inner):
            removed = True
            if kept:
                item["hooks"] = kept
            else:
                handlers.remove(item)
    return removed


def _backup(path: Path) -> Path:
    target = target_file(path)
    return target.with_name(target.name + BACKUP_SUFFIX)


def _holds_ours(data: Any, entry: HookTool) -> bool:
    """Whether settings hold a MemPalace hook entry under any event."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return isinstance(hooks, dict) and any(isinstance(handlers, list) and _mempalace_commands(handlers, entry)
                                           for handlers in hooks.values())


def _parsed(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else None
    except json.JSONDecodeError:
        return None


def _original(path: Path, entry: HookTool) -> str | None:
    """The settings file's text before MemPalace was installed, from the backup install kept; None when
    there is none (install created the file) or it holds MemPalace's hook (an older MemPalace wrote it)."""
    try:
        kept = read_plain(_backup(path), follow=False)  # a link in its place is never followed
        text = None if kept is None else kept.decode("utf-8")  # line endings as they were
    except (OSError, UnicodeDecodeError, ConfigError):
        return None
    return None if text is None or _holds_ours(_parsed(text), entry) else text


def _write(path: Path, data: dict[str, Any] | str, backup: bool = False) -> None:
    """Write the settings file (a JSON object, or the exact text to restore), first copying it as it is
    to its backup when `backup`; or say in the user's words why it cannot be written."""
    target = target_file(path)
    try:
        if backup and target.exists():
            keep_backup(target)
        text = data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        write_atomically(target, text)
    except OSError as exc:
        raise ConfigError(f"Cannot write {path}: {exc.strerror or exc}.") from None


