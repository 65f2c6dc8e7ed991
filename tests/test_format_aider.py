"""Aider chat history: sessions, verbatim input and replies, one-line notices, dropped banners and
reasoning, the repository folder as place, strict errors and cheap detection. Fixtures are synthetic."""

from __future__ import annotations

from pathlib import Path

import pytest

from mempalace.errors import MalformedSourceError
from mempalace.formats import aider, plain_text
from mempalace.formats.base import SUMMARY_CHARS, Source

from _shared import sample as shared

FIXTURE = Path(__file__).parent / "data" / "formats" / "aider" / "orchard" / ".aider.chat.history.md"
REASONING = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
VERBATIM = ("Ünïcödé ✓ — 日本語 🐍\n\n    indented line\n\n\n"
            "```python\ndef f():\n    return 1\n```\n  trailing  \nend")


class History:
    """Writes a history the way aider's io.py appends to it (header, `#### ` input, `> ` notices, replies)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def header(self, when: str) -> "History":
        self.parts.append(f"\n# aider chat started at {when}\n\n")
        return self

    def user(self, text: str) -> "History":
        lines = "  \n#### ".join(text.splitlines() or ["<blank>"])
        self.parts.append(f"\n#### {lines}".rstrip() + "  \n")
        return self

    def tool(self, text: str) -> "History":
        self.parts.append("> " + text.strip() + "  \n")
        return self

    def reply(self, text: str) -> "History":
        self.parts.append("\n" + text.strip() + "\n\n")
        return self

    def text(self) -> str:
        return "".join(self.parts)

    def source(self, tmp_path: Path, name: str = ".aider.chat.history.md", folder: str = "orchard") -> Source:
        path = tmp_path / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8", newline="")
        return Source.from_path(path)


def roles(convo) -> list[tuple[str, str]]:
    return [(m.speaker, m.role) for m in convo.messages]


def test_fixture_sessions_ids_place_titles_and_times() -> None:
    source = Source.from_path(FIXTURE)
    assert aider.accept(source)
    first, second = aider.parse(source)  # the third session only shows aider's banner: no conversation
    assert first.id == ".aider.chat.history.md@2026-03-14 09:12:05"
    assert second.id == ".aider.chat.history.md@2026-03-15 17:40:00"
    assert first.place == second.place == "orchard"
    assert first.title.startswith("Can you make `prune()` skip dormant trees?")
    assert second.title == "Why does the orchard test fail on Windows?"  # `/ask <question>` gives its question
    assert (first.started, second.started) == ("2026-03-14T09:12:05Z", "2026-03-15T17:40:00Z")
    assert [m.timestamp for m in first.messages[1:]] == [None] * (len(first.messages) - 1)
    assert first.speakers == ("User", "Aider")


def test_fixture_messages_in_order_with_tools_and_drops() -> None:
    first, second = aider.parse(Source.from_path(FIXTURE))
    assert [(m.role, m.text if m.role != "assistant" else m.text[:8]) for m in first.messages] == [
        ("user", "/add orchard/pruning.py"),
        ("tool", "Added orchard/pruning.py to the chat"),
        ("user", first.messages[2].text),
        ("assistant", "#### Pla"),
        ("tool", "Applied edit to orchard/pruning.py"),
        ("tool", "Commit 3f2a9c1 feat: skip dormant trees when pruning"),
        ("tool", "pytest -q tests/test_pruning.py pytest --lf"),  # a quoted line and its unquoted continuation
        ("tool", "Run shell commands? (Y)es/(N)o/(D)on't ask again [Yes]: n"),
        ("user", "/model gpt-4.1"),
        ("tool", "Added orchard/pruning.py to the chat."),
        ("user", "Also add a docstring to prune() and orchard/README.md"),
        ("assistant", "Sure — h"),
        ("tool", "orchard/README.md"),
        ("tool", "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all"),
        ("tool", "Unable to run linter:"),
        ("tool", "flake8 not found"),
    ]
    everything = "\n".join(m.text for c in (first, second) for m in c.messages)
    for dropped in ("Aider v0.86.1", "Main model", "Git repo:", "Repo-map", ".gitignore", "/home/dev/.local",
                    "Tokens:", "^C", "<blank>", "Restored previous", REASONING, "should check `is_dormant`"):
        assert dropped not in everything, dropped
    assert roles(second) == [("User", "user"), ("Aider", "assistant"), ("User", "user"), ("Aider", "assistant")]
    assert second.messages[1].text == "It opens `C:\\orchard\\trees.csv` with a hard-coded\n```python\npath = '/tmp/"


def test_fixture_texts_are_verbatim() -> None:
    first, _ = aider.parse(Source.from_path(FIXTURE))
    assert first.messages[2].text == (
        "Can you make `prune()` skip dormant trees? Ünïcödé ✓ — 日本語 🐍\n\n    def prune(tree):\n"
        "        return tree.cut()   \n\n\n```python\nprint('still here')  \n```\nthanks")
    reply = first.messages[3].text
    assert reply.startswith("#### Plan\n\nI'll guard the cut")  # a `####` heading without the two spaces
    assert "\n\n> Dormant trees should never be pruned in March.\n\n" in reply  # a quote without them
    assert "    if tree.is_dormant():  \n        return tree\n\n\n    return tree.cut()\n" in reply
    assert reply.endswith("```\n\nRun the tests afterwards.")
    assert all(m.verbatim for m in first.messages if m.role != "tool")


def test_input_and_reply_round_trip_exactly(tmp_path: Path) -> None:
    source = History().header("2026-01-02 03:04:05").user(VERBATIM + "   ").reply(VERBATIM).source(tmp_path)
    (convo,) = aider.parse(source)
    assert [(m.role, m.text) for m in convo.messages] == [("user", VERBATIM), ("assistant", VERBATIM)]


def test_tool_lines_are_compact_one_liners(tmp_path: Path) -> None:
    long = "x" * 500
    history = History().header("2026-01-02 03:04:05").user("go").tool(f"Applied edit to {long}")
    history.parts.append("> git log --oneline\nabc123 first   \ndef456 second  \n")
    (convo,) = aider.parse(history.source(tmp_path))
    tools = [m for m in convo.messages if m.role == "tool"]
    assert tools[1].text == "git log --oneline abc123 first def456 second"
    for message in tools:
        assert not message.verbatim and message.speaker == "Tool"
        assert len(message.text) <= SUMMARY_CHARS and "\n" not in message.text
    assert tools[0].text.endswith("…")


def test_reasoning_blocks_are_dropped(tmp_path: Path) -> None:
    history = (History().header("2026-01-02 03:04:05")
               .user("one").reply(f"<{REASONING}>\n\nhidden\n\n</{REASONING}>\n\nShown answer.")
               .user("two").reply(f"<{REASONING}>\n\ncut off while thinking")
               .user("three").reply(f"tail of hidden\n\n</{REASONING}>\n\nAfter."))
    (convo,) = aider.parse(history.source(tmp_path))
    assert [(m.role, m.text) for m in convo.messages] == [
        ("user", "one"), ("assistant", "Shown answer."), ("user", "two"), ("user", "three"),
        ("assistant", "After.")]


def test_marks_stripped_by_an_editor_still_read(tmp_path: Path) -> None:
    stripped = "\n".join(line.rstrip() for line in FIXTURE.read_text(encoding="utf-8").split("\n"))
    path = tmp_path / "orchard" / ".aider.chat.history.md"
    path.parent.mkdir()
    path.write_text(stripped, encoding="utf-8")
    first, second = aider.parse(Source.from_path(path))
    assert [m.role for m in first.messages][:5] == ["user", "tool", "user", "user", "assistant"]
    assert first.messages[2].text.endswith("```python\nprint('still here')\n```\nthanks")
    # the known limit: without the marks a reply's `####` heading reads as input and its `> ` quote as a notice
    assert [(m.role, m.text) for m in first.messages[3:6:2]] == [
        ("user", "Plan"), ("tool", "Dormant trees should never be pruned in March.")]
    assert first.messages[7].text == "Applied edit to orchard/pruning.py"
    assert roles(second) == [("User", "user"), ("Aider", "assistant"), ("User", "user"), ("Aider", "assistant")]


def test_crlf_history(tmp_path: Path) -> None:
    path = tmp_path / "orchard" / ".aider.chat.history.md"
    path.parent.mkdir()
    path.write_bytes(FIXTURE.read_bytes().replace(b"\n", b"\r\n"))
    first, second = aider.parse(Source.from_path(path))
    assert first.messages[2].text.startswith("Can you make `prune()`") and "\r" not in first.messages[2].text
    assert first.messages[4].text == "Applied edit to orchard/pruning.py"
    assert first.messages[3].text.endswith("```\r\n\r\nRun the tests afterwards.")  # replies keep their bytes


def test_place_is_the_folder_of_the_default_file_only(tmp_path: Path) -> None:
    data = FIXTURE.read_bytes()
    assert aider.parse(Source.from_bytes(data, ".aider.chat.history.md"))[0].place is None
    assert aider.parse(Source(name="orchard/.aider.chat.history.md", data=data))[0].place == "orchard"
    renamed = History().header("2026-01-02 03:04:05").user("hi").source(tmp_path, name="pair-session.md")
    (convo,) = aider.parse(renamed)
    assert convo.place is None and convo.id == "pair-session.md@2026-01-02 03:04:05"


def test_sessions_started_in_the_same_second_get_distinct_ids(tmp_path: Path) -> None:
    history = (History().header("2026-01-02 03:04:05").user("a").header("2026-01-02 03:04:05").user("b"))
    ids = [c.id for c in aider.parse(history.source(tmp_path))]
    assert ids == [".aider.chat.history.md@2026-01-02 03:04:05", ".aider.chat.history.md@2026-01-02 03:04:05#2"]


def test_a_header_inside_a_reply_is_text(tmp_path: Path) -> None:
    reply = "The log opens with\n# aider chat started at 2026-01-01 00:00:00\nthen your input."
    history = History().header("2026-01-02 03:04:05").user("what is in the log?").reply(reply)
    (convo,) = aider.parse(history.source(tmp_path))
    assert convo.messages[1].text == reply


@pytest.mark.parametrize("text, line, what", [
    ("Some notes first.\n\n# aider chat started at 2026-01-02 03:04:05\n\n#### hi  \n", 1, "header"),
    ("\n\n# aider chat started at yesterday\n\n#### hi  \n", 3, "YYYY-MM-DD"),
    ("\n# aider chat started at 2026-02-30 10:00:00\n\n#### hi  \n", 2, "YYYY-MM-DD"),
    ('{"not": "an aider history"}\n', 1, "header"),
])
def test_malformed_histories_are_named(text: str, line: int, what: str) -> None:
    source = Source.from_bytes(text.encode(), ".aider.chat.history.md")
    with pytest.raises(MalformedSourceError, match=rf"\.aider\.chat\.history\.md, line {line}: .*{what}"):
        aider.parse(source)


def test_empty_history_has_no_conversations() -> None:
    assert aider.parse(Source.from_bytes(b"\n \n", ".aider.chat.history.md")) == []


def test_accepts_aider_histories_by_name_or_header(tmp_path: Path) -> None:
    assert aider.accept(Source.from_path(FIXTURE))
    assert plain_text.accept(Source.from_path(FIXTURE))  # why aider must come before plain_text
    assert aider.accept(Source.from_bytes(b"", ".aider.chat.history.md"))
    header = b"\xef\xbb\xbf\n\n# aider chat started at 2026-01-02 03:04:05\n\n#### hi  \n"
    assert aider.accept(Source.from_bytes(header, "exported-chat.md"))
    assert not aider.accept(Source.from_bytes(header, "exported-chat.txt"))  # only Markdown by content


def test_refuses_plain_markdown_and_other_formats(tmp_path: Path) -> None:
    plain = [b"# Meeting notes\n\n> quoted\n\n#### Agenda  \nUser: hi\nAssistant: hello\n",
             b"User: hi\nAssistant: hello\n",
             b"# Notes\n\n# aider chat started at 2026-01-02 03:04:05\n",  # the header is not the first line
             b"## aider chat started at 2026-01-02 03:04:05\n"]
    for data in plain:
        source = Source.from_bytes(data, "notes.md")
        assert plain_text.accept(source) and not aider.accept(source), data
    for data, name in [(b'{"type": "user", "message": {}}\n', "session.jsonl"),
                       (b'{"sessionId": "s", "messages": []}', "session.json"),
                       (b'[{"mapping": {}, "title": "x"}]', "conversations.json")]:
        assert not aider.accept(Source.from_bytes(data, name)), name
    for other in ("claude_code/spotter_short.jsonl", "codex_cli/daaain_rollout_synthetic.jsonl",
                  "gemini_cli/polylogue_gemini-cli-session.json", "plain_text/spotter_short.terminal.stripped.txt"):
        assert not aider.accept(Source.from_path(shared(other))), other
    assert not aider.accept(Source.from_bytes(b"PK\x03\x04rest", ".aider.chat.history.md"))
    assert not aider.accept(Source.from_path(tmp_path))
