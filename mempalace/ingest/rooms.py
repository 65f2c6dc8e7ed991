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
from collections.abc import Callable, Iterable, Sequence

from ..vocabulary import STOP_WORDS
from ..errors import InvalidInputError
from ..naming import room_slug, spell_symbols
from .frequency import name_weight, specificity, zipf

GENERAL = "general"
_WORD = re.compile(r"[^\W\d_][\w+#]*")
_LONG_TOKEN = re.compile(r"\S{41,}")  # blobs, hashes, URLs: dropped first, which keeps the next pattern linear
_NOT_PROSE = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|\S*[/\\]\S*|\S+@\S+|\b\w*\d\w*\b|`[^`\n]*`|\S*[_=<>{}$]\S*|\S+\.[a-z0-9]{1,5}\b|\b[0-9a-f]{8,}\b")
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
PAIR_WEIGHT, TITLE_WEIGHT = 2.5, 2.0
TOOL_MARK = "→"  # how transcripts of coding agents summarise a tool call in a drawer
NAME_CANDIDATES = 8  # the best-scored phrases a `rank` function chooses among
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


def room_key(slug: str) -> str:
    """The same key for `auth-migration`, `migrating-auth` and `Auth Migrations`."""
    return "-".join(sorted(stem(part) for part in slug.split("-") if part))


def _fold(text: str) -> str:
    """Accents off (café → cafe), other scripts kept, so slugs stay plain where they can."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


class RoomChooser:
    """Chooses rooms for the conversations of one ingest, remembering the rooms it has handed out."""

    def __init__(self, existing_rooms: Iterable[str],
                 widespread_words: Callable[[Iterable[str]], Iterable[str]] | None = None):
        """`existing_rooms` are names already taken: a new room never reuses one (meaning decided the
        part belongs in none of them). `widespread_words(words)` names those found in most drawers
        of most wings (optional)."""
        self._widespread_words = widespread_words
        self._known: dict[str, str] = {}
        for slug in sorted(existing_rooms):
            if slug != GENERAL:
                self._known.setdefault(room_key(slug), slug)

    def choose(self, texts: Sequence[str], title: str | None = None, names: Iterable[str] = (),
               rank: Callable[[list[str]], Sequence[float]] | None = None) -> str:
        """The room for a conversation (or a segment of one) made of `texts`. `rank(phrases)`, if
        given, says how well each of the best few candidates sums the texts up; the best is chosen."""
        ignored = ignored_words(texts, names)
        sentences = [sentence for text in texts for sentence in _sentences(text, ignored)]
        runs = [run for sentence in sentences for run in sentence]
        titled = [run for sentence in _sentences(title or "", ignored) for run in sentence]
        scores: Counter[str] = Counter()
        surface: dict[str, Counter[str]] = {}
        for run, weight in [(r, 1.0) for r in runs] + [(r, TITLE_WEIGHT) for r in titled]:
            for size, bonus in ((1, 1.0), (2, PAIR_WEIGHT)):
                for start in range(len(run) - size + 1):
                    words = run[start : start + size]
                    if size == 2 and stem(words[0]) == stem(words[1]):
                        continue  # "thread thread" is not a topic
                    key = "-".join(sorted(stem(w) for w in words))
                    scores[key] += weight * bonus * sum(name_weight(w) for w in words) / size
                    surface.setdefault(key, Counter())[" ".join(words)] += 1
        title_keys = {"-".join(sorted(stem(w) for w in pair)) for run in titled for pair in zip(run, run[1:])}
        title_keys |= {stem(w) for run in titled for w in run}
        order = sorted(scores, key=lambda k: (scores[k], k.count("-"), k), reverse=True)
        generic = self._generic_stems(order[:GENERIC_CHECKED], surface)
        eligible = [k for k in order if k not in self._known and (k in title_keys or not set(k.split("-")) <= generic)]
        if not eligible:
            return GENERAL
        best = eligible[0]
        if rank and len(eligible) > 1:
            shortlist = [k for k in eligible[:NAME_CANDIDATES] if k in surface]
            fits = rank([surface[k].most_common(1)[0][0] for k in shortlist])
            best = shortlist[max(range(len(shortlist)), key=lambda i: (fits[i], -i))] if shortlist else best
        try:
            slug = room_slug(surface[best].most_common(1)[0][0])
        except InvalidInputError:
            return GENERAL
        self._known[best] = slug
        return slug

    def _generic_stems(self, keys: list[str], surface: dict[str, Counter[str]]) -> set[str]:
        """The stems of `keys` whose words are everyone's words in this palace."""
        if not self._widespread_words or not keys:
            return set()
        words = {w for k in keys for w in (surface[k].most_common(1)[0][0].split() if k in surface
                                           else self._known[k].split("-"))}
        return {stem(w) for w in self._widespread_words(words)}


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
    """A stored drawer's text as room choice reads a new one: without tool lines (`→ Bash: …`) and
    without the speakers' labels (`Kai: `, `Kai (continued): `) at the start of a message."""
    labels = tuple(f"{s}{tail}" for s in speakers for tail in (" (continued): ", ": "))
    lines = []
    for line in content.split("\n"):
        if line.lstrip().startswith(TOOL_MARK):
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
