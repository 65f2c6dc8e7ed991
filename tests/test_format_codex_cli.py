"""Codex CLI rollouts: the shared samples, no double counting from event_msg, compact tool lines,
dropped preambles, verbatim text, strict errors and cheap detection. Fixtures are synthetic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mempalace.errors import MalformedSourceError
from mempalace.formats import codex_cli
from mempalace.formats.base import SUMMARY_CHARS, Source

from _shared import sample as shared
VERBATIM = ("Ünïcödé ✓ — 日本語 🐍\n\n    indented line\n\n\n"
            "```python\ndef f():\n    return 1\n```\n  trailing  \n")
CHATGPT = '[{"mapping":{},"current_node":null,"title":"x"}]'
CLAUDE_AI = '[{"uuid":"u","name":"x","chat_messages":[]}]'



def record(kind: str, payload: dict[str, Any], at: str = "2026-01-02T03:04:05.000Z") -> dict[str, Any]:
    return {"timestamp": at, "type": kind, "payload": payload}


def meta(cwd: str | None = "/home/me/projects/orchard") -> dict[str, Any]:
    return record("session_meta", {"id": "s-1", "timestamp": "2026-01-02T03:04:05Z", "cwd": cwd})


def said(role: str, *texts: str) -> dict[str, Any]:
    kind = "input_text" if role in ("user", "developer") else "output_text"
    return record("response_item", {"type": "message", "role": role,
                                    "content": [{"type": kind, "text": t} for t in texts]})


def event(kind: str, text: str) -> dict[str, Any]:
    return record("event_msg", {"type": kind, "message": text})


def write(tmp_path: Path, *records: Any, name: str = "rollout-1.jsonl") -> Source:
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return Source.from_path(path)


def test_daaain_sample_speakers_roles_and_tools() -> None:
    (convo,) = codex_cli.parse(Source.from_path(shared("codex_cli/daaain_rollout_synthetic.jsonl")))
    assert convo.id == "11111111-1111-4111-8111-111111111111"
    assert convo.place == "synthetic-project"
    assert convo.speakers == ("User", "Codex")
    texts = [(m.role, m.text) for m in convo.messages if m.role != "tool"]
    assert texts == [("user", "List the synthetic files."),
                     ("assistant", "The synthetic files are alpha.txt and beta.txt.")]  # event_msg copies dropped
    tools = [m.text for m in convo.messages if m.role == "tool"]
    assert tools[:2] == ['→ exec_command: {"cmd":"find . -maxdepth 1 -type f"}', "← result: ./alpha.txt ./beta.txt"]
    assert len(tools) == 6 and tools[3] == "← result: Done!"
    assert not any("inspect the synthetic" in m.text or "ENCRYPTED" in m.text for m in convo.messages)
    assert convo.started == "2026-01-02T03:04:07Z"


def test_minimal_sample_without_event_msgs() -> None:
    (convo,) = codex_cli.parse(Source.from_path(shared("codex_cli/polylogue_codex-session_minimal.jsonl")))
    assert convo.id == "origin-matrix-codex" and convo.place is None
    assert [(m.speaker, m.text, m.timestamp) for m in convo.messages] == [
        ("User", "Prove the parser claim.", "2026-08-01T10:00:01Z"),
        ("Codex", "The production route parsed this witness.", "2026-08-01T10:00:02Z"),
    ]


def test_event_msgs_never_double_count(tmp_path: Path) -> None:
    source = write(tmp_path, meta(), event("user_message", "hi"), said("user", "hi"),
                   event("agent_message", "hello"), said("assistant", "hello"))
    (convo,) = codex_cli.parse(source)
    assert [m.text for m in convo.messages] == ["hi", "hello"]


def test_event_msgs_stand_in_when_there_are_no_message_items(tmp_path: Path) -> None:
    call = record("response_item", {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c"})
    source = write(tmp_path, meta(), event("user_message", "hi"), call, event("agent_message", "done"),
                   event("token_count", "ignored"))
    (convo,) = codex_cli.parse(source)
    assert [(m.role, m.text) for m in convo.messages] == [("user", "hi"), ("tool", "→ shell: {}"),
                                                         ("assistant", "done")]


def test_text_is_verbatim_one_message_per_block(tmp_path: Path) -> None:
    (convo,) = codex_cli.parse(write(tmp_path, meta(), said("user", VERBATIM, "second block"),
                                     said("assistant", VERBATIM)))
    assert [(m.role, m.text, m.verbatim) for m in convo.messages] == [
        ("user", VERBATIM, True), ("user", "second block", True), ("assistant", VERBATIM, True)]
    assert convo.place == "orchard"


def test_preambles_reasoning_and_harness_turns_are_dropped(tmp_path: Path) -> None:
    source = write(
        tmp_path, meta(),
        said("developer", "<permissions instructions>sandboxed</permissions instructions>"),
        said("user", "<user_instructions>\n\nBe brief.\n\n</user_instructions>"),
        said("user", "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nrules\n</INSTRUCTIONS>"),
        said("user", "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>", "Real question?"),
        said("user", "Why is <environment_context> in my prompt?"),
        record("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "hmm"}]}),
        said("assistant", "Answer."),
    )
    (convo,) = codex_cli.parse(source)
    assert [m.text for m in convo.messages] == ["Real question?", "Why is <environment_context> in my prompt?",
                                                "Answer."]


def test_tool_calls_are_compact_one_liners(tmp_path: Path) -> None:
    long_output = "line\n" * 2000
    source = write(
        tmp_path, meta(), said("user", "go"),
        record("response_item", {"type": "local_shell_call", "call_id": "c1",
                                 "action": {"type": "exec", "command": ["bash", "-lc", "ls"]}}),
        record("response_item", {"type": "function_call_output", "call_id": "c1", "output": long_output}),
        record("response_item", {"type": "web_search_call", "action": {"type": "search", "query": "codex"}}),
    )
    tools = [m for m in codex_cli.parse(source)[0].messages if m.role == "tool"]
    assert tools[0].text == '→ local_shell: {"type": "exec", "command": ["bash", "-lc", "ls"]}'
    assert tools[1].text.startswith("← result: line line line")
    assert tools[2].text == '→ web_search: {"type": "search", "query": "codex"}'
    for message in tools:
        assert not message.verbatim and message.speaker == "Tool"
        assert len(message.text) <= SUMMARY_CHARS and "\n" not in message.text
    assert tools[1].text.endswith("…")


def test_early_rollout_layout_with_bare_records(tmp_path: Path) -> None:
    source = write(tmp_path, {"id": "early-1", "timestamp": "2025-05-01T10:00:00Z", "instructions": None},
                   {"record_type": "state"},
                   {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old hi"}]},
                   {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "old yo"}]},
                   name="rollout-2025-05-01T10-00-00-early-1.jsonl")
    assert codex_cli.accept(source)
    (convo,) = codex_cli.parse(source)
    assert convo.id == "early-1" and [m.text for m in convo.messages] == ["old hi", "old yo"]


@pytest.mark.parametrize("bad, line, what", [
    ('{"type": "response_item", "payload": ', 3, "invalid JSON"),
    ('["not", "an", "object"]', 3, "JSON object"),
    ('{"type": "response_item", "payload": "text"}', 3, "not an object"),
    ('{"type": "response_item", "payload": {"type": "message", "role": "user", "content": "x"}}', 3, "content"),
    ('{"type": "response_item", "payload": {"type": "message", "role": "user", '
     '"content": [{"type": "input_text", "text": 5}]}}', 3, "without text"),
])
def test_malformed_lines_are_named(tmp_path: Path, bad: str, line: int, what: str) -> None:
    source = write(tmp_path, meta(), said("user", "fine"), bad)
    with pytest.raises(MalformedSourceError, match=rf"rollout-1\.jsonl, line {line}: .*{what}"):
        codex_cli.parse(source)


def test_no_conversation_without_messages(tmp_path: Path) -> None:
    assert codex_cli.parse(write(tmp_path, meta(), record("turn_context", {"cwd": "/x"}))) == []


def test_accepts_a_rollout_whose_header_outgrows_the_head(tmp_path: Path) -> None:
    header = record("session_meta", {"id": "big", "base_instructions": {"text": "x" * 100_000}})
    assert codex_cli.accept(write(tmp_path, header, said("user", "hi")))


def test_accepts_only_codex_rollouts(tmp_path: Path) -> None:
    assert codex_cli.accept(Source.from_path(shared("codex_cli/daaain_rollout_synthetic.jsonl")))
    assert codex_cli.accept(Source.from_path(shared("codex_cli/polylogue_codex-session_minimal.jsonl")))
    for other in ("claude_code/spotter_short.jsonl", "gemini_cli/polylogue_gemini-cli-session.json",
                  "plain_text/spotter_short.terminal.stripped.txt"):
        assert not codex_cli.accept(Source.from_path(shared(other))), other
    assert not codex_cli.accept(Source.from_bytes(CHATGPT.encode(), "conversations.json"))
    assert not codex_cli.accept(Source.from_bytes(CLAUDE_AI.encode(), "conversations.json"))
    assert not codex_cli.accept(Source.from_bytes(b'{"type": "user", "message": {}}\n', "x.jsonl"))
    assert not codex_cli.accept(Source.from_bytes(b'{"id": "a", "timestamp": "t"}\n', "notes.jsonl"))
    rollout = (json.dumps(meta()) + "\n").encode()
    assert not codex_cli.accept(Source.from_bytes(rollout, "rollout.json"))  # wrong suffix
    assert not codex_cli.accept(Source.from_path(tmp_path))
