"""Words beyond English for room choice: which language a text is in, its words (Chinese segmented by
jieba's dictionary, Japanese by MeCab's), each language's stop words and how
common a word is in it. Every list ships inside a PyPI package and is checked by sha256 on first use
(`shipped.checked_file`), so a changed list cannot silently change every room:

- stop words: `stopwordsiso` (the stopwords-iso lists, 50+ languages);
- word frequencies: `wordfreq`'s lists for each language below;
- Chinese words and their parts of speech: `rjieba` (jieba-rs, its dictionary built into the library);
- Japanese words and their parts of speech: `fugashi` (MeCab) with `ipadic` (the IPA dictionary);
- Russian inflections: `PyStemmer` (Snowball, no data files) and `pymorphy3` (see `russian`);
- month and weekday names: the Unicode CLDR's, from `babel`.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Sequence

from ..text.counts import counted
from ..text.names import fold
from .russian import nominative, russian_stem
from .shipped import checked_file

STOP_FILE = ("stopwordsiso", "stopwordsiso/stopwords-iso.json",
             "337af4d57d5fa1fecc2ffcae532e9b9f05db51c74ff18d3dde9572185a3cdae4")
JIEBA_FILE = ("rjieba", "rjieba/rjieba.abi3.so", "1d9f410a4c9884b0a49d0a842c672b3cf4e56a80c7744421b0bad7cb63ae7714")
FREQUENCY_SHA256 = {
    "zh": "e079d7aaff1cfb92874850cb3ffbc7b611af939d9d671c1cbda932d968467cdd",
    "ja": "e6ab743b939c1802fc03791f1d58dee2861e822ceecdcdee3f0e05b863ef26d8",
    "es": "14f326b4f68d517f9b8b99c1e26ef56a508d2dc8d0ee7a9e6e8732ddab1aa65e",
    "fr": "6f16cd80b9b66c5698ed002becea83ae30d0584c3205f1cf01714ad562c00c8b",
    "de": "8ef04d3f4a28fb48d800d25fa80a96d90a5f80c8496c9a453f99f887c6ad3c12",
    "it": "0b5500e425a50e0f1fefb256d9125e74f586ac6b2f2a6e41bc96634bd5613cc7",
    "pt": "7d764586bca6262f554d5fa77ad8e6841ef42534776e70558065140853660ce2",
    "nl": "cfdae01b2ccd5bc94be046645b6ba8682e65d6709beedf6ab98d7bdc5414d671",
    "ru": "0440613cc765c14a20fb9483225f2fec4d85e66672809076bcec9b29119f9b43",
    "uk": "0a7d525ef5b9d2c84cd3ccd1064b02eb6a07232e5d1e465df40cc00168fdaac2",
}
CALENDAR_SHA256 = {  # babel's CLDR data of each language whose month and weekday names are read
    "root": "f38efff9eebc95c49a5db1789c1619170e880d0bfcf89e43c449454536e3af42",
    "en": "1e613e1ac63d11f03440d18f05fe276dd4d30d75b471f7a87bffda9ca0264cee",
    "es": "3bdcedd24646f95e3c3734cae46d7a625c529ea07e8f43efde4c682681322aea",
    "fr": "0a4d8b9befb62f45be1161fdc86f8407de68c9fe2865cf3393a5db838f63a779",
    "de": "76d0afef457b296b85179cedfa92cd4b4e6cbb84b52117e2facfc3221b57b266",
    "it": "82008480a2cd2c2ce582c4ae10ec4be31fcff303baee2d2a69a85bb8c9b3d87d",
    "pt": "831993cb03af18ecc5b936f6ddce4625246cc8debdb9cc130209e8ab4616e69f",
    "nl": "9df1cc4ad3356ef5f2ab62dde1300fc25eca729ae0758e351a47faa99c6edfed",
    "ru": "b6ec692a0e7bdcb590e919824f950f90233c48ebfc6881163e4ebd1687a74d00",
    "uk": "970172729e78db14c3bd1e2eb5ab7d95e7c09e0fddf5edeeac11f1a088ab260f",
    "zh": "ad024d5bea83799e904a84bd3593dcca97d62fa952363445f9a07d152df4b632",
    "ja": "c1d5dd4a76f7191a12f8e97be64d17b481956df272b5a274ac689bb9323f2def",
}
LATIN_LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "nl")  # told apart by their stop words
CYRILLIC_LANGUAGES = ("ru", "uk")
ENGLISH = "en"
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005"
KANA = "\u3040-\u30ff\u31f0-\u31ff"
CJK_RUN = re.compile(f"[{HAN}{KANA}]+")
_KANA = re.compile(f"[{KANA}]")
_HAN = re.compile(f"[{HAN}]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN_WORD = re.compile(r"\b[a-zà-ÿ]+\b")
# MeCab's IPA dictionary (`ipadic`, read by `fugashi`): its noun kinds that can name a topic (common, verbal,
# adjectival and proper nouns; not numbers, suffixes, pronouns, adverbial time words such as 来月)
IPADIC_FILES = (("sys.dic", "223af63996d5d9a104d8c8baaf32029fbbf6a370d7dff33fe19fda2e92ac0ac1"),
                ("matrix.bin", "ee44d7350cdcb680ebd699f83e121be1dc63310f8832d55bcb537a068177611a"),
                ("char.bin", "81bba502ae48fa005a374819f15e44452eb68086a8b323ec20a044d514400832"),
                ("unk.dic", "f0bf15e3e28259f4470b9c1e775d98bef53207d4b09afcd6d8545209b7b53f88"))
_LEFT_WORD = re.compile(r"[^\W_]+\Z")
_JAPANESE_TOPIC_KINDS = frozenset({"一般", "サ変接続", "形容動詞語幹", "固有名詞"})
# jieba's tags for words that never name a topic: numerals, measures, pronouns, prepositions, conjunctions,
# particles, adverbs, adjectives, interjections, idioms, times and places of a sentence ("上面"), symbols
_NOT_TOPIC_TAGS = frozenset("m mq q r rr rz p c u uj ul uz uv ud ug y e o x w t tg f d dg a ad ag l i z zg k h s".split())
KIN = frozenset("""奶奶 爷爷 外婆 外公 姥姥 姥爷 妈妈 爸爸 老妈 老爸 阿姨 叔叔 伯伯 舅舅 姑姑 老公 老婆 哥哥 姐姐 弟弟 妹妹
儿子 女儿 宝宝 孩子 媳妇 婆婆 公公 岳母 岳父""".split())  # people by their place in a family (Chinese kin terms)
MIXED_SHARE, MIXED_HITS = 0.5, 3  # a second Latin language in a text: half the stop words of the first, and 3
PERSON_ZIPF = 3.0  # a name jieba tags as a person's, rarer than this in Chinese, is someone here (张伟, 朵朵)
MULTILINGUAL = "use-m3"  # the embedder that places one meaning in different languages near each other
NOT_ENGLISH_SHARE = 0.25  # of a filing's new drawers, from which an English-only embedder is said to fall short
MIN_CJK_CHARS = 2  # one Han character alone is a particle or part of a word far more often than a topic


def is_cjk(word: str) -> bool:
    return bool(word) and bool(CJK_RUN.match(word[0]))


def is_cyrillic(word: str) -> bool:
    return bool(word) and bool(_CYRILLIC.match(word[0]))


@functools.lru_cache(maxsize=1)
def _stop_lists() -> dict[str, list[str]]:
    return json.loads(checked_file(*STOP_FILE).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=64)
def stop_words(language: str) -> frozenset[str]:
    """A language's stop words, lowercased, as written and accents off (none for a language the
    lists lack)."""
    words = {w.lower() for w in _stop_lists().get(language, ())}
    return frozenset(words | {fold(w) for w in words})


def text_languages(text: str) -> frozenset[str]:
    """The languages of `text`'s words, by script and, among Latin or Cyrillic ones, by which
    language's stop words it uses most: Chinese with English terms gives {zh, en}."""
    found = set()
    if _KANA.search(text):
        found.add("ja")
    elif _HAN.search(text):
        found.add("zh")
    if _CYRILLIC.search(text):
        found.add(_by_stop_words(re.findall(r"[\u0400-\u04ff]+", text.lower()), CYRILLIC_LANGUAGES))
    latin = _LATIN_WORD.findall(text.lower())
    if latin:
        hits = _stop_hits(latin, LATIN_LANGUAGES)
        found.add(_most(hits, LATIN_LANGUAGES))
        found |= {lang for lang, n in hits.items() if n >= max(MIXED_HITS, MIXED_SHARE * max(hits.values()))}
    return frozenset(found)


def reading(text: str) -> tuple[str, frozenset[str], str]:
    """How to read `text`'s words: the language of its Latin-script words (English when none), the
    stop words of its languages besides English (whose own lists are read elsewhere), and the
    language of its Han characters (Japanese when it writes kana)."""
    languages = text_languages(text)
    latin = next((lang for lang in LATIN_LANGUAGES if lang in languages), ENGLISH)
    words: frozenset[str] = frozenset()
    for language in sorted(languages - {ENGLISH}):
        words |= stop_words(language)
    return latin, words, "ja" if "ja" in languages else "zh"


def main_language(text: str) -> str:
    """The language most of `text` is written in: a Han character counts as a word, as do a Latin
    or Cyrillic word's letters over five."""
    han, kana = len(_HAN.findall(text)), len(_KANA.findall(text))
    cyrillic = len(_CYRILLIC.findall(text)) / 5
    latin_words = _LATIN_WORD.findall(text.lower())
    latin = sum(len(w) for w in latin_words) / 5
    best = max(han + kana, cyrillic, latin)
    if not best:
        return ENGLISH
    if best == han + kana:
        return "ja" if kana else "zh"
    if best == cyrillic:
        return _by_stop_words(re.findall(r"[\u0400-\u04ff]+", text.lower()), CYRILLIC_LANGUAGES)
    return _by_stop_words(latin_words, LATIN_LANGUAGES)


def _by_stop_words(words: list[str], languages: tuple[str, ...]) -> str:
    """Which of `languages` (the first on a tie) uses the most of `words` as stop words."""
    return _most(_stop_hits(words, languages), languages)


def _stop_hits(words: list[str], languages: tuple[str, ...]) -> dict[str, int]:
    counts = Counter(words)
    return {lang: sum(n for w, n in counts.items() if w in stop_words(lang)) for lang in languages}


def _most(hits: dict[str, int], languages: tuple[str, ...]) -> str:
    return max(languages, key=lambda lang: (hits[lang], -languages.index(lang)))


def words_in(piece: str, word: re.Pattern[str], names: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """`piece`'s words in order: `word`'s matches outside Chinese and Japanese, their segmented words
    within; "" stands for a word that breaks a phrase (a particle, a numeral, a person's name: `names`
    are the speakers' names, cut out of Chinese and Japanese text before it is segmented)."""
    found: list[str] = []
    at = 0
    people: tuple[str, ...] | None = None
    for run in CJK_RUN.finditer(piece):
        people = _cjk_names(frozenset(names)) if people is None else people
        before = piece[at : run.start()]
        found += word.findall(before)
        left = _LEFT_WORD.search(before)  # a word written right against the run: `lock待ち`
        for n, said in enumerate(re.split("|".join(map(re.escape, people)), run.group()) if people else [run.group()]):
            found += _segmented(said, left.group() if left and n == 0 else "") + [""] if said else [""]
        at = run.end()
    found += word.findall(piece[at:])
    return found


@functools.lru_cache(maxsize=64)
def _cjk_names(names: frozenset[str]) -> tuple[str, ...]:
    """The names written in Chinese or Japanese script, longest first (as they are cut out)."""
    return tuple(sorted((n for n in names if is_cjk(n)), key=len, reverse=True))


def _segmented(run: str, left: str = "") -> list[str]:
    if _KANA.search(run):
        return _japanese(run, left)
    return [_chinese_word(w, tag) for w, tag in _jieba().tag(run)]


def _japanese(run: str, left: str = "") -> list[str]:
    """Japanese by MeCab's IPA dictionary: its common and proper nouns are content words (a suffix noun
    joins the word before it: 医療 + 費); particles, verbs, numbers, time words and people break phrases.
    `left` is the word written right before the run (`lock` in `lock待ち`): read with it, so that a
    suffix is seen as one, but not part of the run's words."""
    found: list[str] = [""] if left else []
    at = 0
    for token in _mecab()(left + run):
        at += len(token.surface)  # MeCab skips no character here: the text has no spaces
        if at <= len(left):
            continue
        pos, kind, detail = token.feature[0], token.feature[1], token.feature[2]
        if pos == "名詞" and kind == "接尾" and detail != "人名" and found and found[-1]:
            found[-1] += token.surface
        elif pos == "名詞" and kind in _JAPANESE_TOPIC_KINDS and detail != "人名" and token.surface not in stop_words("ja"):
            found.append(token.surface)
        elif not found or found[-1]:
            found.append("")
    return [w if len(w) >= MIN_CJK_CHARS else "" for w in found]


@functools.lru_cache(maxsize=1)
def _mecab():  # type: ignore[no-untyped-def]
    for relative, sha256 in IPADIC_FILES:
        checked_file("ipadic", f"ipadic/dicdir/{relative}", sha256)
    import fugashi
    import ipadic

    return fugashi.GenericTagger(ipadic.MECAB_ARGS)


def _chinese_word(word: str, tag: str) -> str:
    if len(word) < MIN_CJK_CHARS or tag in _NOT_TOPIC_TAGS or word in stop_words("zh") or word in KIN:
        return ""
    if len(word) == 2 and word[0] == word[1]:
        return ""  # doubled: a pet name (朵朵), a kin word (妈妈) or a casual verb (试试, 问问), never a topic
    if tag.startswith("nr") and zipf(word, "zh") < PERSON_ZIPF:
        return ""  # a person: 张伟
    return word


@functools.lru_cache(maxsize=1)
def _jieba():  # type: ignore[no-untyped-def]
    checked_file(*JIEBA_FILE)
    import rjieba

    return rjieba.Jieba()


@functools.lru_cache(maxsize=16)
def _frequencies(language: str) -> dict[str, float]:
    checked_file("wordfreq", f"wordfreq/data/large_{language}.msgpack.gz", FREQUENCY_SHA256[language])
    from wordfreq import get_frequency_dict

    found = dict(get_frequency_dict(language, wordlist="large"))
    for word, frequency in list(found.items()) if language in LATIN_LANGUAGES else ():  # texts are read with Latin accents off (año → ano)
        plain = fold(word)
        if plain != word and frequency > found.get(plain, 0.0):
            found[plain] = frequency
    return found


@functools.lru_cache(maxsize=131_072)
def zipf(word: str, language: str) -> float:
    """log10 of a word's frequency per billion words of `language` (0 for a word or a language the
    lists lack); a word with its Latin accents off counts as its commonest accented form."""
    frequency = _frequencies(language).get(word, 0.0) if language in FREQUENCY_SHA256 else 0.0
    return round(math.log10(frequency * 1e9), 2) if frequency > 0 else 0.0


EVERYDAY_ZIPF = 5.0  # a word this common in its language (año, 数据, 情况) names no topic alone


def everyday(word: str, language: str) -> bool:
    """Whether `word` is an everyday word of `language` (English has its own lists, in `words`)."""
    return language != ENGLISH and zipf(word, language) >= EVERYDAY_ZIPF


def written(phrase: str) -> str:
    """A phrase as a name is written: Chinese and Japanese words run together (`数据库升级`), a Russian
    one's head in the nominative (`экзамене` → `экзамен`)."""
    words = phrase.split()
    if any(is_cyrillic(w) for w in words):
        words = nominative(words)
    text = words[0] if words else ""
    for before, word in zip(words, words[1:]):
        text += word if is_cjk(before[-1]) and is_cjk(word) else " " + word
    return text


def in_language(spelling: str, used_by: Counter[str], language: str) -> bool:
    """Whether a phrase is in `language`: in its script, and for Latin or Cyrillic words, used mostly
    by parts in that language (`used_by`: parts using it, by their language)."""
    words = spelling.split()
    first = words[0] if words else ""
    if language in ("zh", "ja"):
        return is_cjk(first)
    if is_cjk(first) or is_cyrillic(first) != (language in CYRILLIC_LANGUAGES):
        return False
    return not used_by or max(used_by, key=lambda lang: (used_by[lang], lang == language)) == language


def word_language(word: str, latin: str = ENGLISH, han: str = "zh") -> str:
    """The language a word of a text is in, by its script; a Latin word is in `latin` (the text's),
    a word of Han characters only in `han` (Japanese in a Japanese text: 問題)."""
    if is_cjk(word):
        return "ja" if _KANA.search(word) or han == "ja" or latin == "ja" else "zh"
    if is_cyrillic(word):
        return "ru"
    return latin


def is_calendar(word: str) -> bool:
    """Whether `word` is a month's or a weekday's name in one of the languages read here (`juin`,
    `Dienstag`, `пятница`, `星期六`), or one with an -s (`thursdays`, `lundis`): a date, never a topic.
    Every language's, as a French word in a German thread is read as German. From the Unicode CLDR's
    names (`babel`)."""
    lowered = word.lower()
    names = _calendar_names()
    return (lowered in names or (lowered.endswith("s") and lowered[:-1] in names)
            or (is_cyrillic(lowered) and russian_stem(lowered) in names))


@functools.lru_cache(maxsize=1)
def _calendar_names() -> frozenset[str]:
    for locale, sha256 in CALENDAR_SHA256.items():
        checked_file("babel", f"babel/locale-data/{locale}.dat", sha256)
    from babel.dates import get_day_names, get_month_names

    names = {name.lower() for language in CALENDAR_SHA256 if language != "root" for context in ("format", "stand-alone")
             for getter in (get_month_names, get_day_names) for name in getter("wide", context, language).values()}
    return frozenset(names | {russian_stem(n) for n in names if is_cyrillic(n)})


def not_english_share(texts: Sequence[str]) -> str | None:
    """"N of M new drawers are not in English" when at least NOT_ENGLISH_SHARE of `texts` are written
    mostly in another language, else None."""
    other = sum(main_language(text) != ENGLISH for text in texts)
    if not texts or other < NOT_ENGLISH_SHARE * len(texts):
        return None
    return f"{other:,} of {counted(len(texts), 'new drawer')} {'is' if other == 1 else 'are'} not in English"


def embedder_note(embedder: str, texts: Sequence[str]) -> str | None:
    """What to tell someone filing conversations mostly not in English into a palace whose embedder reads
    English only (MiniLM): their search and rooms across languages need the multilingual one."""
    from ..embedding.embedders import crosses_languages

    said = None if crosses_languages(embedder) else not_english_share(texts)
    if said is None:
        return None
    return (f"{said}, and this palace's embedder ({embedder}) "
            "reads English only: a question finds them only by their exact words, and never across languages. "
            f"`mempalace embedder --to {MULTILINGUAL}` moves the palace to the multilingual embedder (every drawer kept).")
