"""Untrusted text (drawer content, room, wing and file names) made safe to show.

Everything that reaches HTML goes through `html.escape` first; everything that reaches a Markdown
label goes through `md`. Nothing here is passed to `unsafe_allow_html` unescaped.
"""

from __future__ import annotations

import html
import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
_WORD = re.compile(r"\w+", re.UNICODE)
STOP = frozenset("a an and are as at be by for from how i in is it of on or that the this to was we what when "
                 "where which who why with you".split())


def md(text: object) -> str:
    """Plain text for a Markdown label: every markup character escaped, on one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def query_terms(query: str) -> list[str]:
    """The words of a query worth highlighting (no stop words, no one-letter words)."""
    return [t for t in dict.fromkeys(w.lower() for w in _WORD.findall(query)) if len(t) > 1 and t not in STOP]


def highlight(text: str, terms: list[str], limit: int | None = None) -> str:
    """`text` as escaped HTML with each occurrence of a term (or a word starting with it) in <mark>."""
    shown = text if limit is None or len(text) <= limit else text[:limit] + "…"
    if not terms:
        return html.escape(shown)
    pattern = re.compile(r"\b(" + "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)) + r")\w*",
                         re.IGNORECASE | re.UNICODE)
    out, last = [], 0
    for found in pattern.finditer(shown):
        out += [html.escape(shown[last:found.start()]), "<mark>", html.escape(found.group(0)), "</mark>"]
        last = found.end()
    out.append(html.escape(shown[last:]))
    return "".join(out)


def badge(text: str, kind: str) -> str:
    """A small coloured label (wing, room or hall) as escaped HTML."""
    colours = {"wing": "#e8e1fb", "room": "#dff3e4", "hall": "#fdf1d6", "source": "#eceff3"}
    return (f'<span style="background:{colours.get(kind, "#eee")};border-radius:0.6em;padding:0.1em 0.55em;'
            f'margin-right:0.3em;font-size:0.85em">{html.escape(text)}</span>')


def snippet_block(text: str, terms: list[str], limit: int = 600) -> str:
    """A drawer's text (first `limit` characters) with matches highlighted, whitespace kept."""
    return (f'<div style="white-space:pre-wrap;font-size:0.92em;line-height:1.45">'
            f"{highlight(text, terms, limit)}</div>")
