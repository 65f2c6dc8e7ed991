"""The closed cards' HTML (dashboard.cards): every name and text escaped, each switch naming its
drawer and listing; and what a switch's click does in the run it starts."""

from __future__ import annotations

import html
import re

import streamlit as st

from dashboard import cards
from dashboard.hits import opened_key
from mempalace.models import Drawer

EVIL = '<img src=x onerror=alert(1)> "quoted" & <b>bold</b>'


def drawer(drawer_id: str = "d-1", **fields: str) -> Drawer:
    """A drawer of wing_kai/gpu-budget with these fields."""
    return Drawer(id=drawer_id, content=fields.pop("content", "Kai: the GPU budget doubles."), wing="wing_kai",
                  room="gpu-budget", **fields)


def test_a_closed_card_escapes_every_name_and_text_and_names_its_drawer_and_listing():
    card = cards.closed_card(drawer('d"1<x>', content=EVIL, title=EVIL, source_file=EVIL), 'hit"<k>', ["gpu"])
    assert "<img" not in card and "<b>" not in card and "onerror=alert(1)>" not in card
    assert card.count("&lt;img src=x onerror=alert(1)&gt;") == 3  # the title, the source badge, the snippet
    assert 'data-drawer="d&quot;1&lt;x&gt;"' in card and 'data-open="d&quot;1&lt;x&gt;"' in card
    assert 'data-list="hit&quot;&lt;k&gt;"' in card
    switch = re.search(r"<button [^>]*>", card).group(0)
    assert 'type="button"' in switch and 'role="switch"' in switch and 'aria-checked="false"' in switch
    assert card.endswith("Open drawer</button></article>")  # no drawer text in the switch's label


def test_a_closed_card_marks_the_query_words_in_its_snippet_and_leads_with_its_top():
    card = cards.closed_card(drawer(), "hit", ["gpu"], top='<div class="mp-score">#1</div>')
    assert card.index('<div class="mp-score">#1</div>') < card.index('class="mp-place"')
    assert "<mark>GPU</mark>" in card
    assert html.unescape(re.search(r'data-open="([^"]*)"', card).group(1)) == "d-1"


def test_a_click_on_a_switch_opens_that_card_in_the_run_it_starts(monkeypatch):
    state = {"drawers_opener": {"opened": "d-7"}, "drawers_listed": {"d-7"}}
    monkeypatch.setattr(st, "session_state", state)
    cards._opened("drawers_opener", "drawers")
    assert state[opened_key("drawers", "d-7")] is True
    state = {"drawers_opener": {"opened": None}, "drawers_listed": {"d-7"}}  # a run with no click: nothing opens
    monkeypatch.setattr(st, "session_state", state)
    cards._opened("drawers_opener", "drawers")
    assert list(state) == ["drawers_opener", "drawers_listed"]
