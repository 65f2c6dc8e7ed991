"""Room names from a conversation's own words, reusing a room the palace already has for the topic.

Candidates are the runs of content words in the text (stop words, filler and the speakers' names
removed): single words and adjacent pairs. A pair scores 2.5 per occurrence, a word 1, and words of
the title count double. A candidate whose light stem matches an existing room (`auth-migration` for
"migrating auth" or "Auth migrations") scores double, and an existing room whose words occur
together in a sentence at least twice is a candidate too: the same topic gets the same slug in
every wing, which is what makes tunnels. A candidate made only of words found in most drawers of
most wings is everyone's word, not a topic ("photo" in chats full of shared pictures), and is passed
over unless the title names it. The best candidate left becomes the room; none → `general`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from ..vocabulary import STOP_WORDS
from ..errors import InvalidInputError
from ..naming import room_slug, spell_symbols

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
PAIR_WEIGHT, TITLE_WEIGHT, KNOWN_WEIGHT = 2.5, 2.0, 2.0
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
        """`widespread_words(words)` names those found in most drawers of most wings (optional)."""
        self._widespread_words = widespread_words
        self._known: dict[str, str] = {}
        for slug in sorted(existing_rooms):
            if slug != GENERAL:
                self._known.setdefault(room_key(slug), slug)

    def choose(self, texts: Sequence[str], title: str | None = None, names: Iterable[str] = ()) -> str:
        """The room for a conversation (or a segment of one) made of `texts`."""
        ignored = STOP_WORDS | _FILLER | {w for n in names for w in _WORD.findall(_fold(n.lower()))}
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
                    scores[key] += weight * bonus
                    surface.setdefault(key, Counter())[" ".join(words)] += 1
        stems = [{stem(w) for run in sentence for w in run} for sentence in sentences]
        title_keys = {"-".join(sorted(stem(w) for w in pair)) for run in titled for pair in zip(run, run[1:])}
        title_keys |= {stem(w) for run in titled for w in run}
        for key in self._known:
            together = max(_co_occurrences(key.split("-"), stems), round(scores.get(key, 0.0) / PAIR_WEIGHT))
            if together >= 2 or key in title_keys:
                scores[key] = max(scores.get(key, 0.0), PAIR_WEIGHT * together) * KNOWN_WEIGHT
            elif key in scores:
                scores[key] = min(scores[key], PAIR_WEIGHT)  # mentioned once in passing: no bonus
        order = sorted(scores, key=lambda k: (scores[k], k.count("-"), k), reverse=True)
        generic = self._generic_stems(order[:GENERIC_CHECKED], surface)
        best = next((k for k in order if k in title_keys or not set(k.split("-")) <= generic), None)
        if best is None:
            return GENERAL
        if best in self._known:
            return self._known[best]
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


def _co_occurrences(stems: list[str], sentences: list[set[str]]) -> int:
    """In how many sentences all of a multi-word room's stems appear together."""
    wanted = set(stems)
    return sum(1 for words in sentences if wanted <= words) if len(wanted) > 1 else 0
