"""What one conversation part says, for naming its room: its phrases (one or two content words in a
row), never a person (speakers, their handles, given names, the capitalised word after one or after
a title)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..language.languages import ENGLISH, is_cjk, main_language, reading, words_in
from ..language.lexicon import HONORIFICS, can_be_noun, given_names, is_adjective
from ..text.names import spell_symbols
from .words import (COMMAND_WORD, FUNCTION_WORDS, LONG_TOKEN, MAX_WORD, NOT_PROSE, NOT_TOPIC_WORDS, SENTENCE,
                    WORD, fold, stem, topic_length)

_CAPITAL_PAIR = re.compile(r"\b([A-Z][a-z]+)\.?[ \t]+(?=([A-Z][a-z][\w'-]*))")
_HYPHENED = re.compile(rf"{WORD.pattern}(?:-{WORD.pattern})*")  # `on-call`, `check-in`, `cost-cut`


def name_stem(word: str) -> str:
    """`stem`, and `cities` as `city`: names that differ so are one name (word signatures keep `stem`)."""
    return stem(word[:-3] + "y") if word.endswith("ies") and len(word) > 4 else stem(word)


def phrase_key(words: Iterable[str]) -> str:
    """One key for a phrase however it is spelled: its words' (and hyphened words' parts') name stems,
    sorted (`on-call`, `call on`; `rate-limiting`, `rate limiting`, `limiting rates`)."""
    return "-".join(sorted(name_stem(part) for word in words for part in word.split("-") if part))


@dataclass(frozen=True)
class Part:
    """What one conversation part says, for naming the room it is in: its phrases by key (sorted light
    stems) with how firmly it uses each (0.7 once, 0.95 twice, 1.0 more or in its title), each one's
    commonest spelling here, the keys it spells only capitalised (a place, a product), and the
    adjectives it writes only before a noun (`quick` of `quick look`)."""

    wing: str
    support: Mapping[str, float]
    surface: Mapping[str, str]
    proper: frozenset[str] = frozenset()
    titled: frozenset[str] = frozenset()
    language: str = ENGLISH  # the language most of its text is in
    modifiers: frozenset[str] = frozenset()


def read_part(texts: Sequence[str], title: str | None = None, names: Iterable[str] = (), wing: str = "") -> Part:
    """The phrases (one or two content words in a row) of a part's texts and title."""
    spoken = {w for n in names for w in WORD.findall(fold(n.lower()))} | handles(names)
    foreign = reading("\n".join([*texts, title or ""]))[1]
    ignored = NOT_TOPIC_WORDS | spoken | foreign
    people = _people([*texts, title or ""], spoken)
    joined = _Joined(FUNCTION_WORDS | foreign, spoken, people)
    counts: Counter[str] = Counter()
    spellings: dict[str, Counter[str]] = {}
    lower_seen: set[str] = set()
    titled: set[str] = set()
    uses: Counter[str] = Counter()  # each word's uses, by key
    modifying: Counter[str] = Counter()  # its uses as an adjective before a noun
    for source, text in [(False, t) for t in texts] + [(True, title or "")]:
        for run in _runs(text, ignored, joined, lower_seen, (uses, modifying)):
            for size in (1, 2):
                for start in range(len(run) - size + 1):
                    words = run[start : start + size]
                    if size == 2 and name_stem(words[0]) == name_stem(words[1]):
                        continue  # "thread thread" is not a topic
                    key = phrase_key(words)
                    counts[key] += 1
                    spellings.setdefault(key, Counter())[" ".join(words)] += 1
                    if source:
                        titled.add(key)
    support = {k: 1.0 if k in titled else min(1.0, 0.45 + 0.25 * n) for k, n in counts.items()}
    surface = {k: max(c.items(), key=lambda kv: (kv[1], kv[0]))[0] for k, c in spellings.items()}
    proper = frozenset(k for k, s in surface.items() if not set(s.split()) & lower_seen and not is_cjk(s))
    modifiers = frozenset(k for k, n in uses.items() if n == modifying[k])
    return Part(wing, support, surface, proper, frozenset(titled), main_language("\n".join(texts) or title or ""),
                modifiers)


def handles(names: Iterable[str]) -> set[str]:
    """The usual handles of people with a first and last name: `hfaran`, `hamzaf`, `hamzafaran`."""
    found = set()
    for name in names:
        words = WORD.findall(fold(name.lower()))
        if len(words) >= 2:
            first, last = words[0], words[-1]
            found |= {first[0] + last, first + last[0], first + last}
    return found


def _people(texts: Sequence[str], spoken: set[str]) -> set[str]:
    """Words that are people here when capitalised: given names, and the capitalised word after a
    given name, a speaker's name or a title (`Dr. Okafor`, `Hal Higdon`)."""
    people = set(given_names())
    for text in texts:
        for first, second in _CAPITAL_PAIR.findall(fold(text)):
            lead = first.lower()
            if lead in people or lead in HONORIFICS or lead in spoken:
                people.add(second.lower())
    return people


def slug_words(slug: str) -> list[str]:
    """A room slug's words as a phrase reads them: `on-call` one word, `kitchen-remodel` and `how-to` two."""
    return _Joined(FUNCTION_WORDS, set(), set()).words(slug)


@dataclass(frozen=True)
class _Joined:
    """What decides whether a hyphened token is one word: words that only join others (`how-to`,
    `что-то`, `twenty-five` are their parts), speakers' names and people (`Jean-Luc` is a person)."""

    function: frozenset[str] | set[str]
    spoken: set[str]
    people: set[str]

    def words(self, token: str) -> list[str]:
        """A hyphened token as the words of a phrase: one word when a short or function word binds a
        topic word (`on-call`, `e-mail`, `check-in`: alone, that part would be dropped), else its parts
        (`cost-cut`, `traveling-sailor`; `how-to`, only function words; `Jean-Luc`, a person)."""
        parts = [p for p in token.split("-") if p]
        if not parts:
            return [token]  # "" breaks a phrase (`words_in`: a particle, a numeral, a person)
        lowered = [p.lower() for p in parts]
        if len(parts) < 2 or len(token) > MAX_WORD or all(p in self.function for p in lowered):
            return parts
        if any(p in self.spoken or (part[0].isupper() and p in self.people) for part, p in zip(parts, lowered)):
            return parts
        bound = any(p in self.function or not topic_length(p) for p in lowered)
        return ["-".join(parts)] if bound else parts


def _runs(text: str, ignored: frozenset[str] | set[str], joined: _Joined, lower_seen: set[str],
          uses: tuple[Counter[str], Counter[str]]) -> list[list[str]]:
    """Runs of consecutive content words of `text`, lowercased; a capitalised person's name, or a
    speaker's name, breaks a run. Words written in lower case are added to `lower_seen`; each content
    word's uses are counted by key in `uses`' first counter, those before a noun it modifies in its
    second."""
    runs: list[list[str]] = []
    prepared = COMMAND_WORD.sub(" . ", spell_symbols(fold(text)))
    for piece in SENTENCE.split(NOT_PROSE.sub(" . ", LONG_TOKEN.sub(" . ", prepared))):
        run: list[str] = []
        tokens = [word for token in words_in(piece, _HYPHENED, joined.spoken) for word in joined.words(token)]
        for at, token in enumerate(tokens):
            word = token.lower()
            short = not topic_length(word) and not (len(word) == 2 and token.isupper())
            if not word or word in ignored or short or (token[0].isupper() and word in joined.people):
                runs.append(run)
                run = []
                continue
            if token[0].islower():
                lower_seen.add(word)
            run.append(word)
            key = phrase_key([word])
            uses[0][key] += 1
            uses[1][key] += at + 1 < len(tokens) and _modifies(token, tokens[at + 1])
        runs.append(run)
    return [r for r in runs if r]


def _modifies(token: str, after: str) -> bool:
    """Whether `token` is written as the modifier of the word `after` it: an adjective before a noun
    (`quick look`, `general question`)."""
    return bool(after) and is_adjective(token) and can_be_noun(after)

