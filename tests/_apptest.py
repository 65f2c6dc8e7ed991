"""What AppTest tests of the dashboard share: the app's path, and the apps a test started, whose
palaces are closed after it (st.cache_resource keeps one per process; conftest.py's autouse
fixture calls `close_started`)."""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
_started: list[AppTest] = []


def started(at: AppTest) -> AppTest:
    """Remember `at`, so the palace it opens is closed after the test."""
    _started.append(at)
    return at


def close_started() -> None:
    """Close the palaces the apps of a test opened and forget them."""
    while _started:
        at = _started.pop()
        if "palace" in at.session_state:
            at.session_state["palace"]._palace.close()
    views = sys.modules.get("dashboard.views")
    if views is not None:
        views.open_palace.clear()


def start(**query: str) -> AppTest:
    """The app after its first run (Overview, sidebar included), with these query parameters."""
    at = started(AppTest.from_file(APP, default_timeout=60))
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


_COUNT = re.compile(r'<div class="mp-count-label"[^>]*>(.*?)(?: <sup[^>]*>i</sup>)?</div>'
                    r'<div class="mp-count-value"[^>]*>(.*?)</div>')


def counts_in(block) -> dict[str, str]:
    """{label: value} of the counts (`dashboard.render.counts`) an AppTest block shows, in order."""
    return {html.unescape(label): html.unescape(value)
            for body in (h.value for h in block.html) for label, value in _COUNT.findall(body)}


def charts_in(block) -> dict[str, str]:
    """{key: markup} of the charts (`dashboard.charts.show`) an AppTest block shows, in order."""
    return {chart.proto.id.rsplit("-", 1)[-1]: json.loads(chart.proto.json)
            for chart in block.get("bidi_component") if chart.proto.component_name == "mempalace.chart"}


_CLOSED = re.compile(r'<button [^>]*data-open="([^"]*)" data-list="([^"]*)"')


def _nodes(node):
    """`node` and everything under it, in the order the page shows them."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def cards_in(block, key: str) -> list[str]:
    """The drawers whose cards the listing `key` shows in `block`, in order: closed cards (the HTML
    lists of `dashboard.cards`, by their "Open drawer" switches) and open ones (their toggles' keys)."""
    shown, prefix = [], f"{key}_open_"
    for node in _nodes(block):
        if node.type == "html":
            shown += [html.unescape(i) for i, listing in _CLOSED.findall(node.value) if html.unescape(listing) == key]
        elif node.type == "toggle" and (node.key or "").startswith(prefix):
            shown.append(node.key[len(prefix):])
    return shown


def closed_cards(block, key: str) -> list[str]:
    """The markup of each closed card (`dashboard.cards`) the listing `key` shows in `block`, in order."""
    return [card for h in block.html for card in re.findall(r'<article class="mp-card".*?</article>', h.value, re.S)
            if f'data-list="{html.escape(key, quote=True)}"' in card]
