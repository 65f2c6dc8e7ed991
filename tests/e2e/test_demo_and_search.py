"""The demo palace and Search in a real browser. One server, on a palace that starts empty: the first
test loads the demo through the Overview button; the search test loads it the same way if it runs
alone (both only read it afterwards)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from playwright.sync_api import Page, expect

from _dashboard import (CARD, Dashboard, alerts, choose, exceptions, main_block, metric, open_app, open_card, rerun,
                        sidebar, track_runs)

pytestmark = pytest.mark.e2e

QUERY = "token refresh bug"
TERMS = re.compile(r"\b(?:tokens?|refresh(?:es|ed|ing)?|bug(?:s|ged|ging)?)\b", re.IGNORECASE)  # the words and their inflections
LOAD_TIMEOUT_MS = 90_000  # filing the twelve demo conversations with the real model


@pytest.fixture(scope="module")
def server(module_dashboard) -> Dashboard:
    return module_dashboard()


def drawer_count(page: Page) -> int:
    return int(metric(sidebar(page), "Drawers").replace(",", ""))


def load_demo_with_the_button(page: Page) -> None:
    with rerun(page, LOAD_TIMEOUT_MS):
        main_block(page).get_by_role("button", name="Load the demo palace").click()


def test_the_demo_button_fills_an_empty_palace(page: Page, server: Dashboard) -> None:
    open_app(page, server)
    main = main_block(page)
    assert drawer_count(page) == 0
    expect(main.get_by_text("The palace is empty")).to_be_visible()
    load_demo_with_the_button(page)
    assert drawer_count(page) > 0
    assert metric(main, "Tunnel rooms") == "3"
    assert metric(main, "Wings") == "3"
    expect(main.get_by_role("button", name="Load the demo palace")).to_have_count(0)
    top = main.get_by_test_id("stColumn").filter(has=page.get_by_role("heading", name="Top tunnels"))
    first = top.get_by_test_id("stPageLink-NavLink").first
    expect(first).to_contain_text("auth-migration")
    expect(first).to_contain_text("3 wings")
    expect(first).to_have_attribute("href", re.compile(r"search\?room=auth-migration$"))
    expect(exceptions(page)).to_have_count(0)


def snippet(card):
    """A result card's highlighted snippet: its text and the words inside <mark>."""
    return card.locator(".mp-snippet").evaluate(
        "el => ({text: el.textContent, marks: [...el.querySelectorAll('mark')].map(m => m.textContent)})")


def first_result(page: Page) -> dict[str, str]:
    """The first card's snippet (closed); opened (a run draws its content, without the snippet), its
    badges, raw text and id."""
    closed = snippet(main_block(page).locator(CARD).first)["text"]
    details = open_card(main_block(page).locator(CARD).first)
    with rerun(page):
        details.get_by_text("Raw text").first.click()  # the stored text, as it is, instead of rendered
    codes = details.get_by_test_id("stCode")
    expect(details.locator(".mp-snippet")).to_have_count(0)  # the whole text is shown: not the snippet too
    return {"badges": details.locator(".mp-place").inner_text(), "snippet": closed,
            "text": codes.first.locator("code").inner_text(), "id": codes.nth(1).inner_text().strip()}


def test_search_with_filters_highlights_keeps_the_url_and_exports(page: Page, server: Dashboard) -> None:
    open_app(page, server)
    if main_block(page).get_by_role("button", name="Load the demo palace").count():  # run alone
        load_demo_with_the_button(page)

    open_app(page, server, "search")
    main = main_block(page)
    box = main.get_by_role("textbox", name="Search your palace")
    box.fill(QUERY)
    with rerun(page):
        box.press("Enter")
    choose(main, "Wing", "wing_kai")
    choose(main, "Hall", "hall_events")

    cards = main.locator(CARD)
    expect(cards.first).to_be_visible()
    count = cards.count()
    named = "close match" if count == 1 else "close matches"
    expect(main.get_by_text(re.compile(rf"^{count} {named}(,|$)"))).to_be_visible()  # only close ones listed
    marked = 0
    for number in range(count):
        card = cards.nth(number)
        badges = card.locator(".mp-place span")
        expect(badges.first).to_have_text("wing_kai")
        expect(badges.nth(2)).to_have_text("hall_events")
        shown = snippet(card)
        # Every word of the query in the shown text is highlighted, and nothing else is.
        assert shown["marks"] == TERMS.findall(shown["text"]), shown
        marked += len(shown["marks"])
    assert marked > 0
    assert len({m.lower() for m in snippet(cards.first)["marks"]} & {"token", "tokens", "refresh", "bug"}) >= 2

    query = parse_qs(urlsplit(page.url).query)
    assert query["q"] == [QUERY] and query["wing"] == ["wing_kai"] and query["hall"] == ["hall_events"]

    first = first_result(page)
    assert re.fullmatch(r"drawer_[0-9a-f]+", first["id"]), first
    assert first["text"].startswith(first["snippet"].removesuffix("…")), first
    assert TERMS.search(first["text"])

    again = page.context.new_page()
    track_runs(again)
    open_app(again, server, page.url.removeprefix(server.url))
    expect(again.get_by_role("textbox", name="Search your palace")).to_have_value(QUERY)
    expect(again.get_by_role("combobox", name="Wing", exact=True)).to_have_value("wing_kai")
    expect(again.get_by_role("combobox", name="Hall", exact=True)).to_have_value("hall_events")
    assert first_result(again) == first
    expect(main_block(again).locator(CARD)).to_have_count(count - 1)  # and the first, open
    again.close()

    with page.expect_download() as download, rerun(page):
        main.get_by_role("button", name="Export Markdown").click()
    assert download.value.suggested_filename == "mempalace-search.md"
    exported = open(download.value.path(), encoding="utf-8").read()
    assert exported.startswith(f"# Search: {QUERY}")
    # The file is Markdown: the id may be code (`drawer_…`) or escaped text (drawer\_…); read it as Markdown does.
    drawer_lines = [re.sub(r"\\(.)", r"\1", line).replace("`", "") for line in exported.splitlines()
                    if line.startswith("- Drawer:")]
    assert drawer_lines[0] == f"- Drawer: {first['id']}", drawer_lines
    assert first["text"].strip() in exported  # the verbatim text, byte for byte, in a fence
    expect(exceptions(page)).to_have_count(0)


def test_a_link_naming_places_the_palace_lacks_is_warned_about_without_links(page: Page, server: Dashboard) -> None:
    """Values a crafted link chooses are shown as typed, and GFM turns none of them into a link."""
    hostile = {"wing": "https://evil.example/login?", "room": "www.evil.example/x", "source": "help@evil.example"}
    open_app(page, server, "search?q=token&" + urlencode(hostile))
    warning = alerts(main_block(page), "warning")
    expect(warning).to_have_count(1)
    shown = warning.inner_text().replace("\u2060", "")  # the invisible joiners that break the addresses
    assert all(f"“{value}”" in shown for value in hostile.values()), shown
    assert warning.locator("a").count() == 0
