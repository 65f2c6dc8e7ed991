"""Cut a conversation into drawers on message boundaries, keeping every character of every message.

The unit is an exchange: a user turn and the replies that follow (in a group chat, one message).
Exchanges are packed greedily up to about `target` characters; an exchange too big for one drawer
is packed message by message, and a message too big for one drawer is split by `split_verbatim`
at paragraph, line, sentence, then word boundaries. Each message piece is written as
`Speaker: text`, so a drawer reads like the conversation; tool lines are written as they are.
Greedy packing from the start keeps the cut points of a conversation that later grows.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..chunking import split_verbatim
from ..formats.base import Conversation, Message

MESSAGE_GAP = "\n\n"
TOOL_GAP = "\n"


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
    parts: tuple[tuple[Message, Span, bool], ...]  # (message, span, is continuation)

    def render(self, after: "_Block | None") -> str:
        out = []
        previous = after.parts[-1][0] if after else None
        for message, span, continued in self.parts:
            if previous is not None:
                out.append(TOOL_GAP if message.role == previous.role == "tool" else MESSAGE_GAP)
            out.append(_label(message, continued) + message.text[span.start : span.end])
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


def prose(chunk: Chunk, conversation: Conversation) -> str:
    """The people's words in a drawer: its message text without labels and tool lines."""
    return MESSAGE_GAP.join(conversation.messages[s.message].text[s.start : s.end] for s in chunk.spans
                            if conversation.messages[s.message].role != "tool")


def without_cut_labels(text: str, speakers: list[str]) -> str:
    """`text` without the labels added where a message was cut, so the pieces of a message read as
    one: an older, shorter version's drawer, so read, sits inside the newer drawers read end to end."""
    for speaker in speakers:
        label = f"{speaker} (continued): "
        text = text.replace(MESSAGE_GAP + label, "")
        if text.startswith(label):
            text = text[len(label):]
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
    whole = _Block(tuple((messages[i], Span(i, 0, len(messages[i].text)), False) for i in unit))
    if len(whole.render(None)) <= target * 3 // 2:
        return [whole]
    blocks = []
    for index in unit:
        message = messages[index]
        room = max(target - len(_label(message, True)), 100)
        cap = max(limit - len(_label(message, True)), room)
        start = 0
        pieces = [p[i : i + cap] for p in split_verbatim(message.text, room) for i in range(0, len(p), cap)]
        for piece_number, piece in enumerate(pieces):
            span = Span(index, start, start + len(piece))
            blocks.append(_Block(((message, span, piece_number > 0),)))
            start = span.end
    return blocks


def _label(message: Message, continued: bool) -> str:
    if message.role == "tool" or not message.speaker:
        return ""
    return f"{message.speaker} (continued): " if continued else f"{message.speaker}: "


def _chunk(blocks: list[_Block]) -> Chunk:
    text = "".join(block.render(blocks[i - 1] if i else None) for i, block in enumerate(blocks))
    return Chunk(text, tuple(span for block in blocks for _, span, _ in block.parts))
