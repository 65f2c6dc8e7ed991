"""How wide text is drawn, in em, estimated per character before any browser has drawn it: the tunnel
network's layout needs it on the server, and a name in Chinese takes twice the room of as many Latin
letters. Estimates for common sans-serif fonts; the browser fits wing boxes to the text as drawn."""

from __future__ import annotations

import unicodedata

LATIN_EM = 0.56  # a letter, digit or sign of most scripts (DejaVu Sans: lowercase 0.49, capitals 0.68)
CYRILLIC_EM = 0.63  # Cyrillic runs about an eighth wider (DejaVu Sans: lowercase 0.58, capitals 0.72)
WIDE_EM = 1.0  # CJK, fullwidth forms and emoji ("wide" in Unicode's East Asian Width): a square each
_EPSILON = 1e-9  # a sum of widths may overshoot a limit it meets exactly


def char_em(char: str) -> float:
    """One character's width in em: 0 for a combining mark or an invisible format character (an
    accent drawn over its letter, a zero-width joiner), WIDE_EM for a wide one, else by its script."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0.0
    if unicodedata.east_asian_width(char) in "WF":
        return WIDE_EM
    return CYRILLIC_EM if "\u0400" <= char <= "\u052f" else LATIN_EM


def em_width(text: str) -> float:
    """`text`'s width on one line, in em."""
    return sum(char_em(char) for char in text)


def prefix_within(text: str, ems: float) -> str:
    """The longest start of `text` no wider than `ems` (a mark stays with its letter)."""
    width = 0.0
    for index, char in enumerate(text):
        width += char_em(char)
        if width > ems + _EPSILON:
            return text[:index]
    return text


def cut_to(text: str, ems: float) -> str:
    """`text` whole if it is no wider than `ems`, else its start and "…", the two within `ems`."""
    if em_width(text) <= ems + _EPSILON:
        return text
    return prefix_within(text, ems - char_em("…")) + "…"
