"""Codex CLI rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), current and early layouts.

Kept: each user and assistant text block, verbatim; each tool call and tool output as a one-line `tool`
message. Dropped: reasoning, developer/system turns, and injected preambles (environment context, AGENTS.md
instructions). `event_msg` records repeat the response items' texts, so their texts are used only when the
file has no message items at all: no text is ever counted twice.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .base import Conversation, Message, Source, iso_time, json_lines, malformed, one_line, project_name

NAME = "codex_cli"
LABEL = "Codex CLI session"
DEFAULT_WING = "project"  # a session files into its project's wing
READS = '~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl'

_RECORD_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_TRUNCATED_FIRST = re.compile(r'\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"session_meta"')
_PREAMBLE = re.compile(
    r"\s*(?:#[^\n]*\n\s*)?<(environment_context|user_instructions|INSTRUCTIONS)>.*</\1>\s*", re.DOTALL)
_SPEAKERS = {"user": "User", "assistant": "Codex"}
_EVENT_ROLES = {"user_message": "user", "agent_message": "assistant"}


def accept(source: Source) -> bool:
    """A `.jsonl` whose first record is a Codex rollout record (or an early `rollout-*` session header)."""
    if source.is_dir or source.suffix != ".jsonl" or source.is_zip:
        return False
    head = source.head_text().lstrip("\ufeff \t\r\n")
    first, newline, _ = head.partition("\n")
    try:
        record = json.loads(first)
    except json.JSONDecodeError:  # a first line longer than the head (a huge header): check how it starts
        return not newline and bool(_TRUNCATED_FIRST.match(first))
    if not isinstance(record, dict):
        return False
    if record.get("type") in _RECORD_TYPES:
        return isinstance(record.get("payload"), dict)
    return source.name.startswith("rollout-") and {"id", "timestamp"} <= record.keys() and "type" not in record


def parse(source: Source) -> list[Conversation]:
    """One conversation per rollout file: id from `session_meta`, place = the last folder of its cwd."""
    meta: dict[str, Any] = {}
    found: list[tuple[bool, Message]] = []  # (from an event_msg?, message), in file order
    cwd = None
    has_item_messages = False
    for number, record in json_lines(source.read_text(), source.name):
        kind, payload = _unwrap(record, source.name, number, bool(meta))
        if kind == "session_meta":
            meta = meta or payload
        elif kind == "turn_context":
            cwd = cwd or payload.get("cwd")
        elif kind == "event_msg":
            found.extend((True, m) for m in _event(payload, record))
        elif kind == "response_item":
            has_item_messages = has_item_messages or payload.get("type") == "message"
            found.extend((False, m) for m in _item(payload, record, source.name, number))
    messages = [m for from_event, m in found if not (from_event and has_item_messages)]
    if not any(m.role in ("user", "assistant") for m in messages):
        return []
    cwd = meta.get("cwd") or cwd
    place = project_name(cwd)
    session = meta.get("id")
    return [Conversation(messages=tuple(messages), id=str(session) if session else None, place=place or None)]


def _unwrap(record: Any, name: str, number: int, have_meta: bool) -> tuple[str | None, dict[str, Any]]:
    """(record kind, payload) for a current `{type, payload}` record or an early bare one."""
    if not isinstance(record, dict):
        raise malformed(name, "each line must be a JSON object.", number)
    if "payload" in record:
        if not isinstance(record["payload"], dict):
            raise malformed(name, f"the payload of a {record.get('type')!r} record is not an object.", number)
        return record.get("type"), record["payload"]
    if isinstance(record.get("type"), str):
        return "response_item", record  # early rollouts wrote response items bare
    if "id" in record and not have_meta:
        return "session_meta", record  # ...and a bare session header first
    return None, record  # e.g. {"record_type": "state"}


def _item(payload: dict[str, Any], record: dict[str, Any], name: str, number: int) -> list[Message]:
    """The messages of one response item: text blocks verbatim, tool calls and outputs in one line."""
    kind = payload.get("type")
    when = iso_time(payload.get("timestamp") or record.get("timestamp"))
    if kind == "message":
        return _texts(payload, when, name, number)
    if not isinstance(kind, str) or not kind.endswith(("_call", "_call_output")):
        return []  # reasoning, snapshots, records from newer versions
    if kind.endswith("_output"):
        text = one_line(f"← result: {_output_text(payload.get('output'))}")
        return [Message("Tool", "tool", text, when, verbatim=False)]
    tool = payload.get("name") or kind.removesuffix("_call")
    detail = next((payload[k] for k in ("arguments", "input", "action", "query") if k in payload), "")
    detail = detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)
    text = one_line(f"→ {tool}: {detail}" if detail else f"→ {tool}")
    return [Message("Tool", "tool", text, when, verbatim=False)]


def _texts(payload: dict[str, Any], when: str | None, name: str, number: int) -> list[Message]:
    """One message per text block of a user or assistant item; other roles and preambles are dropped."""
    role = payload.get("role")
    content = payload.get("content")
    if not isinstance(role, str) or not isinstance(content, list):
        raise malformed(name, "a message item needs a role and a list of content blocks.", number)
    if role not in _SPEAKERS:
        return []  # developer and system turns are the harness talking, not the conversation
    found = []
    for block in content:
        if not isinstance(block, dict):
            raise malformed(name, "a content block is not an object.", number)
        if block.get("type") not in ("input_text", "output_text", "text"):
            continue  # images and other attachments
        text = block.get("text")
        if not isinstance(text, str):
            raise malformed(name, f"a {block.get('type')} block without text.", number)
        if text.strip() and not (role == "user" and _PREAMBLE.fullmatch(text)):
            found.append(Message(_SPEAKERS[role], role, text, when))
    return found


def _event(payload: dict[str, Any], record: dict[str, Any]) -> list[Message]:
    """A user or agent message event (used only when the file has no message items)."""
    role = _EVENT_ROLES.get(payload.get("type"))  # type: ignore[arg-type]
    text = payload.get("message")
    if role is None or not isinstance(text, str) or not text.strip() or _PREAMBLE.fullmatch(text):
        return []
    return [Message(_SPEAKERS[role], role, text, iso_time(payload.get("timestamp") or record.get("timestamp")))]


def _output_text(output: Any) -> str:
    """A tool output as text: a string, the text of content blocks, or compact JSON."""
    if isinstance(output, str):
        return output or "(empty)"
    if isinstance(output, list):
        return " ".join(b["text"] for b in output if isinstance(b, dict) and isinstance(b.get("text"), str))
    if isinstance(output, dict) and isinstance(output.get("content"), str):
        return output["content"]
    return json.dumps(output, ensure_ascii=False)
