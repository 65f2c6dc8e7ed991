"""Split long text into consecutive verbatim pieces at paragraph, line or sentence boundaries.

A cut inside whitespace that holds a line break falls right after the last break, so a piece that
starts a line starts with that line's own indentation (code and lists keep their shape)."""

from __future__ import annotations

import re

_BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # after a blank line (and the blank lines after it)
    re.compile(r"\n\s*"),  # after a line break
    re.compile(r"(?<=[.!?…。！？])[\"')\]]*\s+"),  # after a sentence end
    re.compile(r"\s+"),  # after any whitespace: never inside a word
)
_SPACE = re.compile(r"\s+")


def split_verbatim(text: str, max_chars: int) -> list[str]:
    """Pieces whose concatenation is exactly `text`, each at most `max_chars` where a boundary allows.

    A single word longer than `max_chars` is kept whole rather than cut.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be positive")
    pieces: list[str] = []
    rest = text
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
        pieces.append(rest[:cut])
        rest = rest[cut:]
    pieces.append(rest)
    return pieces


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
