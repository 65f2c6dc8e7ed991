"""GitHub Copilot CLI sessions: the event log and the legacy session file, verbatim text, compact tool lines,
dropped system prompt / reasoning / injections, strict errors and cheap detection. Fixtures are synthetic,
written in the shape of the CLI's session-events schema and of the legacy `history-session-state` files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mempalace.errors import MalformedSourceError
from mempalace.formats import claude_code, codex_cli, copilot_cli, gemini_cli
from mempalace.formats.base import SUMMARY_CHARS, Source

from _shared import sample as shared

DATA = Path(__file__).parent / "data" / "formats" / "copilot_cli"
EVENTS = DATA / "events.jsonl"
LEGACY = DATA / "session_0d9e4b6a-71c2-4f35-b8a0-6c3e5f1d2b47_1759241111482.json"
VERBATIM = ("Ünïcödé ✓ — 日本語 🐍\n\n    indented line\n\n\n"
            "```python\ndef f():\n    return 1\n```\n  trailing  \n")
CLAUDE_CODE_LINE = ('{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/me/app",'
                    '"sessionId":"55604662-cf2a-4331-851a-ec234028f8ca","version":"2.1.3","type":"user",'
                    '"message":{"role":"user","content":"hello"},"uuid":"u-1",'
                    '"timestamp":"2026-02-10T21:11:56.906Z"}\n')
CODEX_LINE = ('{"timestamp":"2026-01-02T03:04:05.000Z","type":"session_meta","payload":{"id":"11111111-1111-'
              '4111-8111-111111111111","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/work/app",'
              '"originator":"codex_cli_rs"}}\n')
GEMINI_JSON = ('{\n  "sessionId": "g-1",\n  "projectHash": "ab12",\n  "startTime": "2026-03-04T05:06:00.000Z",\n'
               '  "messages": [\n    {"id": "u1", "type": "user", "content": "hi"}\n  ]\n}\n')


def event(kind: str, data: Any, at: str = "2026-05-01T09:00:00.000Z", **extra: Any) -> dict[str, Any]:
    return {"type": kind, "data": data, "id": f"e-{kind}", "timestamp": at, "parentId": None, **extra}


def start(cwd: str | None = "/home/me/projects/harbour") -> dict[str, Any]:
    data: dict[str, Any] = {"sessionId": "s-1", "version": 1, "producer": "copilot-agent",
                            "copilotVersion": "1.0.40", "startTime": "2026-05-01T09:00:00.000Z"}
    if cwd is not None:
        data["context"] = {"cwd": cwd}
    return event("session.start", data)


def write(tmp_path: Path, *records: Any, name: str = "events.jsonl") -> Source:
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records)
                    + "\n", encoding="utf-8")
    return Source.from_path(path)


def legacy(tmp_path: Path, data: Any, name: str = "session_abc_1759241111482.json") -> Source:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False),
                    encoding="utf-8")
    return Source.from_path(path)


def test_event_log_fixture_speakers_roles_texts_and_tools() -> None:
    source = Source.from_path(EVENTS)
    assert copilot_cli.accept(source)
    (convo,) = copilot_cli.parse(source)
    assert convo.id == "5f0c2a7e-3b1d-4c8e-9a6f-2d7b8e1c4a90"
    assert convo.place == "tidepool"
    assert convo.title == "Why does `tide_level()` return None for the harbour gauge?"
    assert convo.speakers == ("User", "Copilot", "Sub-agent")
    assert [(m.speaker, m.role, m.text) for m in convo.messages] == [
        ("User", "user", "Why does `tide_level()` return None for the harbour gauge?"),  # content, not transformed
        ("Copilot", "assistant", "Let me look at the gauge reader first."),
        ("Tool", "tool", "→ view: /home/dana/projects/tidepool/gauges.py"),
        ("Tool", "tool", "→ bash: grep -n harbour config/gauges.toml"),
        ("Tool", "tool",
         "← result: 1. def tide_level(gauge): 2. reading = READINGS.get(gauge.code) 3. return reading"),
        ("Tool", "tool", "← error: grep: config/gauges.toml: No such file or directory"),
        ("Copilot", "assistant", VERBATIM),
        ("User", "user", VERBATIM),
        ("Tool", "tool", "→ task: List every caller of tide_level"),
        ("Sub-agent", "assistant", "Callers: report.py:12 and alerts.py:40."),
        ("Tool", "tool", "← result: Callers: report.py:12 and alerts.py:40."),
        ("Tool", "tool", "→ bash: pytest -q tests/test_gauges.py"),  # a run no assistant message announced
        ("Tool", "tool", "← result: 3 passed in 0.12s"),  # from the terminal content block
        ("Copilot", "assistant", "Both callers pass `gauge.code`; the harbour gauge is missing from `READINGS`."),
    ]
    assert all(m.verbatim == (m.role != "tool") for m in convo.messages)


def test_event_log_fixture_drops_prompt_reasoning_and_injections() -> None:
    (convo,) = copilot_cli.parse(Source.from_path(EVENTS))
    everything = "\n".join(m.text for m in convo.messages)
    for dropped in ("You are the GitHub Copilot CLI", "current_datetime", "system_reminder", "probably a missing key",
                    "gAAAA", "Tide tables skill", "system_notification", "Summary: the user", "Model changed",
                    "Let me\n"):
        assert dropped not in everything, dropped
    assert sum(m.text == "Let me look at the gauge reader first." for m in convo.messages) == 1  # no delta copy


def test_event_log_fixture_timestamps() -> None:
    (convo,) = copilot_cli.parse(Source.from_path(EVENTS))
    assert convo.started == "2026-04-14T08:30:04Z"
    assert convo.messages[1].timestamp == "2026-04-14T08:30:06Z"
    assert convo.messages[-1].timestamp == "2026-04-14T08:32:05Z"


def test_text_is_kept_byte_for_byte(tmp_path: Path) -> None:
    source = write(tmp_path, start(), event("user.message", {"content": VERBATIM, "transformedContent": "x"}),
                   event("assistant.message", {"messageId": "m", "content": VERBATIM}))
    (convo,) = copilot_cli.parse(source)
    assert [(m.role, m.text, m.verbatim) for m in convo.messages] == [("user", VERBATIM, True),
                                                                     ("assistant", VERBATIM, True)]
    assert convo.place == "harbour" and convo.title == "Ünïcödé ✓ — 日本語 🐍"


def test_tool_lines_are_one_short_line_and_not_repeated(tmp_path: Path) -> None:
    request = {"toolCallId": "c1", "name": "bash", "arguments": {"command": "cat big.log"}}
    source = write(
        tmp_path, start(), event("user.message", {"content": "go"}),
        event("assistant.message", {"messageId": "m", "content": "", "toolRequests": [request]}),
        event("tool.execution_start", {"toolCallId": "c1", "toolName": "bash", "arguments": request["arguments"]}),
        event("tool.execution_complete", {"toolCallId": "c1", "success": True, "result": {"content": "line\n" * 3000}}),
        event("tool.execution_start", {"toolCallId": "c2", "toolName": "report_intent", "arguments": {"intent": "x"}}),
        event("tool.execution_complete", {"toolCallId": "c2", "success": False}),
    )
    tools = [m for m in copilot_cli.parse(source)[0].messages if m.role == "tool"]
    assert [m.text for m in tools][:1] == ["→ bash: cat big.log"]  # the start event does not repeat the request
    assert tools[1].text.startswith("← result: line line") and tools[1].text.endswith("…")
    assert [m.text for m in tools[2:]] == ['→ report_intent: {"intent": "x"}', "← error: (no message)"]
    for message in tools:
        assert message.speaker == "Tool" and not message.verbatim
        assert len(message.text) <= SUMMARY_CHARS and "\n" not in message.text


def test_ephemeral_and_unknown_events_are_skipped(tmp_path: Path) -> None:
    source = write(
        tmp_path, start(), event("user.message", {"content": "hi"}),
        event("assistant.message_delta", {"messageId": "m", "deltaContent": "hel"}, ephemeral=True),
        event("assistant.message", {"messageId": "m", "content": "hello"}, ephemeral=True),
        event("assistant.reasoning", {"reasoningId": "r", "content": "thinking hard"}),
        event("session.brand_new_event", {"anything": [1, 2]}),
        event("assistant.message", {"messageId": "m", "content": "hello"}),
    )
    assert [m.text for m in copilot_cli.parse(source)[0].messages] == ["hi", "hello"]


def test_place_from_a_resume_when_the_start_has_no_context(tmp_path: Path) -> None:
    source = write(tmp_path, start(cwd=None),
                   event("session.resume", {"resumeTime": "2026-05-02T09:00:00Z", "eventCount": 3,
                                            "context": {"cwd": "C:\\Users\\me\\src\\lighthouse"}}),
                   event("user.message", {"content": "again"}))
    (convo,) = copilot_cli.parse(source)
    assert convo.place == "lighthouse" and convo.id == "s-1"


def test_no_conversation_without_anyone_speaking(tmp_path: Path) -> None:
    source = write(tmp_path, start(), event("system.message", {"role": "system", "content": "rules"}),
                   event("session.shutdown", {"shutdownType": "routine"}))
    assert copilot_cli.parse(source) == []


@pytest.mark.parametrize("bad, what", [
    ('{"type": "user.message", "data": {"content": "cut', "invalid JSON"),
    ('["not", "an", "object"]', "JSON object"),
    ('{"data": {}}', "string `type`"),
    ('{"type": "user.message", "data": "text"}', "not an object"),
    ('{"type": "user.message", "data": {"content": 5}}', "user.message"),
    ('{"type": "assistant.message", "data": {"messageId": "m", "content": ["x"]}}', "not text"),
    ('{"type": "assistant.message", "data": {"messageId": "m", "content": "", "toolRequests": {}}}', "not a list"),
    ('{"type": "assistant.message", "data": {"messageId": "m", "content": "", "toolRequests": ["bash"]}}',
     "tool request"),
    ('{"type": "tool.execution_complete", "data": {"toolCallId": "c", "success": true, "result": "ok"}}',
     "`result`"),
    ('{"type": "session.start", "data": {"sessionId": "s", "context": "/home"}}', "context"),
])
def test_malformed_event_lines_are_named(tmp_path: Path, bad: str, what: str) -> None:
    source = write(tmp_path, start(), event("user.message", {"content": "fine"}), bad)
    with pytest.raises(MalformedSourceError, match=rf"events\.jsonl, line 3: .*{what}"):
        copilot_cli.parse(source)


def test_legacy_fixture_messages_tools_and_times() -> None:
    source = Source.from_path(LEGACY)
    assert copilot_cli.accept(source)
    (convo,) = copilot_cli.parse(source)
    assert (convo.id, convo.place) == ("0d9e4b6a-71c2-4f35-b8a0-6c3e5f1d2b47", None)
    assert convo.title == "Add a --dry-run flag to scripts/rotate_logs.sh"
    assert [(m.speaker, m.role, m.text) for m in convo.messages] == [
        ("User", "user", "Add a --dry-run flag to scripts/rotate_logs.sh"),
        ("Copilot", "assistant", "I'll read the script first."),
        ("Tool", "tool", "→ str_replace_editor: view /srv/ops/scripts/rotate_logs.sh"),
        ("Tool", "tool", "← result: 1. #!/usr/bin/env bash 2. set -euo pipefail 3. find /var/log/app -name "
                         "'*.log' -mtime +7 -delete"),
        ("Tool", "tool", "→ bash: shellcheck scripts/rotate_logs.sh"),
        ("Tool", "tool", "← result: (empty)"),
        ("Copilot", "assistant", VERBATIM),
        ("User", "user", "Thanks — ship it."),  # text parts joined, the image part left out
    ]
    assert not any("Be concise" in m.text for m in convo.messages)  # the system prompt
    assert [m.timestamp for m in convo.messages] == ["2025-09-30T14:05:11Z"] + [None] * 7
    assert sum(m.text.startswith("→ str_replace_editor") for m in convo.messages) == 1  # the timeline is unused


@pytest.mark.parametrize("bad, what", [
    ('{"sessionId": "s", "chatMessages": [{"role": "user", "content": "cut', "line 1, column"),
    ({"sessionId": "s", "chatMessages": {"role": "user"}}, "chatMessages"),
    ({"sessionId": "s", "chatMessages": [{"content": "no role"}]}, "chat message 1 is not an object"),
    ({"sessionId": "s", "chatMessages": [{"role": "user", "content": "ok"}, {"role": "user", "content": 7}]},
     "chat message 2: content must be"),
    ({"sessionId": "s", "chatMessages": [{"role": "assistant", "content": "", "tool_calls": "bash"}]},
     "`tool_calls` is not a list"),
    ({"sessionId": "s", "chatMessages": [{"role": "assistant", "tool_calls": [{"name": "bash"}]}]},
     "`function` object"),
    ({"sessionId": "s", "chatMessages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]},
     "text part"),
])
def test_malformed_legacy_files_are_named(tmp_path: Path, bad: Any, what: str) -> None:
    with pytest.raises(MalformedSourceError, match=rf"session_abc_1759241111482\.json.*{what}"):
        copilot_cli.parse(legacy(tmp_path, bad))


def test_accepts_an_event_log_whose_first_line_outgrows_the_head(tmp_path: Path) -> None:
    big = start()
    big["data"]["context"]["note"] = "x" * 100_000
    assert copilot_cli.accept(write(tmp_path, big, event("user.message", {"content": "hi"})))


def test_accepts_the_flat_layout_and_later_first_events(tmp_path: Path) -> None:
    assert copilot_cli.accept(write(tmp_path, start(), name="5f0c2a7e-3b1d-4c8e-9a6f-2d7b8e1c4a90.jsonl"))
    assert copilot_cli.accept(write(tmp_path, event("session.info", {"infoType": "x", "message": "y"}),
                                    name="export.jsonl"))


def test_refuses_other_formats_first_bytes(tmp_path: Path) -> None:
    refused = [
        Source.from_bytes(CLAUDE_CODE_LINE.encode(), "55604662.jsonl"),
        Source.from_bytes(b'{"type":"summary","summary":"Fix it","leafUuid":"u-9"}\n', "s.jsonl"),
        Source.from_bytes(CODEX_LINE.encode(), "rollout-2026-01-02T03-04-05-1111.jsonl"),
        Source.from_bytes(GEMINI_JSON.encode(), "session-2026-03-04T05-06-g1.json"),
        Source.from_bytes(GEMINI_JSON.encode(), "session_g1_1.json"),  # even under a legacy-looking name
        Source.from_bytes(b"User: hello\nAssistant: hi\n", "chat.txt"),
        Source.from_bytes(b"5f0c2a7e-3b1d-4c8e-9a6f-2d7b8e1c4a90\n", "pointer.jsonl"),
        Source.from_bytes(b'[{"mapping":{},"current_node":null,"title":"x"}]', "conversations.json"),
        Source.from_bytes(b'{"type": "context.append_message", "message": {}}\n', "wire.jsonl"),
        Source.from_bytes(EVENTS.read_bytes(), "events.json"),  # right bytes, wrong suffix
        Source.from_bytes(LEGACY.read_bytes(), "session_x.txt"),
        Source.from_path(tmp_path),
    ]
    for source in refused:
        assert not copilot_cli.accept(source), source.name


def test_refuses_the_shared_samples_of_other_formats() -> None:
    for other in ("claude_code/spotter_short.jsonl", "codex_cli/daaain_rollout_synthetic.jsonl",
                  "gemini_cli/polylogue_gemini-cli-session.json", "plain_text/spotter_short.terminal.stripped.txt"):
        assert not copilot_cli.accept(Source.from_path(shared(other))), other


def test_other_formats_do_not_claim_the_fixtures() -> None:
    for path in (EVENTS, LEGACY):
        for module in (claude_code, codex_cli, gemini_cli):
            assert not module.accept(Source.from_path(path)), (module.NAME, path.name)


def test_tool_arguments_python_will_not_read_as_json_stay_text() -> None:
    for arguments in ("1" * 5000, "[" * 100_000):  # a number over Python's digit limit, nesting too deep
        line = copilot_cli._call_line("bash", arguments)
        assert line.startswith("→ bash: ") and len(line) <= 400
