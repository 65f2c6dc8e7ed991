"""Continue sessions: the fixtures (current, early-2024 and 2023 Python-server layouts), verbatim text,
tool lines, dropped context and reasoning, the refused sessions.json index, strict errors and cheap
detection. Fixtures are synthetic, written in the shape of Continue's session files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mempalace.errors import MalformedSourceError, UnsupportedFormatError
from mempalace.formats import chatgpt, claude_ai, continue_dev, gemini_cli
from mempalace.formats.base import Source
from mempalace.ingest.wings import default_wing

DATA = Path(__file__).parent / "data" / "formats" / "continue_dev"
MODERN = DATA / "3f1c2a9e-5b7d-4e21-9c0a-7d8e6f5a4b3c.json"
EARLY = DATA / "9b2d4f60-1a3c-4e5f-8a7b-0c1d2e3f4a5b.json"
PY_SESSION = DATA / "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9.json"
PY_FULL_STATE = DATA / "0a1b2c3d-4e5f-4061-8293-a4b5c6d7e8f9.json"
INDEX = DATA / "sessions.json"
VERBATIM = ("Ünïcödé ✓ — 日本語 🐍\n\n    indented line\n\n\n"
            "```python\ndef f():\n    return 1\n```\n  trailing  \n")
GEMINI = b'{\n  "sessionId": "g-1",\n  "projectHash": "ab12",\n  "startTime": "2026-03-04T05:06Z",\n  "messages": [\n'
CHATGPT = b'[{"title":"x","create_time":1,"mapping":{"a":{"id":"a","children":[]}},"current_node":"a"}]'
CHATGPT_ONE = b'{"title":"x","create_time":1,"mapping":{"a":{"id":"a","children":[]}},"current_node":"a"}'
CLAUDE_AI = b'[{"uuid":"u","name":"x","created_at":"2025-01-01T00:00:00Z","chat_messages":[]}]'


def session(tmp_path: Path, *items: dict[str, Any], name: str = "s-1.json", **extra: Any) -> Source:
    data = {"sessionId": "s-1", "title": "T", "workspaceDirectory": "/home/me/shop", "history": list(items), **extra}
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return Source.from_path(path)


def item(role: str, content: Any, **message: Any) -> dict[str, Any]:
    return {"message": {"role": role, "content": content, **message}, "contextItems": []}


def test_current_session_speakers_roles_texts_and_tool_lines() -> None:
    source = Source.from_path(MODERN)
    assert continue_dev.accept(source)
    (convo,) = continue_dev.parse(source)
    assert (convo.id, convo.title, convo.place) == (
        "3f1c2a9e-5b7d-4e21-9c0a-7d8e6f5a4b3c", "Retry logic for the invoice fetcher", "billing service")
    assert [(m.speaker, m.role, m.text, m.verbatim) for m in convo.messages] == [
        ("User", "user", "Why does fetch_invoices give up after one timeout?", True),
        ("Continue", "assistant",
         "It never retries: `client.get` raises on the first timeout and nothing catches it.", True),
        ("User", "user", "Here is the stack trace I see:\nCan you add a retry with backoff?", True),  # image dropped
        ("Continue", "assistant", "Let me read the file first.", True),
        ("Tool", "tool", '→ read_file: {"filepath": "src/billing/fetcher.py"}', False),
        ("Tool", "tool", "← read_file: def fetch_invoices(client): return client.get('/invoices', timeout=2)", False),
        ("Continue", "assistant", VERBATIM, True),  # <think> block stripped, the rest byte for byte
    ]
    assert all(m.timestamp is None for m in convo.messages)  # session files record no times
    assert convo.speakers == ("User", "Continue")


def test_context_items_reasoning_thinking_and_prompt_logs_are_dropped() -> None:
    (convo,) = continue_dev.parse(Source.from_path(MODERN))
    everything = "\n".join(m.text for m in convo.messages)
    for hidden in ("Private musing", "retry wrapper first", "SYSTEM PROMPT", "Three attempts", "generated summary",
                   "base64", "fetcher.py\n"):
        assert hidden not in everything
    assert sum("fetch_invoices(client)" in m.text for m in convo.messages) == 1  # only the tool result line


def test_default_wing_is_the_workspace_folder() -> None:
    source = Source.from_path(MODERN)
    (convo,) = continue_dev.parse(source)
    assert default_wing(convo, source, continue_dev.NAME).wing == "billing_service"


def test_early_2024_layout_with_history_first() -> None:
    source = Source.from_path(EARLY)
    assert source.head(12) == b'{"history":['  # sessionId comes after the whole history
    assert continue_dev.accept(source)
    (convo,) = continue_dev.parse(source)
    assert (convo.id, convo.title, convo.place) == ("9b2d4f60-1a3c-4e5f-8a7b-0c1d2e3f4a5b", None, "phonebook")
    assert [(m.role, m.text) for m in convo.messages] == [
        ("user", "Explain this regex: ^\\d{3}-\\d{4}$"),
        ("assistant", "It matches three digits, a dash, then four digits."),
    ]


def test_2023_python_server_step_log() -> None:
    source = Source.from_path(PY_SESSION)
    assert continue_dev.accept(source)
    (convo,) = continue_dev.parse(source)
    assert (convo.id, convo.title, convo.place) == ("5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9", "Open ports", "ops-scripts")
    assert [(m.speaker, m.role, m.text, m.verbatim) for m in convo.messages] == [
        ("User", "user", "How do I list open ports on Linux?", True),
        ("Continue", "assistant", "Use `ss`:\n\n```bash\nss -tulpn\n```\n", True),
        ("Tool", "tool", "Run Shell Commands: - Listed the listening sockets", False),
    ]  # the hidden step and the attached context items are dropped


def test_earlier_python_full_state_timeline() -> None:
    source = Source.from_path(PY_FULL_STATE)
    assert continue_dev.accept(source)
    (convo,) = continue_dev.parse(source)
    assert (convo.id, convo.title, convo.place) == ("0a1b2c3d-4e5f-4061-8293-a4b5c6d7e8f9", "Git rebase question",
                                                    "dotfiles")
    assert [(m.role, m.text) for m in convo.messages] == [
        ("user", "what does git rebase -i do?"),  # hidden UserInputStep kept; the deleted one dropped
        ("assistant", "It lets you reorder, squash or drop commits."),
        ("tool", "Error in the Continue server: The request failed."),
    ]


def test_sessions_index_is_refused_with_a_clear_error() -> None:
    source = Source.from_path(INDEX)
    assert continue_dev.accept(source)
    with pytest.raises(UnsupportedFormatError, match=r"sessions\.json is Continue's index of sessions.*no messages"):
        continue_dev.parse(source)
    python_index = b'[{"session_id": "a", "title": "x", "date_created": "1690000000.0", "workspace_directory": ""}]'
    assert continue_dev.accept(Source.from_bytes(python_index, "sessions.json"))
    assert not continue_dev.accept(Source.from_bytes(INDEX.read_bytes(), "other.json"))


def test_user_text_is_verbatim_and_parts_join_with_a_newline(tmp_path: Path) -> None:
    parts = [{"type": "text", "text": "first\n"}, {"type": "imageUrl", "imageUrl": {"url": "https://x/y.png"}},
             {"type": "text", "text": "  second"}]
    (convo,) = continue_dev.parse(session(tmp_path, item("user", VERBATIM), item("assistant", [{"type": "text",
                                          "text": VERBATIM}]), item("user", parts)))
    assert [(m.role, m.text, m.verbatim) for m in convo.messages] == [
        ("user", VERBATIM, True), ("assistant", VERBATIM, True), ("user", "first\n\n  second", True)]
    assert (convo.title, convo.place) == ("T", "shop")


def test_tool_lines_are_short_and_results_name_their_call(tmp_path: Path) -> None:
    calls = [{"id": "c1", "type": "function", "function": {"name": "run_terminal_command",
                                                              "arguments": '{"command": "pytest -q"}'}},
             {"id": "c2", "type": "function", "function": {"name": "view_diff", "arguments": ""}}]
    (convo,) = continue_dev.parse(session(
        tmp_path, item("user", "run the tests"), item("assistant", "", toolCalls=calls),
        item("tool", "F" * 500 + "\n1 failed", toolCallId="c1"), item("tool", "", toolCallId="c2"),
        item("tool", "orphan", toolCallId="zz"), item("system", "You are a helpful assistant."),
    ))
    lines = [m.text for m in convo.messages if m.role == "tool"]
    assert lines[0] == '→ run_terminal_command: {"command": "pytest -q"}'
    assert lines[1] == "→ view_diff"
    assert lines[2].startswith("← run_terminal_command: FFFF") and lines[2].endswith("…") and len(lines[2]) <= 200
    assert lines[3:] == ["← view_diff: (empty)", "← tool: orphan"]
    assert [m.role for m in convo.messages] == ["user", "tool", "tool", "tool", "tool", "tool"]


def test_placeholder_title_uri_and_windows_places(tmp_path: Path) -> None:
    for folder, place in [("vscode-remote://ssh-remote%2Bbox/srv/app/", "app"), ("D:\\work\\api", "api"),
                          ("", None), ("/", None)]:
        (convo,) = continue_dev.parse(session(tmp_path, item("user", "hi"), title="New Session",
                                              workspaceDirectory=folder))
        assert (convo.title, convo.place) == (None, place), folder


def test_no_conversation_without_words(tmp_path: Path) -> None:
    assert continue_dev.parse(session(tmp_path)) == []
    assert continue_dev.parse(session(tmp_path, item("thinking", "hmm"), item("assistant", "  \n"))) == []


def test_truncated_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text(MODERN.read_text(encoding="utf-8")[:700], encoding="utf-8")
    with pytest.raises(MalformedSourceError, match=r"cut\.json, line \d+, column \d+: invalid JSON"):
        continue_dev.parse(Source.from_path(path))


@pytest.mark.parametrize("data, what", [
    ("text", "an object with a `history` list"),
    ({"sessionId": "s", "history": {"a": 1}}, "no `timeline` list"),
    ({"sessionId": "s", "history": None}, "an object with a `history` list"),
    ([1, 2], "an object with a `history` list"),
    ({"sessionId": "s", "history": ["hi"]}, "history item 1 is not an object with a `message`"),
    ({"sessionId": "s", "history": [{"message": {"content": "x"}}]}, "history item 1: the message has no `role`"),
    ({"sessionId": "s", "history": [{"message": {"role": "user", "content": 7}}]}, "history item 1: content must"),
    ({"sessionId": "s", "history": [{"message": {"role": "user", "content": ["x"]}}]}, "a content part is not"),
    ({"sessionId": "s", "history": [{"message": {"role": "user", "content": [{"type": "text", "text": 3}]}}]},
     "a text part whose text"),
    ({"sessionId": "s", "history": [{"message": {"role": "assistant", "content": "", "toolCalls": {}}}]},
     "`toolCalls` is not a list"),
    ({"sessionId": "s", "history": [{"message": {"role": "assistant", "content": "", "toolCalls": [3]}}]},
     "a tool call is not an object"),
    ({"sessionId": "s", "history": [{"message": {"role": "tool", "content": ["x"], "toolCallId": "a"}}]},
     "a tool result's content is not text"),
    ({"session_state": [], "session_id": "s"}, "`session_state` is not an object"),
    ({"session_state": {"history": ["x"]}}, "step 1 is not an object"),
    ({"session_state": {"history": [{"step_type": "SimpleChatStep", "description": 5}]}}, "step 1: `description`"),
    ({"history": {"timeline": [{"depth": 0}]}}, "step 1 is not an object with a `step` object"),
])
def test_wrong_structure_is_named(tmp_path: Path, data: Any, what: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(MalformedSourceError, match=r"bad\.json: .*" + what.replace("`", ".")):
        continue_dev.parse(Source.from_path(path))


def test_accepts_only_continue_sessions(tmp_path: Path) -> None:
    for path in (MODERN, EARLY, PY_SESSION, PY_FULL_STATE):
        assert continue_dev.accept(Source.from_path(path)), path.name
        for other in (gemini_cli, claude_ai, chatgpt):  # and the other JSON formats leave them alone
            assert not other.accept(Source.from_path(path)), (other.NAME, path.name)
    for head, name in [(GEMINI, "session-2026-03-04T05-06-g1.json"), (CHATGPT, "conversations.json"),
                       (CHATGPT_ONE, "conversation.json"), (CLAUDE_AI, "conversations.json"),
                       (b"# Notes\n\nhistory and sessionId\n", "notes.json"),
                       (b'{"sessionId": "s", "note": "\\"history\\": [1]"}', "s.json"),
                       (b'{"history": [], "title": "no context items"}', "h.json")]:
        assert not continue_dev.accept(Source.from_bytes(head, name)), name
    assert not continue_dev.accept(Source.from_bytes(MODERN.read_bytes(), "session.txt"))
    assert not continue_dev.accept(Source.from_bytes(b"just some plain text\n", "notes.txt"))
    assert not continue_dev.accept(Source.from_path(tmp_path))
