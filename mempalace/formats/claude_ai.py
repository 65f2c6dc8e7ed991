"""Claude.ai data export (`conversations.json`): a list of conversations, each with its `chat_messages`.

Decisions: a message's text is its `content` text blocks joined by a blank line (each verbatim), or
its `text` when there are no text blocks; thinking blocks are skipped; attachments with extracted
text are kept verbatim as their own message after the turn, since people pasted them; tool use and
tool results follow as one-line summaries (role "tool", `verbatim=False`, speaker "Tool");
messages without text and conversations without messages are skipped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .base import Conversation, Message, Role, Source, export_items, iso_time, item_label, malformed, one_line

NAME = "claude_ai"
LABEL = "Claude.ai export"
DEFAULT_WING = "service"  # an export of one service files into its wing
READS = "the export's conversations.json, or the export .zip"

_MESSAGES_KEY = re.compile(r'"chat_messages"\s*:')
_SENDERS: dict[str, tuple[str, Role]] = {"human": ("User", "user"), "assistant": ("Claude", "assistant")}


def accept(source: Source) -> bool:
    """A `.json` file whose first 64 KB hold a `chat_messages` key."""
    if source.is_dir or source.suffix != ".json" or source.is_zip:
        return False
    return bool(_MESSAGES_KEY.search(source.head_text()))


def parse(source: Source) -> list[Conversation]:
    """Every non-empty conversation of the export, in file order; malformed input raises."""
    items = export_items(source, "chat_messages", "Claude.ai conversations")
    found = (_conversation(item, item_label(i, item, "name"), source.name) for i, item in enumerate(items))
    return [conversation for conversation in found if conversation.messages]


def _conversation(item: Any, label: str, name: str) -> Conversation:
    """One conversation: each chat message becomes its turn, then its attachments and tool summaries."""
    if not isinstance(item, dict):
        raise malformed(name, f"{label} is not an object.")
    chat = item.get("chat_messages")
    if not isinstance(chat, list):
        raise malformed(name, f"{label}: chat_messages is missing or not a list.")
    messages: list[Message] = []
    for number, raw in enumerate(chat, start=1):
        messages.extend(_turn(raw, f"{label}, message {number}", name))
    ident, title = item.get("uuid"), item.get("name")
    return Conversation(
        messages=tuple(messages),
        id=str(ident) if ident else None,
        title=title if isinstance(title, str) and title else None,
    )


def _turn(raw: Any, where: str, name: str) -> list[Message]:
    """The message's own text, its attachments' extracted text, then its tool use and results."""
    if not isinstance(raw, dict):
        raise malformed(name, f"{where} is not an object.")
    sender = raw.get("sender")
    known = _SENDERS.get(sender) if isinstance(sender, str) else None
    speaker, role = known or (str(sender or "unknown").capitalize(), "other")
    stamp = iso_time(raw.get("created_at"))
    blocks = _blocks(raw.get("content"), where, name)
    texts = [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"]]
    plain = raw.get("text")
    if plain is not None and not isinstance(plain, str):
        raise malformed(name, f"{where}: text is not a string.")
    text = "\n\n".join(texts) if texts else plain or ""
    found = [Message(speaker=speaker, role=role, text=text, timestamp=stamp)] if text.strip() else []
    for attachment in _list(raw.get("attachments"), f"{where}: attachments", name):
        content = attachment.get("extracted_content") if isinstance(attachment, dict) else None
        if isinstance(content, str) and content.strip():
            label = f"{speaker} (attachment {attachment.get('file_name') or 'unnamed'})"
            found.append(Message(speaker=label, role=role, text=content, timestamp=stamp))
    for block in blocks:
        summary = _tool_summary(block)
        if summary:
            found.append(Message(speaker="Tool", role="tool", text=summary, timestamp=stamp, verbatim=False))
    return found


def _blocks(content: Any, where: str, name: str) -> list[dict[str, Any]]:
    """The content blocks, each checked to be an object."""
    blocks = _list(content, f"{where}: content", name)
    for block in blocks:
        if not isinstance(block, dict):
            raise malformed(name, f"{where}: a content block is not an object.")
    return blocks


def _list(value: Any, what: str, name: str) -> list[Any]:
    """`value` when it is a list, [] when absent, an error otherwise."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise malformed(name, f"{what} is not a list.")
    return value


def _tool_summary(block: dict[str, Any]) -> str | None:
    """'name: input' for tool use, 'result: text' for a tool result, None for any other block."""
    kind = block.get("type")
    if kind == "tool_use":
        given = block.get("input")
        shown = given if isinstance(given, str) else json.dumps(given, ensure_ascii=False, default=str)
        return one_line(f"{block.get('name') or 'tool'}: {shown}")
    if kind == "tool_result":
        return one_line(f"{block.get('name') or 'result'}: {_result_text(block.get('content'))}")
    return None


def _result_text(content: Any) -> str:
    """A tool result's text, whether a string or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return "" if content is None else json.dumps(content, ensure_ascii=False, default=str)
