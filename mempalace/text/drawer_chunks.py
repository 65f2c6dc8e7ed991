"""Cut a conversation into drawers on message boundaries, keeping every character of every message.

The unit is an exchange: a user turn and the replies that follow (in a group chat, one message).
Exchanges are packed greedily up to about `target` characters; an exchange too big for one drawer
is packed message by message, and a message too big for one drawer is split by `split_verbatim`
at paragraph, line, sentence, then word boundaries (a line keeps its indentation); a blob (a long
run without spaces, see `mempalace.text.blobs`) is a piece of its own, cut only to fit the size limit.
Each message piece is written as `Speaker: text`, so a drawer reads like the conversation; a piece
that starts inside a fenced code block (as CommonMark reads the message, ChatGPT's private-use
marks around fences set aside) is labelled so and reopens the fence (the label is not message
text: the message's characters stay as they are). Tool lines are written as they are.
Greedy packing from the start keeps the cut points of a conversation that later grows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..formats.base import Conversation, Message
from ..text import blobs
from ..text.chunking import after_whitespace, code_fences, split_verbatim

MESSAGE_GAP = "\n\n"
TOOL_GAP = "\n"
IN_CODE = " (continued, in a code block):\n"  # after the speaker; the reopened fence's line follows
_FENCE_INFO = 40
_FENCE_MARKER = 10  # a longer fence (```````…) is not reopened: its label would repeat it in every piece
_LANGUAGE = re.compile(r"[\w.+#-]{1,%d}" % _FENCE_INFO)  # an info string a reopened fence repeats: a
# language name, not the first line of a Slack code block (```I0327 01:48 …), which is content
Fence = tuple[str, str]  # an open fenced code block's marker (``` or ~~~…) and language ("" if none)


@dataclass(frozen=True)
class Span:
    """Characters `start:end` of message `message` are in the drawer, unchanged."""

    message: int
    start: int
    end: int


@dataclass(frozen=True)
class Chunk:
    """The text of one planned drawer and which message text it carries."""

    content: str
    spans: tuple[Span, ...]


@dataclass(frozen=True)
class _Block:
    parts: tuple[tuple[Message, Span, str], ...]  # (message, span, the label written before it)

    def render(self, after: "_Block | None") -> str:
        out = []
        previous = after.parts[-1][0] if after else None
        for message, span, label in self.parts:
            if previous is not None:
                out.append(TOOL_GAP if message.role == previous.role == "tool" else MESSAGE_GAP)
            out.append(label + message.text[span.start : span.end])
            previous = message
        return "".join(out)


def chunk_conversation(conversation: Conversation, target: int = 800, limit: int = 100_000) -> list[Chunk]:
    """Drawers for one conversation, in order; their spans cover every message's text exactly once.

    No drawer exceeds `limit` characters: a single word longer than that is cut (the only cut inside a word).
    """
    blocks: list[_Block] = []
    for unit in _exchanges(conversation.messages):
        blocks.extend(_fit(unit, conversation.messages, target, limit))
    chunks: list[Chunk] = []
    current: list[_Block] = []
    length = 0
    for block in blocks:
        size = len(block.render(current[-1] if current else None))
        if current and length + size > target:
            chunks.append(_chunk(current))
            current, length = [], 0
            size = len(block.render(None))
        current.append(block)
        length += size
    if current:
        chunks.append(_chunk(current))
    return chunks


def read_through(chunks: list[Chunk], conversation: Conversation) -> str:
    """The drawers of a conversation joined as it reads, `without_cut_labels`: a shorter, older
    version's drawer, read the same way, is a substring of it."""
    messages = conversation.messages
    parts = []
    for before, chunk in zip([None, *chunks], chunks):
        if before is not None:
            tools = messages[before.spans[-1].message].role == messages[chunk.spans[0].message].role == "tool"
            parts.append(TOOL_GAP if tools else MESSAGE_GAP)
        parts.append(chunk.content)
    return without_cut_labels("".join(parts), list(conversation.speakers))


def prose(chunk: Chunk, conversation: Conversation, machines: bool = True) -> str:
    """The people's words in a drawer: its message text without labels and tool lines (and without the
    posts of bots and integrations unless `machines`)."""
    return MESSAGE_GAP.join(conversation.messages[s.message].text[s.start : s.end] for s in chunk.spans
                            if conversation.messages[s.message].role != "tool"
                            and (machines or not conversation.messages[s.message].machine))


def without_cut_labels(text: str, speakers: list[str]) -> str:
    """`text` without the labels added where a message was cut, so the pieces of a message read as
    one: an older, shorter version's drawer, so read, sits inside the newer drawers read end to end."""
    for speaker in speakers:
        label = f"{speaker} (continued): "
        text = text.replace(MESSAGE_GAP + label, "")
        if text.startswith(label):
            text = text[len(label):]
        in_code = re.compile(rf"(?:\A|{MESSAGE_GAP}){re.escape(speaker + IN_CODE)}[^\n]*\n")
        text = in_code.sub("", text) if speaker + IN_CODE in text else text
    return text


def _exchanges(messages: tuple[Message, ...]) -> list[list[int]]:
    """Indexes of messages grouped into exchanges (a user turn and its replies) or single messages."""
    conversational = any(m.role == "user" for m in messages) and any(m.role == "assistant" for m in messages)
    units: list[list[int]] = []
    for index, message in enumerate(messages):
        if not message.text:
            continue
        starts_unit = message.role == "user" if conversational else message.role != "tool"
        if starts_unit or not units:
            units.append([index])
        else:
            units[-1].append(index)
    return units


def _fit(unit: list[int], messages: tuple[Message, ...], target: int, limit: int) -> list[_Block]:
    """The exchange as one block if it fits about one drawer, else one block per message piece."""
    whole = _Block(tuple((messages[i], Span(i, 0, len(messages[i].text)), _label(messages[i], False)) for i in unit))
    if len(whole.render(None)) <= target * 3 // 2:
        return [whole]
    blocks = []
    for index in unit:
        message = messages[index]
        room = max(target - len(_label(message, True)), 100)
        cap = max(limit - len(_label(message, True, ("~" * _FENCE_MARKER, "x" * _FENCE_INFO))), room)  # any label
        pieces = _pieces(message.text, room, cap)
        fences = _fences(message.text) if len(pieces) > 1 else []
        start = 0
        for piece in pieces:
            span = Span(index, start, start + len(piece))
            blocks.append(_Block(((message, span, _label(message, start > 0, _fence_at(message.text, start, fences))),)))
            start = span.end
    return blocks


def _pieces(text: str, room: int, cap: int) -> list[str]:
    """A message's text in drawer-sized pieces: each blob apart (cut only to fit `cap`) with its line's
    indentation and the whitespace after it up to its next line, the text around them by
    `split_verbatim`; whitespace alone between two blobs joins a neighbour, never a piece of its own."""
    pieces: list[str] = []
    at = 0
    for start, end in blobs.runs(text):
        begin = at + len(text[at:start].rstrip(" \t"))  # where the blob's line indentation starts
        begin = begin if begin == 0 or text[begin - 1] == "\n" else start
        between = text[at:begin]
        if between.strip():
            pieces += _around(between, room, cap)
        elif between and pieces and len(pieces[-1]) + len(between) <= cap:
            pieces[-1] += between
        else:
            begin = at  # leading whitespace (or too much to join): the blob's piece starts with it
        end = after_whitespace(text, end)
        pieces += [text[i : min(i + cap, end)] for i in range(begin, end, cap)]
        at = end
    rest = text[at:]
    if rest and not rest.strip() and pieces and len(pieces[-1]) + len(rest) <= cap:
        pieces[-1] += rest
    elif rest:
        pieces += _around(rest, room, cap)
    return pieces


def _around(text: str, room: int, cap: int) -> list[str]:
    """Text without blobs in pieces of about `room` characters, none over `cap`."""
    return [p[i : i + cap] for p in split_verbatim(text, room) for i in range(0, len(p), cap)]


def _fences(text: str) -> list[tuple[int, int, Fence]]:
    """The fenced code blocks of a message (`code_fences`): (opening line, line after its closing line
    or the text's end, fence)."""
    return [(opening, after, (marker, info)) for opening, after, marker, info in code_fences(text)]


def _fence_at(text: str, start: int, fences: list[tuple[int, int, Fence]]) -> Fence | None:
    """The fence a cut at `start` falls inside: its line is after the opening line, up to the closing one."""
    line = text.count("\n", 0, start)
    for opening, after, (marker, info) in fences:
        if opening < line < after:
            return marker, info if _LANGUAGE.fullmatch(info) else ""
    return None


def _label(message: Message, continued: bool, fence: Fence | None = None) -> str:
    """What a piece of `message` starts with: its speaker, said to be continued, and the code fence
    it is inside reopened on a line of its own."""
    if message.role == "tool" or not message.speaker:
        return ""
    if continued and fence and len(fence[0]) <= _FENCE_MARKER:
        return f"{message.speaker}{IN_CODE}{fence[0]}{fence[1]}\n"
    return f"{message.speaker} (continued): " if continued else f"{message.speaker}: "


def _chunk(blocks: list[_Block]) -> Chunk:
    text = "".join(block.render(blocks[i - 1] if i else None) for i, block in enumerate(blocks))
    return Chunk(text, tuple(span for block in blocks for _, span, _ in block.parts))
