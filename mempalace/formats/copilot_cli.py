"""GitHub Copilot CLI sessions: the event log (`~/.copilot/session-state/<id>/events.jsonl`, 0.0.342 and later,
also the earlier flat `session-state/<id>.jsonl`) and the legacy `history-session-state/session_*.json` file.

Kept: what the person typed (`content`, not the model-bound `transformedContent`) and what Copilot wrote,
verbatim; each tool call and each tool result as a one-line `tool` message. Dropped: the system prompt,
reasoning, ephemeral streaming events, runtime notifications, skill and compaction injections, usage records.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .base import Conversation, Message, Source, iso_time, json_lines, load_json, malformed, one_line, project_name, text_parts

NAME = "copilot_cli"
LABEL = "GitHub Copilot CLI session"
DEFAULT_WING = "project"  # a session files into its project's wing
READS = '~/.copilot/session-state/<id>/events.jsonl; older history-session-state/session_*.json'

_EVENT_TYPE = re.compile(r"[a-z_]+(?:\.[a-z_]+)+\Z")
_CUT_START = re.compile(r'\{\s*"type"\s*:\s*"session\.start"\s*,\s*"data"\s*:\s*\{')
_LEGACY_NAME = re.compile(r"session_.+\.json\Z")
_SESSION_KEY = re.compile(r'"sessionId"\s*:')
_CHAT_KEY = re.compile(r'"chatMessages"\s*:\s*\[')
_GEMINI_KEY = re.compile(r'"messages"\s*:\s*\[')
_TOOL_KEYS = ("command", "path", "file_path", "pattern", "query", "url", "prompt", "description")


@dataclass
class _Log:
    """What one event log has yielded so far (local to a parse, never shared)."""

    name: str
    messages: list[Message] = field(default_factory=list)
    session: str | None = None
    cwd: str | None = None
    announced: set[str] = field(default_factory=set)  # tool call ids already shown from a toolRequest

    def add(self, speaker: str, role: str, text: str, when: str | None, verbatim: bool = True) -> None:
        """Append one message, in file order."""
        self.messages.append(Message(speaker, role, text, when, verbatim))  # type: ignore[arg-type]


def accept(source: Source) -> bool:
    """An event log `.jsonl` whose first record is a Copilot event, or a legacy session `.json`."""
    if source.is_dir or source.is_zip:
        return False
    if source.suffix == ".jsonl":
        return _accept_events(source)
    if source.suffix == ".json":
        return _accept_legacy(source)
    return False


def _accept_events(source: Source) -> bool:
    """The first line is `{type: "session.start", data}` or a dotted event type with `data` and `parentId`."""
    head = source.head_text().lstrip("\ufeff \t\r\n")
    first, newline, _ = head.partition("\n")
    try:
        record = json.loads(first)
    except json.JSONDecodeError:  # a first line longer than the head: judge it by how it starts
        return not newline and bool(_CUT_START.match(first))
    except (ValueError, RecursionError):  # JSON Python will not read (a huge number, deep nesting)
        return False
    if not isinstance(record, dict) or not isinstance(record.get("data"), dict):
        return False
    kind = record.get("type")
    if kind == "session.start":
        return True
    return isinstance(kind, str) and bool(_EVENT_TYPE.match(kind)) and "parentId" in record


def _accept_legacy(source: Source) -> bool:
    """A JSON object with `sessionId` and a `chatMessages` list (or a `session_*.json` name, never Gemini's)."""
    head = source.head_text()
    if not head.lstrip("\ufeff \t\r\n").startswith("{") or not _SESSION_KEY.search(head):
        return False
    if _CHAT_KEY.search(head):
        return True
    return bool(_LEGACY_NAME.match(source.name)) and not _GEMINI_KEY.search(head)


def parse(source: Source) -> list[Conversation]:
    """One conversation per session file: id = the session id, place = the last folder of the cwd."""
    if source.suffix == ".json":
        return _parse_legacy(source)
    log = _Log(source.name)
    for number, record in json_lines(source.read_text(), source.name):
        _event(log, record, number)
    place = project_name(log.cwd)
    return _conversation(log.messages, log.session, place or None)


def _conversation(messages: list[Message], session: Any, place: str | None) -> list[Conversation]:
    """The conversation, titled by the first line the person typed; none when nobody spoke."""
    if not any(m.role in ("user", "assistant") for m in messages):
        return []
    first_user = next((m.text for m in messages if m.role == "user"), "")
    line = first_user.strip().split("\n", 1)[0].strip()
    return [Conversation(messages=tuple(messages), id=str(session) if session else None,
                         title=one_line(line)[:80] if line else None, place=place)]


def _event(log: _Log, record: Any, number: int) -> None:
    """Route one event record to its reader; unknown and ephemeral events are skipped."""
    if not isinstance(record, dict):
        raise malformed(log.name, "each line must be a JSON object.", number)
    kind, data = record.get("type"), record.get("data", {})
    if not isinstance(kind, str):
        raise malformed(log.name, "an event without a string `type`.", number)
    if not isinstance(data, dict):
        raise malformed(log.name, f"the data of a {kind!r} event is not an object.", number)
    if record.get("ephemeral") is True:
        return  # streaming deltas and the like, never written to the session log itself
    when = iso_time(record.get("timestamp"))
    sub = bool(record.get("agentId") or data.get("parentToolCallId"))
    if kind in ("session.start", "session.resume"):
        _context(log, kind, data, number)
    elif kind == "user.message":
        _user(log, data, when, sub, number)
    elif kind == "assistant.message":
        _assistant(log, data, when, sub, number)
    elif kind == "tool.execution_start":
        _tool_start(log, data, when, number)
    elif kind == "tool.execution_complete":
        _tool_complete(log, data, when, number)


def _context(log: _Log, kind: str, data: dict[str, Any], number: int) -> None:
    """The session id (from `session.start`) and the working folder (start first, else a resume)."""
    if kind == "session.start" and log.session is None and data.get("sessionId"):
        log.session = str(data["sessionId"])
    context = data.get("context")
    if context is not None and not isinstance(context, dict):
        raise malformed(log.name, f"the context of a {kind!r} event is not an object.", number)
    cwd = (context or {}).get("cwd")
    if log.cwd is None and isinstance(cwd, str) and cwd.strip():
        log.cwd = cwd


def _user(log: _Log, data: dict[str, Any], when: str | None, sub: bool, number: int) -> None:
    """What the person typed, as shown in the timeline; skill-injected messages are dropped."""
    text = data.get("content")
    if not isinstance(text, str):
        raise malformed(log.name, "a user.message without text `content`.", number)
    source = data.get("source")
    if isinstance(source, str) and source.startswith("skill-"):
        return
    if text.strip():
        log.add("Main agent" if sub else "User", "user", text, when)


def _assistant(log: _Log, data: dict[str, Any], when: str | None, sub: bool, number: int) -> None:
    """Copilot's text, verbatim, then one line per tool it asked for (reasoning is dropped)."""
    text = data.get("content", "")
    if not isinstance(text, str):
        raise malformed(log.name, "an assistant.message whose `content` is not text.", number)
    if text.strip():
        log.add("Sub-agent" if sub else "Copilot", "assistant", text, when)
    requests = [] if data.get("toolRequests") is None else data["toolRequests"]
    if not isinstance(requests, list):
        raise malformed(log.name, "an assistant.message whose `toolRequests` is not a list.", number)
    for request in requests:
        if not isinstance(request, dict):
            raise malformed(log.name, "a tool request is not an object.", number)
        call_id = request.get("toolCallId")
        if isinstance(call_id, str) and call_id:
            log.announced.add(call_id)
        log.add("Tool", "tool", _call_line(request.get("name"), request.get("arguments")), when, verbatim=False)


def _tool_start(log: _Log, data: dict[str, Any], when: str | None, number: int) -> None:
    """A tool run no assistant message announced (e.g. one the person asked for) gets its own call line."""
    call_id = data.get("toolCallId")
    if call_id is not None and not isinstance(call_id, str):
        raise malformed(log.name, "a tool.execution_start whose `toolCallId` is not text.", number)
    if call_id and call_id in log.announced:
        return
    if call_id:
        log.announced.add(call_id)
    log.add("Tool", "tool", _call_line(data.get("toolName"), data.get("arguments")), when, verbatim=False)


def _tool_complete(log: _Log, data: dict[str, Any], when: str | None, number: int) -> None:
    """A tool's outcome in one line: its result text, or its error message."""
    result, error = data.get("result"), data.get("error")
    if result is not None and not isinstance(result, dict):
        raise malformed(log.name, "a tool.execution_complete whose `result` is not an object.", number)
    if error is not None and not isinstance(error, (dict, str)):
        raise malformed(log.name, "a tool.execution_complete whose `error` is not an object.", number)
    if data.get("success") is False or (error and not result):
        message = error.get("message") if isinstance(error, dict) else error
        text = f"← error: {message}" if isinstance(message, str) and message.strip() else "← error: (no message)"
    else:
        output = _result_text(result or {})
        text = f"← result: {output}" if output.strip() else "← result: (empty)"
    log.add("Tool", "tool", one_line(text), when, verbatim=False)


def _result_text(result: dict[str, Any]) -> str:
    """The concise result text sent to the model, else the text of its content blocks."""
    content = result.get("content")
    if isinstance(content, str) and content.strip():
        return content
    blocks = result.get("contents")
    return " ".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)) \
        if isinstance(blocks, list) else ""


def _call_line(name: Any, arguments: Any) -> str:
    """`→ tool: detail`, the detail being the telling argument (a command, a path) or compact JSON."""
    tool = name if isinstance(name, str) and name else "tool"
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)  # the legacy file keeps OpenAI-style argument strings
        except (ValueError, RecursionError):  # not JSON, or JSON Python will not read (huge or deep)
            pass
    if isinstance(arguments, dict):
        key = next((k for k in _TOOL_KEYS if isinstance(arguments.get(k), str) and arguments[k]), None)
        detail = arguments[key] if key else json.dumps(arguments, ensure_ascii=False) if arguments else ""
        if key == "command" and isinstance(arguments.get("path"), str):
            detail = f"{detail} {arguments['path']}"  # an editor sub-command (`view`) says little without its path
    elif arguments is None:
        detail = ""
    else:
        detail = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return one_line(f"→ {tool}: {detail}" if detail else f"→ {tool}")


def _parse_legacy(source: Source) -> list[Conversation]:
    """A pre-0.0.342 session: one object whose `chatMessages` are the model conversation, in order."""
    data = load_json(source.read_text(), source.name)
    if not isinstance(data, dict) or not isinstance(data.get("chatMessages"), list):
        raise malformed(source.name, "expected a Copilot CLI session: an object with a `chatMessages` list.")
    messages: list[Message] = []
    for index, item in enumerate(data["chatMessages"], start=1):
        messages.extend(_legacy_message(item, f"chat message {index}", source.name))
    started = iso_time(data.get("startTime"))
    if messages and started:  # the file keeps no per-message times: the session's start dates its first turn
        first = messages[0]
        messages[0] = Message(first.speaker, first.role, first.text, started, first.verbatim)
    return _conversation(messages, data.get("sessionId"), None)


def _legacy_message(item: Any, where: str, name: str) -> list[Message]:
    """A user or assistant text (verbatim), the assistant's tool calls, or a tool result line."""
    if not isinstance(item, dict) or not isinstance(item.get("role"), str):
        raise malformed(name, f"{where} is not an object with a `role`.")
    role = item["role"]
    if role not in ("user", "assistant", "tool"):
        return []  # the system prompt
    text = _legacy_text(item.get("content"), where, name)
    if role == "tool":
        return [Message("Tool", "tool", one_line(f"← result: {text}" if text.strip() else "← result: (empty)"),
                        verbatim=False)]
    found = [Message("User" if role == "user" else "Copilot", role, text)] if text.strip() else []
    calls = [] if item.get("tool_calls") is None else item["tool_calls"]
    if not isinstance(calls, list):
        raise malformed(name, f"{where}: `tool_calls` is not a list.")
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            raise malformed(name, f"{where}: a tool call without a `function` object.")
        found.append(Message("Tool", "tool", _call_line(function.get("name"), function.get("arguments")),
                             verbatim=False))
    return found


def _legacy_text(content: Any, where: str, name: str) -> str:
    """A message's content: a string, nothing, or a list of `{type: "text", text}` parts joined as they are."""
    return text_parts(content, where, name, "")
