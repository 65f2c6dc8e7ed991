"""A page's closed drawer cards as one HTML block each run of them (built by
`dashboard.hits.card_html`, every name and text escaped), with a tiny component that says which
card's "Open drawer" was switched on; an open card is drawn with Streamlit's own elements between
two such blocks. One element for a page of cards instead of three per card saves a full load
0.1-0.2 s in the browser (benchmarks README). The cards are plain HTML rather than the component's
own markup: a component's content arrives 0.1-0.4 s after the rest of the page, an HTML block with it."""

from __future__ import annotations

import html
from collections.abc import Sequence
import re
from dataclasses import replace
from functools import partial

import streamlit as st

from mempalace import MempalaceError
from mempalace.models import Drawer, SearchHit
from mempalace.scoped.palace import ScopedPalace

from .hits import Actions, as_drawer, card_html, opened_key, score_block, show_drawer

STYLE = """<style>
.mp-list { display: flex; flex-direction: column; gap: 1rem; }
.mp-card { border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem; padding: calc(1rem - 1px);
           display: flex; flex-direction: column; gap: 1rem; overflow-wrap: anywhere; }
.mp-open { all: unset; display: inline-flex; align-items: center; gap: 0.5rem; cursor: progress; opacity: 0.6;
           align-self: flex-start; font-size: 0.875rem; line-height: 1.6; }
body:has([data-mp-listing]) .mp-open { cursor: pointer; opacity: 1; }  /* the opener hears clicks */
.mp-open:focus-visible { outline: 2px solid #6b4fbb; outline-offset: 2px; border-radius: 0.25rem; }
.mp-switch { width: 2rem; height: 1rem; border-radius: 0.5rem; background: #d5dae5; position: relative; flex: none; }
.mp-switch::after { content: ""; position: absolute; top: 0.125rem; left: 0.125rem; width: 0.75rem; height: 0.75rem;
                    border-radius: 50%; background: #fff; box-shadow: 0 1px 2px rgba(0, 0, 0, 0.25); }
.mp-open[aria-checked="true"] .mp-switch { background: #6b4fbb; }
.mp-open[aria-checked="true"] .mp-switch::after { left: 1.125rem; }
</style>"""
OPENER_JS = """
const RESEND_MS = 2000;  // a switch sends once in this time; after it, a click that was lost can be sent again
const slug = (text) => text.trim().replaceAll(/[^a-zA-Z0-9_-]/g, "-");  // as Streamlit's st-key- classes
const focusWhenDrawn = (find) => {  // the run draws it anew: focus it once it is there (for 5 s at most)
  const done = () => { const found = find(); if (found) { found.focus(); watch.disconnect(); } return !!found; };
  const watch = new MutationObserver(done);
  if (!done()) { watch.observe(document.body, { childList: true, subtree: true }); setTimeout(() => watch.disconnect(), 5000); }
};
// Each listing's listeners, removed before a render adds its own: Streamlit calls the cleanup a render
// returns only on unmount, so listeners added on every run would otherwise pile up on the document.
const installed = new Map();
export default function ({ parentElement, data, setTriggerValue }) {  // `data`: the listing's key
  const open = (event) => {  // a closed card's "Open drawer" switched on
    const button = event.target.closest("button[data-open]");
    if (!button || button.dataset.list !== data || Date.now() - (button.dataset.sent || 0) < RESEND_MS) return;
    button.dataset.sent = Date.now();
    button.setAttribute("aria-checked", "true");  // at once: the run that draws the card open follows
    setTimeout(() => button.setAttribute("aria-checked", "false"), RESEND_MS);
    setTriggerValue("opened", button.dataset.open);
    const toggle = `.st-key-${slug(data + "_open_" + button.dataset.open)} input`;
    focusWhenDrawn(() => document.querySelector(toggle));
  };
  const close = (event) => {  // an open card's toggle switched off: focus its switch once it is listed closed
    if (event.target.checked || !event.target.closest(`[class*="st-key-${slug(data)}_open_"]`)) return;
    const id = event.target.closest("[data-testid=stVerticalBlock]")?.querySelector("[data-card]")?.dataset.card;
    focusWhenDrawn(() => [...document.querySelectorAll("button[data-open]")].find(
      (b) => b.dataset.list === data && b.dataset.open === id));
  };
  installed.get(data)?.();
  document.addEventListener("click", open);
  document.addEventListener("change", close);
  (parentElement.host || parentElement).setAttribute("data-mp-listing", data);  // listening (tests wait for it)
  const remove = () => {
    document.removeEventListener("click", open);
    document.removeEventListener("change", close);
    if (installed.get(data) === remove) installed.delete(data);
  };
  installed.set(data, remove);
  return remove;
}
"""
_SLACK_HINT = re.compile(r"<[@#!][A-Za-z0-9]|&(?:gt|lt|amp);|<(?:https?://|mailto:)")
_opener = st.components.v2.component("mempalace.card_opener", js=OPENER_JS)


def closed_card(drawer: Drawer, key: str, terms: list[str], top: str = "") -> str:
    """A closed card as escaped HTML: its head, and an "Open drawer" switch naming the drawer and
    the listing (`key`) it belongs to."""
    drawer_id, listing = html.escape(drawer.id, quote=True), html.escape(key, quote=True)
    return (f'<article class="mp-card" data-drawer="{drawer_id}"><div>{card_html(drawer, terms, top)}</div>'
            f'<button type="button" class="mp-open" role="switch" aria-checked="false" data-open="{drawer_id}"'
            f' data-list="{listing}"><span class="mp-switch"></span>Open drawer</button></article>')


def show_cards(p: ScopedPalace, cards: Sequence[tuple[Drawer, str]], key: str, terms: list[str] | None = None,
               actions: Actions | None = None) -> None:
    """(drawer, top) cards in order, `top` leading a card (a score, or ""): runs of closed cards as one
    element each, an open one (`opened_key(key, id)` true) as `dashboard.hits.show_drawer`."""
    closed: list[str] = []
    st.session_state[f"{key}_listed"] = {drawer.id for drawer, _ in cards}  # what a switch may open
    cards = _with_markup_metadata(p, cards)
    for drawer, top in cards:
        if st.session_state.get(opened_key(key, drawer.id)):
            _show_closed(closed)
            show_drawer(p, drawer, key, terms, actions, top=top)
        else:
            closed.append(closed_card(drawer, key, terms or [], top))
    _show_closed(closed)
    if cards:
        opener = f"{key}_opener"
        _opener(data=key, key=opener, height=0, on_opened_change=partial(_opened, opener, key))


def _with_markup_metadata(p: ScopedPalace, cards: Sequence[tuple[Drawer, str]]) -> list[tuple[Drawer, str]]:
    """The cards, a drawer listed without its metadata read in full when its text has Slack's markup
    or escapes, so its card shows the names and characters the drawer keeps (`@Harry`, `>`)."""
    wanted = [drawer.id for drawer, _ in cards if not drawer.extra and _SLACK_HINT.search(drawer.content)]
    try:
        full = p.get_drawers(wanted) if wanted else {}
    except MempalaceError:
        full = {}
    return [(replace(drawer, extra=full[drawer.id].extra) if drawer.id in full else drawer, top) for drawer, top in cards]


def show_hits(p: ScopedPalace, hits: Sequence[SearchHit], terms: list[str], key: str = "hit") -> None:
    """Search results' cards, each led by what its score is made of, with the terms marked."""
    show_cards(p, [(as_drawer(hit), score_block(hit)) for hit in hits], key, terms)


def _show_closed(closed: list[str]) -> None:
    """Draw these closed cards as one element (none: nothing) and empty the list."""
    if closed:
        st.html(f'{STYLE}<div class="mp-list">{"".join(closed)}</div>')
        closed.clear()


def _opened(opener: str, key: str) -> None:
    """A card's "Open drawer" was switched on: open that card in the run this starts."""
    drawer_id = (st.session_state.get(opener) or {}).get("opened")
    if isinstance(drawer_id, str) and drawer_id in st.session_state.get(f"{key}_listed", ()):  # not a stale card
        st.session_state[opened_key(key, drawer_id)] = True
