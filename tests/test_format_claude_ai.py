"""Claude.ai export format: content blocks vs plain text, attachments, tool summaries, strict errors,
cheap detection. Fixtures are synthetic, built from the export's documented shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mempalace.errors import MalformedSourceError
from mempalace.formats import claude_ai
from mempalace.formats.base import Source

from _shared import sample as shared
VERBATIM = "Ünïcödé ✓ — 日本語 🐍\n\n    indented line\n\n\n```python\ndef f():\n    return 1\n```\n  trailing  \n"


def turn(sender: str, text: str = "", content: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    return {"uuid": "m", "sender": sender, "text": text, "content": content or [],
            "created_at": "2024-05-01T09:30:00.123456+02:00", "attachments": [], "files": [], **extra}


def convo(uuid: str = "c1", name: str = "Planning", messages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    chat = messages if messages is not None else [turn("human", "Hello"), turn("assistant", "Hi there")]
    return {"uuid": uuid, "name": name, "created_at": "2024-05-01T07:30:00Z", "chat_messages": chat}


def write(tmp_path: Path, data: Any, name: str = "conversations.json") -> Source:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return Source.from_path(path)



def test_plain_text_messages(tmp_path: Path) -> None:
    (only,) = claude_ai.parse(write(tmp_path, [convo()]))
    assert [(m.speaker, m.role, m.text) for m in only.messages] == [
        ("User", "user", "Hello"),
        ("Claude", "assistant", "Hi there"),
    ]
    assert only.messages[0].timestamp == "2024-05-01T07:30:00Z"


def test_content_text_blocks_win_over_text_and_thinking_is_skipped(tmp_path: Path) -> None:
    blocks = [
        {"type": "thinking", "thinking": "private musing"},
        {"type": "text", "text": VERBATIM},
        {"type": "text", "text": "  second block\n"},
    ]
    messages = [turn("human", VERBATIM), turn("assistant", "flattened copy", blocks)]
    (only,) = claude_ai.parse(write(tmp_path, [convo(messages=messages)]))
    assert [m.text for m in only.messages] == [VERBATIM, VERBATIM + "\n\n" + "  second block\n"]
    assert all(m.verbatim for m in only.messages)


def test_tool_use_and_results_follow_the_turn_as_summaries(tmp_path: Path) -> None:
    blocks = [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "name": "web_search", "input": {"query": "tides\nlisbon " + "x" * 400}},
        {"type": "tool_result", "name": "web_search", "content": [{"type": "text", "text": "High tide 14:02"}]},
        {"type": "text", "text": "High tide is at 14:02."},
    ]
    (only,) = claude_ai.parse(write(tmp_path, [convo(messages=[turn("human", "Tides?"), turn("assistant", "", blocks)])]))
    assert [m.role for m in only.messages] == ["user", "assistant", "tool", "tool"]
    assert only.messages[1].text == "Let me look.\n\nHigh tide is at 14:02."
    use, result = only.messages[2:]
    assert use.speaker == "Tool" and not use.verbatim and use.text.startswith('web_search: {"query": "tides\\nlisbon x')
    assert len(use.text) <= 200 and "\n" not in use.text
    assert result.text == "web_search: High tide 14:02"


def test_attachments_are_kept_verbatim_as_their_own_message(tmp_path: Path) -> None:
    attachments = [{"file_name": "notes.md", "extracted_content": VERBATIM}, {"file_name": "img.png"}]
    (only,) = claude_ai.parse(write(tmp_path, [convo(messages=[turn("human", "See notes", attachments=attachments)])]))
    assert [(m.speaker, m.role, m.text) for m in only.messages] == [
        ("User", "user", "See notes"),
        ("User (attachment notes.md)", "user", VERBATIM),
    ]


def test_empty_messages_and_conversations_are_skipped(tmp_path: Path) -> None:
    messages = [turn("human", ""), turn("assistant", "", [{"type": "thinking", "thinking": "hm"}]), turn("human", "Real")]
    parsed = claude_ai.parse(write(tmp_path, [convo("a", "A", messages), convo("e", "Empty", []), convo("b", "")]))
    assert [(c.id, c.title) for c in parsed] == [("a", "A"), ("b", None)]
    assert [m.text for m in parsed[0].messages] == ["Real"]
    assert all(c.place is None for c in parsed)


def test_several_conversations_stay_separate(tmp_path: Path) -> None:
    data = [convo("one", "First"), convo("two", "Second", [turn("human", "Other topic")])]
    parsed = claude_ai.parse(write(tmp_path, data))
    assert [(c.id, c.title, len(c.messages)) for c in parsed] == [("one", "First", 2), ("two", "Second", 1)]


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    source = write(tmp_path, '[\n  {"uuid": "x",\n   "chat_messages": [,]}\n]')
    with pytest.raises(MalformedSourceError, match=r"conversations\.json, line 3, column"):
        claude_ai.parse(source)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: c.pop("chat_messages"), r"conversation 2 \('Broken'\): chat_messages is missing or not a list"),
        (lambda c: c.update(chat_messages={"a": 1}), r"chat_messages is missing or not a list"),
        (lambda c: c["chat_messages"].append("hi"), r"conversation 2 \('Broken'\), message 3 is not an object"),
        (lambda c: c["chat_messages"][0].update(content="text"), r"message 1: content is not a list"),
        (lambda c: c["chat_messages"][0].update(content=["text"]), r"message 1: a content block is not an object"),
        (lambda c: c["chat_messages"][1].update(text=["x"]), r"message 2: text is not a string"),
        (lambda c: c["chat_messages"][1].update(attachments="x"), r"message 2: attachments is not a list"),
    ],
)
def test_wrong_structure_is_a_clear_error(tmp_path: Path, change: Any, expected: str) -> None:
    broken = convo("b", "Broken")
    change(broken)
    with pytest.raises(MalformedSourceError, match=r"conversations\.json: .*" + expected):
        claude_ai.parse(write(tmp_path, [convo(), broken]))


def test_top_level_must_be_a_list(tmp_path: Path) -> None:
    with pytest.raises(MalformedSourceError, match="expected a list"):
        claude_ai.parse(write(tmp_path, {"conversations": []}))


def test_accept_recognises_exports_by_content_not_name(tmp_path: Path) -> None:
    assert claude_ai.accept(write(tmp_path, [convo()], "export.json"))
    assert claude_ai.accept(Source.from_bytes(json.dumps([convo()]).encode(), "conversations.json"))
    chatgpt_export = [{"id": "c", "title": "t", "mapping": {"r": {"id": "r", "parent": None, "children": []}},
                       "current_node": "r"}]
    assert not claude_ai.accept(write(tmp_path, chatgpt_export))
    assert not claude_ai.accept(write(tmp_path, json.dumps([convo()]), "conversations.txt"))
    (tmp_path / "folder.json").mkdir()
    assert not claude_ai.accept(Source.from_path(tmp_path / "folder.json"))


def test_a_chatgpt_chat_that_mentions_the_key_is_not_claude(tmp_path: Path) -> None:
    mention = {"r": {"id": "r", "parent": None, "children": [], "message": {"content": {"parts": ['"chat_messages": []']}}}}
    source = write(tmp_path, [{"id": "c", "mapping": mention, "current_node": "r"}])
    assert not claude_ai.accept(source)


@pytest.mark.parametrize("relative", ["claude_code/spotter_short.jsonl", "gemini_cli/polylogue_gemini-cli-session.json"])
def test_accept_refuses_other_tools_transcripts(relative: str) -> None:
    assert not claude_ai.accept(Source.from_path(shared(relative)))
