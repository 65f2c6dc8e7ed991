"""The core promise of ingest: every character of every message's text is in some drawer, unchanged.

For each verbatim message, the spans of `chunk_conversation` cover `[0, len(text))` contiguously and in
order, and each drawer's text is exactly its labels, gaps and those verbatim pieces. Proved on synthetic
conversations full of awkward text, on the shared sample transcripts, and end to end through a palace
(the stored drawer texts alone rebuild every message).
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import defaultdict
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from mempalace.formats.registry import parse
from mempalace.formats.base import Conversation, Message, Source
from mempalace.ingest import ingest
from mempalace.text.drawer_chunks import MESSAGE_GAP, Chunk, Span, chunk_conversation, read_through, without_cut_labels

from _shared import TRANSCRIPTS
TARGETS = (200, 800, 2000)


# -- helpers: the properties, written from the spec rather than from the implementation -----------------


def user(text: str, speaker: str = "User") -> Message:
    return Message(speaker, "user", text)


def assistant(text: str, speaker: str = "Assistant") -> Message:
    return Message(speaker, "assistant", text)


def tool(text: str, verbatim: bool = False) -> Message:
    return Message("Tool", "tool", text, verbatim=verbatim)


def conv(*messages: Message) -> Conversation:
    return Conversation(tuple(messages))


def _open_fence(before: str, after: str) -> str | None:
    """The fence a Markdown parser (markdown-it, CommonMark) has open where a cut falls (`before` the
    message's text up to it, `after` the rest), as the fence line to reopen (its info string only if a
    language name), ChatGPT's private-use marks set aside: a probe line, indented like the line the cut
    starts on (the next with text), follows `before` and is looked for in the fences of that text alone."""
    next_text = next((line for line in after.split("\n") if line.strip()), "")
    probe = next_text[: len(next_text) - len(next_text.lstrip(" \t"))] + "zzprobezz"
    text = re.sub("[\ue000-\uf8ff]", "", before)
    text = text + ("" if text.endswith("\n") else "\n") + probe
    for token in MarkdownIt("commonmark").parse(text):
        if token.type == "fence" and "zzprobezz" in token.content:
            info = token.info.strip()
            return token.markup + (info if re.fullmatch(r"[\w.+#-]{1,40}", info) else "")
    return None


def _label(message: Message, continued: bool, before: str = "", after: str = "") -> str:
    """The label before a piece of `message`; `before` and `after` are the message's text before and
    from the piece (a piece inside a fenced code block says so and reopens the fence on a line of its own)."""
    if message.role == "tool" or not message.speaker:
        return ""
    fence = _open_fence(before, after) if continued else None
    if fence:
        return f"{message.speaker} (continued, in a code block):\n{fence}\n"
    return f"{message.speaker} (continued): " if continued else f"{message.speaker}: "


def _gap(previous: Message, message: Message) -> str:
    return "\n" if previous.role == message.role == "tool" else "\n\n"


def assert_verbatim(conversation: Conversation, chunks: list[Chunk]) -> dict[int, list[tuple[int, Span]]]:
    """Every verbatim message's text is covered by its spans, contiguously and in order, and each
    drawer contains its spans' text exactly, in span order. Returns {message: [(drawer, span)]}."""
    messages = conversation.messages
    placed: dict[int, list[tuple[int, Span]]] = defaultdict(list)
    for number, chunk in enumerate(chunks):
        assert chunk.spans, f"drawer {number} carries no message text: {chunk.content[:80]!r}"
        cursor = 0
        for span in chunk.spans:
            assert 0 <= span.message < len(messages), f"drawer {number}: span of unknown message {span}"
            text = messages[span.message].text
            assert 0 <= span.start < span.end <= len(text), f"drawer {number}: bad span {span} (len {len(text)})"
            piece = text[span.start : span.end]
            found = chunk.content.find(piece, cursor)
            assert found >= 0, (
                f"drawer {number}: characters {span.start}:{span.end} of message {span.message} are not in it "
                f"(in order, unchanged): {piece[:60]!r}"
            )
            cursor = found + len(piece)
            placed[span.message].append((number, span))
    for index, message in enumerate(messages):
        if not message.verbatim:
            continue
        covered = 0
        for number, span in placed.get(index, []):
            assert span.start == covered, (
                f"message {index}: drawer {number} resumes at {span.start}, expected {covered} "
                f"({'gap' if span.start > covered else 'overlap'})"
            )
            covered = span.end
        assert covered == len(message.text), f"message {index}: only {covered} of {len(message.text)} characters filed"
    return placed


def assert_layout(conversation: Conversation, chunks: list[Chunk]) -> None:
    """A drawer is nothing but its pieces, each after `Speaker: ` (or `Speaker (continued): ` for a
    later piece of a split message; tool text has no label), separated by a blank line (a single line
    break between consecutive tool lines). No character is added, dropped or changed."""
    for number, chunk in enumerate(chunks):
        expected, previous = [], None
        for span in chunk.spans:
            message = conversation.messages[span.message]
            if previous is not None:
                expected.append(_gap(previous, message))
            expected.append(_label(message, span.start > 0, message.text[: span.start], message.text[span.start:]) + message.text[span.start : span.end])
            previous = message
        assert chunk.content == "".join(expected), f"drawer {number} is not labels + verbatim text"


def rebuild(conversation: Conversation, chunks: list[Chunk], stored: list[str]) -> dict[int, str]:
    """Each message's text read back out of the stored drawer texts, using only the spans' positions
    and lengths and the speakers' labels (never the original text)."""
    texts: dict[int, str] = defaultdict(str)
    for number, (chunk, content) in enumerate(zip(chunks, stored)):
        cursor, previous = 0, None
        for span in chunk.spans:
            message = conversation.messages[span.message]
            lead = (_gap(previous, message) if previous else "") + _label(message, span.start > 0, message.text[: span.start], message.text[span.start:])
            assert content.startswith(lead, cursor), f"drawer {number}: expected {lead!r} at {cursor}"
            cursor += len(lead)
            texts[span.message] += content[cursor : cursor + span.end - span.start]
            cursor += span.end - span.start
            previous = message
        assert cursor == len(content), f"drawer {number} has {len(content) - cursor} unexplained trailing characters"
    return texts


def assert_split_at_whitespace(conversation: Conversation, placed: dict[int, list[tuple[int, Span]]]) -> None:
    """Where a message is split between pieces, the character before the cut is whitespace: never mid-word,
    never between a letter and its combining accent, never inside an emoji sequence."""
    for index, spans in placed.items():
        text = conversation.messages[index].text
        for _, span in spans[:-1]:
            cut = span.end
            assert text[cut - 1].isspace(), f"message {index} cut mid-word at {cut}: {text[cut - 15 : cut + 15]!r}"
            assert not unicodedata.combining(text[cut]), f"message {index}: combining mark orphaned at {cut}"


def assert_lines_whole(conversation: Conversation, placed: dict[int, list[tuple[int, Span]]], target: int) -> None:
    """Every line of a message that is shorter than half a drawer sits whole in one drawer, its indentation
    included; and no cut ever falls inside a line's leading whitespace (a cut at a line break leaves
    the line's indentation at the start of the next drawer)."""
    for index, spans in placed.items():
        text = conversation.messages[index].text
        starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        for start, end in zip(starts, [*starts[1:], len(text) + 1]):
            line = text[start : end - 1] if end <= len(text) else text[start:]
            if line.strip() and len(line) <= (target - 60) // 2:
                assert any(s.start <= start and start + len(line) <= s.end for _, s in spans), (
                    f"message {index}: line {line[:40]!r} is cut between drawers")
        for _, span in spans[:-1]:
            line_start = text.rfind("\n", 0, span.end) + 1
            assert span.end == line_start or text[line_start : span.end].strip(), (
                f"message {index}: a cut at {span.end} leaves {text[line_start:span.end]!r} of the next line's "
                "indentation behind")


def _runs(text: str) -> list[str]:
    return re.findall(r"\S+|\s+", text)


def assert_sizes(chunks: list[Chunk], target: int) -> None:
    """No drawer over 1.5 × target unless an unsplittable run forces it: a word (or a whitespace run, which
    cannot be cut off without making a whitespace-only drawer) longer than half the target."""
    for number, chunk in enumerate(chunks):
        size = len(chunk.content)
        if size <= target * 3 // 2:
            continue
        forced = sum(len(run) for run in _runs(chunk.content) if len(run) > target // 2)
        assert size - forced <= target * 3 // 2, (
            f"drawer {number} has {size} characters (target {target}) and no overlong word explains it"
        )


def exchanges(messages: tuple[Message, ...]) -> list[list[int]]:
    """A user turn and the replies after it; in a conversation without user *and* assistant turns (a group
    chat), each non-tool message with the tool lines after it. Empty messages belong to none."""
    conversational = any(m.role == "user" for m in messages) and any(m.role == "assistant" for m in messages)
    units: list[list[int]] = []
    for index, message in enumerate(messages):
        if not message.text:
            continue
        starts = message.role == "user" if conversational else message.role != "tool"
        if starts or not units:
            units.append([index])
        else:
            units[-1].append(index)
    return units


def exchange_size(messages: tuple[Message, ...], unit: list[int]) -> int:
    size = sum(len(_label(messages[i], False)) + len(messages[i].text) for i in unit)
    return size + sum(len(_gap(messages[a], messages[b])) for a, b in zip(unit, unit[1:]))


def assert_exchanges_kept_whole(conversation: Conversation, placed: dict[int, list[tuple[int, Span]]],
                                target: int) -> None:
    """An exchange that fits about one drawer (≤ 1.5 × target rendered) is in exactly one drawer, whole."""
    messages = conversation.messages
    for unit in exchanges(messages):
        if exchange_size(messages, unit) > target * 3 // 2:
            continue
        drawers = {number for i in unit for number, _ in placed[i]}
        assert len(drawers) == 1, f"exchange {unit} ({exchange_size(messages, unit)} chars) split over {drawers}"
        assert all(len(placed[i]) == 1 for i in unit), f"a message of exchange {unit} was split"


def check_all(conversation: Conversation, target: int) -> list[Chunk]:
    chunks = chunk_conversation(conversation, target)
    placed = assert_verbatim(conversation, chunks)
    assert_layout(conversation, chunks)
    assert_split_at_whitespace(conversation, placed)
    assert_lines_whole(conversation, placed, target)
    assert_sizes(chunks, target)
    assert_exchanges_kept_whole(conversation, placed, target)
    assert chunk_conversation(conversation, target) == chunks, "chunking is not deterministic"
    return chunks


# -- synthetic text ------------------------------------------------------------------------------------

UNICODE = (
    "Emoji 👩‍💻🚀🇺🇦 👍🏽 and ❤️‍🔥; CJK 日本語のテキストです。中文文本，한국어 텍스트; combining e\u0301clair "
    "a\u0308 n\u0303 Z\u0351\u0344a\u0306l\u0313g\u0352o; RTL עברית \u200fומרחב\u200f and مرحبا بالعالم; "
    "NBSP\u00a0here, zero\u200bwidth, ideographic\u3000space, surrogate-free 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓."
)
CODE = (
    "Here is the fix:\n\n```python\ndef login(user):\n    if not user:\n\treturn None  \n"
    "    token = issue(user)   \n\n\n    return token\n```\n\nAnd the shell:\n\n```\n$ make test\t# tab\n```"
)
# ChatGPT puts its private-use citation marks around a fence: the fence is one all the same
CHATGPT_CODE = ("Use the Gmail API like this:\n\n\ue203```xml\n<scope>https://mail.google.com/</scope>\n"
                "<client id=\"x\"/>\n```\ue204\n\n" + "Then ask for consent and keep the refresh token. " * 40
                + "\n\n\ue203```python\nservice = build('gmail', 'v1')\n```\ue204\n\nThat is all.")
LISTED_CODE = "1. Install it:\n   ```bash\n" + "   pip install thing  # step\n" * 60 + "   ```\n2. Run it.\n"
CRLF = "first line\r\nsecond line\r\n\r\n  indented after blank\r\n\ttabbed\r\nlast   \r\n"
TRAILING = "line with trailing spaces   \nline with trailing tab\t\n\n\n   \n\nafter blank lines  "
WORDS = ("auth migration token the a of OAuth naïve café e\u0301clair 日本語 中文 한국어 עברית مرحبا 👩‍💻 🚀 "
         "re-use don't x y z login session client server").split()


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(3, 18))]
    return " ".join(words).capitalize() + rng.choice([".", "!", "?", "。", "…", ":", ""])


def paragraph(rng: random.Random, size: int) -> str:
    out = []
    while sum(map(len, out)) < size:
        out.append(sentence(rng) + rng.choice([" ", " ", "  ", "\n", "\t"]))
    return "".join(out).rstrip()


def long_text(rng: random.Random, size: int) -> str:
    out = []
    while sum(map(len, out)) < size:
        out.append(paragraph(rng, rng.randint(300, 2500)) + rng.choice(["\n\n", "\n\n\n", "\r\n\r\n", "\n  \n"]))
    return "".join(out)


def awkward(rng: random.Random) -> str:
    kind = rng.randrange(12)
    if kind == 0:
        return UNICODE
    if kind == 1:
        return CODE
    if kind == 2:
        return CRLF
    if kind == 3:
        return TRAILING
    if kind == 4:
        return long_text(rng, 10_000)
    if kind == 5:
        return f"before {'w' * 3000} after"
    if kind == 6:
        return " " * rng.randint(1, 50) + paragraph(rng, rng.randint(20, 1500))
    if kind == 7:
        return "\n" * rng.randint(1, 5) + "\t" + paragraph(rng, rng.randint(20, 900))
    if kind == 8:
        return rng.choice([" ", "   \n", "\t\t", "\n\n"])  # only whitespace
    if kind == 9:
        return ""  # an empty message files nothing and breaks nothing
    return paragraph(rng, rng.choice([10, 80, 300, 700, 1200, 2500]))


def random_conversation(seed: int, group_chat: bool = False) -> Conversation:
    rng = random.Random(seed)
    messages = []
    for _ in range(rng.randint(1, 14)):
        if group_chat:
            messages.append(Message(rng.choice(["Zoë", "李雷", "Ahmad", "o'brien"]), "other", awkward(rng)))
            continue
        role = rng.choice(["user", "assistant", "assistant", "tool"])
        if role == "tool":
            messages.append(tool(awkward(rng), verbatim=rng.random() < 0.5))
        else:
            messages.append(Message(rng.choice(["User", "Assistant", "Zoë"]), role, awkward(rng)))
    return Conversation(tuple(messages))


# -- (a) synthetic conversations -----------------------------------------------------------------------

NAMED = {
    "unicode": conv(user(UNICODE), assistant(UNICODE * 3, speaker="Zoë"), user("短い。"), assistant(UNICODE * 20)),
    "code_and_indentation": conv(user("    indented question\n\tand a tab"), assistant(CODE), assistant(CODE * 8)),
    "trailing_spaces_and_blank_lines": conv(user(TRAILING), assistant("\n\n\n" + TRAILING * 40 + "\n\n")),
    "chatgpt_marked_fences": conv(user("gmail api?"), assistant(CHATGPT_CODE * 3, speaker="ChatGPT")),
    "fence_in_a_list": conv(user("how?"), assistant(LISTED_CODE * 2)),
    "crlf": conv(user(CRLF), assistant(CRLF * 60)),
    "ten_thousand_chars": conv(user("Summarise this:"), assistant(long_text(random.Random(1), 10_000))),
    "one_paragraph_of_ten_thousand": conv(user(paragraph(random.Random(2), 10_000))),
    "single_3000_char_word": conv(user("x" * 3000), assistant(f"see {'y' * 3000} and {'z' * 3000} end")),
    "single_3000_char_cjk_run": conv(user("日本語" * 1000)),
    "whitespace_prefixed": conv(user("   leading spaces"), assistant("\n\n\t" + paragraph(random.Random(3), 3000)),
                                user(" " * 2000 + paragraph(random.Random(4), 3000)), assistant("\n" * 700 + "x")),
    "whitespace_only_messages": conv(user("   "), assistant("\n\n"), user("real question?"), assistant("\t")),
    "empty_messages": conv(user(""), assistant("only this"), user(""), assistant("")),
    "tools": conv(user("run the tests"), tool("→ Bash: pytest -q"), tool("← result: 3 passed", verbatim=True),
                  assistant("All green."), tool("→ Read: " + "/very/long/path " * 200)),
    "group_chat": conv(*[Message(n, "other", paragraph(random.Random(i), 40 + 137 * i))
                         for i, n in enumerate(["Zoë", "李雷", "Ahmad"] * 6)]),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(NAMED))
def test_synthetic_conversations_are_filed_verbatim(name: str, target: int) -> None:
    check_all(NAMED[name], target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("seed", range(40))
def test_random_conversations_are_filed_verbatim(seed: int, target: int) -> None:
    check_all(random_conversation(seed, group_chat=seed % 5 == 0), target)


def test_a_10000_char_message_becomes_drawers_of_about_the_target_size() -> None:
    text = long_text(random.Random(7), 10_000)
    chunks = check_all(conv(user("go"), assistant(text)), 800)
    assert 10 <= len(chunks) <= 30, [len(c.content) for c in chunks]
    assert all(200 <= len(c.content) <= 1200 for c in chunks[:-1]), [len(c.content) for c in chunks]


def test_a_3000_char_word_is_kept_whole_in_one_drawer() -> None:
    word = "ab" * 1500
    chunks = check_all(conv(user(f"{paragraph(random.Random(8), 600)} {word} {paragraph(random.Random(9), 600)}")), 800)
    assert sum(word in c.content for c in chunks) == 1


def test_labels_precede_message_text_and_tool_lines_have_none() -> None:
    chunks = chunk_conversation(conv(user("run it"), tool("→ Bash: ls"), tool("← result: README"),
                                     assistant("Done.", speaker="Claude")), 800)
    assert [c.content for c in chunks] == ["User: run it\n\n→ Bash: ls\n← result: README\n\nClaude: Done."]


def test_later_pieces_of_a_split_message_say_continued() -> None:
    text = "\n\n".join(paragraph(random.Random(i), 500) for i in range(6))
    chunks = check_all(conv(assistant(text, speaker="Zoë")), 800)
    assert len(chunks) > 1
    assert chunks[0].content.startswith("Zoë: ")
    assert all(c.content.startswith("Zoë (continued): ") for c in chunks[1:])


def test_exchanges_that_fit_stay_together_and_drawers_are_packed() -> None:
    rng = random.Random(10)
    messages = []
    for _ in range(30):
        messages += [user(paragraph(rng, rng.randint(20, 200))), assistant(paragraph(rng, rng.randint(50, 400)))]
    conversation = Conversation(tuple(messages))
    chunks = check_all(conversation, 800)
    largest = max(exchange_size(conversation.messages, u) for u in exchanges(conversation.messages))
    assert largest <= 800
    # greedy packing: a drawer was closed only because the next exchange did not fit in it
    assert all(len(c.content) > 800 - largest - 2 for c in chunks[:-1]), [len(c.content) for c in chunks]
    for chunk in chunks:  # drawers start at a user turn, never in the middle of an exchange
        assert conversation.messages[chunk.spans[0].message].role == "user"


def test_an_exchange_too_big_for_one_drawer_is_packed_message_by_message() -> None:
    conversation = conv(user("short question"), assistant(paragraph(random.Random(11), 700)),
                        assistant(paragraph(random.Random(12), 700)))
    chunks = check_all(conversation, 800)
    assert len(chunks) == 2
    assert chunks[0].content.startswith("User: short question\n\nAssistant: ")


# -- prefix stability: a conversation that grows keeps its earlier drawers ----------------------------------


def assert_prefix_stable(messages: list[Message], prefixes: list[int], target: int) -> None:
    full = chunk_conversation(Conversation(tuple(messages)), target)
    for k in prefixes:
        shorter = chunk_conversation(Conversation(tuple(messages[:k])), target)
        kept = shorter[:-1]
        assert kept == full[: len(kept)], (
            f"after appending messages {k}..{len(messages) - 1}, drawer "
            f"{next((i for i, (a, b) in enumerate(zip(kept, full)) if a != b), len(full))} of the first {k} messages changed"
        )


def growing_conversation(seed: int, replies: int) -> list[Message]:
    rng = random.Random(seed)
    messages = []
    for _ in range(6):
        messages.append(user(paragraph(rng, rng.choice([50, 300, 900, 1500]))))
        for _ in range(replies):
            messages.append(assistant(paragraph(rng, rng.choice([50, 300, 900, 1500]))))
    return messages


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("seed", range(20))
def test_appending_whole_exchanges_keeps_earlier_drawers(seed: int, target: int) -> None:
    messages = growing_conversation(seed, replies=1 + seed % 3)
    starts = [i for i, m in enumerate(messages) if m.role == "user"][1:]
    assert_prefix_stable(messages, starts, target)


def test_appending_to_a_group_chat_keeps_earlier_drawers() -> None:
    messages = list(NAMED["group_chat"].messages)
    assert_prefix_stable(messages, list(range(1, len(messages))), 200)


def assert_regrowth_replaces_cleanly(messages: list[Message], prefixes: list[int], target: int) -> None:
    """Ingest replaces a stored drawer of a grown conversation when, read `without_cut_labels`, it is
    inside the new drawers read end to end; every drawer of a shorter version must be kept or so replaced."""
    full = chunk_conversation(Conversation(tuple(messages)), target)
    kept, speakers = {c.content for c in full}, list(Conversation(tuple(messages)).speakers)
    joined = without_cut_labels(MESSAGE_GAP.join(c.content for c in full), speakers)
    for k in prefixes:
        for chunk in chunk_conversation(Conversation(tuple(messages[:k])), target):
            bare = without_cut_labels(chunk.content, speakers)
            assert chunk.content in kept or bare in joined, f"prefix {k}: {chunk.content[:80]!r} would stay twice"


def _words(n: int, word: str) -> str:
    return ((word + " ") * (n // (len(word) + 1) + 1))[:n].rstrip()


def test_a_reply_that_grows_the_last_exchange_is_replaced_cleanly() -> None:
    messages = [user(_words(700, "alpha")), user("hi"), assistant(_words(500, "beta")), assistant(_words(800, "gamma"))]
    assert_regrowth_replaces_cleanly(messages, [3], 800)  # before: ["User: alpha…"], ["User: hi … beta…"]


def test_a_first_reply_to_a_long_question_is_replaced_cleanly() -> None:
    messages = [user(_words(100, "alpha")), assistant(_words(100, "beta")),
                user(_words(450, "gamma") + "\n\n" + _words(500, "delta")), assistant(_words(600, "omega"))]
    assert_regrowth_replaces_cleanly(messages, [3], 800)


@pytest.mark.parametrize("target", [800])
def test_appending_messages_one_by_one_is_replaced_cleanly(target: int) -> None:
    for seed in range(40):
        for replies in (1, 2):
            messages = growing_conversation(seed, replies)
            assert_regrowth_replaces_cleanly(messages, list(range(1, len(messages))), target)


# -- (b) every shared sample transcript ---------------------------------------------------------------------


def _samples() -> list[Path]:
    if not TRANSCRIPTS.is_dir():
        return []
    return [source for folder in sorted(TRANSCRIPTS.iterdir()) if folder.is_dir() for source in sorted(folder.iterdir())]


SAMPLES = _samples()
NO_SAMPLES = pytest.mark.skip(reason=f"{TRANSCRIPTS} is absent: the shared sample transcripts are not on this machine")
SAMPLE_PARAMS = [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in SAMPLES] or [
    pytest.param(None, marks=NO_SAMPLES, id="no-samples")]


def _conversations(path: Path) -> list[Conversation]:
    _, conversations = parse(Source.from_path(path))
    assert conversations, f"{path} parsed to no conversations"
    return conversations


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", SAMPLE_PARAMS)
def test_sample_transcripts_are_filed_verbatim(path: Path, target: int) -> None:
    conversations = _conversations(path)
    assert any(m.verbatim and m.text for c in conversations for m in c.messages)
    for conversation in conversations:
        check_all(conversation, target)


@pytest.mark.parametrize("path", SAMPLE_PARAMS)
def test_sample_transcripts_grow_without_changing_earlier_drawers(path: Path) -> None:
    for conversation in _conversations(path):
        messages = list(conversation.messages)
        assert_prefix_stable(messages, list(range(1, len(messages))), 800)


# -- (c) end to end: the palace's stored drawers rebuild every message ----------------------------------------


def _stored_texts(palace, report, chunks: list[Chunk]) -> list[str]:
    """The stored text of each planned drawer, looked up among the drawers this ingest filed (by id in the
    catalog, then read back from the vector store by id)."""
    by_text = {d.content: d.id for d in palace.find_drawers(list(report.drawer_ids)).values()}
    missing = [n for n, c in enumerate(chunks) if c.content not in by_text]
    assert not missing, f"planned drawers {missing} are not in the palace"
    return [palace.get_drawer(by_text[c.content]).content for c in chunks]


@pytest.mark.parametrize("path", SAMPLE_PARAMS)
def test_ingested_samples_rebuild_every_message_from_stored_drawers(palace, path: Path) -> None:
    report = ingest(palace, path)
    assert not report.errors, report.errors
    assert report.added > 0
    target = palace.settings.ingest_drawer_chars
    planned = set()
    for conversation in _conversations(path):
        chunks = chunk_conversation(conversation, target)
        planned.update(c.content for c in chunks)
        texts = rebuild(conversation, chunks, _stored_texts(palace, report, chunks))
        for index, message in enumerate(conversation.messages):
            if message.verbatim:
                assert texts.get(index, "") == message.text, f"message {index} does not come back unchanged"
    filed = {d.content for d in palace.find_drawers(list(report.drawer_ids)).values()}
    assert filed == planned, "the palace holds drawers the chunker did not plan, or lacks some"
    assert len(report.drawer_ids) == len(planned)


def test_ingested_awkward_text_rebuilds_exactly(palace, tmp_path: Path) -> None:
    body = f"{UNICODE}\n\n{CODE}\n\n{TRAILING}\n\n{long_text(random.Random(5), 4000)}\n\n{'q' * 3000} end"
    path = tmp_path / "awkward.txt"
    path.write_bytes(f"User: please keep this exactly\nAssistant: {body}\n".encode("utf-8"))
    report = ingest(palace, path, wing="wing_awkward")
    assert not report.errors, report.errors
    (conversation,) = _conversations(path)
    assert conversation.messages[1].text.rstrip() == body.rstrip()
    chunks = chunk_conversation(conversation, palace.settings.ingest_drawer_chars)
    texts = rebuild(conversation, chunks, _stored_texts(palace, report, chunks))
    assert [texts[i] for i in range(len(conversation.messages))] == [m.text for m in conversation.messages]


def test_a_cut_at_a_line_break_leaves_the_indentation_with_its_line() -> None:
    items = "".join(f"  * Targeted by immigration enforcement, group {i} of the list\n" for i in range(40))
    reply = "These groups were named:\n\n" + items
    chunks = chunk_conversation(Conversation((Message("User", "user", "who?"), Message("ChatGPT", "assistant", reply))),
                                800)
    assert len(chunks) >= 3
    for chunk in chunks[1:]:
        assert chunk.content.startswith("ChatGPT (continued):   * Targeted by"), chunk.content[:60]
    for chunk in chunks[:-1]:
        assert chunk.content.endswith("of the list\n"), chunk.content[-40:]


def test_a_code_block_cut_in_two_is_reopened_and_labelled_in_the_next_drawer() -> None:
    body = "".join(f"def area_{i}(w, h):\n    \"\"\"The area.\n\n    Returns:\n        w * h\n    \"\"\"\n    return w * h\n\n"
                   for i in range(25))
    reply = f"Here is the module:\n\n```python\n{body}```\n\nEach function returns the area."
    conversation = Conversation((Message("User", "user", "write it"), Message("Claude", "assistant", reply)))
    chunks = chunk_conversation(conversation, 800)
    inside = [c.content for c in chunks[1:] if not c.content.startswith("Claude (continued): ")]
    assert len(inside) >= 2 and all(c.startswith("Claude (continued, in a code block):\n```python\n") for c in inside)
    assert all("\n    Returns:\n" in c or "Returns" not in c for c in inside)  # four spaces kept with their line
    assert chunks[-1].content.endswith("Each function returns the area.")
    assert read_through(chunks, conversation) == f"User: write it\n\nClaude: {reply}"  # labels are not message text


def test_a_fence_inside_chatgpt_citation_marks_closes_and_the_prose_after_it_is_not_code() -> None:
    conversation = conv(user("gmail api?"), assistant(CHATGPT_CODE * 3, speaker="ChatGPT"))
    chunks = chunk_conversation(conversation, 800)
    assert len(chunks) >= 4
    assert not any("in a code block" in chunk.content for chunk in chunks)  # every cut falls in prose
    assert all(chunk.content.startswith(("User: ", "ChatGPT (continued): ")) for chunk in chunks[1:])


def test_a_slack_code_block_is_reopened_without_repeating_its_first_line() -> None:
    log = "".join(f"I0327 01:48:{i:02d}.374078  1835 exec.cpp:132] Version: 0.28.0 step {i}\n" for i in range(40))
    text = f"```{log}```"  # Slack writes the first line right after the backticks: content, not a language
    chunks = chunk_conversation(Conversation((Message("Hermione Granger", "user", text),)), 800)
    assert len(chunks) >= 3
    assert all(c.content.startswith("Hermione Granger (continued, in a code block):\n```\nI0327") for c in chunks[1:])


def test_a_drawer_never_ends_with_the_fence_that_opens_the_next_drawers_code() -> None:
    prose = "".join(f"Step {i}: the reasoning before the code, one line of it.\n" for i in range(13))
    code = "".join(f"    total_{i} = add(total_{i - 1}, {i})  # keep a running sum\n" for i in range(30))
    reply = f"{prose}```python\n{code}```\nThat is all."
    conversation = Conversation((Message("User", "user", "sum it"), Message("Claude", "assistant", reply)))
    chunks = chunk_conversation(conversation, 800)
    assert len(chunks) >= 3
    assert not any(chunk.content.rstrip().endswith("```python") for chunk in chunks)
    assert any(chunk.content.startswith("Claude (continued): ```python\n    total_0") for chunk in chunks)
    assert read_through(chunks, conversation) == f"User: sum it\n\nClaude: {reply}"
