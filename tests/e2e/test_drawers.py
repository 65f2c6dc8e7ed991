"""The Drawers page in a real browser, on the demo palace plus a drawer whose title and text hold web
addresses: a place from the address bar, cards that show their wing, no link made of drawer text
outside the drawer's rendered text, then open a drawer and move it (once confirmed), open another and
delete it (once ticked), each saying what it did. Its own server."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from _dashboard import CARD, Dashboard, exceptions, main_block, metric, open_app, open_card, rerun, sidebar

pytestmark = pytest.mark.e2e

NEW_ROOM = "e2e-moved"
TITLE = "Pricing notes from https://example.com/launch_plan"
TEXT = "Kai: the GPU pricing sheet is at https://example.com/gpu-pricing_2026 and www.example.org/sheet for Q3."
FILED: dict[str, str] = {}  # "url": the id of the drawer above, filled by prefill
# CLICKS: on a busy two-core machine a mouse click on the controls at the foot of an open drawer (the
# confirmation box, Move, Delete) was now and then lost (no rerun followed); the keyboard reaches them
# by focus, whatever the page's layout is doing, and makes the same widget events.


SLACK_TEXT = "<@U0BMYT2FL> the deploy is green &gt; 99% of checks, **ship it** ### today"


def prefill(palace) -> None:
    import io
    import json
    import zipfile

    from mempalace.ingest.demo import load_demo
    from mempalace.ingest import ingest

    load_demo(palace)
    added = palace.add_drawer(TEXT, "wing_kai", "gpu-pricing", conversation_title=TITLE, conversation_date="2025-05-04")
    FILED["url"] = added.drawer_ids[0]
    export = io.BytesIO()
    with zipfile.ZipFile(export, "w") as archive:  # a Slack export: its text keeps ids and escapes
        archive.writestr("users.json", json.dumps([{"id": "U0BMYT2FL", "name": "harry", "real_name": "Harry Potter"},
                                                   {"id": "U2", "name": "ron", "real_name": "Ron Weasley"}]))
        archive.writestr("channels.json", json.dumps([{"id": "C1", "name": "deploys"}]))
        archive.writestr("deploys/2026-01-05.json", json.dumps([
            {"type": "message", "user": "U2", "text": SLACK_TEXT, "ts": "1767600000.000100"}]))
    ingest(palace, export.getvalue(), filename="Hogwarts Slack export Jan 5 2026 - Jan 6 2026.zip")


@pytest.fixture(scope="module")
def server(module_dashboard) -> Dashboard:
    return module_dashboard(prefill=prefill)


def drawer_count(page: Page) -> int:
    return int(metric(sidebar(page), "Drawers").replace(",", ""))


def listed(page: Page) -> int:
    """How many drawers the place holds, from the caption over the cards ("drawers 1–3 of 3 · …")."""
    caption = main_block(page).get_by_text(re.compile(r"^drawers? [\d,]+(–[\d,]+)? of [\d,]+")).first.inner_text()
    return int(caption.split(" of ")[1].split(" ")[0].replace(",", ""))


def card(page: Page, drawer_id: str) -> Locator:
    """The drawer's card in the listing, closed or open."""
    return main_block(page).locator(f"{CARD}[data-drawer='{drawer_id}'], .st-key-drawers_card_{drawer_id}")


def opened(page: Page, drawer_id: str) -> Locator:
    """Open the drawer's "Open drawer" (a run draws its content) and return its card, now open."""
    details = open_card(card(page, drawer_id))
    expect(details.get_by_test_id("stCode")).to_have_text(drawer_id)
    return details


def test_a_closed_slack_card_shows_names_and_characters_not_ids_escapes_or_markup(page: Page, server: Dashboard):
    open_app(page, server, "drawers?wing=slack_hogwarts")
    snippet = main_block(page).locator(f"{CARD} .mp-snippet")
    expect(snippet).to_have_count(1)
    expect(snippet).to_have_text("Ron Weasley: @Harry Potter the deploy is green > 99% of checks, ship it ### today")


def test_a_place_from_the_address_then_move_and_delete_a_drawer(page: Page, server: Dashboard) -> None:
    moved = FILED["url"]
    open_app(page, server, "drawers?wing=wing_kai&room=gpu-pricing")
    main = main_block(page)
    expect(main.get_by_role("combobox", name="Wing", exact=True)).to_have_value("wing_kai")
    expect(main.get_by_role("combobox", name="Room", exact=True)).to_have_value("gpu-pricing")
    total, in_room = drawer_count(page), listed(page)
    cards = main.locator(CARD)
    expect(cards).to_have_count(in_room)
    assert in_room >= 2
    for head in cards.all():  # every card leads with its wing, and no label holds drawer text
        expect(head.locator(".mp-place span").first).to_have_text("wing_kai")
    expect(main.get_by_role("switch")).to_have_text(["Open drawer"] * in_room)
    heading = card(page, moved)
    expect(heading.locator("strong")).to_have_text(TITLE)
    expect(heading.locator("time")).to_have_text("2025-05-04")
    expect(heading.locator("small")).to_have_text(re.compile(r"^filed \d{4}-\d\d-\d\d$"))
    expect(main.locator("a[href*='example.']")).to_have_count(0)  # title and snippet: text, not links

    other = main.locator(CARD).first.get_attribute("data-drawer")  # opened and closed from the keyboard
    with rerun(page):
        opened(page, other).get_by_role("switch", name="Open drawer").press("Space")
    expect(main.locator(CARD)).to_have_count(in_room)
    expect(main.locator(f"button[data-open='{other}']")).to_be_focused()  # on its switch again, listed closed

    details = opened(page, moved)
    links = main.locator("a[href*='example.']")
    expect(links.first).to_be_visible()  # the rendered drawer text links its addresses, and only it does
    assert links.evaluate_all("as => as.every(a => a.closest('[data-testid=stMarkdown]')"
                              " && !a.closest('table, [data-testid=stHtml], summary'))")
    room = details.get_by_role("textbox", name="Room", exact=True)
    room.fill(NEW_ROOM)
    with rerun(page):  # Streamlit takes a text input's value on Enter (or blur), with a run of its own
        room.press("Enter")
    with rerun(page):
        details.get_by_role("button", name="Move", exact=True).press("Enter")  # see CLICKS
    expect(details.get_by_test_id("stAlert")).to_have_text(
        "Move this drawer from wing_kai / gpu-pricing to wing_kai / e2e-moved?")
    assert listed(page) == in_room  # nothing moved yet
    with rerun(page):
        details.get_by_role("button", name="Yes, move it", exact=True).press("Enter")
    expect(main.get_by_test_id("stAlert").filter(has_text="Moved")).to_contain_text(
        "Moved the drawer to wing_kai / e2e-moved.")
    assert listed(page) == in_room - 1 and card(page, moved).count() == 0

    other = main.locator(CARD).first.get_attribute("data-drawer")  # the listing's first drawer now
    details = opened(page, other)
    delete = details.get_by_role("button", name="Delete", exact=True)
    expect(delete).to_be_disabled()
    with rerun(page):
        details.get_by_role("checkbox", name="I want to delete this drawer").press("Space")  # see CLICKS
    expect(delete).to_be_enabled()
    with rerun(page):
        delete.press("Enter")  # see CLICKS
    expect(main.get_by_test_id("stAlert").filter(has_text="Deleted")).to_contain_text(
        "Deleted the drawer from wing_kai / gpu-pricing")
    assert drawer_count(page) == total - 1 and listed(page) == in_room - 2 and card(page, other).count() == 0
    with rerun(page):  # the Undo beside it puts the drawer back where it was
        main.get_by_role("button", name="Undo", exact=True).press("Enter")
    expect(page.get_by_test_id("stToast").filter(has_text="Undone")).to_contain_text("Undone: 1 drawer back where it was.")
    assert drawer_count(page) == total and listed(page) == in_room - 1 and card(page, other).count() == 1
    expect(exceptions(page)).to_have_count(0)
