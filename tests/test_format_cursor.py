"""Cursor chat stores (`state.vscdb`): composer chats (split and inline), old chat-panel tabs, the prompt
history fallback, compact tool lines, dropped thinking, verbatim text, strict errors, cheap detection, and
a read that never touches the original. The databases are built here from the JSON fixtures beside them."""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest

from mempalace.errors import MalformedSourceError
from mempalace.formats import cursor
from mempalace.formats.base import Source

from _cursor_store import build, fixture

VERBATIM = ("Ünïcödé ✓ — 日本語 🐍\n\n    indented line\n\n\n"
            "```python\ndef f():\n    return 1\n```\n  trailing  \n")
UPLOADER = "6f1c2a9e-4b7d-4e21-9c3a-58d0e7f1a2b4"
CONFIG = "b7d04c11-93e2-4f6a-8d15-2c9b3a7e6f01"


def store(tmp_path: Path, name: str, **changes: Any) -> Source:
    tables = fixture(name)
    for key, value in changes.items():
        table, _, row = key.partition("__")
        tables[table][row.replace("_COLON_", ":")] = value
    return Source.from_path(build(tmp_path / "state.vscdb", tables))


def raw_store(tmp_path: Path, table: str, key: str, value: Any) -> Source:
    """A store with one row holding `value` exactly as given (text, bytes or NULL)."""
    path = tmp_path / "state.vscdb"
    con = sqlite3.connect(path)
    con.execute(f"CREATE TABLE {table} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.execute(f"INSERT INTO {table} (key, value) VALUES (?, ?)", (key, value))
    con.commit()
    con.close()
    return Source.from_path(path)


def test_composer_chats_in_order_with_titles_places_and_times(tmp_path: Path) -> None:
    source = store(tmp_path, "global_storage.json")
    assert cursor.accept(source)
    older, newer = cursor.parse(source)  # the empty draft composer is no conversation
    assert (older.id, older.title, older.place) == (CONFIG, "Explain the config loader", "config-kit")
    assert [(m.speaker, m.role, m.timestamp) for m in older.messages] == [
        ("User", "user", None), ("Cursor", "assistant", None), ("Cursor", "assistant", None)]
    assert older.messages[2].text == "So setting CONFIG_PATH is optional."  # `rawText` when `text` is blank
    assert (newer.id, newer.title, newer.place) == (UPLOADER, "Retry logic for the uploader", "uploader")
    assert [(m.speaker, m.role, m.timestamp) for m in newer.messages] == [
        ("User", "user", "2025-05-07T10:00:05Z"),
        ("Tool", "tool", "2025-05-07T10:00:11Z"),
        ("Cursor", "assistant", "2025-05-07T10:00:30Z"),
        ("User", "user", "2025-05-07T10:05:40Z"),
        ("Cursor", "assistant", "2025-05-07T10:05:52Z"),
        ("Tool", "tool", "2025-05-07T10:05:52Z"),
    ]
    assert newer.messages[0].text == "The uploader gives up after one failed PUT. Can you add retries with backoff?"
    assert newer.speakers == ("User", "Cursor") and newer.started == "2025-05-07T10:00:05Z"


def test_text_is_verbatim_in_both_roles(tmp_path: Path) -> None:
    (_, convo) = cursor.parse(store(tmp_path, "global_storage.json"))
    assert [(m.role, m.verbatim) for m in convo.messages if m.text == VERBATIM] == [
        ("assistant", True), ("user", True)]


def test_thinking_placeholders_context_and_code_block_copies_are_dropped(tmp_path: Path) -> None:
    older, newer = cursor.parse(store(tmp_path, "global_storage.json"))
    texts = " ".join(m.text for c in (older, newer) for m in c.messages)
    for hidden in ("capped exponential backoff", "session.put(url, data=body)\n", "sig-9f2", "projectLayouts"):
        assert hidden not in texts
    assert texts.count("return Settings()") == 1  # the fenced code in the text, not its `codeBlocks` copy
    assert len(newer.messages) == 6  # the empty bubble and the header without a bubble row add nothing


def test_tool_calls_are_one_compact_line(tmp_path: Path) -> None:
    (_, convo) = cursor.parse(store(tmp_path, "global_storage.json"))
    read, run = (m for m in convo.messages if m.role == "tool")
    assert read.text.startswith('→ read_file_v2: {"target_file": "src/upload.py"} ← completed: {"contents":')
    assert run.text.startswith('→ run_terminal_command_v2: {"command": "pytest -q tests/test_upload.py"')
    assert " ← error: " in run.text and run.text.endswith("…")
    for message in (read, run):
        assert message.speaker == "Tool" and not message.verbatim
        assert len(message.text) <= 200 and "\n" not in message.text


def test_inline_tool_without_name_uses_params_and_json_result(tmp_path: Path) -> None:
    tool = {"params": {"query": "retry"}, "result": {"files": ["a.py"]}}
    source = store(tmp_path, "global_storage.json", cursorDiskKV__composerData_COLON_x={
        "conversation": [{"type": 1, "text": "find it"}, {"type": 2, "text": "", "toolFormerData": tool},
                         {"type": 2, "toolFormerData": {"status": "completed"}}]})
    convo = next(c for c in cursor.parse(source) if c.id == "x")
    assert [m.text for m in convo.messages] == [
        "find it", '→ tool: {"query": "retry"} ← result: {"files": ["a.py"]}']
    assert convo.title is None and convo.place is None


def test_old_chat_panel_tabs_and_no_doubled_prompts(tmp_path: Path) -> None:
    source = store(tmp_path, "workspace_legacy_chat.json")
    (convo,) = cursor.parse(source)  # the empty tab is no conversation; prompts repeat the tab's question
    assert (convo.id, convo.title, convo.place) == ("8b61f0d2-3c4e-4a5f-9b7d-0e1f2a3b4c5d",
                                                     "Parsing the CSV header", None)
    assert [(m.speaker, m.role) for m in convo.messages] == [
        ("User", "user"), ("Cursor", "assistant"), ("Cursor", "assistant")]
    assert convo.messages[1].text.endswith('```python\nreader = csv.DictReader(open(path, encoding="utf-8-sig"))\n```')
    assert "csv.DictReader(open(path))" not in convo.messages[0].text  # the selection is context, not text


def test_prompt_history_when_no_chat_is_stored(tmp_path: Path) -> None:
    (convo,) = cursor.parse(store(tmp_path, "workspace_prompts.json"))
    assert [(m.speaker, m.role, m.text, m.timestamp) for m in convo.messages] == [
        ("User", "user", "test_reconnect fails about one run in five, can you see why?", None),
        ("User", "user", "Make the fake server wait for the handshake.\n\n    await server.ready()\n", None),
    ]
    assert (convo.id, convo.title, convo.place) == (None, None, None)


def test_workspace_uris_naming_two_folders_give_no_place(tmp_path: Path) -> None:
    bubbles = [{"type": 1, "text": "a", "workspaceUris": ["file:///srv/one"]},
               {"type": 1, "text": "b", "workspaceUris": ["file:///srv/two"]}]
    windows = [{"type": 1, "text": "c", "workspaceUris": ["file:///c%3A/Users/dana/src/My%20App"]}]
    source = store(tmp_path, "global_storage.json", cursorDiskKV__composerData_COLON_two={"conversation": bubbles},
                   cursorDiskKV__composerData_COLON_win={"conversation": windows})
    places = {c.id: c.place for c in cursor.parse(source)}
    assert places["two"] is None and places["win"] == "My App"


def test_epoch_milliseconds_and_seconds_become_iso_times() -> None:
    assert cursor._when(1746612000000) == cursor._when(1746612000) == "2025-05-07T10:00:00Z"
    assert cursor._when("2025-05-07T10:00:05.123Z") == "2025-05-07T10:00:05Z"
    assert cursor._when(None) is None and cursor._when(True) is None


def test_the_original_is_never_touched_and_the_copy_is_deleted(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    source = store(tmp_path, "global_storage.json")
    path = tmp_path / "state.vscdb"
    os.utime(path, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    before, stat = path.read_bytes(), path.stat()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert len(cursor.parse(source)) == 2
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scratch", "state.vscdb"]  # no -wal, -shm, -journal
    assert list(scratch.iterdir()) == []


def test_uploaded_bytes_are_read_the_same(tmp_path: Path) -> None:
    data = store(tmp_path, "global_storage.json").read_bytes()
    uploaded = Source.from_bytes(data, "C:\\Users\\dana\\state.vscdb")
    assert cursor.accept(uploaded)
    assert [c.id for c in cursor.parse(uploaded)] == [CONFIG, UPLOADER]


def test_recent_chats_still_in_the_write_ahead_log_are_read(tmp_path: Path) -> None:
    path = tmp_path / "state.vscdb"
    writer = sqlite3.connect(path)  # kept open: everything stays in state.vscdb-wal, not yet in the main file
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        writer.execute("INSERT INTO cursorDiskKV VALUES (?, ?)",
                       ("composerData:w", json.dumps({"conversation": [{"type": 1, "text": "still in the log"}]})))
        writer.commit()
        wal = Path(f"{path}-wal")
        main_before, wal_before = path.read_bytes(), wal.read_bytes()
        (convo,) = cursor.parse(Source.from_path(path))
        assert convo.messages[0].text == "still in the log"
        assert path.read_bytes() == main_before and wal.read_bytes() == wal_before
        with pytest.raises(MalformedSourceError, match="WAL mode, so they may still be in the `-wal` file"):
            cursor.parse(Source.from_bytes(main_before, "state.vscdb"))  # uploaded without its log
    finally:
        writer.close()


def test_accepts_only_sqlite_files_named_vscdb(tmp_path: Path) -> None:
    assert cursor.BINARY is True
    sqlite_bytes = store(tmp_path, "workspace_prompts.json").read_bytes()
    assert cursor.accept(Source.from_bytes(sqlite_bytes, "state.vscdb"))
    assert not cursor.accept(Source.from_bytes(sqlite_bytes, "state.db"))
    others = {
        "state.vscdb": b"not a database at all\n",
        "rollout-2025.jsonl": b'{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{}}\n',
        "conversations.json": b'[{"mapping":{},"current_node":null,"title":"x"}]',
        "session-1.json": b'{"sessionId": "g", "messages": []}',
        "export.zip": b"PK\x03\x04" + b"\x00" * 40,
        "notes.txt": b"User: hi\nAssistant: hello\n",
    }
    for name, data in others.items():
        assert not cursor.accept(Source.from_bytes(data, name)), name
    assert not cursor.accept(Source.from_path(tmp_path))


def test_files_that_are_not_cursor_stores_are_named(tmp_path: Path) -> None:
    good = store(tmp_path, "global_storage.json").read_bytes()
    path = tmp_path / "state.vscdb"
    path.write_bytes(b"plain text, not SQLite\n")
    with pytest.raises(MalformedSourceError, match=r"state\.vscdb: not an SQLite database"):
        cursor.parse(Source.from_path(path))
    path.write_bytes(good[:4096])  # cut off mid-file
    with pytest.raises(MalformedSourceError, match=r"state\.vscdb: not a readable SQLite database"):
        cursor.parse(Source.from_path(path))
    other = tmp_path / "other.vscdb"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (id INTEGER, body TEXT)")
    con.commit()
    con.close()
    with pytest.raises(MalformedSourceError, match=r"other\.vscdb: an SQLite database without Cursor's tables"):
        cursor.parse(Source.from_path(other))


def test_truncated_json_names_the_key_line_and_column(tmp_path: Path) -> None:
    source = raw_store(tmp_path, "cursorDiskKV", "composerData:cut", '{"conversation": [{"type": 1, "te')
    with pytest.raises(MalformedSourceError,
                       match=r"state\.vscdb, key 'composerData:cut', line 1, column \d+: invalid JSON"):
        cursor.parse(source)
    other = tmp_path / "b"
    other.mkdir()
    with pytest.raises(MalformedSourceError, match=r"key 'aiService\.prompts': not UTF-8"):
        cursor.parse(raw_store(other, "ItemTable", "aiService.prompts", b"[\xff]"))


@pytest.mark.parametrize("table, key, value, what", [
    ("cursorDiskKV", "composerData:c", [1], "a composer is not a JSON object"),
    ("cursorDiskKV", "composerData:c", {"fullConversationHeadersOnly": {"a": 1}}, "`fullConversationHeadersOnly`"),
    ("cursorDiskKV", "composerData:c", {"conversation": "hello"}, "`conversation` is not a list"),
    ("cursorDiskKV", "composerData:c", {"conversation": ["hello"]}, "conversation bubble 1 is not an object"),
    ("cursorDiskKV", "composerData:c", {"fullConversationHeadersOnly": [{"type": 1}]}, "header 1 has no `bubbleId`"),
    ("cursorDiskKV", "composerData:c", {"conversation": [{"type": 1, "text": 7}]}, "bubble 1: `text` is not text"),
    ("cursorDiskKV", "composerData:c", {"conversation": [{"type": 2, "toolFormerData": "x"}]}, "`toolFormerData`"),
    ("ItemTable", cursor._CHATDATA, {"tabs": {"a": 1}}, "expected an object with a `tabs` list"),
    ("ItemTable", cursor._CHATDATA, {"tabs": [{"bubbles": "x"}]}, "tab 1 is not an object with a `bubbles`"),
    ("ItemTable", cursor._CHATDATA, {"tabs": [{"bubbles": [3]}]}, "tab 1, bubble 1 is not an object"),
    ("ItemTable", cursor._CHATDATA, {"tabs": [{"bubbles": [{"type": "ai", "rawText": []}]}]}, "`rawText` is not"),
    ("ItemTable", "aiService.prompts", {"text": "x"}, "expected a list of prompts"),
    ("ItemTable", "aiService.prompts", ["x"], "prompt 1 is not an object"),
    ("ItemTable", "composer.composerHeaders", {"allComposers": 5}, "an `allComposers` list"),
])
def test_wrong_structure_is_named(tmp_path: Path, table: str, key: str, value: Any, what: str) -> None:
    tables: dict[str, dict[str, Any]] = {"ItemTable": {}, "cursorDiskKV": {}}
    tables[table][key] = value
    source = Source.from_path(build(tmp_path / "state.vscdb", tables))
    with pytest.raises(MalformedSourceError, match=r"state\.vscdb: key '[^']+'.*" + what.replace("`", ".")):
        cursor.parse(source)


def test_split_bubble_that_is_not_an_object_is_named(tmp_path: Path) -> None:
    tables = {"cursorDiskKV": {"composerData:c": {"fullConversationHeadersOnly": [{"bubbleId": "b", "type": 1}]},
                               "bubbleId:c:b": "just text"}}
    with pytest.raises(MalformedSourceError, match=r"key 'bubbleId:c:b': a bubble is not a JSON object"):
        cursor.parse(Source.from_path(build(tmp_path / "state.vscdb", tables)))


def test_a_store_without_chats_has_no_conversations(tmp_path: Path) -> None:
    tables = {"ItemTable": {"workbench.sideBar.position": 0}, "cursorDiskKV": {"composerData:d": {
        "fullConversationHeadersOnly": [], "conversationMap": {}, "status": "none"}}}
    assert cursor.parse(Source.from_path(build(tmp_path / "state.vscdb", tables))) == []
    other = tmp_path / "n"
    other.mkdir()
    assert cursor.parse(raw_store(other, "cursorDiskKV", "composerData:null", None)) == []


def test_a_store_that_changes_while_it_is_copied_is_refused_plainly(tmp_path: Path, monkeypatch) -> None:
    from mempalace.errors import SourceRefusedError

    source = store(tmp_path, "global_storage.json")
    states = iter([((1, 1), (-1, -1)), ((2, 2), (-1, -1))])  # as if Cursor wrote between the two looks
    monkeypatch.setattr(cursor, "_state", lambda _source: next(states))
    with pytest.raises(SourceRefusedError, match="changed while it was being copied"):
        cursor.parse(source)


def test_numbers_no_clock_reaches_give_no_time() -> None:
    assert cursor._when(10 ** 400) is None and cursor._created({"createdAt": 10 ** 400}) is None
