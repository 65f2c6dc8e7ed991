"""Room names, from what a room's conversations say (which room a part joins is `choice`'s choice,
by meaning).

Candidates are one or two content words in a row, never a person (`part_phrases` reads them). Places
and products may name rooms. A room's name is a phrase enough of its parts use, scored by how many
parts and wings use it and how specific it is to the room in the palace (class-based
TF-IDF); the best-scored are ranked by nearness to the room's meaning and centrality among its
phrases (KeyBERT's idea, on our embedder). A name another room holds is never handed out; none →
`general`.
"""

from __future__ import annotations

import copy
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidInputError
from ..language.languages import ENGLISH, everyday, in_language, is_calendar, is_cjk, word_language, written
from ..language.lexicon import can_head, can_stand_alone, is_gerund, only_a_name
from ..text.names import room_slug
from .part_phrases import Part, phrase_key, read_part
from .words import GENERIC, NOT_TOPIC_WORDS, topic_length

GENERAL = "general"
PAIR_WEIGHT = 1.3  # a two-word phrase over its words alone ("sleep training" over "training")
COVERAGE_POWER = 1.5  # how much more a phrase most parts use counts than one a few use
WING_SHARE = 0.3  # the share of a phrase's score that depends on how many of the room's wings use it
PROPER_WEIGHT = 0.6  # a capitalised-only word (a place, a product, or an unlisted surname) used in one wing
MIN_COVERAGE = 0.3  # a room's name is a phrase at least this share of its parts (and two) use
HEAD_SHARE = 0.8  # a pair's head word alone names the room when it fits this nearly as well
LEXICAL_POWER = 0.1  # how much the phrase's own score counts beside its nearness in meaning
TITLE_WEIGHT = 2.0  # a phrase in every part's title scores this many times one in none
SPELLING_SHARE = 0.5  # a spelling is ranked when at least this share as many parts use it as the commonest
SPELLING_MARGIN = 0.02  # a rarer spelling is chosen when it fits the room's meaning this much better
CENTRAL_PHRASES = 10  # the best-scored phrases whose mean vector is the topic's centre
CENTRAL_POWER = 0.5  # how much nearness to that centre counts beside nearness to the room's drawers
FIT_FLOOR = 0.01  # the least nearness in meaning a candidate is given
SCORED_PHRASES = 200  # the most used phrases of a room that are scored
KEPT_PHRASES = 2 * SCORED_PHRASES  # a room's tally lets go of its least used phrases past twice this many
_CODE_PLACES = frozenset("master main branch branches origin head repo repos commit commits".split())  # git's words
_WEAK_ALONE = frozenset("cost costs price prices syntax traceback error errors output master main branch repo session".split())
NAME_CANDIDATES = 60  # the best-scored phrases a `rank` function chooses among


def room_key(slug: str) -> str:
    """The same key for `auth-migration`, `migrating-auth`, `Auth Migrations`; `city` and `cities`."""
    return phrase_key([slug])


class PhraseTally:
    """What a room's parts say, added up as they come (no part is kept): how many parts use each
    phrase and how firmly in each wing, its spellings, in how many titles, and whether it is always
    capitalised. Past 2 × KEPT_PHRASES phrases the least used are let go down to KEPT_PHRASES, so a
    room's tally stays small however big the room grows: a name needs MIN_COVERAGE of its parts,
    and phrases that many parts use are the last let go (one long conversation may pass the mark)."""

    def __init__(self, parts: Iterable[Part] = (), by_language: bool = True):
        self.parts = 0
        self.wings: Counter[str] = Counter()  # parts per wing
        self.languages: Counter[str] = Counter()  # parts per language
        self.phrases: dict[str, _Phrase] = {}
        self.only: Part | None = None  # while it holds a single part
        # each language's parts, kept once there are two (before, this tally is the one language's)
        self.by_language: dict[str, PhraseTally] | None = {} if by_language else None
        for part in parts:
            self.add(part)

    @property
    def language(self) -> str:
        """The language most of its parts are in (English on a tie)."""
        return max(self.languages, key=lambda lang: (self.languages[lang], lang == ENGLISH, lang), default=ENGLISH)

    def add(self, part: Part) -> None:
        if self.by_language == {} and self.languages and part.language not in self.languages:
            self.by_language = None
            self.by_language = {next(iter(self.languages)): copy.deepcopy(self)}
        self.parts += 1
        self.only = part if self.parts == 1 else None
        self.wings[part.wing] += 1
        self.languages[part.language] += 1
        if self.by_language:
            own = self.by_language.get(part.language) or self.by_language.setdefault(part.language, PhraseTally(
                by_language=False))
            own.add(part)
        for key, support in part.support.items():
            phrase = self.phrases.get(key) or self.phrases.setdefault(key, _Phrase())
            phrase.users += 1
            phrase.languages[part.language] += 1
            phrase.support[part.wing] = phrase.support.get(part.wing, 0.0) + support
            phrase.spellings[part.surface[key]] += 1
            phrase.titled += key in part.titled
            phrase.proper = phrase.proper and key in part.proper
            phrase.modifying += key in part.modifiers
        if len(self.phrases) > 2 * KEPT_PHRASES:
            kept = sorted(self.phrases.items(), key=lambda kv: (-kv[1].users, -sum(kv[1].support.values()), kv[0]))
            self.phrases = dict(kept[:KEPT_PHRASES])


@dataclass
class _Phrase:
    users: int = 0
    titled: int = 0
    proper: bool = True
    modifying: int = 0  # parts that write it only as an adjective before a noun (`quick look`)
    support: dict[str, float] = field(default_factory=dict)  # by wing
    spellings: Counter[str] = field(default_factory=Counter)
    languages: Counter[str] = field(default_factory=Counter)  # parts using it, by their language


Specificity = Callable[[Sequence[str]], Mapping[str, float]]  # words → how much each says about one room (0..1)
@dataclass(frozen=True)
class Meaning:
    """What candidate names are ranked against: the embedder and the room's mean drawer vector."""

    embed: Callable[[list[str]], np.ndarray]
    centre: np.ndarray

    def vectors(self, phrases: list[str]) -> np.ndarray:
        found = np.asarray(self.embed(phrases), np.float32)
        return found / np.maximum(np.linalg.norm(found, axis=1, keepdims=True), 1e-9)

    def fits(self, vectors: np.ndarray) -> np.ndarray:
        return vectors @ (self.centre / max(float(np.linalg.norm(self.centre)), 1e-9))


Ranker = Meaning


class RoomChooser:
    """Names rooms: from one part when a room opens, from all its parts once they are known, never
    with a name another room holds."""

    def __init__(self, existing_rooms: Iterable[str],
                 widespread_words: Callable[[Iterable[str]], Iterable[str]] | None = None,
                 specificity: Specificity | None = None, wings: Iterable[str] = ()):
        """`existing_rooms` are names already taken; `widespread_words(words)` names those found in most
        drawers of most wings; `specificity(words)` how rare each word is in the palace (optional);
        `wings`: the palace's wings, whose own names never name a room."""
        self._widespread_words = widespread_words
        self.specificity = specificity
        self._known: dict[str, str] = {}
        self._wing_words: set[str] = set()
        self.add_wings(wings)
        for slug in sorted(existing_rooms):
            if slug != GENERAL:
                self._known.setdefault(room_key(slug), slug)

    def add_wings(self, wings: Iterable[str]) -> None:
        for wing in wings:
            self._wing_words |= {w for w in re.split(r"[\W_]+", wing.lower()) if w and w != "wing"}

    def choose(self, texts: Sequence[str], title: str | None = None, names: Iterable[str] = (),
               rank: Ranker | None = None, wing: str = "") -> str:
        """The name for a new room holding one part made of `texts`; taken from now on."""
        return self.choose_for(read_part(texts, title, names, wing), rank)

    def choose_for(self, part: Part, rank: Ranker | None = None) -> str:
        """The name for a new room holding `part`; taken from now on."""
        slug = self.best(PhraseTally([part]), rank)[0]
        if slug != GENERAL:
            self._known[room_key(slug)] = slug
        return slug

    def first_choice(self, part: Part) -> str | None:
        """The key (as `room_key`'s) of the name this part alone would take were every name free (None:
        no name fits)."""
        scored = self._scores(PhraseTally([part]))
        if not scored:
            return None
        top = min(scored, key=lambda k: (-scored[k][0], k))
        return _name_key(top, scored[top][1][0])

    def holder(self, key: str) -> str | None:
        """The room whose name has this key, if one has."""
        return self._known.get(key)

    def best(self, parts: PhraseTally, rank: Ranker | None = None, current: str | None = None
             ) -> tuple[str, float, float]:
        """(name, its score, the score of `current`) for a room whose parts are tallied in `parts`: of
        the phrases many of them use that are specific to it, the one nearest the room's meaning (`rank`,
        KeyBERT's idea), or the best-scored without `rank`. Names held by other rooms are passed over,
        `current` is not. The name is in the language of most parts when one of them is."""
        return self._pick(parts, rank, current)

    def _pick(self, parts: PhraseTally, rank: Ranker | None, current: str | None, language: str | None = None
              ) -> tuple[str, float, float]:
        """`best`, or with `language` the best name in that language (or none)."""
        names, own = self.ranked(parts, rank, current, language)
        return (*names[0], own) if names else (GENERAL, 0.0, 0.0)

    def ranked(self, parts: PhraseTally, rank: Ranker | None, current: str | None = None,
               language: str | None = None, limit: int = 1) -> tuple[list[tuple[str, float]], float]:
        """Up to `limit` names for the room, best first, with their scores, and the score of `current`
        (as `best` ranks them; `language`: only names in it)."""
        scored = self._scores(parts)
        named = {k: _name_key(k, scored[k][1][0]) for k in scored}
        held = room_key(current) if current else None
        own = next((k for k in sorted(scored) if named[k] == held), None) if held else None
        order = sorted((k for k in scored if k == own or named[k] not in self._known), key=lambda k: (-scored[k][0], k))
        wanted = [k for k in order if in_language(scored[k][1][0], parts.phrases[k].languages, language or parts.language)]
        order = wanted if wanted or language else order
        if not order:
            return [], 0.0
        shortlist = order[:NAME_CANDIDATES] + ([own] if own in order[NAME_CANDIDATES:] else [])
        spelling = {k: scored[k][1][0] for k in shortlist}
        top = scored[order[0]][0]
        final = {k: scored[k][0] / top for k in shortlist}
        if rank:
            fits = self._fits(shortlist, {k: scored[k][1] for k in shortlist}, rank, spelling, final)
            final = {k: fits[k] * final[k] ** LEXICAL_POWER * _compound(spelling[k]) for k in shortlist}
        names: dict[str, float] = {}
        for key in sorted(shortlist, key=lambda k: (-final[k], k)):
            try:
                name = room_slug(written(_head_of(key, spelling, final) if rank else spelling[key]))
            except InvalidInputError:
                continue
            names.setdefault(name, final[key])
            if len(names) == limit:
                break
        return list(names.items()), final.get(own, 0.0) if own and names else 0.0

    @staticmethod
    def _fits(keys: list[str], spellings: Mapping[str, Sequence[str]], meaning: Meaning, chosen: dict[str, str],
              lexical: Mapping[str, float]) -> dict[str, float]:
        """Each phrase's nearness to the room's meaning, by its nearest spelling (`chosen` is set to it),
        times how central it is among the room's best-scored phrases (`kitchen` among `cabinets`,
        `sink` and `appliances`): the topic, not one of its details."""
        flat = [(k, s) for k in keys for s in spellings[k]]
        vectors = meaning.vectors([written(s) for _, s in flat])
        fits = meaning.fits(vectors)
        best: dict[str, tuple[float, int]] = {}
        for n, ((key, text), fit) in enumerate(zip(flat, fits)):
            if key not in best or float(fit) > best[key][0] + SPELLING_MARGIN:
                best[key], chosen[key] = (float(fit), n), text
        core = sorted(keys, key=lambda k: (-lexical[k], k))[:CENTRAL_PHRASES]
        centre = vectors[[best[k][1] for k in core]].mean(axis=0)
        central = {k: float(vectors[best[k][1]] @ centre) / max(float(np.linalg.norm(centre)), 1e-9) for k in keys}
        return {k: max(best[k][0], FIT_FLOOR) * max(central[k], FIT_FLOOR) ** CENTRAL_POWER for k in keys}

    def aliases(self, parts: PhraseTally, name: str, rank: Ranker | None = None) -> tuple[str, ...]:
        """The room's names in the other languages its parts are in: for each, the name `best` gives
        those parts among their phrases in that language, when it is no other room's name."""
        found = []
        for language, tally in sorted((parts.by_language or {}).items()):
            if language == parts.language:
                continue
            alias = self._pick(tally, rank, None, language)[0]
            if alias not in (GENERAL, name) and self._known.get(room_key(alias), name) == name:
                found.append(alias)
        return tuple(dict.fromkeys(found))

    def is_free(self, slug: str, own: str) -> bool:
        """Whether `slug` names no room but perhaps `own`."""
        return self._known.get(room_key(slug), own) == own

    def release(self, slug: str) -> None:
        """`slug` is no longer a room's name (it was renamed)."""
        self._known.pop(room_key(slug), None)

    def take(self, slug: str) -> None:
        self._known[room_key(slug)] = slug

    def _scores(self, tally: PhraseTally) -> dict[str, tuple[float, list[str]]]:
        """Phrase key → (score, spellings commonest first) for the phrases enough parts use: how many
        parts use it (each wing weighed alike), in how many wings, and how specific to this room its
        words are in the palace (class-based TF-IDF)."""
        if not tally.parts:
            return {}
        weight = {wing: 1.0 / math.sqrt(n) for wing, n in tally.wings.items()}
        total = sum(weight[wing] * n for wing, n in tally.wings.items())
        used = {k: sum(weight[w] * s for w, s in p.support.items()) for k, p in tally.phrases.items()}
        needed = max(2.0, MIN_COVERAGE * tally.parts) if tally.parts > 1 else 1.0
        order = sorted((k for k, p in tally.phrases.items() if p.users >= needed), key=lambda k: (-used[k], k))
        order = order[:SCORED_PHRASES]
        if tally.only:
            order = [k for k in order if tally.only.support[k] > 0.7] or order
        spellings = {k: _common_spellings(tally.phrases[k].spellings) for k in order}
        words = sorted({p for k in order for s in spellings[k] for w in s.split() for p in _word_parts(w)})
        rare = dict(self.specificity(words)) if self.specificity and words else {}
        widespread = set(self._widespread_words(words)) if self._widespread_words and words else set()
        scores: dict[str, tuple[float, list[str]]] = {}
        for key in order:
            latin = max(tally.phrases[key].languages.items(), key=lambda kv: (kv[1], kv[0]), default=(ENGLISH, 0))[0]
            named = [s for s in spellings[key] if self._nameable(s.split(), widespread, latin)]
            if not named:
                continue
            phrase, found = named[0].split(), tally.phrases[key]
            if len(phrase) == 1 and found.modifying == found.users:
                continue  # an adjective only ever written before a noun: `quick` of `quick look`
            specific = sum(min(rare.get(p, 1.0) for p in _word_parts(w)) for w in phrase) / len(phrase)
            score = (used[key] / total) ** COVERAGE_POWER * specific * (PAIR_WEIGHT if len(phrase) == 2 else 1.0)
            score *= 1.0 - WING_SHARE + WING_SHARE * len(found.support) / len(tally.wings)
            score *= 1.0 + (TITLE_WEIGHT - 1.0) * found.titled / tally.parts
            if found.proper and len(found.support) < 2 and not phrase[0].isupper():
                score *= PROPER_WEIGHT
            scores[key] = (score, named)
        return scores

    def _nameable(self, phrase: list[str], widespread: set[str], latin: str = ENGLISH) -> bool:
        """A topic's name ends in a noun, repeats no wing's name, holds no month or weekday in any
        language (nor in a hyphened word), no given name that is only a name, and is not everyone's
        words (nor, in another language than English, only everyday words)."""
        parts = [p for w in phrase for p in w.split("-") if p]  # a hyphened word's own words too
        if not can_head(phrase[-1]) or any(p in self._wing_words or is_calendar(p) for p in parts):
            return False
        if any(only_a_name(w) for w in phrase):  # `enrique`, not `max-pooling`
            return False
        if all(everyday(w, word_language(w, latin)) for w in phrase):
            return False
        if len(phrase) == 1 and (phrase[0] in _WEAK_ALONE or not can_stand_alone(phrase[0])):
            return False
        if set(phrase) <= GENERIC or any(w in _CODE_PLACES for w in phrase):
            return False
        return not set(parts) <= widespread


def _name_key(key: str, spelling: str) -> str:
    """`room_key` of the name phrase `key` is written as (`spelling`): a Chinese or Japanese pair runs
    together and a Russian word is in the nominative (the phrase's own key keeps them apart, or
    inflected); "" when it makes no name."""
    if spelling.isascii():
        return key  # the name's key is the phrase's own
    try:
        return room_key(room_slug(written(spelling)))
    except InvalidInputError:
        return ""


def _word_parts(word: str) -> list[str]:
    """The words whose rarity in the palace is a word's: a hyphened compound's own topic words (`sailor`,
    `traveling` of `traveling-sailor`), else its words long enough to be counted (`call` of `on-call`):
    drawers are counted by single words."""
    parts = [p for p in word.split("-") if topic_length(p)]
    return [p for p in parts if p not in NOT_TOPIC_WORDS] or parts or [word]


def _common_spellings(spelled: Counter[str]) -> list[str]:
    """A phrase's spellings, commonest first, but for those far rarer than the commonest."""
    ranked = sorted(spelled.items(), key=lambda kv: (-kv[1], kv[0]))
    return [s for s, n in ranked if n >= SPELLING_SHARE * ranked[0][1]]


def _compound(spelling: str) -> float:
    """PAIR_WEIGHT for two Chinese or Japanese words (`年度汇算`, `数仓迁移`): there a word alone is two
    characters or so and names a topic too broadly (`迁移`: moving anything); else 1."""
    words = spelling.split()
    return PAIR_WEIGHT if len(words) == 2 and all(is_cjk(w) for w in words) else 1.0


def _head_of(key: str, spelling: Mapping[str, str], final: Mapping[str, float]) -> str:
    """A two-word name's head alone when that scores nearly as well (`insomnia` over `chronic insomnia`):
    a librarian names the topic, not its detail. A Chinese or Japanese compound stays whole (`航班延误`),
    and so does a gerund with its object (`rate limiting`: `limiting` alone limits anything)."""
    words = spelling[key].split()
    head = phrase_key(words[-1:])
    if len(words) == 2 and is_gerund(words[-1]):
        return spelling[key]  # a gerund's first word is its object: `rate limiting`, `sleep training`
    if len(words) == 2 and not is_cjk(words[-1]) and head in final and final[head] >= HEAD_SHARE * final[key]:
        return spelling[head]
    return spelling[key]


