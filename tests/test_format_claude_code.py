"""Claude Code sessions: verbatim text, one-line tool messages, dropped noise, sidechains, strict errors,
cheap detection. Fixtures are synthetic JSONL built from the session files' shape, plus the real samples."""

from __future__ import annotations

import json
import zipfile
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from mempalace.errors import MalformedSourceError
from mempalace.formats import claude_code
from mempalace.formats.base import Conversation, Source

from _shared import SHARED
TRANSCRIPTS = SHARED / "data/transcripts"
SAMPLES = TRANSCRIPTS / "claude_code"
SHORT = SAMPLES / "spotter_short.jsonl"
TOOL_HEAVY = SAMPLES / "spotter_tool_heavy.jsonl"
SUBAGENT = SAMPLES / "spotter_subagent_agent-a881341.jsonl"

SESSION = "0b7c1a52-1111-4222-8333-444455556666"
CWD = "/home/ada/projects/analytical-engine"
VERBATIM = (
    "Ünïcödé ✓ — 日本語 🐍 naïve café\n\n"
    "    indented four spaces\n"
    "\ttab-indented\n\n\n"
    "```python\ndef f(x):\n    return x * 2  # <not a tag>\n```\n"
    "  trailing spaces  \r\n"
    "last line without newline"
)
_uuids = count(1)


def require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"shared sample not found at {path} (/work/shared is absent)")
    return path


def record(kind: str, message: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A record as Claude Code writes it: envelope fields, then the message, then any overrides."""
    found: dict[str, Any] = {
        "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": CWD, "sessionId": SESSION,
        "version": "2.1.38", "gitBranch": "main", "type": kind, "uuid": f"uuid-{next(_uuids)}",
        "timestamp": "2026-02-10T21:11:56.123Z",
    }
    if message is not None:
        found["message"] = message
    found.update(extra)
    return found


def user(content: str | list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return record("user", {"role": "user", "content": content}, **extra)


def assistant(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    message = {"model": "claude-opus-4-6", "id": "msg_1", "type": "message", "role": "assistant",
               "content": list(blocks), "stop_reason": None}
    return record("assistant", message, **extra)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": "sig"}


def tool_use(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{next(_uuids)}", "name": name, "input": arguments}


def tool_result(content: Any, is_error: bool | None = None) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": "toolu_x", "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return block


def progress() -> dict[str, Any]:
    return record("progress", data={"type": "hook_progress", "hookName": "PROGRESS LEAK"},
                  toolUseID="t1", parentToolUseID="t1")


def snapshot() -> dict[str, Any]:  # no envelope: the real ones carry no sessionId
    return {"type": "file-history-snapshot", "messageId": "m1", "isSnapshotUpdate": False,
            "snapshot": {"messageId": "m1", "trackedFileBackups": {"SNAPSHOT LEAK": {}}, "timestamp": "x"}}


def queue_operation() -> dict[str, Any]:
    return {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-02-10T21:12:00Z",
            "sessionId": SESSION, "content": "QUEUE LEAK"}


def system(content: str = "SYSTEM LEAK") -> dict[str, Any]:
    return record("system", subtype="local_command", content=content, level="info", isMeta=False)


def summary(value: str) -> dict[str, Any]:
    return {"type": "summary", "summary": value, "leafUuid": "leaf-1"}


def write(tmp_path: Path, records: list[Any], name: str = "session.jsonl") -> Source:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")
    return Source.from_path(path)


def parse_one(tmp_path: Path, records: list[Any], name: str = "session.jsonl") -> Conversation:
    [conversation] = claude_code.parse(write(tmp_path, records, name))
    return conversation


def shape(conversation: Conversation) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in conversation.messages]


# --- text ---------------------------------------------------------------------------------------


def test_user_text_is_kept_verbatim(tmp_path):
    conversation = parse_one(tmp_path, [user(VERBATIM), user([text(VERBATIM)])])
    assert [m.text for m in conversation.messages] == [VERBATIM, VERBATIM]
    assert all(m.verbatim and m.role == "user" and m.speaker == "User" for m in conversation.messages)


def test_user_text_written_with_ascii_escapes_is_the_same_text(tmp_path):
    path = tmp_path / "escaped.jsonl"
    path.write_text(json.dumps(user(VERBATIM), ensure_ascii=True) + "\n", encoding="utf-8")
    [conversation] = claude_code.parse(Source.from_path(path))
    assert conversation.messages[0].text == VERBATIM


def test_assistant_text_blocks_are_kept_verbatim_one_message_each(tmp_path):
    conversation = parse_one(tmp_path, [
        user("hi"),
        assistant(text("\n\n")),  # Claude Code writes whitespace-only blocks before thinking
        assistant(text(VERBATIM), text("  second block\n\n  indented\n")),
    ])
    assert shape(conversation) == [
        ("user", "hi"), ("assistant", VERBATIM), ("assistant", "  second block\n\n  indented\n")]
    assert [m.speaker for m in conversation.messages] == ["User", "Claude", "Claude"]
    assert conversation.speakers == ("User", "Claude")
    assert all(m.verbatim for m in conversation.messages)


def test_line_separator_characters_inside_text_do_not_break_the_record(tmp_path):
    pasted = "copied from a PDF\u2028second visual line\u2029para\x85next"
    conversation = parse_one(tmp_path, [user(pasted), assistant(text("ok\u2028fine"))])
    assert shape(conversation) == [("user", pasted), ("assistant", "ok\u2028fine")]


def test_thinking_is_dropped(tmp_path):
    conversation = parse_one(tmp_path, [
        user("question"),
        assistant(thinking("SECRET REASONING")),
        assistant(thinking("MORE REASONING"), text("answer")),
        assistant({"type": "redacted_thinking", "data": "REDACTED"}),
    ])
    assert shape(conversation) == [("user", "question"), ("assistant", "answer")]


def test_timestamps_are_utc_iso_seconds(tmp_path):
    conversation = parse_one(tmp_path, [
        user("a", timestamp="2026-02-10T21:11:56.123Z"), assistant(text("b"), timestamp="2026-02-10T23:12:00+02:00"),
        user("c", timestamp=None)])
    assert [m.timestamp for m in conversation.messages] == ["2026-02-10T21:11:56Z", "2026-02-10T21:12:00Z", None]
    assert conversation.started == "2026-02-10T21:11:56Z"


# --- tools --------------------------------------------------------------------------------------


def test_tool_use_and_results_are_one_line_tool_messages_after_the_text_in_order(tmp_path):
    long_output = "\n".join(f"line {i}: " + "x" * 60 for i in range(300))
    conversation = parse_one(tmp_path, [
        user("run the tests please"),
        assistant(text("I'll run them."), tool_use("Bash", command="pytest -q\n  --maxfail=1", timeout=30000)),
        user([tool_result("3 passed\n1 failed", is_error=False)]),
        assistant(tool_use("Read", file_path="/home/ada/src/engine.py"), tool_use("Grep", pattern="def add")),
        user([tool_result([{"type": "text", "text": "no such file"}], is_error=True),
              tool_result(long_output)]),
        assistant(text("One test fails."), tool_use("TodoWrite", todos=[{"content": "fix"}])),
        user([tool_result("")]),
    ])
    assert [m.role for m in conversation.messages] == [
        "user", "assistant", "tool", "tool", "tool", "tool", "tool", "tool", "assistant", "tool", "tool"]
    tools = [m for m in conversation.messages if m.role == "tool"]
    for message in tools:
        assert message.speaker == "Tool" and message.verbatim is False
        assert "\n" not in message.text and "\r" not in message.text and "\t" not in message.text
        assert 0 < len(message.text) <= 200
    calls = [m.text for m in tools]
    assert calls[0].startswith("→ Bash") and "pytest -q --maxfail=1" in calls[0]
    assert calls[1].startswith("← result") and "3 passed 1 failed" in calls[1] and "error" not in calls[1]
    assert calls[2].startswith("→ Read") and "/home/ada/src/engine.py" in calls[2]
    assert calls[3].startswith("→ Grep") and "def add" in calls[3]
    assert calls[4].startswith("← error") and "no such file" in calls[4]
    assert calls[5].startswith("← result") and calls[5].endswith("…") and len(calls[5]) <= 200
    assert calls[6].startswith("→ TodoWrite")
    assert calls[7].startswith("← result")
    assert conversation.speakers == ("User", "Claude")  # the Tool speaker is not a participant


def test_a_tool_call_with_unusual_input_still_makes_one_line(tmp_path):
    conversation = parse_one(tmp_path, [
        user("go"),
        assistant({"type": "tool_use", "id": "t", "name": "mcp__x__y", "input": "not an object"},
                  {"type": "tool_use", "id": "t2", "input": {"command": "é" * 500}}),
    ])
    first, second = conversation.messages[1:]
    assert first.role == second.role == "tool"
    assert "mcp__x__y" in first.text
    assert len(second.text) <= 200 and second.text.endswith("…")


# --- dropped records and wrappers ---------------------------------------------------------------


def test_progress_snapshot_queue_system_and_meta_records_are_dropped(tmp_path):
    caveat = ("<local-command-caveat>Caveat: The messages below were generated by the user while running "
              "local commands. META LEAK</local-command-caveat>")
    conversation = parse_one(tmp_path, [
        snapshot(), progress(), progress(),
        user("the only question"),
        queue_operation(), system(), system("<command-name>x</command-name> SYSTEM LEAK 2"),
        user(caveat, isMeta=True),
        user([text("META LEAK as blocks")], isMeta=True),
        assistant(text("the only answer")),
        progress(), snapshot(),
    ])
    assert shape(conversation) == [("user", "the only question"), ("assistant", "the only answer")]
    assert not any("LEAK" in m.text for m in conversation.messages)


@pytest.mark.parametrize("noise", [
    "<command-name>/mcp</command-name>\n            <command-message>mcp</command-message>\n"
    "            <command-args></command-args>",
    "<command-message>review is running…</command-message>\n<command-name>/review</command-name>",
    "<local-command-stdout>Reconnected to tidewave.</local-command-stdout>",
    "<local-command-stderr>Error: nope</local-command-stderr>",
    "  \n<command-name>/clear</command-name>",
    "[Request interrupted by user]",
    "[Request interrupted by user for tool use]",
    " [Request interrupted by user]\n",
])
@pytest.mark.parametrize("as_blocks", [False, True], ids=["string", "blocks"])
def test_command_wrappers_and_interruptions_are_dropped(tmp_path, noise, as_blocks):
    conversation = parse_one(tmp_path, [
        user("real question"), user([text(noise)] if as_blocks else noise), assistant(text("answer"))])
    assert shape(conversation) == [("user", "real question"), ("assistant", "answer")]


def test_text_that_only_mentions_a_wrapper_or_an_interruption_is_kept(tmp_path):
    mentions = [
        "why does <command-name> show up in my logs?",
        "I saw [Request interrupted by user] earlier, what happened?",
        "```\n<local-command-stdout>x</local-command-stdout>\n```",
    ]
    # the last one starts with a fence, not with the tag: it is the person's own text
    conversation = parse_one(tmp_path, [user(m) for m in mentions])
    assert [m.text for m in conversation.messages] == mentions


@pytest.mark.parametrize("raw, kept", [
    ("before\n<system-reminder>\nThe date is today.\n</system-reminder>\nafter", "before\n\nafter"),
    ("inline<system-reminder>x</system-reminder> text", "inline text"),
    ("<system-reminder>\nctx\n</system-reminder>\n    indented code\n\n  more  ", "    indented code\n\n  more  "),
    ("my text  \n\n```py\nx = 1\n```\n<system-reminder>r</system-reminder>", "my text  \n\n```py\nx = 1\n```"),
    ("<system-reminder>a</system-reminder>\nÜ 日本 🐍\n<system-reminder>b\nc</system-reminder>\n\nend\n"
     "<system-reminder>d</system-reminder>", "Ü 日本 🐍\n\n\nend"),
])
@pytest.mark.parametrize("as_blocks", [False, True], ids=["string", "blocks"])
def test_system_reminders_are_removed_and_the_persons_text_around_them_survives(tmp_path, raw, kept, as_blocks):
    conversation = parse_one(tmp_path, [user([text(raw)] if as_blocks else raw)])
    assert shape(conversation) == [("user", kept)]
    assert conversation.messages[0].verbatim


def test_a_message_of_nothing_but_reminders_is_dropped(tmp_path):
    reminder = "<system-reminder>\nAs you answer, keep this in mind.\n</system-reminder>"
    conversation = parse_one(tmp_path, [
        user([text("the question"), text(reminder)]),
        user(f"{reminder}\n\n{reminder}\n"),
        assistant(text("the answer")),
    ])
    assert shape(conversation) == [("user", "the question"), ("assistant", "the answer")]


def test_assistant_text_is_never_cleaned(tmp_path):
    said = "<system-reminder>quoted by Claude</system-reminder>\n[Request interrupted by user]"
    conversation = parse_one(tmp_path, [user("q"), assistant(text(said)), assistant(text("<command-name>x"))])
    assert [m.text for m in conversation.messages[1:]] == [said, "<command-name>x"]


def test_a_file_without_user_or_assistant_text_parses_to_nothing(tmp_path):
    assert claude_code.parse(write(tmp_path, [snapshot(), progress(), system(), summary("Only a title")])) == []
    assert claude_code.parse(write(tmp_path, [user("[Request interrupted by user]")], "b.jsonl")) == []
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert claude_code.parse(Source.from_path(empty)) == []


# --- conversation fields ------------------------------------------------------------------------


def test_id_place_and_title_of_a_main_session(tmp_path):
    conversation = parse_one(tmp_path, [
        snapshot(),
        user("<command-name>/clear</command-name>"),  # dropped, so not the title
        user("  How do I add a wing?\nsecond line of the question"),
        assistant(text("Like this.")),
    ])
    assert conversation.id == SESSION
    assert conversation.place == "analytical-engine"
    assert conversation.title == "How do I add a wing?"


def test_title_comes_from_a_summary_record_when_there_is_one(tmp_path):
    conversation = parse_one(tmp_path, [
        summary("Wing naming discussion"), summary("An older summary"), user("first line\nsecond")])
    assert conversation.title == "Wing naming discussion"
    late = parse_one(tmp_path, [user("first line"), summary("Written at the end")], "late.jsonl")
    assert late.title == "Written at the end"


def test_a_long_first_line_makes_a_short_title(tmp_path):
    conversation = parse_one(tmp_path, [user("word " * 100)])
    assert conversation.title is not None and 0 < len(conversation.title) <= 80
    assert conversation.title.startswith("word word")


@pytest.mark.parametrize("cwd, place", [
    ("/home/ada/projects/analytical-engine/", "analytical-engine"),
    ("/srv/My Project (2)", "My Project (2)"),
    ("/home/ada/engine-worktrees/engine-fix", "engine"),
    ("/home/ada/engine/.worktrees/fix", "engine"),
    ("/home/ada/engine/.claude/worktrees/fix/docs", "engine"),
    ("/home/ada/worktrees/engine", "engine"),  # a home folder called worktrees holds projects
    (None, None),
])
def test_place_is_the_project_of_the_cwd(tmp_path, cwd, place):
    assert parse_one(tmp_path, [user("q", cwd=cwd)]).place == place


def test_place_of_a_windows_cwd_is_its_last_folder(tmp_path):
    assert parse_one(tmp_path, [user("q", cwd="C:\\Users\\ada\\projects\\engine")]).place == "engine"


def test_a_sidechain_file_is_its_own_conversation_with_agent_speakers(tmp_path):
    side = {"isSidechain": True, "agentId": "a881341", "slug": "modular-petting-thompson"}
    conversation = parse_one(tmp_path, [
        user("Find the hook output contract.", **side),
        assistant(text("Let me fetch the docs."), tool_use("WebFetch", url="https://example.com/hooks.md"), **side),
        progress(),
        user([tool_result("# Hooks\n...")], **side),
        assistant(text("Here is the contract."), **side),
    ], "agent-a881341.jsonl")
    assert conversation.id == f"{SESSION}:agent-a881341"
    assert conversation.speakers == ("Main agent", "Sub-agent")
    assert [m.speaker for m in conversation.messages] == ["Main agent", "Sub-agent", "Tool", "Tool", "Sub-agent"]
    assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert conversation.title == "Find the hook output contract."
    assert conversation.place == "analytical-engine"


# --- strict errors ------------------------------------------------------------------------------


def test_a_malformed_line_names_its_line_number(tmp_path):
    source = write(tmp_path, [user("fine"), "", '{"type": "user", "message": {"role": "user", "content": "x"'])
    with pytest.raises(MalformedSourceError, match=r"^session\.jsonl, line 3: invalid JSON"):
        claude_code.parse(source)


@pytest.mark.parametrize("line", ['["a", "list"]', '"a string"', "42", "null"])
def test_a_line_that_is_not_an_object_is_an_error(tmp_path, line):
    with pytest.raises(MalformedSourceError, match=r"^session\.jsonl, line 2: .*JSON object"):
        claude_code.parse(write(tmp_path, [user("fine"), line]))


@pytest.mark.parametrize("bad, expected", [
    (record("user"), r"line 2: a user record without a message object"),
    (record("assistant", message="just text"), r"line 2: an? assistant record without a message object"),
    (user({"not": "a list"}), r"line 2: message content must be text or a list of blocks"),
    (user(None), r"line 2: message content must be text or a list of blocks"),
    (user(["not a block"]), r"line 2: a content block is not an object"),
])
def test_a_record_of_the_wrong_shape_is_an_error(tmp_path, bad, expected):
    with pytest.raises(MalformedSourceError, match=expected):
        claude_code.parse(write(tmp_path, [user("fine"), bad]))


def test_uploaded_bytes_parse_like_a_file(tmp_path):
    data = (json.dumps(user(VERBATIM), ensure_ascii=False) + "\n").encode("utf-8")
    [conversation] = claude_code.parse(Source.from_bytes(data, "C:\\Users\\ada\\session.jsonl"))
    assert conversation.messages[0].text == VERBATIM
    assert claude_code.accept(Source.from_bytes(data, "session.jsonl"))


# --- detection ----------------------------------------------------------------------------------


def test_accept_is_true_for_synthetic_sessions(tmp_path):
    assert claude_code.accept(write(tmp_path, [user("q"), assistant(text("a"))], "one.jsonl"))
    assert claude_code.accept(write(tmp_path, [snapshot(), progress(), user("q")], "two.jsonl"))
    assert claude_code.accept(write(tmp_path, [summary("t"), summary("u"), snapshot()], "three.jsonl"))
    assert claude_code.accept(write(tmp_path, [user("only one line")], "four.jsonl"))


def test_accept_a_complete_two_line_session_starting_with_a_snapshot(tmp_path):
    assert claude_code.accept(write(tmp_path, [snapshot(), user("my only message")]))


def test_accept_is_false_for_other_jsonl_and_json(tmp_path):
    codex = {"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x", "cwd": "/a"}}
    unknown_type = {"type": "message", "sessionId": "s", "message": {"role": "user", "content": "x"}}
    no_session = [snapshot(), {"type": "user", "message": {"role": "user", "content": "x"}}, snapshot()]
    cases = {
        "codex.jsonl": [codex, codex],
        "unknown.jsonl": [unknown_type, unknown_type],
        "nosession.jsonl": no_session,
        "list.jsonl": ["[1, 2]", "[3]"],
        "prose.jsonl": ["hello there", "sessionId is a word"],
        "session.json": [user("q"), assistant(text("a"))],  # right content, wrong suffix
        "session.txt": [user("q"), assistant(text("a"))],
    }
    for name, records in cases.items():
        assert not claude_code.accept(write(tmp_path, records, name)), name
    chatgpt = tmp_path / "conversations.json"
    chatgpt.write_text(json.dumps([{"title": "x", "mapping": {"a": {"id": "a", "parent": None, "children": [],
                                                                   "message": None}}, "current_node": "a"}]))
    assert not claude_code.accept(Source.from_path(chatgpt))
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    assert not claude_code.accept(Source.from_path(folder))
    archive = tmp_path / "sessions.jsonl"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("a.jsonl", json.dumps(user("q")))
    assert not claude_code.accept(Source.from_path(archive))


def test_accept_is_cheap_and_parse_is_strict(tmp_path):
    source = write(tmp_path, [user("q"), assistant(text("a")), "{broken"])
    assert claude_code.accept(source)
    with pytest.raises(MalformedSourceError, match=r"line 3"):
        claude_code.parse(source)


# --- the real samples ---------------------------------------------------------------------------


def raw_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["spotter_short.jsonl", "spotter_tool_heavy.jsonl",
                                  "spotter_subagent_agent-a881341.jsonl"])
def test_accept_is_true_for_the_real_samples(name):
    assert claude_code.accept(Source.from_path(require(SAMPLES / name)))


def test_accept_is_false_for_the_other_formats_real_samples():
    require(TRANSCRIPTS)
    others = [p for p in sorted(TRANSCRIPTS.iterdir()) if p.name != "claude_code"]
    checked = 0
    for folder in others:
        for path in sorted(folder.iterdir()):
            assert not claude_code.accept(Source.from_path(path)), path
            for inner in sorted(path.rglob("*")) if path.is_dir() else []:
                assert not claude_code.accept(Source.from_path(inner)), inner
            checked += 1
    assert checked >= 5  # two Codex sessions, a Gemini session, a plain-text file, a Slack export


@pytest.mark.parametrize("name", ["spotter_short.jsonl", "spotter_tool_heavy.jsonl",
                                  "spotter_subagent_agent-a881341.jsonl"])
def test_real_samples_keep_every_text_exactly_and_drop_the_noise(name):
    path = require(SAMPLES / name)
    [conversation] = claude_code.parse(Source.from_path(path))
    records = raw_records(path)
    expected_assistant = [b["text"] for r in records if r["type"] == "assistant"
                          for b in r["message"]["content"] if b["type"] == "text" and b["text"].strip()]
    expected_user = []
    for r in records:
        if r["type"] != "user" or r.get("isMeta"):
            continue
        content = r["message"]["content"]
        texts = [content] if isinstance(content, str) else [b["text"] for b in content if b["type"] == "text"]
        expected_user += [t for t in texts if not t.lstrip().startswith(("<command-", "<local-command-"))
                          and not t.startswith("[Request interrupted by user")]
    assert [m.text for m in conversation.messages if m.role == "assistant"] == expected_assistant
    assert [m.text for m in conversation.messages if m.role == "user"] == expected_user
    uses = sum(b["type"] == "tool_use" for r in records if isinstance(r.get("message"), dict)
               and isinstance(r["message"]["content"], list) for b in r["message"]["content"])
    results = sum(b["type"] == "tool_result" for r in records if isinstance(r.get("message"), dict)
                  and isinstance(r["message"]["content"], list) for b in r["message"]["content"])
    tools = [m for m in conversation.messages if m.role == "tool"]
    assert len(tools) == uses + results
    assert all(not m.verbatim and "\n" not in m.text and len(m.text) <= 200 for m in tools)
    everything = "\n".join(m.text for m in conversation.messages if m.role != "tool")
    for noise in ("<command-name>", "<local-command", "Request interrupted", "Caveat:", "<system-reminder>"):
        assert noise not in everything, noise


def test_the_real_short_session():
    [conversation] = claude_code.parse(Source.from_path(require(SHORT)))
    assert conversation.id == "55604662-cf2a-4331-851a-ec234028f8ca"
    assert (conversation.title, conversation.place) == ("mix phx.server doesnt seem to start", "spotter")
    assert conversation.started == "2026-02-10T21:11:56Z"
    assert conversation.speakers == ("User", "Claude")
    assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "tool", "tool", "tool"]
    assert conversation.messages[1].text == (
        "Let me check the project structure and try running the server to see the error.")
    assert conversation.messages[2].text.startswith("→ Bash: mix phx.server")
    assert all(m.text.startswith("← error") for m in conversation.messages[4:])  # both calls were rejected


def test_the_real_tool_heavy_session():
    [conversation] = claude_code.parse(Source.from_path(require(TOOL_HEAVY)))
    assert (conversation.id, conversation.place) == ("d6e0bada-1959-4eec-a9d2-0bfade768d8f", "spotter")
    assert [m.text for m in conversation.messages if m.role == "user"] == [
        "start phoenix in background",
        "scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
        "websearch xterm.js tmux interactions",
    ]
    assert len(conversation.messages) == 15
    assert conversation.messages[1].text.startswith("→ Bash: mix phx.server")  # no text before this tool call


def test_the_real_subagent_session():
    [conversation] = claude_code.parse(Source.from_path(require(SUBAGENT)))
    assert conversation.id == "258c7280-ae70-4798-800f-63464d01a85d:agent-a881341"
    assert conversation.speakers == ("Main agent", "Sub-agent")
    assert conversation.place == "spotter"  # its cwd is a worktree: spotter-worktrees/spotter-gqc
    assert conversation.title == (
        "What is the output contract for Claude Code hooks, specifically for SessionStart")[:80]
    assert [m.role for m in conversation.messages] == [
        "user", "assistant", "tool", "tool", "assistant", "tool", "tool", "assistant"]
    first = raw_records(SUBAGENT)[0]["message"]["content"]
    assert conversation.messages[0].text == first
