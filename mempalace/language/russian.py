"""Russian words for room choice: Snowball's stems to count a word's forms as one (`PyStemmer`), and
names in the nominative from `pymorphy3` with its OpenCorpora dictionary (`pymorphy3-dicts-ru`,
its files checked by sha256 before use), so that a room is `экзамен`, not `экзамене`."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from .shipped import checked_file

DICTIONARY_FILES = (
    ("grammemes.json", "0c2dae69cf15c3cdd9b92c7bce2273b2f1ca0f806228a01de0fe3f24145337fb"),
    ("gramtab-opencorpora-ext.json", "07ba6280d93ade73563289edac1a8fff4ce2388a813d0f47d32431cfaae84d90"),
    ("gramtab-opencorpora-int.json", "1a72703ac84c16572deee6a92779a322b59763cbc336021433d52c33160fa05b"),
    ("meta.json", "0c16fa06946dbda7db6df209128004f5edb36f9d8bdf48e5efff6045ec21a2fd"),
    ("p_t_given_w.intdawg", "000a4d34ff42c44c65aca33ebcae689c77455a9a244145881b28fd8b8b7ea21e"),
    ("paradigms.array", "dfc465558f1a2760bbde6fa89f0447a5c93896da429efe658fe2f0638954758b"),
    ("prediction-suffixes-0.dawg", "85f38ab5a14566b7b22b8bfb5a63118992013f45757bf60ef1e5e937a92f1aae"),
    ("prediction-suffixes-1.dawg", "31ddaef03712c6168488241be17ce59afa0f4c465e1ba7bf3a5bf095f2053b5f"),
    ("prediction-suffixes-2.dawg", "4e6d6e687031b89e5e7035647570f69d28528e7df123210cc994b8aea36c85fd"),
    ("suffixes.json", "c827ccc32b85e42c3edab8ac235bf91fdbc392e94455ad139da06fb1babcdb74"),
    ("words.dawg", "ae4381a9d6e4e636309ac1a242e480a9470a05723f6673d5fcc3fcf293aa8a9e"),
)
_HEAD_PARTS = frozenset({"ADJF", "PRTF", "NUMR"})  # words that agree with the noun after them
_PERSON = frozenset({"Name", "Surn", "Patr"})  # readings as a person's name (`страховой` as Страхова's)


@functools.lru_cache(maxsize=131_072)
def russian_stem(word: str) -> str:
    """Snowball's Russian stem (`протечки`, `протечка` → `протечк`)."""
    return str(_stemmer().stemWord(word))


def nominative(words: Sequence[str]) -> list[str]:
    """A phrase's head, up to its first noun, in the nominative, keeping its number (`водительских прав` →
    `водительские права`, `новой квартиры` → `новая квартира`); the words after the head as they are
    (`ремонта ноутбука` → `ремонт ноутбука`). A head that may already be nominative is left as it is."""
    head: list[tuple] = []
    for word in words:  # words that may agree with a noun after them, then that noun
        readings = _nominal(word)
        nouns = tuple(r for r in readings if r.tag.POS == "NOUN")
        agreeing = tuple(r for r in readings if r.tag.POS in _HEAD_PARTS)
        if not nouns and not agreeing:
            return list(words)
        if nouns and (not agreeing or word is words[-1] or not _nominal(words[len(head) + 1])):
            head.append(nouns)
            break
        head.append(agreeing)
    if not head or head[-1][0].tag.POS != "NOUN":
        return list(words)
    shared = set.intersection(*({(r.tag.case, r.tag.number) for r in readings} for readings in head))
    if not shared or any(case == "nomn" for case, _ in shared):
        return list(words)
    case, number = next((r.tag.case, r.tag.number) for r in head[-1] if (r.tag.case, r.tag.number) in shared)
    out = list(words)
    for n, readings in enumerate(head):
        reading = next(r for r in readings if (r.tag.case, r.tag.number) == (case, number))
        changed = reading.inflect({"nomn", number} if number else {"nomn"})
        if changed is None:
            return list(words)
        out[n] = changed.word
    return out


@functools.lru_cache(maxsize=16_384)
def _nominal(word: str) -> tuple:
    """The dictionary's readings of `word` as a noun or a word that agrees with one, likeliest first."""
    return tuple(r for r in _analyzer().parse(word.lower())
                 if (r.tag.POS == "NOUN" or r.tag.POS in _HEAD_PARTS) and not _PERSON & r.tag.grammemes)


@functools.lru_cache(maxsize=1)
def _analyzer():  # type: ignore[no-untyped-def]
    for relative, sha256 in DICTIONARY_FILES:
        checked_file("pymorphy3-dicts-ru", f"pymorphy3_dicts_ru/data/{relative}", sha256)
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


@functools.lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("russian")
