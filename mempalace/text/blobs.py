"""Blobs: long runs of ASCII without whitespace (base64, hex, data URIs, minified code, long log lines).

They are kept verbatim, but nothing reads them as words: embedding and halls see a short description
instead, room names never see them, so a pasted image costs one sentence's embedding rather than hundreds of
drawers' worth, and a file that is nothing but a blob is refused. Finding them is one regex scan.
"""

from __future__ import annotations

import re

BLOB_CHARS = 1_000  # no word, and few URLs, run this long without a space
MIN_WORDS = 3  # a source with fewer words than this outside its blobs is not a conversation
# Printable ASCII only: Chinese or Japanese prose has no spaces either, and is words. The lookbehind
# starts a match only where a run starts, so the scan stays linear on many runs just under the length.
_RUN = re.compile(r"(?<![!-~])[!-~]{%d,}" % BLOB_CHARS)
_WORD = re.compile(r"[^\W\d_]{2,}")
_KINDS = (
    ("a data URI", re.compile(r"data:[\w.+-]+/[\w.+-]+[;,]")),
    ("hex", re.compile(r"(?:0x)?[0-9a-fA-F]+")),
    ("base64", re.compile(r"[A-Za-z0-9+/_-]+={0,2}")),
)
_SAMPLE = 4_096  # characters of a run looked at to name its kind


def runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each blob in `text`, in order."""
    return [m.span() for m in _RUN.finditer(text)]


def kind(run: str) -> str:
    """What a run looks like, from its first characters: a data URI, hex, base64, or text without spaces."""
    head = run[:_SAMPLE]
    for name, pattern in _KINDS:
        if pattern.match(head) if name == "a data URI" else pattern.fullmatch(head):
            return name
    return "text without spaces (minified code or a long log line?)"


def describe(run: str) -> str:
    """A short stand-in for a run, for whatever reads text by meaning or by word."""
    return f"[{len(run):,} characters of {kind(run)}]"


def readable(text: str) -> str:
    """`text` with each blob replaced by its description (the text itself when it holds none)."""
    return _RUN.sub(lambda m: describe(m.group()), text) if len(text) >= BLOB_CHARS else text


def removed(text: str) -> str:
    """`text` without its blobs (for words that name rooms: a description names no concept)."""
    return _RUN.sub("", text) if len(text) >= BLOB_CHARS else text


def only_blobs(texts: list[str]) -> tuple[int, str] | None:
    """(characters, kind) of the blobs when `texts` hold blobs and almost no words besides; else None."""
    found = [m for text in texts for m in _RUN.finditer(text)]
    if not found:
        return None
    words = sum(len(_WORD.findall(_RUN.sub(" ", text))) for text in texts)
    if words >= MIN_WORDS:
        return None
    return sum(len(m.group()) for m in found), kind(found[0].group())
