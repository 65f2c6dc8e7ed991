"""Counts as people write them, for every front end's messages: `1 drawer`, `2 drawers`, never `drawer(s)`."""

from __future__ import annotations

import re

_ENDS_IN_S_SOUND = re.compile(r"(s|x|z|ch|sh)$")
_CONSONANT_Y = re.compile(r"[^aeiou]y$")


def counted(n: int, one: str, many: str | None = None) -> str:
    """`1 drawer`, `1,234 drawers`: a count and its noun, singular or plural (`many`, else `one`'s
    regular English plural: entry → entries, match → matches, drawer → drawers)."""
    return f"{n:,} {one if n == 1 else many or plural(one)}"


def plural(one: str) -> str:
    """The regular English plural of a noun (of a phrase's last word): `y` after a consonant becomes
    `ies`, a hissing end takes `es`, the rest `s`."""
    if _CONSONANT_Y.search(one):
        return one[:-1] + "ies"
    return one + ("es" if _ENDS_IN_S_SOUND.search(one) else "s")
