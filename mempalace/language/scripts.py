"""The writing systems a word signature is in: words can only agree when both sides write in the same
script (a Chinese part and an English room share meaning, never words), so room choice weighs the
words' half of its blend by how much of the two sides' words are in scripts they share."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping


def script_of(word: str) -> str:
    """The script of a word's first letter, as Unicode names it (LATIN, CJK, CYRILLIC, HIRAGANA...)."""
    first = word[:1]
    if not first or first.isascii():
        return "LATIN"
    return unicodedata.name(first, "UNKNOWN").split(" ", 1)[0]


def script_shares(words: Mapping[str, float]) -> dict[str, float]:
    """Each script's share of a signature's weight (empty when it has none)."""
    shares: dict[str, float] = {}
    for word, weight in words.items():
        script = script_of(word)
        shares[script] = shares.get(script, 0.0) + abs(weight)
    total = sum(shares.values())
    return {s: w / total for s, w in shares.items()} if total else {}


def script_overlap(mine: Mapping[str, float], theirs: Mapping[str, float]) -> float:
    """How much of two signatures' weight is in scripts both write (0 to 1); 1 when either has no
    words, as nothing then says their languages differ."""
    if not mine or not theirs:
        return 1.0
    return sum(min(share, theirs.get(script, 0.0)) for script, share in mine.items())
