"""How specific a word is, from `wordfreq`'s word frequencies (its data ships in the wheel): English
here, other languages through `languages`.

Room names favour words that say what a chat is about ("mortgage", "insomnia") over words people use
about anything ("problem", "house" still counts, just less). The data file is checked by sha256 on
first use, like the embedding model, so a changed wordlist cannot silently change every room.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
from pathlib import Path

from ..errors import ConfigError

WORDLIST_FILE = "wordfreq/data/large_en.msgpack.gz"
WORDLIST_SHA256 = "dffae8066b78dce0a6667cf5f58e567054f902674667090a7ac8a8a44628b05c"
COMMONEST_ZIPF = 6.0  # a word this frequent (the, time, house is 5.7) says nothing about a topic
UNKNOWN_SPECIFICITY = 2.0  # a word the list lacks: a handle, a typo or jargon; counted, not favoured
FLOOR, CEILING = 0.3, 3.5


@functools.lru_cache(maxsize=1)
def _checked() -> None:
    """Refuse a wordlist other than the one room naming was tuned on."""
    try:
        path = Path(str(importlib.metadata.distribution("wordfreq").locate_file(WORDLIST_FILE)))
    except importlib.metadata.PackageNotFoundError as exc:
        raise ConfigError("The package 'wordfreq' is not installed; run `pip install -e .` to get it.") from exc
    found = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
    if found != WORDLIST_SHA256:
        raise ConfigError(f"wordfreq's English list at {path} has sha256 {found}, expected {WORDLIST_SHA256}. "
                          "Reinstall it with `pip install --force-reinstall wordfreq==3.1.1`.")


@functools.lru_cache(maxsize=131_072)
def zipf(word: str) -> float:
    """log10 of a word's frequency per billion English words (0 for words the list lacks)."""
    _checked()
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


@functools.lru_cache(maxsize=131_072)
def specificity(word: str, language: str = "en") -> float:
    """About 0.3 for everyday words up to 3.5 for rare ones (zipf 2.5 and below), in `language`'s
    list (a Latin word another language's list lacks is looked up in English's: a term)."""
    frequency = zipf(word) if language == "en" else _zipf_in(word, language)
    if frequency <= 0:
        return UNKNOWN_SPECIFICITY
    return min(max(COMMONEST_ZIPF - frequency, FLOOR), CEILING)


def _zipf_in(word: str, language: str) -> float:
    from .languages import is_cjk, is_cyrillic, zipf as zipf_of

    found = zipf_of(word, language)
    return found if found or is_cjk(word) or is_cyrillic(word) else zipf(word)


NAME_PEAK_ZIPF = 3.0  # the words that name topics best are known but not everyday ("mortgage", "insomnia")


@functools.lru_cache(maxsize=131_072)
def name_weight(word: str) -> float:
    """Specificity for naming a room: highest around zipf 3, lower for everyday words and for rare
    ones (a fungicide's brand name describes one chat, not the concept others will join)."""
    frequency = zipf(word)
    if frequency <= 0:
        return FLOOR * 3
    if frequency < NAME_PEAK_ZIPF:
        return max(frequency, FLOOR * 3)
    return min(max(COMMONEST_ZIPF - frequency, FLOOR), CEILING)
