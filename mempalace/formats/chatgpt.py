"""ChatGPT data export (`conversations.json`): each conversation is a tree of nodes; we keep the
branch the user last saw (the one ending at `current_node`), so edited or regenerated turns drop out.

Decisions: system turns, hidden turns (`is_visually_hidden_from_conversation`) and turns without
text are skipped; non-text parts (images, files) are skipped; tool turns (role "tool") are kept as
one-line summaries (role "tool", `verbatim=False`, speaker "Tool") so search sees that a tool ran
without its output flooding the palace; conversations left with no message are skipped.
"""

from __future__ import annotations

import re
from typing import Any

from .base import Conversation, Message, Role, Source, export_items, iso_time, item_label, malformed, one_line

NAME = "chatgpt"
LABEL = "ChatGPT export"
DEFAULT_WING = "service"  # an export of one service files into its wing
READS = "the export's conversations.json, or the export .zip (the branch you saw)"

_MAPPING_KEY = re.compile(r'"mapping"\s*:\s*\{')
_NODE_KEYS = re.compile(r'"current_node"\s*:|"children"\s*:\s*\[')
_SPEAKERS = {"user": "User", "assistant": "ChatGPT", "tool": "Tool"}


def accept(source: Source) -> bool:
    """A `.json` file whose first 64 KB hold a `mapping` object and ChatGPT node keys."""
    if source.is_dir or source.suffix != ".json" or source.is_zip:
        return False
    head = source.head_text()
    return bool(_MAPPING_KEY.search(head) and _NODE_KEYS.search(head))


def parse(source: Source) -> list[Conversation]:
    """Every conversation of the export, each along its current branch; malformed input raises."""
    items = export_items(source, "mapping", "ChatGPT conversations (or one conversation object)")
    found = (_conversation(item, item_label(i, item, "title"), source.name) for i, item in enumerate(items))
    return [conversation for conversation in found if conversation.messages]


def _conversation(item: Any, label: str, name: str) -> Conversation:
    """One conversation: validate its mapping, walk the current branch, keep the visible turns."""
    if not isinstance(item, dict):
        raise malformed(name, f"{label} is not an object.")
    mapping = item.get("mapping")
    if not isinstance(mapping, dict):
        raise malformed(name, f"{label} has no mapping object (the tree of messages).")
    for node_id, node in mapping.items():
        if not isinstance(node, dict):
            raise malformed(name, f"{label}: mapping node {node_id!r} is not an object.")
    messages = []
    for node_id in _branch(mapping, item.get("current_node"), label, name):
        message = _message(mapping[node_id].get("message"), f"{label}, node {node_id!r}", name)
        if message is not None:
            messages.append(message)
    ident = item.get("id") or item.get("conversation_id")
    title = item.get("title")
    return Conversation(
        messages=tuple(messages),
        id=str(ident) if ident else None,
        title=title if isinstance(title, str) and title else None,
    )


def _branch(mapping: dict[str, Any], current: Any, label: str, name: str) -> list[str]:
    """Node ids from the root to `current_node`; without one, the last-child path from the root."""
    if current is None:
        return _last_child_path(mapping, label, name)
    if not isinstance(current, str) or current not in mapping:
        raise malformed(name, f"{label}: current_node {current!r} is not in the mapping.")
    path: list[str] = []
    seen: set[str] = set()
    node_id: Any = current
    while node_id is not None:
        if not isinstance(node_id, str) or node_id not in mapping:
            raise malformed(name, f"{label}: node {path[-1]!r} names parent {node_id!r}, which is not in the mapping.")
        if node_id in seen:
            raise malformed(name, f"{label}: the parent links loop at node {node_id!r}.")
        seen.add(node_id)
        path.append(node_id)
        node_id = mapping[node_id].get("parent")
    return path[::-1]


def _last_child_path(mapping: dict[str, Any], label: str, name: str) -> list[str]:
    """From the first root (a node without parent), follow each node's last child to a leaf."""
    node_id = next((key for key, node in mapping.items() if node.get("parent") is None), None)
    if node_id is None:
        if not mapping:
            return []
        raise malformed(name, f"{label}: no root node (every node names a parent) and no current_node.")
    path: list[str] = []
    seen: set[str] = set()
    while node_id is not None:
        if node_id in seen:
            raise malformed(name, f"{label}: the child links loop at node {node_id!r}.")
        seen.add(node_id)
        path.append(node_id)
        children = mapping[node_id].get("children") or []
        if not isinstance(children, list):
            raise malformed(name, f"{label}: children of node {node_id!r} is not a list.")
        node_id = children[-1] if children else None
        if node_id is not None and (not isinstance(node_id, str) or node_id not in mapping):
            raise malformed(name, f"{label}: node {path[-1]!r} names child {node_id!r}, which is not in the mapping.")
    return path


def _message(raw: Any, where: str, name: str) -> Message | None:
    """One visible turn, or None for an empty node, a hidden or system turn, or a turn without text."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise malformed(name, f"{where}: message is not an object.")
    author = raw.get("author") or {}
    metadata = raw.get("metadata") or {}
    if not isinstance(author, dict) or not isinstance(metadata, dict):
        raise malformed(name, f"{where}: message author and metadata must be objects.")
    role = author.get("role")
    if role == "system" or metadata.get("is_visually_hidden_from_conversation"):
        return None
    text = _text(raw.get("content"), where, name)
    if not text.strip():
        return None
    speaker = author.get("name") if isinstance(author.get("name"), str) and author.get("name") else None
    stamp = iso_time(raw.get("create_time"))
    if role == "tool":
        summary = one_line(f"{speaker or 'tool'}: {text}")
        return Message(speaker="Tool", role="tool", text=summary, timestamp=stamp, verbatim=False)
    kind: Role = role if role in ("user", "assistant") else "other"
    default = _SPEAKERS.get(role, str(role or "unknown").capitalize())
    return Message(speaker=speaker or default, role=kind, text=text, timestamp=stamp)


def _text(content: Any, where: str, name: str) -> str:
    """String parts joined by a blank line (each verbatim; images skipped), else `text` (code, output)."""
    if content is None:
        return ""
    if not isinstance(content, dict):
        raise malformed(name, f"{where}: message content is not an object.")
    parts = content.get("parts")
    if parts is not None:
        if not isinstance(parts, list):
            raise malformed(name, f"{where}: content parts is not a list.")
        texts = [part if isinstance(part, str) else part.get("text") if isinstance(part, dict) else None
                 for part in parts]  # voice chats carry their transcript as {"text": ...} parts
        joined = "\n\n".join(text for text in texts if isinstance(text, str) and text)
        if joined:
            return joined
    text = content.get("text")
    return text if isinstance(text, str) else ""
