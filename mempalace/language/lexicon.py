"""What kind of word a word is, from kept word lists shipped inside PyPI packages, each checked by
sha256 on first use so a changed list cannot silently change every room name:

- which words can head a noun phrase: `lemminflect`'s English lexicon (a word it knows only as a verb,
  adjective or adverb, like `exceeds` or `slow`, names no topic on its own);
- which capitalised words are people's given names: the US census first-name lists of the `names`
  package (5,494 names), so `Rosa said` or `ask Grant` never names a room while `Lisbon` may.
"""

from __future__ import annotations

import functools
import gzip

from .shipped import checked_file

LEMMA_FILE = ("lemminflect", "lemminflect/resources/lemma_lu.csv.gz",
              "fd6f807e796da07f2a430d073cefae17004f7147abda065bb48b129dc29a850f")
NAME_FILES = (("names", "names/dist.male.first", "0a5078ef6effe3b483d15b0f7f95047662126c9bfb624ecd5e5b978fc0f2470b"),
              ("names", "names/dist.female.first", "bd2f310fc4e5d5e5ea122c9d4342c9821145823118eb20db1647f305ec77b358"))
NOUN_TAGS = frozenset({"noun", "propn"})
HONORIFICS = frozenset("""dr mr mrs ms miss mx prof sir madam coach aunt auntie uncle grandma grandpa nana
officer nurse pastor rev""".split())


@functools.lru_cache(maxsize=1)
def given_names() -> frozenset[str]:
    """Lowercased given names (`rosa`, `grant`, `hope`): a capitalised one in a text is a person."""
    return frozenset(_name_shares())


@functools.lru_cache(maxsize=1)
def _name_shares() -> dict[str, float]:
    """Each given name → the share of people (%) who have it, the larger of the two lists'."""
    found: dict[str, float] = {}
    for package, relative, sha256 in NAME_FILES:
        text = checked_file(package, relative, sha256).read_text(encoding="ascii")
        for fields in (line.split() for line in text.splitlines() if line.strip()):
            name = fields[0].lower()
            found[name] = max(found.get(name, 0.0), float(fields[1]))
    return found


NAME_SHARE = 0.01  # % of people: a rarer census name (`mac`, `alpha`, `hong`) is more often a word than a person


def only_a_name(word: str) -> bool:
    """Whether `word` is a common given name and nothing else English knows (`enrique`; not `grant`,
    `amber`, `will`, nor rare census names like `mac` or `alpha`): a person even in lower case (a
    handle, a channel, a repository named after one)."""
    lowered = word.lower()
    return (_name_shares().get(lowered, 0.0) >= NAME_SHARE
            and _parts_of_speech().get(lowered, frozenset({"propn"})) <= {"propn"})


def is_gerund(word: str) -> bool:
    """Whether `word` is a verb's -ing form (`limiting`, `training`), not a noun in -ing (`ceiling`)."""
    return word.endswith("ing") and "inflected" in _parts_of_speech().get(word.lower(), ())


@functools.lru_cache(maxsize=1)
def _parts_of_speech() -> dict[str, frozenset[str]]:
    """Every inflected form the lexicon knows → the parts of speech it can be; a verb form other than
    the base or the -s form (`blew`, `fixed`, `starting`) is tagged `inflected`."""
    path = checked_file(*LEMMA_FILE)
    tags: dict[str, set[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        lines = handle.read().lower().splitlines()
    for line in lines:  # form,part of speech,lemma[/lemma...]
        form, tag, lemma = line.split(",", 2)
        inflected = tag == "verb" and form not in lemma.split("/") and not form.endswith("s")
        tags.setdefault(form, set()).add("inflected" if inflected else tag)
    return {form: frozenset(found) for form, found in tags.items()}


@functools.lru_cache(maxsize=131_072)
def can_head(word: str) -> bool:
    """Whether `word` can end a topic's name: a noun, a verb's base or -s form (most are nouns too:
    `deploy`, `templates`), a gerund (`hunting`), or a word the lexicon lacks (a product, a place,
    jargon, an acronym, a hyphened compound whose last word can) unless English uses it very often
    (`per`) or it is built as a verb (`parallelize`); not an adjective, adverb or past form (`slow`,
    `blew`, `fixed`)."""
    inner = word.strip("-")
    if not inner:
        return False
    tags = _parts_of_speech().get(word.lower())
    if tags is None and "-" in inner:
        last = inner.rsplit("-", 1)[1]
        return len(last) < 3 or can_head(last)  # `on-call`, `check-in`; not `read-only`, `user-friendly`
    if tags is None:
        from .frequency import zipf

        return zipf(word.lower()) < FUNCTION_WORD_ZIPF and not word.lower().endswith(VERB_SUFFIXES)
    return bool(tags & (NOUN_TAGS | {"verb"})) or word.endswith("ing")


VERB_SUFFIXES = ("ize", "izes", "ized", "ise", "ises", "ised", "ify", "ifies", "ified")  # of a word the lexicon lacks


def is_adjective(word: str) -> bool:
    """Whether the lexicon knows `word` as an adjective (`quick`, `general`; perhaps a noun too)."""
    return "adj" in _parts_of_speech().get(word.lower(), ())


def can_be_noun(word: str) -> bool:
    """Whether `word` may be a noun: the lexicon says so, or lacks it (a product, a place, jargon)."""
    tags = _parts_of_speech().get(word.lower())
    return tags is None or bool(tags & NOUN_TAGS)


FUNCTION_WORD_ZIPF = 5.0  # a word the lexicon lacks yet English uses this often is a function word (`per`)


EVERYDAY_GERUND_ZIPF = 4.3  # a verb-only -ing word this common (starting, thinking) is an action, not a topic


def can_stand_alone(word: str) -> bool:
    """Whether `word` alone can name a topic: not an everyday verb's -ing form (`gardening`, `pricing`
    can; `starting`, `searching` cannot)."""
    tags = _parts_of_speech().get(word.lower())
    if not word.endswith("ing") or tags is None or tags & NOUN_TAGS:
        return True
    from .frequency import zipf

    return zipf(word) < EVERYDAY_GERUND_ZIPF
