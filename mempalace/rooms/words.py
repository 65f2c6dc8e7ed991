"""Reading a conversation's words for room choice: which words can be topics (no stop words, filler,
generic chat words, numbers, dates, code, or people's names), light stems, and each part's word
signature (what `choice` compares besides meaning). Shared by grouping and naming."""

from __future__ import annotations

import calendar
import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

from ..catalog.vocabulary import STOP_WORDS
from ..language.frequency import specificity, zipf
from ..language.languages import fold, is_cjk, is_cyrillic, reading, word_language, \
    words_in
from ..language.russian import russian_stem
from ..text.drawer_chunks import IN_CODE
from ..text.names import spell_symbols

WORD = re.compile(r"[^\W\d_][\w+#]*")
LONG_TOKEN = re.compile(r"\S{41,}")  # blobs, hashes, URLs: dropped first, which keeps the next pattern linear
NOT_PROSE = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|\S*[/\\:]\w\S*|\S+@\S+|\b\w*\d\w*\b|`[^`\n]*`|\S*[_=<>{}$]\S*"
                        r"|\S+\.\w\S*|\b[0-9a-f]{8,}\b", re.IGNORECASE)
COMMAND_WORD = re.compile(r"(?<![\w.])[a-z][\w-]*(?=[ \t]+[\w-]+\.[a-z][\w.]*)")  # `mix` in `mix phx.server`
SENTENCE = re.compile(r"[.!?;:,()\[\]{}\"`|/\\]+\s|\n+|[。！？；：，、（）「」『』【】《》…]+"
                      r"|(?<=[\u3040-\u30ff\u3400-\u9fff])[.!?;:,()]+")  # CJK text puts no space after its stops
_FILLER = frozenset("""
yes yeah yep okay ok thanks thank please sure let lets know like just really think want need get got
use using used make made one also would could should can will see look looks good great well right now
way thing things something anything everything nothing lot much many still even maybe actually probably
done doing going go went new old first last next back today week hi hello hey sorry
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
doesnt dont didnt isnt wasnt arent werent hasnt havent hadnt couldnt shouldnt wouldnt aint im ive youre
youve weve theyve youll theyll theyre thats theres whats hes shes
""".split())
GENERIC = frozenset("""  # name no room alone, but may be half of a name (`flaky tests`, `meal plan`)
update updates list lists install installed installing assist assistance problem problems question issue issues
test tests testing plan plans planning idea ideas general misc other chat conversation discussion thread topic
topics note notes meeting sync team project today tomorrow yesterday week weeks month months year years hour
hours minute minutes morning evening night afternoon tonight follow help thanks step steps option options version
example examples detail details info information case cases number numbers place standard huge long title mixed
text uploaded upload check checking change changes fix fixes fixed support wall pass egg sandwich
time times day days
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
NOT_TOPIC_WORDS = STOP_WORDS | _FILLER | _NUMBER_WORDS | _CALENDAR  # never part of a topic's name
NEVER_TOPICS = NOT_TOPIC_WORDS | GENERIC
FUNCTION_WORDS = STOP_WORDS | _NUMBER_WORDS  # English words that only join others (`how-to`, `twenty-five`)
TOOL_MARK = "→"  # how transcripts of coding agents summarise a tool call in a drawer
RESULT_MARK = "←"  # and its result
MAX_WORD = 30  # longer "words" are sequences or unspaced scripts, not topic names


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A light stem, enough to match `migrate`, `migrated`, `migrating`, `migration(s)`; Snowball's
    for a Russian word; a Chinese or Japanese word as it is."""
    if is_cyrillic(word):
        return russian_stem(word)
    for suffix, keep in (("ations", "at"), ("ation", "at"), ("ings", ""), ("ing", ""), ("ions", ""), ("ion", ""),
                         ("ers", ""), ("er", ""), ("ed", ""), ("es", ""), ("s", ""), ("e", "")):
        if word.endswith(suffix) and len(word) - len(suffix) + len(keep) >= 4:
            return word[: -len(suffix)] + keep
    return word


def topic_length(word: str) -> bool:
    """Whether `word` is long enough, and short enough, to be a topic word (two Han characters are)."""
    return (2 if is_cjk(word) else 3) <= len(word) <= MAX_WORD


def word_signature(texts: Sequence[str], names: Iterable[str] = (),
                   ignored: frozenset[str] | None = None) -> Counter[str]:
    """The topic words of `texts` by light stem, (1 + log count) × how specific the word is
    (`ignored`: the words `ignored_words` found for the whole conversation, if known)."""
    counts: Counter[str] = Counter()
    surface: dict[str, str] = {}
    ignored = ignored_words(texts, names) if ignored is None else ignored
    language: dict[str, str] = {}
    for text in texts:
        latin, stops, han = reading(text)
        for sentence in _sentences(text, ignored | stops, ignored):
            for run in sentence:
                for word in run:
                    key = stem(word)
                    counts[key] += 1
                    surface.setdefault(key, word)
                    language.setdefault(key, word_language(word, latin, han))
    return Counter({k: (1.0 + math.log(n)) * specificity(surface[k], language[k]) for k, n in counts.items()})


def signature_rules() -> str | None:
    """What word signatures depend on besides the texts, so a cache never outlives a change: a digest
    of the modules that make them, the frequency list and wordfreq's version, Python's version and
    its Unicode data (case and accent folding); None if the modules cannot be read."""
    import hashlib
    import importlib.metadata
    import sys
    from pathlib import Path

    from ..catalog import vocabulary
    from ..language import frequency, languages
    from ..text import names as naming

    try:
        wordfreq = importlib.metadata.version("wordfreq")
        sources = [Path(str(module.__file__)).read_bytes() for module in (naming, vocabulary, frequency, languages)]
        sources.append(Path(__file__).read_bytes())
    except (OSError, importlib.metadata.PackageNotFoundError):
        return None
    digest = hashlib.sha256(f"{frequency.WORDLIST_SHA256} wordfreq {wordfreq} python {sys.version_info[:2]} "
                            f"unicode {unicodedata.unidata_version}".encode())
    for source in sources:
        digest.update(source)
    return digest.hexdigest()


def text_signatures(texts: Sequence[str], names: Iterable[str] = ()) -> list[Counter[str]]:
    """Each text of one conversation's word signature, the names found across them all (and its
    speakers' `names`) ignored: as room choice reads a new conversation or a stored one's samples."""
    ignored = ignored_words(texts, names)
    return [word_signature([text], ignored=ignored) for text in texts]


def ignored_words(texts: Sequence[str], names: Iterable[str]) -> frozenset[str]:
    """Words that never name a topic here: stop words, filler, generic and calendar words, numbers,
    the speakers' names and the capitalised words these texts never write in lower case."""
    spoken = {w for n in names for w in WORD.findall(fold(n.lower()))}
    return NEVER_TOPICS | spoken | proper_names(texts)


def people_words(content: str, speakers: Iterable[str] = (), machines: Iterable[str] = ()) -> str:
    """A stored drawer's text as room choice reads a new one: without tool lines (`→ Bash: …`, `← result`),
    without the messages of `machines` (speakers who only post as bots) and without the speakers'
    labels (`Kai: `, `Kai (continued): `) at the start of a message, nor the label and reopened fence a
    cut inside a code block adds (`Kai (continued, in a code block):`)."""
    machines = tuple(machines)
    tails = (" (continued): ", ": ")
    labels = tuple(f"{s}{tail}" for s in (*speakers, *machines) for tail in tails)
    code_tail = IN_CODE.rstrip("\n")
    in_code = tuple(f"{s}{code_tail}" for s in (*speakers, *machines))
    machine_starts = tuple(f"{s}{tail}" for s in machines for tail in (*tails, code_tail))
    lines, by_machine, after_gap, fence_next = [], False, True, False
    for line in content.split("\n"):
        if after_gap and machine_starts and line.startswith(labels + in_code):  # a message starts after a blank line
            by_machine = line.startswith(machine_starts)
        after_gap, skip_fence, fence_next = not line.strip(), fence_next, line in in_code
        if by_machine or skip_fence or fence_next or line.lstrip().startswith((TOOL_MARK, RESULT_MARK)):
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


def _sentences(text: str, ignored: frozenset[str] | set[str],
               names: frozenset[str] | set[str] = frozenset()) -> list[list[list[str]]]:
    """Each sentence-like piece of `text` as its runs of consecutive content words (`names`: words
    that are people here; those in Chinese or Japanese script are cut out before segmenting)."""
    sentences = []
    for piece in SENTENCE.split(NOT_PROSE.sub(" . ", LONG_TOKEN.sub(" . ", spell_symbols(fold(text.lower()))))):
        runs: list[list[str]] = [[]]
        for word in words_in(piece, WORD, names):
            if not word or word in ignored or not topic_length(word):
                runs.append([])
            else:
                runs[-1].append(word)
        if any(runs):
            sentences.append([run for run in runs if run])
    return sentences
