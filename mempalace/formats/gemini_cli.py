"""Gemini CLI saved session (`~/.gemini/tmp/<project>/chats/session-*.json`): one JSON object per session.

Kept: user and Gemini texts, verbatim (a message's text parts joined as the CLI sends them, with nothing
between); each tool call as one `tool` line with its result. Dropped: thoughts, token counts, and the CLI's
own notices (`info`, `warning`, `error` messages), which are the program talking, not the conversation.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .base import Conversation, Message, Source, iso_time, load_json, malformed, one_line

NAME = "gemini_cli"
LABEL = "Gemini CLI session"
DEFAULT_WING = "project"  # a session files into its project's wing
READS = '~/.gemini/tmp/<project>/chats/session-*.json'

_SESSION_KEY = re.compile(r'"sessionId"\s*:')
_MESSAGES_KEY = re.compile(r'"messages"\s*:\s*\[')
_SPEAKERS = {"user": ("User", "user"), "gemini": ("Gemini", "assistant")}


def accept(source: Source) -> bool:
    """A `.json` object whose first 64 KB hold the `sessionId` and `messages` keys of a session file."""
    if source.is_dir or source.suffix != ".json" or source.is_zip:
        return False
    head = source.head_text()
    return head.lstrip("\ufeff \t\r\n").startswith("{") and bool(
        _SESSION_KEY.search(head) and _MESSAGES_KEY.search(head))


def parse(source: Source) -> list[Conversation]:
    """The session as one conversation: id = `sessionId`, title = the CLI's `summary` when present."""
    data = load_json(source.read_text(), source.name)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise malformed(source.name, "expected a Gemini CLI session: an object with a `messages` list.")
    messages: list[Message] = []
    for index, item in enumerate(data["messages"], start=1):
        messages.extend(_message(item, f"message {index}", source.name))
    if not any(m.role != "tool" for m in messages):
        return []
    session, summary = data.get("sessionId"), data.get("summary")
    return [Conversation(
        messages=tuple(messages), id=str(session) if session else None,
        title=(summary.strip() or None) if isinstance(summary, str) else None,
    )]


def _message(item: Any, where: str, name: str) -> list[Message]:
    """A user or Gemini turn: its text, then one line per tool call it made."""
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        raise malformed(name, f"{where} is not an object with a `type`.")
    if item["type"] not in _SPEAKERS:
        return []
    speaker, role = _SPEAKERS[item["type"]]
    when = iso_time(item.get("timestamp"))
    text = _text(item.get("content"), where, name)
    found = [Message(speaker, role, text, when)] if text.strip() else []
    calls = [] if item.get("toolCalls") is None else item["toolCalls"]
    if not isinstance(calls, list):
        raise malformed(name, f"{where}: `toolCalls` is not a list.")
    for call in calls:
        if not isinstance(call, dict):
            raise malformed(name, f"{where}: a tool call is not an object.")
        found.append(Message("Tool", "tool", _tool_line(call), iso_time(call.get("timestamp")) or when,
                             verbatim=False))
    return found


def _text(content: Any, where: str, name: str) -> str:
    """A string, or the text parts of a part list (strings or `{"text": ...}`), joined with nothing between."""
    if content is None or isinstance(content, str):
        return content or ""
    parts = content if isinstance(content, list) else [content]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            if "text" in part and not isinstance(part["text"], str):
                raise malformed(name, f"{where}: a text part whose text is not a string.")
            texts.append(part.get("text", ""))  # inline data, function calls: not text
        else:
            raise malformed(name, f"{where}: content must be text or a list of parts.")
    return "".join(texts)


def _tool_line(call: dict[str, Any]) -> str:
    """`→ name: args ← status: result`, squeezed to one short line."""
    args = call.get("args")
    detail = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False) if args else ""
    line = f"→ {call.get('name') or 'tool'}: {detail}" if detail else f"→ {call.get('name') or 'tool'}"
    result = _result_text(call)
    if result or call.get("status"):
        line += f" ← {call.get('status') or 'result'}: {result or '(empty)'}"
    return one_line(line)


def _result_text(call: dict[str, Any]) -> str:
    """What the tool returned: the CLI's display text, else the function response's output or error."""
    display = call.get("resultDisplay")
    if isinstance(display, str) and display.strip():
        return display
    texts = []
    result = call.get("result")
    for part in result if isinstance(result, list) else []:
        inner = part.get("functionResponse") if isinstance(part, dict) else None
        response = inner.get("response") if isinstance(inner, dict) else None
        if isinstance(response, dict):
            value = response.get("output", response.get("error", response))
            texts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return " ".join(texts)
