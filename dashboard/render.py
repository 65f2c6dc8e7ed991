"""Untrusted text (drawer content, room, wing and file names) made safe to show.

Everything that reaches HTML goes through `html.escape` first; everything that reaches a Markdown
label goes through `md`. Nothing here is passed to `unsafe_allow_html` unescaped.
"""

from __future__ import annotations

import html
import re
from datetime import datetime, timezone
from collections.abc import Mapping
from urllib.parse import quote, unquote

from lemminflect import getAllInflections, getAllLemmas

from mempalace.text.cjk import OTHER_WORD_CHAR, cjk_spans, index_words, is_cjk
from mempalace.catalog.vocabulary import content_words
from mempalace.text.counts import counted

from .widths import LATIN_EM, prefix_within

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")
JOINER = "\u2060"  # WORD JOINER: invisible, and breaks a pattern Streamlit would act on
# Where GFM would still see a web or mail address once escapes are read: after "www", between ":"
# and "//", and before "@".
_ADDRESS_START = re.compile(r"(?<=www)(?=\\\.)|(?<=\\:)(?=//)|(?=@)", re.IGNORECASE)
# "hover me", after a text with a title: a lettered circle drawn by CSS (U+24D8 is missing from common fonts)
INFO_MARK = ('<sup class="mp-info" style="opacity:0.6;border:1px solid currentColor;border-radius:50%;'
             'padding:0 0.3em;font-size:0.65em;font-style:italic;font-family:serif" aria-hidden="true">i</sup>')
PLACE_KEYS = ("wing", "room", "hall")  # what a clickable place may name
NO_HALL_LABEL = "(none)"  # how a chart or a move box shows no hall


def attr(value: object) -> str:
    """A value for an HTML attribute, quotes escaped too."""
    return html.escape(str(value), quote=True)


def place_data(**place: str | None) -> str:
    """`data-wing`/`data-room`/`data-hall` attributes naming a clickable place. Names are percent-encoded,
    so a click sends back exactly the stored name (HTML would turn a CR into LF and a NUL into U+FFFD)."""
    return "".join(f' data-{k}="{attr(quote(v, safe=""))}"' for k, v in place.items() if v)


def place_from(dataset: object) -> dict[str, str]:
    """The place a clicked element's `place_data` names, as {wing, room, hall} so far as it names them."""
    if not isinstance(dataset, Mapping):
        return {}
    return {k: unquote(v) for k, v in dataset.items() if k in PLACE_KEYS and isinstance(v, str) and v}


def md(text: object) -> str:
    """Plain text for a Markdown label: every markup character and entity escaped, on one line. GFM
    still links a web or mail address in it (http, https and mailto only): for text from a link
    someone else made, use `unlinked`."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def unlinked(text: object) -> str:
    """`md`, and no web or mail address left for GFM to link (a word joiner, invisible, breaks each):
    for values a crafted URL chooses, which must not turn into links on this site's pages."""
    return _ADDRESS_START.sub(JOINER, md(text))


def query_terms(query: str) -> list[str]:
    """The words of a query worth highlighting: those keyword search looks up (no stop words such as
    "does" or "have"; a CJK run's character pairs), none of one Latin letter."""
    return [t for t in content_words(index_words(query)) if len(t) > 1 or is_cjk(t)]


def word_forms(terms: list[str]) -> set[str]:
    """Each term and its inflections, as lemminflect's English lexicon knows them (`migrate` →
    migrates, migrated, migrating; `mice` → mouse): the words a highlight marks, whole."""
    forms = set()
    for term in terms:
        lemmas = {lemma for found in getAllLemmas(term).values() for lemma in found} or {term}
        forms |= {term, *lemmas, *(form for lemma in lemmas for found in getAllInflections(lemma).values()
                                   for form in found)}
    return {form.lower() for form in forms if len(form) > 1}


def highlight(text: str, terms: list[str], limit: int | None = None) -> str:
    """`text` as escaped HTML with each whole word that is a term or an inflection of one in <mark>; with
    `limit`, only as much as `limit` Latin letters take (half as many Chinese characters) and "…"."""
    shown = text if limit is None else prefix_within(text, limit * LATIN_EM)
    shown += "…" if len(shown) < len(text) else ""
    if not terms:
        return html.escape(shown)
    out, last = [], 0
    for start, end in _marked_spans(shown, terms):
        out += [html.escape(shown[last:start]), "<mark>", html.escape(shown[start:end]), "</mark>"]
        last = end
    out.append(html.escape(shown[last:]))
    return "".join(out)


def _marked_spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Where `text` holds a term: whole words for most scripts (inflections too), anywhere for CJK terms
    (written without spaces), in order and never overlapping."""
    words = [t for t in terms if not is_cjk(t)]
    spans = cjk_spans(text, [t for t in terms if is_cjk(t)])
    forms = sorted(word_forms(words), key=len, reverse=True)
    if forms:
        pattern = re.compile(f"(?<!{OTHER_WORD_CHAR})(" + "|".join(map(re.escape, forms)) + f")(?!{OTHER_WORD_CHAR})",
                             re.IGNORECASE | re.UNICODE)
        spans += [found.span() for found in pattern.finditer(text)]
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


HALL_MEANING = {
    "hall_facts": "a fact: what is true, decided or set up",
    "hall_events": "an event: something that happened or is planned, with its time",
    "hall_discoveries": "a discovery: something found out, a cause or an insight",
    "hall_preferences": "a preference: a like, dislike or habit",
    "hall_advice": "advice: how to do something, a recommendation or code given",
}
HALLS_ARE_CLEAR = ("A hall is given only to a drawer clearly of its kind (one message alone, or an exchange "
                   "the classifier is sure of); the others have no hall.")


def hall_help(counts: Mapping[str, int]) -> str:
    """What the hall filter and heatmap count, and how many drawers have no hall (`counts` as
    `hall_counts` gives them, '' for none)."""
    none = counts.get("", 0)
    total = sum(counts.values())
    return (f"Halls hold drawers clearly of their kind: {HALLS_ARE_CLEAR} "
            f"{none:,} of {counted(total, 'drawer')} {'has' if none == 1 else 'have'} no hall.")


def badge(text: str, kind: str) -> str:
    """A small coloured label (wing, room or hall) as escaped HTML; a hall's says on hover what it means.
    A line breaks between labels, inside one only if it is longer than the line (Chinese may break
    between any two characters, a Latin name at its hyphens)."""
    colours = {"wing": "#e8e1fb", "room": "#dff3e4", "hall": "#fdf1d6", "source": "#eceff3"}
    meaning = HALL_MEANING.get(text) if kind == "hall" else None
    title = f' title="{attr(f"{meaning[0].upper()}{meaning[1:]}. {HALLS_ARE_CLEAR}")}"' if meaning else ""
    return (f'<span style="background:{colours.get(kind, "#eee")};border-radius:0.6em;padding:0.1em 0.55em;'
            f'margin:0.1em 0.3em 0.1em 0;font-size:0.85em;display:inline-block;max-width:100%;overflow-wrap:anywhere"'
            f'{title}>{html.escape(text)}</span>')


def snippet_block(text: str, terms: list[str], limit: int = 600) -> str:
    """A drawer's text (as much as `limit` Latin letters take) with matches highlighted, whitespace kept."""
    return (f'<div style="white-space:pre-wrap;font-size:0.92em;line-height:1.45">'
            f"{highlight(text, terms, limit)}</div>")


def counts(items: list[tuple[str, object, str]], columns: int | None = None, size: str = "1.75rem") -> str:
    """(label, value, help) numbers as one escaped HTML block that looks like a row of `st.metric`s:
    one element instead of a column block and a metric each (every element costs the browser a full
    load's time). With `columns`, a grid of that many equal columns; `help` is the number's hover text."""
    layout = (f"display:grid;grid-template-columns:repeat({columns},minmax(0,1fr))" if columns
              else "display:flex;flex-wrap:wrap")
    cells = []
    for label, value, help_text in items:
        hover = f' title="{html.escape(help_text, quote=True)}"' if help_text else ""
        mark = f" {INFO_MARK}" if help_text else ""
        cells.append(f'<div class="mp-count"{hover}><div class="mp-count-label" style="font-size:0.875rem">'
                     f'{html.escape(label)}{mark}</div><div class="mp-count-value" style="font-size:{size};'
                     f'line-height:1.4">{html.escape(str(value))}</div></div>')
    return f'<div class="mp-counts" style="{layout};gap:0.25rem 1.25rem">{"".join(cells)}</div>'


def readable_time(moment: str) -> str:
    """An ISO time as people read it: `2026-12-04 06:56:42 UTC` (seconds, no microseconds)."""
    try:
        parsed = datetime.fromisoformat(moment)
    except (TypeError, ValueError):
        return str(moment)
    return parsed.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def readable_detail(detail: dict) -> str:
    """An audit entry's details as `room=gpu-pricing, wing=wing_kai` instead of raw JSON."""
    return ", ".join(f"{key}={','.join(map(str, value)) if isinstance(value, (list, tuple)) else value}"
                     for key, value in detail.items())
