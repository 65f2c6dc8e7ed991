"""Cursor's chat store `state.vscdb` (SQLite; `globalStorage/` or `workspaceStorage/<hash>/`), read-only.

Layouts read: composer chats in `cursorDiskKV` (`composerData:<id>` with its `fullConversationHeadersOnly`
bubbles in `bubbleId:<id>:<bubble>` rows, or an inline `conversation` list), the old chat panel's tabs
(ItemTable `workbench.panel.aichat.view.aichat.chatdata`) and, only when neither holds a chat, the prompt
history (ItemTable `aiService.prompts`, the user's side alone). Kept: user and assistant texts, verbatim;
each tool call as one `tool` line with its status and result. Dropped: thinking, code-block and context
metadata, empty placeholder bubbles. The database is copied to a temporary file and opened read-only.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import SourceRefusedError
from .base import Conversation, Message, Source, iso_time, load_json, malformed, one_line, project_name
from .confined import read_file

NAME = "cursor"
LABEL = "Cursor chat store (state.vscdb)"
DEFAULT_WING = "project"  # a session files into its project's wing
READS = "state.vscdb from Cursor's globalStorage or workspaceStorage/<hash> (read from a copy)"
BINARY = True  # an SQLite file: the registry must ask this format before refusing binary files

_MAGIC = b"SQLite format 3\x00"
_TABLES = {"ItemTable", "cursorDiskKV"}
_CHATDATA = "workbench.panel.aichat.view.aichat.chatdata"
_HEAD_KEYS = ("composer.composerHeaders", "composer.composerData")  # global index first, then workspace
_PROMPTS = "aiService.prompts"
_BUBBLE_ROLES = {1: ("User", "user"), 2: ("Cursor", "assistant")}
_TAB_ROLES = {"user": ("User", "user"), "ai": ("Cursor", "assistant")}
_TEXT_KEYS = ("text", "rawText")

Bubble = tuple[dict[str, Any], Any, str]  # (bubble, type from its header, where it was read)


def accept(source: Source) -> bool:
    """A `.vscdb` file that starts with the SQLite header."""
    return not source.is_dir and source.suffix == ".vscdb" and source.head(16) == _MAGIC


def parse(source: Source) -> list[Conversation]:
    """Every chat in the store, from a temporary copy that is deleted afterwards: never the original."""
    before = _state(source)
    data = source.read_bytes()
    if not data.startswith(_MAGIC):
        raise malformed(source.name, "not an SQLite database (Cursor keeps its chats in SQLite).")
    folder = Path(tempfile.mkdtemp(prefix="mempalace-cursor-"))
    try:
        copy = folder / "state.vscdb"
        copy.write_bytes(data)
        _copy_wal(source, copy, len(data))
        if _state(source) != before:  # Cursor wrote meanwhile: the copies may not belong together
            raise SourceRefusedError(f"{source.name} changed while it was being copied (Cursor is writing to "
                                     "it): ingest it again, or close Cursor first.")
        try:
            with closing(sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)) as db:
                return _conversations(db, source.name, wal_mode=data[18:19] == b"\x02")
        except sqlite3.DatabaseError as exc:
            raise malformed(source.name, f"not a readable SQLite database ({exc}).") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _state(source: Source) -> tuple[tuple[int, int], ...]:
    """Size and modification time of a store on disk and of its write-ahead log (empty for uploads)."""
    if source.path is None:
        return ()
    found = []
    for file in (source.path, source.path.with_name(source.path.name + "-wal")):
        try:
            status = file.stat()
            found.append((status.st_size, status.st_mtime_ns))
        except FileNotFoundError:
            found.append((-1, -1))
    return tuple(found)


def _copy_wal(source: Source, copy: Path, size: int) -> None:
    """Copy the write-ahead log beside a file on disk too: recent chats may not be in the main file yet."""
    if source.path is None:
        return
    wal = source.path.with_name(source.path.name + "-wal")
    try:
        if not wal.is_file():
            return
        if size + wal.stat().st_size > source.max_bytes:
            raise SourceRefusedError(f"{source.name} and its write-ahead log exceed the "
                                     f"{source.max_bytes / 1e6:,.0f} MB limit (setting max_ingest_bytes).")
        copy.with_name(copy.name + "-wal").write_bytes(read_file(wal, source.roots, limit=source.max_bytes - size))
    except OSError as exc:
        raise SourceRefusedError(f"{wal.name} cannot be read ({exc.strerror or exc}).") from None


def _conversations(db: sqlite3.Connection, name: str, wal_mode: bool) -> list[Conversation]:
    """Composer chats, then old chat-panel tabs; the prompt history only when the store holds neither."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables & _TABLES:
        hint = "; it is in WAL mode, so they may still be in the `-wal` file beside it" if wal_mode else ""
        raise malformed(name, f"an SQLite database without Cursor's tables (ItemTable, cursorDiskKV){hint}.")
    found: list[Conversation] = []
    items = "ItemTable" in tables
    if "cursorDiskKV" in tables:
        found.extend(_composers(db, name, _heads(db, name) if items else {}))
    if items:
        found.extend(_tabs(db, name))
        if not found:
            found.extend(_prompts(db, name))
    return found


def _decode(value: Any, name: str, key: str) -> Any:
    """A stored value (TEXT or a UTF-8 BLOB) as JSON, an error naming the file and the key."""
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise malformed(name, f"key {key!r}: not UTF-8 text (byte {exc.start}).") from None
    if not isinstance(value, str):
        raise malformed(name, f"key {key!r}: the value is not text.")
    return load_json(value, f"{name}, key {key!r}")


def _item(db: sqlite3.Connection, name: str, key: str) -> Any:
    """The JSON of one ItemTable key, or None when it is absent."""
    row = db.execute("SELECT value FROM ItemTable WHERE key = ?", (key,)).fetchone()
    return None if row is None or row[0] is None else _decode(row[0], name, key)


def _kv(db: sqlite3.Connection, name: str, key: str) -> Any:
    """The JSON of one cursorDiskKV key, or None when it is absent."""
    row = db.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()
    return None if row is None or row[0] is None else _decode(row[0], name, key)


def _heads(db: sqlite3.Connection, name: str) -> dict[str, dict[str, Any]]:
    """Composer index entries by id (name, workspace), from `composer.composerHeaders` or `composerData`."""
    heads: dict[str, dict[str, Any]] = {}
    for key in _HEAD_KEYS:
        data = _item(db, name, key)
        if data is None:
            continue
        if not isinstance(data, dict) or not isinstance(data.get("allComposers", []), list):
            raise malformed(name, f"key {key!r}: expected an object with an `allComposers` list.")
        for entry in data.get("allComposers", []):
            if isinstance(entry, dict) and isinstance(entry.get("composerId"), str):
                heads.setdefault(entry["composerId"], entry)
    return heads


def _composers(db: sqlite3.Connection, name: str, heads: dict[str, dict[str, Any]]) -> list[Conversation]:
    """One conversation per `composerData:<id>` row holding a message, oldest first."""
    rows = db.execute("SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' "
                      "AND key < 'composerData;' ORDER BY key").fetchall()
    composers = []
    for key, value in rows:
        if value is None:
            continue
        data = _decode(value, name, key)
        if not isinstance(data, dict):
            raise malformed(name, f"key {key!r}: a composer is not a JSON object.")
        composers.append((_created(data), key, data))
    composers.sort(key=lambda item: (item[0] is None, item[0] or 0, item[1]))
    found = []
    for _, key, data in composers:
        conversation = _composer(db, name, key, data, heads)
        if conversation is not None:
            found.append(conversation)
    return found


def _created(data: dict[str, Any]) -> float | None:
    value = data.get("createdAt")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        return float(value)
    except OverflowError:  # an integer no clock reaches
        return None


def _composer(db: sqlite3.Connection, name: str, key: str, data: dict[str, Any],
              heads: dict[str, dict[str, Any]]) -> Conversation | None:
    """A composer's messages in its own order; title from its name, place from its workspace."""
    composer_id = key.split(":", 1)[1]
    bubbles = _composer_bubbles(db, name, key, composer_id, data)
    messages = [m for bubble, kind, where in bubbles for m in _bubble(bubble, kind, where, name)]
    if not any(m.role != "tool" for m in messages):
        return None  # an empty draft, or tool calls alone
    head = heads.get(composer_id, {})
    title = _clean(data.get("name")) or _clean(head.get("name"))
    place = _head_folder(head) or _uri_folder(bubbles)
    return Conversation(messages=tuple(messages), id=composer_id, title=title, place=place)


def _composer_bubbles(db: sqlite3.Connection, name: str, key: str, composer_id: str,
                      data: dict[str, Any]) -> list[Bubble]:
    """The bubbles of the split layout (headers → `bubbleId:` rows) or of the inline `conversation`."""
    headers, inline = data.get("fullConversationHeadersOnly"), data.get("conversation")
    for field, value in (("fullConversationHeadersOnly", headers), ("conversation", inline)):
        if value is not None and not isinstance(value, list):
            raise malformed(name, f"key {key!r}: `{field}` is not a list.")
    if not headers:
        found = []
        for index, bubble in enumerate(inline or [], start=1):
            if not isinstance(bubble, dict):
                raise malformed(name, f"key {key!r}: conversation bubble {index} is not an object.")
            found.append((bubble, None, f"key {key!r}, bubble {index}"))
        return found
    found = []
    for index, header in enumerate(headers, start=1):
        if not isinstance(header, dict) or not isinstance(header.get("bubbleId"), str):
            raise malformed(name, f"key {key!r}: conversation header {index} has no `bubbleId`.")
        bubble_key = f"bubbleId:{composer_id}:{header['bubbleId']}"
        bubble = _kv(db, name, bubble_key)
        if bubble is None:
            continue  # a header whose bubble Cursor never wrote or has since pruned
        if not isinstance(bubble, dict):
            raise malformed(name, f"key {bubble_key!r}: a bubble is not a JSON object.")
        found.append((bubble, header.get("type"), f"key {bubble_key!r}"))
    return found


def _bubble(bubble: dict[str, Any], header_type: Any, where: str, name: str) -> list[Message]:
    """A user or assistant bubble: its text (verbatim), then its tool call as one line."""
    kind = bubble.get("type", header_type)
    if isinstance(kind, bool) or not isinstance(kind, int) or kind not in _BUBBLE_ROLES:
        return []
    speaker, role = _BUBBLE_ROLES[kind]
    when = _when(bubble.get("createdAt"))
    text = _text(bubble, where, name)
    found = [Message(speaker, role, text, when)] if text.strip() else []
    tool = bubble.get("toolFormerData")
    if tool is not None and not isinstance(tool, dict):
        raise malformed(name, f"{where}: `toolFormerData` is not an object.")
    if tool and any(tool.get(k) for k in ("name", "rawArgs", "params", "result")):
        found.append(Message("Tool", "tool", _tool_line(tool), when, verbatim=False))
    return found


def _text(item: dict[str, Any], where: str, name: str, keys: tuple[str, ...] = _TEXT_KEYS) -> str:
    """The first non-blank of `text` / `rawText`, untouched; "" when there is none."""
    for key in keys:
        value = item.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise malformed(name, f"{where}: `{key}` is not text.")
        if value.strip():
            return value
    return ""


def _tool_line(tool: dict[str, Any]) -> str:
    """`→ name: arguments ← status: result`, squeezed to one short line."""
    tool_name = tool.get("name") if isinstance(tool.get("name"), str) and tool.get("name") else "tool"
    args = next((tool[k] for k in ("rawArgs", "params") if tool.get(k)), "")
    args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    line = f"→ {tool_name}: {args}" if args.strip() else f"→ {tool_name}"
    result = tool.get("result")
    result = "" if result is None else result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    status = tool.get("status") if isinstance(tool.get("status"), str) else ""
    if result or status:
        line += f" ← {status or 'result'}: {result or '(empty)'}"
    return one_line(line)


def _tabs(db: sqlite3.Connection, name: str) -> list[Conversation]:
    """One conversation per tab of the old chat panel: `user` and `ai` bubbles, in order."""
    data = _item(db, name, _CHATDATA)
    if data is None:
        return []
    where = f"key {_CHATDATA!r}"
    if not isinstance(data, dict) or not isinstance(data.get("tabs", []), list):
        raise malformed(name, f"{where}: expected an object with a `tabs` list.")
    found = []
    for number, tab in enumerate(data.get("tabs", []), start=1):
        if not isinstance(tab, dict) or not isinstance(tab.get("bubbles") or [], list):
            raise malformed(name, f"{where}: tab {number} is not an object with a `bubbles` list.")
        messages = []
        for index, bubble in enumerate(tab.get("bubbles") or [], start=1):
            if not isinstance(bubble, dict):
                raise malformed(name, f"{where}: tab {number}, bubble {index} is not an object.")
            kind = bubble.get("type")
            who = _TAB_ROLES.get(kind) if isinstance(kind, str) else None
            text = _text(bubble, f"{where}: tab {number}, bubble {index}", name) if who else ""
            if who and text.strip():
                messages.append(Message(who[0], who[1], text))
        if messages:
            title = _clean(tab.get("chatTitle"))
            found.append(Conversation(messages=tuple(messages), id=_clean(tab.get("tabId")),
                                      title=title.splitlines()[0].strip() if title else None))
    return found


def _prompts(db: sqlite3.Connection, name: str) -> list[Conversation]:
    """The prompt history as one conversation of user messages (Cursor keeps no answers beside it)."""
    data = _item(db, name, _PROMPTS)
    if data is None:
        return []
    where = f"key {_PROMPTS!r}"
    if not isinstance(data, list):
        raise malformed(name, f"{where}: expected a list of prompts.")
    messages = []
    for index, prompt in enumerate(data, start=1):
        if not isinstance(prompt, dict):
            raise malformed(name, f"{where}: prompt {index} is not an object.")
        text = _text(prompt, f"{where}: prompt {index}", name, keys=("text",))
        if text.strip():
            messages.append(Message("User", "user", text))
    return [Conversation(messages=tuple(messages))] if messages else []


def _when(value: Any) -> str | None:
    """ISO time of an ISO string, epoch seconds or (as Cursor mostly writes numbers) epoch milliseconds."""
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 1e11:
            value = value / 1000
        return iso_time(value)
    except (OverflowError, ValueError):  # a number no clock reaches
        return None


def _clean(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _head_folder(head: dict[str, Any]) -> str | None:
    """The last folder of the workspace an index entry records (`workspaceIdentifier.uri.fsPath`)."""
    ident = head.get("workspaceIdentifier")
    uri = ident.get("uri") if isinstance(ident, dict) else None
    path = uri.get("fsPath") if isinstance(uri, dict) else None
    return _last_folder(path) if isinstance(path, str) else None


def _uri_folder(bubbles: list[Bubble]) -> str | None:
    """The last folder of the one workspace the user bubbles name in `workspaceUris`, if only one."""
    folders = set()
    for bubble, _, _ in bubbles:
        uris = bubble.get("workspaceUris")
        for uri in uris if isinstance(uris, list) else []:
            if isinstance(uri, str) and uri:
                folders.add(unquote(urlsplit(uri).path))
    return _last_folder(folders.pop()) if len(folders) == 1 else None


def _last_folder(path: str) -> str | None:
    return project_name(path)
