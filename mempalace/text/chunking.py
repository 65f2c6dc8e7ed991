"""Split long text into consecutive verbatim pieces at paragraph, line or sentence boundaries.

A cut inside whitespace that holds a line break falls right after the last break, so a piece that
starts a line starts with that line's own indentation (code and lists keep their shape). A cut right
after the line that opens a fenced code block moves before that line, so the fence starts the piece
that holds its code instead of ending one as an empty block."""

from __future__ import annotations

import re
from bisect import bisect_left

from markdown_it import MarkdownIt

_BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # after a blank line (and the blank lines after it)
    re.compile(r"\n\s*"),  # after a line break
    re.compile(r"(?<=[.!?…。！？])[\"')\]]*\s+"),  # after a sentence end
    re.compile(r"\s+"),  # after any whitespace: never inside a word
)
_SPACE = re.compile(r"\s+")
_LINE_BREAK = re.compile(r"\r\n?|\n")  # as CommonMark counts lines
_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")  # ChatGPT's citation marks, which it also puts around fences


def split_verbatim(text: str, max_chars: int) -> list[str]:
    """Pieces whose concatenation is exactly `text`, each at most `max_chars` where a boundary allows.

    A single word longer than `max_chars` is kept whole rather than cut.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be positive")
    pieces: list[str] = []
    rest, done = text, 0
    openings = _fence_openings(text) if len(text) > max_chars else []
    while len(rest) > max_chars:
        cut = _cut_point(rest, max_chars)
        if cut is None or not rest[cut:].strip():
            break
        if not rest[:cut].strip():  # only whitespace so far: keep it with the text that follows
            first_word = len(rest) - len(rest.lstrip())
            cut = _cut_point(rest[first_word:], max_chars)
            if cut is None or not rest[first_word + cut :].strip():
                break
            cut += first_word
        cut = _fence_with_its_code(rest, cut, max_chars, openings, done)
        pieces.append(rest[:cut])
        rest, done = rest[cut:], done + cut
    pieces.append(rest)
    return pieces


def code_fences(text: str) -> list[tuple[int, int, str, str]]:
    """The fenced code blocks of `text` as CommonMark reads it, ChatGPT's private-use marks set aside:
    (opening line, line after its closing line or the text's end, fence marker, info string)."""
    if "```" not in text and "~~~" not in text:
        return []
    tokens = MarkdownIt("commonmark").parse(_PRIVATE_USE.sub("", text))
    return [(token.map[0], token.map[1], token.markup, token.info.strip())
            for token in tokens if token.type == "fence" and token.map]


def _fence_openings(text: str) -> list[int]:
    """Where each line that opens a fenced code block starts, in order."""
    fences = code_fences(text)
    if not fences:
        return []
    line_starts = [0, *(found.end() for found in _LINE_BREAK.finditer(text))]
    return [line_starts[opening] for opening, *_ in fences]


def _fence_with_its_code(rest: str, cut: int, max_chars: int, openings: list[int], done: int) -> int:
    """`cut`, moved so that a line opening a fenced code block goes with its code: to before that line,
    or on into the code when the line is its piece's only text. `done`: where `rest` starts in the text."""
    last_line = rest.rfind("\n", 0, len(rest[:cut].rstrip())) + 1
    found = bisect_left(openings, done + last_line)
    if found == len(openings) or openings[found] != done + last_line:
        return cut
    if rest[:last_line].strip():
        return last_line
    room = max(max_chars - cut, 1)
    further = _cut_point(rest[cut:], room)
    if further and rest[cut + further:].strip():
        return cut + _fence_with_its_code(rest[cut:], further, room, openings, done + cut)
    return cut


def _cut_point(text: str, max_chars: int) -> int | None:
    """The end of the last boundary inside the first `max_chars` characters (finest kind last)."""
    window = text[: max_chars + 1]
    for pattern in _BOUNDARIES:
        ends = [_line_start(m) for m in pattern.finditer(window) if 0 < m.start() and m.end() <= max_chars]
        if ends and ends[-1] >= max_chars // 4:
            return ends[-1]
    match = _SPACE.search(text, max_chars)  # one overlong word: cut after it
    return _line_start(match) if match else None


def after_whitespace(text: str, at: int) -> int:
    """Where a cut goes in the whitespace starting at `at` (`at` itself if there is none): after its
    last line break, else after all of it."""
    match = _SPACE.match(text, at)
    return _line_start(match) if match else at


def _line_start(match: re.Match[str]) -> int:
    """Where a cut in the whitespace `match` goes: after its last line break if it has one (so the
    next line keeps its indentation), else after the whole run."""
    gap = match.group()
    return match.start() + gap.rindex("\n") + 1 if "\n" in gap else match.end()
