"""Gemini CLI sessions: the shared sample, text parts, compact tool lines, dropped notices and thoughts,
verbatim text, strict errors and cheap detection. Fixtures are synthetic, in the session file's shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mempalace.errors import MalformedSourceError
from mempalace.formats import gemini_cli
from mempalace.formats.base import Source

from _shared import sample as shared
VERBATIM = ("Ünïcödé ✓ — 日本語 🐍\n\n    indented line\n\n\n"
            "```python\ndef f():\n    return 1\n```\n  trailing  \n")
CHATGPT = '[{"mapping":{},"current_node":null,"title":"x"}]'
CLAUDE_AI = '[{"uuid":"u","name":"x","chat_messages":[]}]'



def turn(kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"id": f"{kind}-1", "timestamp": "2026-03-04T05:06:07.000Z", "type": kind, "content": content, **extra}


def session(tmp_path: Path, *messages: dict[str, Any], **extra: Any) -> Source:
    data = {"sessionId": "g-1", "projectHash": "ab12", "startTime": "2026-03-04T05:06:00.000Z",
            "lastUpdated": "2026-03-04T05:07:00.000Z", "messages": list(messages), **extra}
    path = tmp_path / "session-2026-03-04T05-06-g1.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return Source.from_path(path)


def test_shared_sample_speakers_roles_and_texts() -> None:
    source = Source.from_path(shared("gemini_cli/polylogue_gemini-cli-session.json"))
    assert gemini_cli.accept(source)
    (convo,) = gemini_cli.parse(source)
    assert (convo.id, convo.title, convo.place) == ("origin-matrix-gemini-cli", "Origin capability matrix", None)
    assert [(m.speaker, m.role, m.text, m.timestamp) for m in convo.messages] == [
        ("User", "user", "Prove the parser claim.", "2026-08-01T10:00:01Z"),  # content given as a list of strings
        ("Gemini", "assistant", "The production route parsed this witness.", "2026-08-01T10:00:02Z"),
    ]


def test_text_is_verbatim_and_parts_join_with_nothing_between(tmp_path: Path) -> None:
    parts = [{"text": "Look at @a.py\n"}, {"text": "--- Content from referenced files ---"},
             {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}, "tail"]
    (convo,) = gemini_cli.parse(session(tmp_path, turn("user", VERBATIM), turn("gemini", VERBATIM),
                                        turn("user", parts)))
    assert [(m.role, m.text, m.verbatim) for m in convo.messages] == [
        ("user", VERBATIM, True), ("assistant", VERBATIM, True),
        ("user", "Look at @a.py\n--- Content from referenced files ---tail", True)]
    assert convo.title is None


def test_tool_calls_are_compact_and_follow_the_turn_text(tmp_path: Path) -> None:
    calls = [
        {"id": "t1", "name": "read_file", "args": {"absolute_path": "/repo/a.py"}, "status": "success",
         "result": [{"functionResponse": {"id": "t1", "name": "read_file",
                                          "response": {"output": "x = 1\n" * 500}}}]},
        {"id": "t2", "name": "run_shell_command", "args": {"command": "ls"}, "status": "error",
         "resultDisplay": "permission denied"},
    ]
    (convo,) = gemini_cli.parse(session(tmp_path, turn("user", "read it"),
                                        turn("gemini", "Reading.", toolCalls=calls)))
    assert [m.role for m in convo.messages] == ["user", "assistant", "tool", "tool"]
    first, second = convo.messages[2:]
    assert first.text.startswith('→ read_file: {"absolute_path": "/repo/a.py"} ← success: x = 1 x = 1')
    assert first.text.endswith("…")
    assert second.text == '→ run_shell_command: {"command": "ls"} ← error: permission denied'
    for message in (first, second):
        assert message.speaker == "Tool" and not message.verbatim
        assert len(message.text) <= 200 and "\n" not in message.text
    assert convo.speakers == ("User", "Gemini")


def test_notices_and_thoughts_are_dropped(tmp_path: Path) -> None:
    thoughts = [{"subject": "Planning", "description": "secret plan", "timestamp": "2026-03-04T05:06:08Z"}]
    (convo,) = gemini_cli.parse(session(
        tmp_path, turn("info", "Request cancelled."), turn("user", "hi"),
        turn("gemini", "hello", thoughts=thoughts, tokens={"input": 3}), turn("error", "quota"),
        turn("gemini", "", toolCalls=[]), summary="  ",
    ))
    assert [m.text for m in convo.messages] == ["hi", "hello"] and convo.title is None


def test_no_conversation_without_turns(tmp_path: Path) -> None:
    assert gemini_cli.parse(session(tmp_path, turn("info", "started"))) == []


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "session-x.json"
    path.write_text('{\n  "sessionId": "g",\n  "messages": [\n    {"type": "user" "content": "x"}\n  ]\n}\n')
    with pytest.raises(MalformedSourceError, match=r"session-x\.json, line 4, column \d+: invalid JSON"):
        gemini_cli.parse(Source.from_path(path))


@pytest.mark.parametrize("data, what", [
    ([], "object with a `messages` list"),
    ({"sessionId": "g", "messages": {"a": 1}}, "object with a `messages` list"),
    ({"sessionId": "g", "messages": [{"type": "user", "content": "ok"}, "text"]}, "message 2 is not an object"),
    ({"sessionId": "g", "messages": [{"content": "no type"}]}, "message 1 is not an object with a `type`"),
    ({"sessionId": "g", "messages": [{"type": "user", "content": 7}]}, "message 1: content must be text"),
    ({"sessionId": "g", "messages": [{"type": "user", "content": [{"text": 7}]}]}, "message 1: a text part"),
    ({"sessionId": "g", "messages": [{"type": "gemini", "content": "", "toolCalls": {}}]}, "message 1: `toolCalls`"),
    ({"sessionId": "g", "messages": [{"type": "gemini", "content": "", "toolCalls": ["x"]}]}, "message 1: a tool"),
])
def test_wrong_structure_is_named(tmp_path: Path, data: Any, what: str) -> None:
    path = tmp_path / "session-bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(MalformedSourceError, match=r"session-bad\.json: .*" + what.replace("`", ".")):
        gemini_cli.parse(Source.from_path(path))


def test_accepts_only_gemini_sessions(tmp_path: Path) -> None:
    assert gemini_cli.accept(session(tmp_path, turn("user", "hi")))
    for other in ("claude_code/spotter_short.jsonl", "codex_cli/daaain_rollout_synthetic.jsonl",
                  "codex_cli/polylogue_codex-session_minimal.jsonl", "plain_text/spotter_short.terminal.stripped.txt"):
        assert not gemini_cli.accept(Source.from_path(shared(other))), other
    assert not gemini_cli.accept(Source.from_bytes(CHATGPT.encode(), "conversations.json"))
    assert not gemini_cli.accept(Source.from_bytes(CLAUDE_AI.encode(), "conversations.json"))
    assert not gemini_cli.accept(Source.from_bytes(b'{"messages": []}', "other.json"))  # no sessionId
    assert not gemini_cli.accept(Source.from_bytes(b'{"sessionId": "g", "messages": []}', "session.txt"))
    assert not gemini_cli.accept(Source.from_path(tmp_path))
