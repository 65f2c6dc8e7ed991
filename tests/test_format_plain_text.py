"""Plain text and Markdown: each turn style, the verbatim rule (texts in order, nothing but labels and
whitespace left out) on every fixture and on the shared terminal capture, and detection as the last resort."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mempalace.errors import SourceRefusedError
from mempalace.formats import plain_text
from mempalace.formats.base import Conversation, Source

from _shared import TRANSCRIPTS as SHARED
TERMINAL_SAMPLE = SHARED / "plain_text/spotter_short.terminal.stripped.txt"
CHATGPT = '[{"mapping":{},"current_node":null,"title":"x"}]'
CLAUDE_AI = '[{"uuid":"u","name":"x","chat_messages":[]}]'

QUOTED = """# Debugging session ✨

> Why does this fail?
> It's the `parse` step:
>
>     indented = True

Because `parse` expects UTF-8 — ünïcode ✓ 日本語.

```text
> not a prompt inside a fence
User: not a label either
```


    indented reply line
> Thanks!
Glad to help.
"""

TERMINAL = """❯ first prompt
  wrapped second line

● Reply one.
  continued

● Bash(ls)
  ⎿  a.txt

❯ second
● ok
"""

LABELLED = """**User:** Can you fix   this?

  It has two spaces of indent.

**Assistant:** Sure — here's the fix:

```js
User: this line is code, not a label
const x = 1;
```

user: lower-case labels count too
ASSISTANT:
    def indented():
        return "kept"
Human: 🚀 Human and AI too
AI: done.
"""

NAMED = """Alice: Did you see the 🌧 forecast?
Bob: Yes.
  It said rain all week.

Alice: Ugh.
Dr. Chen: Bring an umbrella.
"""

PROSE = """Meeting notes

Note: the deadline moved.
We discussed the roadmap at length and agreed on three things.
The first is that everything ships in March.
The second concerns testing, which needs more people.
Warning: staging is down.
The third is hiring.
Everyone agreed to meet again next week.
"""

QUOTES_IN_LABELLED = """User: quote something
Assistant: Here:
> first quote

And:
> second quote
User: thanks
Assistant: welcome
"""

CRLF = "User: hi there\r\n\r\nAssistant: line one\r\n  line two\r\n"

FIXTURES = {"quoted.md": QUOTED, "terminal.txt": TERMINAL, "labelled.md": LABELLED, "named.txt": NAMED,
            "prose.txt": PROSE, "mixed.md": QUOTES_IN_LABELLED, "crlf.txt": CRLF}


def source(tmp_path: Path, name: str, text: str) -> Source:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return Source.from_path(path)


def parse_one(tmp_path: Path, name: str, text: str) -> Conversation:
    (convo,) = plain_text.parse(source(tmp_path, name, text))
    return convo


def turns(convo: Conversation) -> list[tuple[str, str, str]]:
    return [(m.speaker, m.role, m.text) for m in convo.messages]


def assert_verbatim(text: str, convo: Conversation, chrome: str = "") -> None:
    """Message texts occur in `text` in order without overlap; all else is labels, whitespace or
    whole lines of terminal `chrome` (a pattern)."""
    labels = {">", "❯", "●"}
    for speaker in convo.speakers:
        labels |= {f"{speaker}:", f"**{speaker}:**", f"**{speaker}**:"}
    pieces = [r"\s", *map(re.escape, labels), *([f"(?m:^{chrome}$)"] if chrome else [])]
    leftover = re.compile(f"(?:{'|'.join(pieces)})*", re.IGNORECASE)
    position = 0
    for message in convo.messages:
        assert message.text and message.verbatim and message.text == message.text.rstrip()
        found = text.find(message.text, position)
        assert found >= 0, f"not in the source after offset {position}: {message.text[:60]!r}"
        assert leftover.fullmatch(text[position:found]), f"text left out: {text[position:found]!r}"
        position = found + len(message.text)
    assert leftover.fullmatch(text[position:]), f"text left out at the end: {text[position:]!r}"


@pytest.mark.parametrize("name", FIXTURES)
def test_verbatim_rule_on_every_fixture(tmp_path: Path, name: str) -> None:
    assert_verbatim(FIXTURES[name], parse_one(tmp_path, name, FIXTURES[name]))


def test_verbatim_rule_on_the_shared_terminal_capture() -> None:
    if not TERMINAL_SAMPLE.exists():
        pytest.skip(f"shared sample {TERMINAL_SAMPLE} is absent (see /work/shared/README.md)")
    sample = Source.from_path(TERMINAL_SAMPLE)
    (convo,) = plain_text.parse(sample)
    text = sample.read_text()
    box = text.index("\n❯\xa0Try") - 1  # the input box: its rule, prompt, rule and status lines, to the end
    box = text.rindex("\n", 0, box) + 1
    assert_verbatim(text[:box], convo, chrome=r"[ \t]*[\u2580-\u259f][^\n]*|─{20,}")  # banner art, rules
    assert convo.messages[-1].text == "/model"


def test_shared_terminal_capture_turns() -> None:
    if not TERMINAL_SAMPLE.exists():
        pytest.skip(f"shared sample {TERMINAL_SAMPLE} is absent (see /work/shared/README.md)")
    sample = Source.from_path(TERMINAL_SAMPLE)
    assert plain_text.accept(sample)
    (convo,) = plain_text.parse(sample)
    stem = "spotter_short.terminal.stripped"
    assert convo.title == stem and convo.id is None
    assert convo.speakers == ("User", "Assistant")  # the text before the first turn has no speaker
    got = turns(convo)
    assert [role for _, role, _ in got] == ["other", "user", "user", "assistant", "assistant", "user"]
    assert got[0][2].startswith("claude --resume 55604662") and got[0][2].endswith("v1.19.2 (OTP 28)")
    assert got[1][2] == "claude --resume 55604662-cf2a-4331-851a-ec234028f8ca --dangerously-skip-permissions"
    assert not any("▐▛███▜▌" in text or "────" in text for _, _, text in got)  # the banner and rules: no one's words
    assert convo.place == "spotter"  # the folder the banner shows
    assert got[2:6] == [
        ("User", "user", "mix phx.server doesnt seem to start"),
        ("Assistant", "assistant", "Let me check the project structure and try running the server to see the error."),
        ("Assistant", "assistant", "Searched for 1 pattern (ctrl+o to expand)"),
        ("User", "user", "/model"),
    ]
    # The empty input box ("❯" + no-break space + placeholder) and the status under it: screen furniture
    assert not any("Try \"edit CLAUDE.md" in text or "bypass permissions" in text for _, _, text in got)


def test_quoted_turns(tmp_path: Path) -> None:
    convo = parse_one(tmp_path, "quoted.md", QUOTED)
    assert convo.title == "Debugging session ✨"
    assert turns(convo) == [
        ("", "other", "# Debugging session ✨"),
        ("User", "user", "Why does this fail?\n> It's the `parse` step:\n>\n>     indented = True"),
        ("Assistant", "assistant", "Because `parse` expects UTF-8 — ünïcode ✓ 日本語.\n\n```text\n"
                                   "> not a prompt inside a fence\nUser: not a label either\n```\n\n\n"
                                   "    indented reply line"),
        ("User", "user", "Thanks!"),
        ("Assistant", "assistant", "Glad to help."),
    ]


def test_terminal_prompts_and_bullets(tmp_path: Path) -> None:
    assert turns(parse_one(tmp_path, "terminal.txt", TERMINAL)) == [
        ("User", "user", "first prompt\n  wrapped second line"),
        ("Assistant", "assistant", "Reply one.\n  continued"),
        ("Assistant", "assistant", "Bash(ls)\n  ⎿  a.txt"),
        ("User", "user", "second"),
        ("Assistant", "assistant", "ok"),
    ]


def test_role_labels(tmp_path: Path) -> None:
    convo = parse_one(tmp_path, "labelled.md", LABELLED)
    assert turns(convo) == [
        ("User", "user", "Can you fix   this?\n\n  It has two spaces of indent."),
        ("Assistant", "assistant", "Sure — here's the fix:\n\n```js\nUser: this line is code, not a label\n"
                                   "const x = 1;\n```"),
        ("User", "user", "lower-case labels count too"),
        ("Assistant", "assistant", '    def indented():\n        return "kept"'),
        ("Human", "user", "🚀 Human and AI too"),
        ("AI", "assistant", "done."),
    ]
    assert convo.title == "labelled"


def test_role_labels_win_over_a_few_quotes_in_replies(tmp_path: Path) -> None:
    convo = parse_one(tmp_path, "mixed.md", QUOTES_IN_LABELLED)
    assert [m.role for m in convo.messages] == ["user", "assistant", "user", "assistant"]
    assert convo.messages[1].text == "Here:\n> first quote\n\nAnd:\n> second quote"


def test_crlf_line_ends_stay_inside_messages(tmp_path: Path) -> None:
    assert turns(parse_one(tmp_path, "crlf.txt", CRLF)) == [
        ("User", "user", "hi there"), ("Assistant", "assistant", "line one\r\n  line two")]


def test_generic_speakers(tmp_path: Path) -> None:
    assert turns(parse_one(tmp_path, "named.txt", NAMED)) == [
        ("Alice", "other", "Did you see the 🌧 forecast?"),
        ("Bob", "other", "Yes.\n  It said rain all week."),
        ("Alice", "other", "Ugh."),
        ("Dr. Chen", "other", "Bring an umbrella."),
    ]


def test_prose_with_an_occasional_label_is_one_message(tmp_path: Path) -> None:
    convo = parse_one(tmp_path, "prose.txt", PROSE)
    assert turns(convo) == [("", "other", PROSE.strip())]  # unlabelled: no speaker, so a rename changes nothing


def test_github_admonitions_are_not_user_turns(tmp_path: Path) -> None:
    text = "# Setup\n\n> [!NOTE]\n> Needs Python 3.11.\n\nRun it.\n\n> [!WARNING]\n> Back up first.\n"
    assert turns(parse_one(tmp_path, "README.md", text)) == [("", "other", text.strip())]


@pytest.mark.parametrize("text", ["Alice: one\nAlice: two\n", "MAX_SIZE: int = 3\nMIN_SIZE: int = 1\n"])
def test_one_speaker_or_constants_are_not_a_conversation(tmp_path: Path, text: str) -> None:
    assert turns(parse_one(tmp_path, "solo", text)) == [("", "other", text.strip())]


def test_empty_file_has_no_conversation(tmp_path: Path) -> None:
    assert plain_text.parse(source(tmp_path, "empty.txt", " \n\n")) == []


def test_non_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("café\n".encode("latin-1"))
    assert not plain_text.accept(Source.from_path(path))
    with pytest.raises(SourceRefusedError, match="line 1: not UTF-8"):
        plain_text.parse(Source.from_path(path))


def test_accepts_text_files_only(tmp_path: Path) -> None:
    for name, text in (("chat.md", "# hi"), ("chat.markdown", "x"), ("run.log", "x"), ("NOTES", "x"),
                       ("badges.md", "[![build](b.svg)](ci)\n"), ("empty.txt", "")):
        assert plain_text.accept(Source.from_bytes(text.encode(), name)), name
    # A multi-byte character cut at the end of the head is still UTF-8.
    assert plain_text.accept(Source.from_bytes(("a" * 65535 + "é").encode(), "long.txt"))
    for name, text in (("x.json", "hello"), ("x.jsonl", "hello"), ("x.txt", CHATGPT), ("x.txt", CLAUDE_AI),
                       ("x.md", '\ufeff  {"a": 1}'), ("x.txt", "[\n  1, 2]"), ("x.pdf", "text")):
        assert not plain_text.accept(Source.from_bytes(text.encode(), name)), (name, text)
    assert not plain_text.accept(Source.from_bytes(b"bin\x00ary", "blob"))
    assert not plain_text.accept(Source.from_path(tmp_path))


@pytest.mark.parametrize("other", ["claude_code/spotter_short.jsonl", "codex_cli/daaain_rollout_synthetic.jsonl",
                                   "gemini_cli/polylogue_gemini-cli-session.json"])
def test_rejects_the_other_formats_samples(other: str) -> None:
    path = SHARED / other
    if not path.exists():
        pytest.skip(f"shared sample {path} is absent (see /work/shared/README.md)")
    assert not plain_text.accept(Source.from_path(path))


DATED = "# Session 3\nDate: 1:56 pm on 8 May, 2023\n\nCaroline: I went to a support group yesterday.\nMelanie: How was it?\n"


def test_a_date_header_dates_the_conversation_and_is_not_a_speaker(tmp_path: Path) -> None:
    convo = parse_one(tmp_path, "dated.txt", DATED)
    assert turns(convo) == [
        ("", "other", "# Session 3\nDate: 1:56 pm on 8 May, 2023"),
        ("Caroline", "other", "I went to a support group yesterday."),
        ("Melanie", "other", "How was it?"),
    ]
    assert convo.speakers == ("Caroline", "Melanie") and convo.started == "2023-05-08T13:56:00Z"
    assert_verbatim(DATED, convo)


@pytest.mark.parametrize(("value", "started"), [
    ("2026-01-20", "2026-01-20T00:00:00Z"), ("May 8, 2023", "2023-05-08T00:00:00Z"),
    ("8th May 2023 10:05", "2023-05-08T10:05:00Z"), ("12:30 am on 1 Jan, 2024", "2024-01-01T00:30:00Z"),
    ("sometime last spring", None), ("31 Feb 2023", None), ("2023", None), ("20230508", None),
    ("90:00 on 8 May 2023", "2023-05-08T00:00:00Z"), ("2026-01-20T10:00:00+02:00", "2026-01-20T08:00:00Z"),
])
def test_date_header_values(tmp_path: Path, value: str, started: str | None) -> None:
    convo = parse_one(tmp_path, "d.txt", f"Date: {value}\n\nAna: hi\nBen: hello\n")
    assert convo.started == started and convo.speakers == ("Ana", "Ben")


def test_a_date_inside_code_is_not_a_header(tmp_path: Path) -> None:
    text = "```\nDate: 8 May 2023\n```\n\nAna: what does this log line mean?\nBen: it is a header.\n"
    assert parse_one(tmp_path, "code.txt", text).started is None


def test_terminal_chrome_is_no_ones_words_but_art_and_tables_in_a_reply_stay(tmp_path: Path) -> None:
    text = ("╭─ shell ─╮\n❯ show the load\n\n● Load by hour:\n▇▇▇▇ 40%\n▇▇ 20%\n┌────┬────┐\n│ a  │ b  │\n└────┴────┘\n"
            + "─" * 300 + "\nand the rest of the reply\n\n❯ thanks\n")
    convo = parse_one(tmp_path, "capture.txt", text)
    assert turns(convo)[1:] == [
        ("User", "user", "show the load"),
        ("Assistant", "assistant", "Load by hour:\n▇▇▇▇ 40%\n▇▇ 20%\n┌────┬────┐\n│ a  │ b  │\n└────┴────┘"),
        ("Assistant", "assistant", "and the rest of the reply"),  # after a rule line, the reply goes on
        ("User", "user", "thanks"),
    ]
    assert convo.place is None  # no banner names a folder


@pytest.mark.parametrize(("header", "started"), [
    ("日期：2025年3月1日", "2025-03-01T00:00:00Z"), ("日付: 2025年3月1日 10:30", "2025-03-01T10:30:00Z"),
    ("Fecha: sábado, 1 de marzo de 2025", "2025-03-01T00:00:00Z"), ("Дата: 1 марта 2025 г.", "2025-03-01T00:00:00Z"),
    ("Datum: 1. März 2025", "2025-03-01T00:00:00Z"), ("Date : 1er mars 2025", "2025-03-01T00:00:00Z"),
    ("Date: 12 décembre 2024", "2024-12-12T00:00:00Z"), ("Fecha: 30 de febrero de 2025", None),
    ("日期：下周六", None),  # a relative day has no day to count from: as `Date: next Saturday` is not read
])
def test_a_date_header_written_the_local_way_dates_the_conversation(tmp_path: Path, header: str,
                                                                  started: str | None) -> None:
    convo = parse_one(tmp_path, "d.txt", f"{header}\n\nAna: hola\nBen: 你好\n")
    assert convo.started == started and convo.speakers == ("Ana", "Ben")
