"""Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`, sub-agent files too).

Kept: what the person typed and what Claude wrote, verbatim; each tool call and its result as a
one-line `tool` message after the assistant text. Dropped: thinking, progress, snapshots, queue
operations, system records, meta records, slash-command wrappers and `<system-reminder>` blocks.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .base import HEAD_BYTES, Conversation, Message, Source, iso_time, json_lines, malformed, one_line, project_name

NAME = "claude_code"
LABEL = "Claude Code session"
DEFAULT_WING = "project"  # a session files into its project's wing
READS = '~/.claude/projects/*/<session>.jsonl, sub-agent files too'

_KNOWN_TYPES = {"user", "assistant", "summary", "progress", "file-history-snapshot", "queue-operation", "system"}
_CUT_RECORD = re.compile(r'\{.*"type"\s*:\s*"(?:user|assistant)".*"sessionId"|\{.*"sessionId".*"type"\s*:\s*"(?:user|assistant)"')
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_WRAPPERS = re.compile(r"^\s*<(command-[\w-]+|local-command-[\w-]+|bash-[\w-]+|user-prompt-submit-hook)>",
                       re.DOTALL)
_NOISE = re.compile(r"^\[Request interrupted by user[^\]]*\]$")
_TOOL_KEYS = ("command", "file_path", "pattern", "query", "url", "path", "description", "prompt", "skill")


def accept(source: Source) -> bool:
    """A `.jsonl` whose first complete records look like Claude Code's (session ids, known types)."""
    if source.is_dir or source.suffix != ".jsonl":
        return False
    head = source.head()
    lines = head.decode("utf-8", errors="ignore").split("\n")[:20]
    cut = len(head) >= HEAD_BYTES
    complete = lines[:-1] if cut else lines
    for line in complete:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict) or record.get("type") not in _KNOWN_TYPES:
            return False
        if "sessionId" in record or "leafUuid" in record:
            return True
    return cut and bool(_CUT_RECORD.match(lines[-1]))  # a long first prompt: judge the record by its start


def parse(source: Source) -> list[Conversation]:
    """One conversation per file; a sub-agent (sidechain) file is its own conversation."""
    messages: list[Message] = []
    session = agent = cwd = title = None
    sidechain = False
    for number, record in json_lines(source.read_text(), source.name):
        if not isinstance(record, dict):
            raise malformed(source.name, "each line must be a JSON object.", number)
        kind = record.get("type")
        if kind == "summary" and isinstance(record.get("summary"), str):
            title = title or record["summary"]
        if kind not in ("user", "assistant") or record.get("isMeta"):
            continue
        session = session or record.get("sessionId")
        agent = agent or record.get("agentId")
        cwd = cwd or record.get("cwd")
        sidechain = sidechain or bool(record.get("isSidechain"))
        messages.extend(_messages(record, source.name, number))
    if not any(m.role in ("user", "assistant") for m in messages):
        return []
    conversation_id = f"{session}:agent-{agent}" if sidechain and agent else session
    conversation_id = None if conversation_id is None else str(conversation_id)
    first_user = next((m.text for m in messages if m.role == "user"), "")
    return [Conversation(
        messages=tuple(messages), id=conversation_id, title=title or _first_line(first_user),
        place=project_name(cwd),
    )]


def _messages(record: dict[str, Any], name: str, number: int) -> list[Message]:
    message = record.get("message")
    if not isinstance(message, dict):
        raise malformed(name, f"a {record['type']} record without a message object.", number)
    role = "assistant" if record["type"] == "assistant" else "user"
    speaker = _speaker(role, bool(record.get("isSidechain")))
    when = iso_time(record.get("timestamp"))
    content = message.get("content")
    if isinstance(content, str):
        text = _clean_user_text(content) if role == "user" else content
        return [Message(speaker, role, text, when)] if text.strip() else []
    if not isinstance(content, list):
        raise malformed(name, "message content must be text or a list of blocks.", number)
    found: list[Message] = []
    for block in content:
        if not isinstance(block, dict):
            raise malformed(name, "a content block is not an object.", number)
        found.extend(_block(block, role, speaker, when))
    return found


def _block(block: dict[str, Any], role: str, speaker: str, when: str | None) -> list[Message]:
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        text = _clean_user_text(block["text"]) if role == "user" else block["text"]
        return [Message(speaker, role, text, when)] if text.strip() else []
    if kind == "tool_use":
        return [Message("Tool", "tool", _tool_call(block), when, verbatim=False)]
    if kind == "tool_result":
        return [Message("Tool", "tool", _tool_result(block), when, verbatim=False)]
    return []  # thinking, images, redacted blocks


def _speaker(role: str, sidechain: bool) -> str:
    if sidechain:
        return "Sub-agent" if role == "assistant" else "Main agent"
    return "Claude" if role == "assistant" else "User"


def _clean_user_text(text: str) -> str:
    """The person's words without injected reminders; command wrappers and interruptions are noise."""
    if _WRAPPERS.match(text) or _NOISE.match(text.strip()):
        return ""
    if "<system-reminder>" not in text:
        return text
    stripped = text.strip()
    kept = _REMINDER.sub("", text)
    if stripped.startswith("<system-reminder>"):
        kept = kept.lstrip("\n")
    if stripped.endswith("</system-reminder>"):
        kept = kept.rstrip("\n")
    return kept


def _tool_call(block: dict[str, Any]) -> str:
    arguments = block.get("input") if isinstance(block.get("input"), dict) else {}
    detail = next((str(arguments[k]) for k in _TOOL_KEYS if arguments.get(k)), "")
    return one_line(f"→ {block.get('name') or 'tool'}: {detail}" if detail else f"→ {block.get('name') or 'tool'}")


def _tool_result(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        content = " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    text = str(content or "").strip()
    lines = text.count("\n") + 1 if text else 0
    label = "← error" if block.get("is_error") else "← result"
    suffix = f" ({lines} lines)" if lines > 1 else ""
    return one_line(f"{label}{suffix}: {text}" if text else f"{label}: (empty)")


def _first_line(text: str) -> str | None:
    line = text.strip().split("\n", 1)[0].strip()
    return one_line(line)[:80] if line else None
