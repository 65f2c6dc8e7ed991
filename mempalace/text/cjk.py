"""Chinese, Japanese and Korean text as the keyword index reads it: overlapping character pairs.

These scripts write words without spaces, so the index's tokenizer would take a whole run of them
("我们领养了一只灰狗") as one word and never match a word inside it. The index is given instead, for
each run, the pair of characters starting at each position, the run's last character alone
(`灰狗` → "灰狗 狗"): a word of two characters or more is then the phrase of its pairs, and a single
character is any token that starts with it. No dictionary is needed, for any of the three languages.
Text without these scripts is indexed as it is.
"""

from __future__ import annotations

import re

# Han (with 々〆〇〻), kana and Hangul: letters the index's tokenizer keeps together with their neighbours.
CJK_CLASS = ("\u1100-\u11ff\u3005-\u3007\u303b\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff"
             "\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
             "\uff66-\uff9f\U00020000-\U0003134f")
CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
# A run of these scripts, or a word of any other (the tokenizer's `\w` runs, split where the script changes).
WORD = re.compile(f"[{CJK_CLASS}]+|(?:(?![{CJK_CLASS}])\\w)+")


# A word character of another script: what must not stand right before or after a whole word of one.
OTHER_WORD_CHAR = f"(?![{CJK_CLASS}])\\w"


def index_text(text: str) -> str:
    """What the keyword index reads for `text`: each run of CJK characters as its character pairs and
    last character, apart from the words around it; "" when `text` has none (it is indexed as it is)."""
    if CJK_RUN.search(text) is None:
        return ""
    return CJK_RUN.sub(_run_tokens, text)


def _run_tokens(found: re.Match[str]) -> str:
    run = found.group(0)
    return " " + " ".join(run[i : i + 2] for i in range(len(run))) + " "


def pairs(run: str) -> list[str]:
    """The overlapping pairs of a CJK run (the run itself when it is one character)."""
    return [run[i : i + 2] for i in range(len(run) - 1)] or [run]


def index_words(text: str) -> list[str]:
    """The words of `text` as keyword search looks them up: other scripts' words whole, each CJK run
    as its overlapping pairs (a lone character alone)."""
    words: list[str] = []
    for word in WORD.findall(text):
        words += pairs(word) if CJK_RUN.fullmatch(word) else [word]
    return words


def match_of(word: str) -> str:
    """The FTS5 expression matching `word` in the index: a phrase of its tokens (a CJK run's pairs),
    or, for a single CJK character, any token starting with it."""
    if CJK_RUN.fullmatch(word) is None:
        return '"' + word.replace('"', '""') + '"'
    return f'"{word}"*' if len(word) == 1 else '"' + " ".join(pairs(word)) + '"'


def query_form(word: str) -> str:
    """`word` as the text whose tokens stand for it in the index (a CJK run: its pairs)."""
    return " ".join(pairs(word)) if CJK_RUN.fullmatch(word) else word


def cjk_spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Where in `text` the CJK `terms` occur, overlapping and touching occurrences merged: (start, end)
    in order (a query's pairs found side by side mark the longer stretch they spell)."""
    spans = sorted((m.start(), m.start() + len(t)) for t in terms if t and CJK_RUN.fullmatch(t)
                   for m in re.finditer(re.escape(t), text))
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def is_cjk(word: str) -> bool:
    """Whether `word` is wholly CJK characters."""
    return CJK_RUN.fullmatch(word) is not None


def single_cjk(word: str) -> bool:
    """Whether `word` is one CJK character (found in the index as the start of a token, not a token)."""
    return len(word) == 1 and is_cjk(word)
