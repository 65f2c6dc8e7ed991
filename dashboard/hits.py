"""One card for a drawer, wherever drawers are listed: a search hit, or a drawer of a place.

A card shows where the drawer is (the wing always), the conversation's title and day (the filing
day only in small print), the source file and a snippet, all in one HTML block; its "Open drawer"
shows the full verbatim text, the drawer id, its metadata as a labelled table and the drawers around
it. A page's closed cards are one element (`dashboard.cards`: each element costs the browser a page
load's time); an open card is drawn here. Untrusted text (content, names, titles) only reaches the
page through `html.escape` or `md`, and never a label.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Any

import streamlit as st

from mempalace import MempalaceError
from mempalace.models import Drawer, SearchHit
from mempalace.scoped.palace import ScopedPalace
from mempalace.palace.search import LEXICAL_WEIGHT

from .render import INFO_MARK, badge, snippet_block
from .text import mentions_of, plain_text, show_verbatim
from .views import key as key_of

Actions = Callable[[Drawer], None]  # controls drawn at the foot of an open drawer (move, delete)
SCORE_HELP = (
    f"Hybrid search: score = {1 - LEXICAL_WEIGHT:.1f} × meaning + {LEXICAL_WEIGHT:.1f} × words. "
    "Meaning is the cosine similarity of the drawer's embedding to the query's (−1 to 1); words is the "
    "drawer's BM25 keyword score divided by the best BM25 score among the candidates (1 for the best "
    "keyword match, 0 without the query's words). Semantic search: score = meaning.")
WEAK_HELP = (" A weak match holds fewer than half of the query's words and is not much nearer in meaning "
             "than a drawer picked at random.")
ROOM_BY = {"ingest": "ingest (re-rooming may choose again)", "person": "a person (kept as chosen)"}
EXTRA_LABELS = {"format": "format", "conversation_id": "conversation id", "speakers": "speakers",
                "conversation_date": "conversation started", "content_hash": "content hash"}


def place_badges(wing: str, room: str, hall: str | None, source: str | None = None) -> str:
    parts = [badge(wing, "wing"), badge(room, "room")] + ([badge(hall, "hall")] if hall else [])
    return "".join(parts + ([badge(source, "source")] if source else []))


def heading(title: str | None, conversation_date: str | None, filed_at: str | None) -> str:
    """The conversation's title and day as escaped HTML, the filing day after them in small print."""
    parts = [f"<strong>{html.escape(title)}</strong>"] if title else []
    if conversation_date:
        parts.append(f'<time datetime="{html.escape(conversation_date)}" title="The day the conversation '
                     f'happened">{html.escape(conversation_date)}</time>')
    line = " · ".join(parts)
    if filed_at:
        line += (f' <small style="opacity:0.65" title="When it was filed into the palace">'
                 f"filed {html.escape(filed_at[:10])}</small>")
    return f'<div style="margin-top:0.3em">{line}</div>' if line else ""


def score_line(hit: SearchHit) -> str:
    """'#1 · score 0.62 (meaning 0.71, words 0.40)': what each number is (see SCORE_HELP)."""
    hybrid = hit.lexical > 0 or not math.isclose(hit.semantic, hit.similarity, abs_tol=1e-6)
    parts = (f"meaning {hit.similarity:.2f}, words {hit.lexical / LEXICAL_WEIGHT:.2f}" if hybrid
             else f"meaning {hit.similarity:.2f}")
    return f"#{hit.rank} · score {hit.score:.2f} ({parts})" + ("" if hit.close else " · weak match")


def score_block(hit: SearchHit) -> str:
    """The score line as HTML, bold rank first, with what the numbers mean on hover (and an ⓘ mark to hover)."""
    rank, rest = score_line(hit).split(" · ", 1)
    explained = html.escape(SCORE_HELP + ("" if hit.close else WEAK_HELP), quote=True)
    return (f'<div class="mp-score" title="{explained}"><strong>{rank}</strong> · {html.escape(rest)} '
            f"{INFO_MARK}</div>")


def show_drawer(p: ScopedPalace, drawer: Drawer, key: str, terms: list[str] | None = None,
                actions: Actions | None = None, expanded: bool = False, top: str = "") -> None:
    """A drawer's card drawn with Streamlit's elements, its "Open drawer" toggle open or not (a list
    of closed cards is one element instead: `dashboard.cards`); `actions(drawer)` draws controls at
    the foot of the open drawer. `key` makes the card's widget keys unique on the page (with the
    drawer id); `opened_key(key, drawer.id)` holds whether it is open; `top` leads the card (a score)."""
    with st.container(border=True, key=f"{key}_card_{drawer.id}"):
        _card(p, drawer, terms or [], key, actions, opened_key(key, drawer.id), expanded, top)


def opened_key(key: str, drawer_id: str) -> str:
    """The session-state key (and CSS class `st-key-…`) of a card's "Open drawer" toggle: set it to
    True (AppTest: `at.session_state[...] = True`) to open it."""
    return f"{key}_open_{drawer_id}"


def card_html(drawer: Drawer, terms: list[str], top: str = "", snippet: bool = True) -> str:
    """A card's head as escaped HTML: `top` (a score), the place (the wing first, always), the
    conversation's title and day, and (unless the card is open and shows the whole text) the snippet,
    as `plain_text` shows it, with the terms marked."""
    badges = place_badges(drawer.wing, drawer.room, drawer.hall, drawer.source_file)
    head = f'{top}<div class="mp-place">{badges}</div>{heading(drawer.title, drawer.conversation_date, drawer.filed_at)}'
    if not snippet:
        return head
    shown = plain_text(drawer.content, drawer.extra)
    return head + f'<div class="mp-snippet">{snippet_block(shown, terms)}</div>'


def _card(p: ScopedPalace, drawer: Drawer, terms: list[str], key: str, actions: Actions | None,
          opened: str, expanded: bool = False, top: str = "") -> None:
    attributes = f'data-card="{html.escape(drawer.id, quote=True)}" data-list="{html.escape(key, quote=True)}"'
    is_open = st.session_state.get(opened, expanded)  # open, the whole text follows: no snippet above it
    st.html(f"<div {attributes}>{card_html(drawer, terms, top, snippet=not is_open)}</div>")  # for the focus
    if not st.toggle("Open drawer", expanded, key=opened):
        return  # drawn only while open
    show_drawer_text(p, drawer.id, drawer.content, key, drawer, actions)


def show_drawer_text(p: ScopedPalace, drawer_id: str, content: str, key: str = "drawer",
                     drawer: Drawer | None = None, actions: Actions | None = None) -> None:
    """The verbatim text, its id, its metadata, `actions` (move, delete: right under the drawer they
    act on) and the drawers around it in the same conversation."""
    full, around = details(p, key_of(p), drawer_id)
    full = full or drawer
    extra = full.extra if full else {}
    _verbatim(content, f"{key}_text_{drawer_id}", extra)
    st.caption("Drawer id")
    st.code(drawer_id, language=None)
    if full:
        st.caption("Metadata")
        st.html(metadata_table(full))
    if actions is not None and full:
        actions(full)
    around = tuple(d for d in around if d.id != drawer_id)
    if around:
        st.caption("Neighbouring drawers from the same conversation")
        for neighbour in around:
            st.html(place_badges(neighbour.wing, neighbour.room, neighbour.hall)
                    + f"<small>chunk {neighbour.chunk_index}</small>")
            _verbatim(neighbour.content, f"{key}_near_{drawer_id}_{neighbour.id}", extra)  # its mentions too


@st.cache_data(show_spinner=False, max_entries=1_000)
def details(_p: ScopedPalace, key: tuple[str, tuple[str, ...], int],
            drawer_id: str) -> tuple[Drawer | None, tuple[Drawer, ...]]:
    """A drawer read in full (None if it is gone or hidden) and its neighbours, per palace revision."""
    try:
        return _p.get_drawer(drawer_id), tuple(_p.neighbours(drawer_id))
    except MempalaceError:
        return None, ()


def _verbatim(content: str, key: str, extra: dict[str, Any]) -> None:
    """Every display of a drawer's full verbatim text goes through here: rendered as safe Markdown,
    with a raw view (`key` names its toggle); `extra` is the drawer's metadata (Slack's mentions)."""
    show_verbatim(content, key=key, mentions=mentions_of(extra))


def metadata_rows(drawer: Drawer) -> list[tuple[str, str]]:
    """(label, value) for each piece of a drawer's metadata that is known."""
    rows = [("wing", drawer.wing), ("room", drawer.room), ("hall", drawer.hall), ("source file", drawer.source_file),
            ("chunk", str(drawer.chunk_index)), ("conversation (parent id)", drawer.parent_id),
            ("title", drawer.title), ("conversation date", drawer.conversation_date), ("filed at", drawer.filed_at),
            ("added by", drawer.added_by), ("room chosen by", ROOM_BY.get(drawer.room_by or "", drawer.room_by))]
    said = {"conversation_title": drawer.title, "conversation_date": drawer.conversation_date}  # rows above
    rows += [(EXTRA_LABELS.get(k, k.replace("_", " ")), str(v)) for k, v in sorted(drawer.extra.items())
             if k not in said or str(v) != said[k]]
    return [(label, value) for label, value in rows if value not in (None, "")]


def metadata_table(drawer: Drawer) -> str:
    """The metadata as an escaped two-column HTML table (label, value)."""
    cells = "".join(f'<tr><th style="text-align:left;padding:0.1em 1em 0.1em 0;font-weight:600">'
                    f'{html.escape(label)}</th><td style="padding:0.1em 0">{html.escape(value)}</td></tr>'
                    for label, value in metadata_rows(drawer))
    return f'<table style="font-size:0.85em;border-collapse:collapse">{cells}</table>'


def as_drawer(hit: SearchHit) -> Drawer:
    """The drawer a search hit shows, as far as the hit knows it."""
    return Drawer(id=hit.drawer_id, content=hit.content, wing=hit.wing, room=hit.room, hall=hit.hall,
                  source_file=hit.source_file, filed_at=hit.filed_at, conversation_date=hit.conversation_date,
                  title=hit.title)
