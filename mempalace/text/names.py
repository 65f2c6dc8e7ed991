"""Clean names: room slugs, wing names and the five halls, the same way on every write."""

from __future__ import annotations

import difflib
import re
import unicodedata

from ..errors import InvalidInputError
from ..models import HALLS, NO_HALL

MAX_NAME_CHARS = 100
_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)
# One letter and ++ or # is a language ("C++", "C#", "F#"), not "c": spelled out before the rest of
# the punctuation goes. Longer words keep their plain form (PR#, Notepad++ → pr, notepad).
_LANGUAGE = re.compile(r"(?<![\w+#])([^\W\d_])(\+\+|#)(?![^\W\d_]|[+#])")
_SPELLED = {"++": "pp", "#": "sharp"}


def spell_symbols(text: str) -> str:
    """`c++` → `cpp`, `c#` → `csharp` (one-letter language names only)."""
    return _LANGUAGE.sub(lambda m: m.group(1) + _SPELLED[m.group(2)], text)


def fold(text: str) -> str:
    """Accents off Latin letters (café → cafe), other scripts' marks kept (й, が), so slugs stay plain
    where they can."""
    if text.isascii():
        return text
    kept: list[str] = []
    for char in unicodedata.normalize("NFKD", text):
        if not (unicodedata.combining(char) and kept and kept[-1] < LATIN_END):
            kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))


LATIN_END = "\u0250"  # Latin letters, with their extensions, come before this


def _clean(name: object, kind: str) -> str:
    if not isinstance(name, str):
        raise InvalidInputError(f"The {kind} name must be text, not {type(name).__name__}.")
    text = unicodedata.normalize("NFKC", name).strip().lower()
    text = spell_symbols(text)
    if not text:
        raise InvalidInputError(f"The {kind} name is empty.")
    return text


def _check(slug: str, original: str, kind: str) -> str:
    if not slug:
        raise InvalidInputError(f"The {kind} name {original!r} has no letters or digits.")
    if len(slug) > MAX_NAME_CHARS:
        raise InvalidInputError(f"The {kind} name is longer than {MAX_NAME_CHARS} characters.")
    return slug


def room_slug(name: object) -> str:
    """`Auth Migration`, `auth_migration`, ` AUTH--migration ` all become `auth-migration`."""
    text = _clean(name, "room")
    return _check(_NOT_WORD.sub("-", text).strip("-"), str(name), "room")


def wing_name(name: object) -> str:
    """`Wing Kai`, `wing-kai`, `WING_KAI` all become `wing_kai` (upstream's convention)."""
    text = _clean(name, "wing")
    return _check(_NOT_WORD.sub("_", text).strip("_"), str(name), "wing")


def hall_change(name: object | None) -> str | None:
    """A hall to move to: None keeps the current one, "" takes the drawer out of its hall."""
    return "" if name == "" else hall_name(name)


def hall_filter(name: object | None) -> str | None:
    """A hall to search within: None (or "") for any, NO_HALL for the drawers in none ("", as the
    catalog stores them), else one of the five."""
    if name is None or name == "":
        return None
    return "" if isinstance(name, str) and name.strip().lower() == NO_HALL else hall_name(name)


def hall_name(name: object | None) -> str | None:
    """One of the five halls (`facts` or `hall_facts`), or None for no hall."""
    if name is None:
        return None
    text = _clean(name, "hall")
    full = text if text.startswith("hall_") else f"hall_{text}"
    if full not in HALLS:
        raise InvalidInputError(f"Unknown hall {name!r}: use one of {', '.join(HALLS)}.")
    return full


def closest_names(name: str, known: object) -> str:
    """A " Did you mean …?" sentence naming up to three of `known` close to `name`, or nothing."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)  # type: ignore[call-overload]
    return f" Did you mean {', '.join(close)}?" if close else ""


def alias_of(name: str) -> str:
    """A room name as an alias: its slug, or as stored when it has none (another tool's odd name)."""
    try:
        return room_slug(name)
    except InvalidInputError:
        return name
