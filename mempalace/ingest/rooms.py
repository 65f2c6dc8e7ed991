"""Names for new rooms, from a part of a conversation's own words (which room a part joins is
`topics`' choice, by meaning).

Candidates are the runs of content words in the text: single words and adjacent pairs, with stop
words, filler, generic chat words, calendar and number words, the speakers' names and other
people's names removed. Each occurrence scores the words' naming weight (from `wordfreq`: known but
not everyday words name topics best), a pair 2.5 times that, title words double. A candidate made
only of words found in most drawers of most wings is everyone's word ("photo" in chats full of
shared pictures) and is passed over unless the title names it. Names already taken are never handed
out again. Of the best few, the one nearest the part's meaning wins; none → `general`.
"""

from __future__ import annotations

import calendar
import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..vocabulary import STOP_WORDS
from ..errors import InvalidInputError
from ..naming import room_slug, spell_symbols
from .frequency import specificity, zipf
from .lexicon import HONORIFICS, can_head, can_stand_alone, given_names

GENERAL = "general"
_WORD = re.compile(r"[^\W\d_][\w+#]*")
_LONG_TOKEN = re.compile(r"\S{41,}")  # blobs, hashes, URLs: dropped first, which keeps the next pattern linear
_NOT_PROSE = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|\S*[/\\:]\w\S*|\S+@\S+|\b\w*\d\w*\b|`[^`\n]*`|\S*[_=<>{}$]\S*"
                        r"|\S+\.\w\S*|\b[0-9a-f]{8,}\b", re.IGNORECASE)
_COMMAND_WORD = re.compile(r"(?<![\w.])[a-z][\w-]*(?=[ \t]+[\w-]+\.[a-z][\w.]*)")  # `mix` in `mix phx.server`
_SENTENCE = re.compile(r"[.!?;:,()\[\]{}\"`|/\\]+\s|\n+")
_FILLER = frozenset("""
yes yeah yep okay ok thanks thank please sure let lets know like just really think want need get got
use using used make made one also would could should can will see look looks good great well right now
way thing things something anything everything nothing lot much many still even maybe actually probably
done doing going go went new old first last next back time times today day days week hi hello hey sorry
user assistant claude chatgpt gemini codex ai human tool result error message continued file files code
line lines run running work works working try trying tried help need needs want wants seems seem said
say says tell told ask asked answer question questions point bit kind sort part sure fine cool nice
able via etc e.g i.e didn doesn don isn wasn aren won can't won't i'm it's that's there's here's you're
we're they're let's i've you've we've i'll you'll we'll i'd you'd we'd same different other another
without within around across along among upon toward towards onto everyone everybody someone somebody
anyone always never often sometimes usually instead rather quite pretty enough every either neither
whether though although unless since until while yet already almost also again keep keeps kept take
takes took give gives gave put puts set sets call called find found show shows shown start started
wow awesome amazing sounds glad totally definitely absolutely honestly seriously literally basically
especially particularly haha lol omg yay congrats congratulations cheers bye fantastic wonderful
incredible lovely cute exciting excited super stuff guess hope hoping hopefully feel feels felt feeling
happy fun interesting appreciate appreciated wanna gonna gotta
""".split())
_GENERIC = frozenset("""
update updates list lists install installed installing assist assistance problem problems question issue issues
test tests testing plan plans planning idea ideas general misc other chat conversation discussion thread topic
topics note notes meeting sync team project today tomorrow yesterday week weeks month months year years hour
hours minute minutes morning evening night afternoon tonight follow help thanks step steps option options version
example examples detail details info information case cases number numbers place standard huge long title mixed
text uploaded upload check checking change changes fix fixes fixed support wall pass egg sandwich
""".split())
_NUMBER_WORDS = frozenset("""
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion half
first second third fourth fifth sixth seventh eighth ninth tenth dozen couple
""".split())
_CALENDAR = frozenset(w.lower() for w in (*calendar.month_name[1:], *calendar.month_abbr[1:], *calendar.day_name,
                                          *calendar.day_abbr, "sept"))
_TITLE_RUN = re.compile(r"\b[A-Z][a-z]+\b(?:[ \t]+[A-Z][a-z]+\b)*")
RARE_ZIPF = 2.5  # a Title Case run with a word this rare (Bilinski, Dumesnil) is a name, not a concept
_LOWER_WORD = re.compile(r"\b[a-z]+\b")
_NEVER_TOPICS = STOP_WORDS | _FILLER | _GENERIC | _NUMBER_WORDS | _CALENDAR
PAIR_WEIGHT = 1.3  # a two-word phrase over its words alone ("sleep training" over "training")
COVERAGE_POWER = 1.5  # how much more a phrase most parts use counts than one a few use
WING_SHARE = 0.3  # the share of a phrase's score that depends on how many of the room's wings use it
PROPER_WEIGHT = 0.6  # a capitalised-only word (a place, a product, or an unlisted surname) used in one wing
MIN_COVERAGE = 0.3  # a room's name is a phrase at least this share of its parts (and two) use
HEAD_SHARE = 0.8  # a pair's head word alone names the room when it fits this nearly as well
LEXICAL_POWER = 0.1  # how much the phrase's own score counts beside its nearness in meaning
TITLE_WEIGHT = 2.0  # a phrase in every part's title scores this many times one in none
SPELLING_SHARE = 0.5  # a spelling is ranked when at least this share as many parts use it as the commonest
CENTRAL_PHRASES = 10  # the best-scored phrases whose mean vector is the topic's centre
CENTRAL_POWER = 0.5  # how much nearness to that centre counts beside nearness to the room's drawers
FIT_FLOOR = 0.01  # the least nearness in meaning a candidate is given
SCORED_PHRASES = 200  # the most used phrases of a room that are scored
_CAPITAL_PAIR = re.compile(r"\b([A-Z][a-z]+)\.?[ \t]+(?=([A-Z][a-z][\w'-]*))")
_CODE_PLACES = frozenset("master main branch branches origin head repo repos commit commits".split())  # git's words
_WEAK_ALONE = frozenset("cost costs price prices syntax traceback error errors output master main branch repo session".split())
TOOL_MARK = "→"  # how transcripts of coding agents summarise a tool call in a drawer
RESULT_MARK = "←"  # and its result
NAME_CANDIDATES = 60  # the best-scored phrases a `rank` function chooses among
GENERIC_CHECKED = 30  # the best candidates checked against the palace's widespread words
MAX_WORD = 30  # longer "words" are sequences or unspaced scripts, not topic names


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A light stem, enough to match `migrate`, `migrated`, `migrating`, `migration(s)`."""
    for suffix, keep in (("ations", "at"), ("ation", "at"), ("ings", ""), ("ing", ""), ("ions", ""), ("ion", ""),
                         ("ers", ""), ("er", ""), ("ed", ""), ("es", ""), ("s", ""), ("e", "")):
        if word.endswith(suffix) and len(word) - len(suffix) + len(keep) >= 4:
            return word[: -len(suffix)] + keep
    return word


def name_stem(word: str) -> str:
    """`stem`, and `cities` as `city`: names that differ so are one name (word signatures keep `stem`)."""
    return stem(word[:-3] + "y") if word.endswith("ies") and len(word) > 4 else stem(word)


def room_key(slug: str) -> str:
    """The same key for `auth-migration`, `migrating-auth`, `Auth Migrations`; `city` and `cities`."""
    return "-".join(sorted(name_stem(part) for part in slug.split("-") if part))


def _fold(text: str) -> str:
    """Accents off (café → cafe), other scripts kept, so slugs stay plain where they can."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@dataclass(frozen=True)
class Part:
    """What one conversation part says, for naming the room it is in: its phrases by key (sorted light
    stems) with how firmly it uses each (0.7 once, 0.95 twice, 1.0 more or in its title), each one's
    commonest spelling here, and the keys it spells only capitalised (a place, a product)."""

    wing: str
    support: Mapping[str, float]
    surface: Mapping[str, str]
    proper: frozenset[str] = frozenset()
    titled: frozenset[str] = frozenset()


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


def read_part(texts: Sequence[str], title: str | None = None, names: Iterable[str] = (), wing: str = "") -> Part:
    """The phrases (one or two content words in a row) of a part's texts and title."""
    spoken = {w for n in names for w in _WORD.findall(_fold(n.lower()))} | handles(names)
    ignored = _NEVER_TOPICS | spoken
    people = _people([*texts, title or ""], spoken)
    counts: Counter[str] = Counter()
    spellings: dict[str, Counter[str]] = {}
    lower_seen: set[str] = set()
    titled: set[str] = set()
    for source, text in [(False, t) for t in texts] + [(True, title or "")]:
        for run in _runs(text, ignored, people, lower_seen):
            for size in (1, 2):
                for start in range(len(run) - size + 1):
                    words = run[start : start + size]
                    if size == 2 and name_stem(words[0]) == name_stem(words[1]):
                        continue  # "thread thread" is not a topic
                    key = "-".join(sorted(name_stem(w) for w in words))
                    counts[key] += 1
                    spellings.setdefault(key, Counter())[" ".join(words)] += 1
                    if source:
                        titled.add(key)
    support = {k: 1.0 if k in titled else min(1.0, 0.45 + 0.25 * n) for k, n in counts.items()}
    surface = {k: max(c.items(), key=lambda kv: (kv[1], kv[0]))[0] for k, c in spellings.items()}
    proper = frozenset(k for k, s in surface.items() if not set(s.split()) & lower_seen)
    return Part(wing, support, surface, proper, frozenset(titled))


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
        slug = self.best([part], rank)[0]
        if slug != GENERAL:
            self._known[room_key(slug)] = slug
        return slug

    def best(self, parts: Sequence[Part], rank: Ranker | None = None, current: str | None = None
             ) -> tuple[str, float, float]:
        """(name, its score, the score of `current`) for a room holding `parts`: of the phrases many of
        them use that are specific to it, the one nearest the room's meaning (`rank`, KeyBERT's idea),
        or the best-scored without `rank`. Names held by other rooms are passed over, `current` is not."""
        scored = self._scores(parts)
        own = room_key(current) if current else None
        order = sorted((k for k in scored if k == own or k not in self._known), key=lambda k: (-scored[k][0], k))
        if not order:
            return GENERAL, 0.0, 0.0
        shortlist = order[:NAME_CANDIDATES] + ([own] if own in order[NAME_CANDIDATES:] else [])
        spelling = {k: scored[k][1][0] for k in shortlist}
        top = scored[order[0]][0]
        final = {k: scored[k][0] / top for k in shortlist}
        if rank:
            fits = self._fits(shortlist, {k: scored[k][1] for k in shortlist}, rank, spelling, final)
            final = {k: fits[k] * final[k] ** LEXICAL_POWER for k in shortlist}
        for key in sorted(shortlist, key=lambda k: (-final[k], k)):
            try:
                name = room_slug(_head_of(key, spelling, final) if rank else spelling[key])
            except InvalidInputError:
                continue
            return name, final[key], final.get(own, 0.0) if own else 0.0
        return GENERAL, 0.0, 0.0

    @staticmethod
    def _fits(keys: list[str], spellings: Mapping[str, Sequence[str]], meaning: Meaning, chosen: dict[str, str],
              lexical: Mapping[str, float]) -> dict[str, float]:
        """Each phrase's nearness to the room's meaning, by its nearest spelling (`chosen` is set to it),
        times how central it is among the room's best-scored phrases (`kitchen` among `cabinets`,
        `sink` and `appliances`): the topic, not one of its details."""
        flat = [(k, s) for k in keys for s in spellings[k]]
        vectors = meaning.vectors([s for _, s in flat])
        fits = meaning.fits(vectors)
        best: dict[str, tuple[float, int]] = {}
        for n, ((key, text), fit) in enumerate(zip(flat, fits)):
            if key not in best or float(fit) > best[key][0]:
                best[key], chosen[key] = (float(fit), n), text
        core = sorted(keys, key=lambda k: (-lexical[k], k))[:CENTRAL_PHRASES]
        centre = vectors[[best[k][1] for k in core]].mean(axis=0)
        central = {k: float(vectors[best[k][1]] @ centre) / max(float(np.linalg.norm(centre)), 1e-9) for k in keys}
        return {k: max(best[k][0], FIT_FLOOR) * max(central[k], FIT_FLOOR) ** CENTRAL_POWER for k in keys}

    def release(self, slug: str) -> None:
        """`slug` is no longer a room's name (it was renamed)."""
        self._known.pop(room_key(slug), None)

    def take(self, slug: str) -> None:
        self._known[room_key(slug)] = slug

    def _scores(self, parts: Sequence[Part]) -> dict[str, tuple[float, list[str]]]:
        """Phrase key → (score, spellings commonest first) for the phrases enough parts use: how many
        parts use it (each wing weighed alike), in how many wings, and how specific to this room its
        words are in the palace (class-based TF-IDF)."""
        if not parts:
            return {}
        per_wing = Counter(p.wing for p in parts)
        weight = {p.wing: 1.0 / math.sqrt(n) for p, n in ((p, per_wing[p.wing]) for p in parts)}
        total = sum(weight[p.wing] for p in parts)
        used: Counter[str] = Counter()
        users: Counter[str] = Counter()
        titles: Counter[str] = Counter(k for p in parts for k in p.titled)
        wings: dict[str, set[str]] = {}
        spelled: dict[str, Counter[str]] = {}
        everywhere_proper: dict[str, bool] = {}
        for part in parts:
            for key, support in part.support.items():
                used[key] += weight[part.wing] * support
                users[key] += 1
                wings.setdefault(key, set()).add(part.wing)
                spelled.setdefault(key, Counter())[part.surface[key]] += 1
                everywhere_proper[key] = everywhere_proper.get(key, True) and key in part.proper
        needed = max(2.0, MIN_COVERAGE * len(parts)) if len(parts) > 1 else 1.0
        order = sorted((k for k in used if users[k] >= needed), key=lambda k: (-used[k], k))[:SCORED_PHRASES]
        if len(parts) == 1:
            order = [k for k in order if parts[0].support[k] > 0.7] or order
        spellings = {k: _common_spellings(spelled[k]) for k in order}
        words = sorted({w for k in order for s in spellings[k] for w in s.split()})
        rare = dict(self.specificity(words)) if self.specificity and words else {}
        widespread = set(self._widespread_words(words)) if self._widespread_words and words else set()
        scores: dict[str, tuple[float, list[str]]] = {}
        for key in order:
            named = [s for s in spellings[key] if self._nameable(s.split(), widespread)]
            if not named:
                continue
            phrase = named[0].split()
            specific = sum(rare.get(w, 1.0) for w in phrase) / len(phrase)
            score = (used[key] / total) ** COVERAGE_POWER * specific * (PAIR_WEIGHT if len(phrase) == 2 else 1.0)
            score *= 1.0 - WING_SHARE + WING_SHARE * len(wings[key]) / len(per_wing)
            score *= 1.0 + (TITLE_WEIGHT - 1.0) * titles[key] / len(parts)
            if everywhere_proper[key] and len(wings[key]) < 2 and not phrase[0].isupper():
                score *= PROPER_WEIGHT
            scores[key] = (score, named)
        return scores

    def _nameable(self, phrase: list[str], widespread: set[str]) -> bool:
        """A topic's name ends in a noun, repeats no wing's name and is not everyone's words."""
        if not can_head(phrase[-1]) or any(w in self._wing_words for w in phrase):
            return False
        if len(phrase) == 1 and (phrase[0] in _WEAK_ALONE or not can_stand_alone(phrase[0])):
            return False
        if any(w in _CODE_PLACES for w in phrase):
            return False
        return not set(phrase) <= widespread


def _common_spellings(spelled: Counter[str]) -> list[str]:
    """A phrase's spellings, commonest first, leaving out those far rarer than the commonest (a
    `searching` once beside `search` everywhere)."""
    ranked = sorted(spelled.items(), key=lambda kv: (-kv[1], kv[0]))
    return [s for s, n in ranked if n >= SPELLING_SHARE * ranked[0][1]]


def handles(names: Iterable[str]) -> set[str]:
    """The usual handles of people with a first and last name: `hfaran`, `hamzaf`, `hamzafaran`."""
    found = set()
    for name in names:
        words = _WORD.findall(_fold(name.lower()))
        if len(words) >= 2:
            first, last = words[0], words[-1]
            found |= {first[0] + last, first + last[0], first + last}
    return found


def _head_of(key: str, spelling: Mapping[str, str], final: Mapping[str, float]) -> str:
    """A two-word name's head alone when that scores nearly as well (`insomnia` over `chronic insomnia`):
    a librarian names the topic, not its detail."""
    words = spelling[key].split()
    head = name_stem(words[-1])
    if len(words) == 2 and head in final and final[head] >= HEAD_SHARE * final[key]:
        return spelling[head]
    return spelling[key]


def _people(texts: Sequence[str], spoken: set[str]) -> set[str]:
    """Words that are people here when capitalised: given names, and the capitalised word after a
    given name, a speaker's name or a title (`Dr. Okafor`, `Hal Higdon`)."""
    people = set(given_names())
    for text in texts:
        for first, second in _CAPITAL_PAIR.findall(_fold(text)):
            lead = first.lower()
            if lead in people or lead in HONORIFICS or lead in spoken:
                people.add(second.lower())
    return people


def _runs(text: str, ignored: frozenset[str] | set[str], people: set[str], lower_seen: set[str]) -> list[list[str]]:
    """Runs of consecutive content words of `text`, lowercased; a capitalised person's name breaks a
    run. Words written in lower case are added to `lower_seen`."""
    runs: list[list[str]] = []
    prepared = _COMMAND_WORD.sub(" . ", spell_symbols(_fold(text)))
    for piece in _SENTENCE.split(_NOT_PROSE.sub(" . ", _LONG_TOKEN.sub(" . ", prepared))):
        run: list[str] = []
        for token in _WORD.findall(piece):
            word = token.lower()
            short = len(word) < 3 and not (len(word) == 2 and token.isupper())
            if word in ignored or short or len(word) > MAX_WORD or (token[0].isupper() and word in people):
                runs.append(run)
                run = []
                continue
            if token[0].islower():
                lower_seen.add(word)
            run.append(word)
        runs.append(run)
    return [r for r in runs if r]


def word_signature(texts: Sequence[str], names: Iterable[str] = (),
                   ignored: frozenset[str] | None = None) -> Counter[str]:
    """The topic words of `texts` by light stem, (1 + log count) × how specific the word is
    (`ignored`: the words `ignored_words` found for the whole conversation, if known)."""
    counts: Counter[str] = Counter()
    surface: dict[str, str] = {}
    ignored = ignored_words(texts, names) if ignored is None else ignored
    for text in texts:
        for sentence in _sentences(text, ignored):
            for run in sentence:
                for word in run:
                    key = stem(word)
                    counts[key] += 1
                    surface.setdefault(key, word)
    return Counter({k: (1.0 + math.log(n)) * specificity(surface[k]) for k, n in counts.items()})


def ignored_words(texts: Sequence[str], names: Iterable[str]) -> frozenset[str]:
    """Words that never name a topic here: stop words, filler, generic and calendar words, numbers,
    the speakers' names and the capitalised words these texts never write in lower case."""
    spoken = {w for n in names for w in _WORD.findall(_fold(n.lower()))}
    return _NEVER_TOPICS | spoken | proper_names(texts)


def people_words(content: str, speakers: Iterable[str] = ()) -> str:
    """A stored drawer's text as room choice reads a new one: without tool lines (`→ Bash: …`, `← result`) and
    without the speakers' labels (`Kai: `, `Kai (continued): `) at the start of a message."""
    labels = tuple(f"{s}{tail}" for s in speakers for tail in (" (continued): ", ": "))
    lines = []
    for line in content.split("\n"):
        if line.lstrip().startswith((TOOL_MARK, RESULT_MARK)):
            continue
        for label in labels:
            if line.startswith(label):
                line = line[len(label):]
                break
        lines.append(line)
    return "\n".join(lines)


def proper_names(texts: Iterable[str]) -> set[str]:
    """Capitalised words never written in lower case in `texts`, alone (Carmen, Nico) or in a Title Case
    run with a rare word (Anthony Bilinski): people and places, not topics. A run of everyday words
    ("Auth Migration", "Quarterly Roadmap") is a topic written in Title Case."""
    joined = "\n".join(texts)
    lower = set(_LOWER_WORD.findall(joined))
    names: set[str] = set()
    for run in _TITLE_RUN.findall(joined):
        words = [w.lower() for w in run.split()]
        if len(words) == 1 or any(zipf(w) < RARE_ZIPF for w in words):
            names.update(w for w in words if w not in lower)
    return names


def _sentences(text: str, ignored: frozenset[str] | set[str]) -> list[list[list[str]]]:
    """Each sentence-like piece of `text` as its runs of consecutive content words."""
    sentences = []
    for piece in _SENTENCE.split(_NOT_PROSE.sub(" . ", _LONG_TOKEN.sub(" . ", spell_symbols(_fold(text.lower()))))):
        runs: list[list[str]] = [[]]
        for word in _WORD.findall(piece):
            if word in ignored or not 3 <= len(word) <= MAX_WORD:
                runs.append([])
            else:
                runs[-1].append(word)
        if any(runs):
            sentences.append([run for run in runs if run])
    return sentences
