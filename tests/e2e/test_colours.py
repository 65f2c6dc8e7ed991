"""Wing colours as a person sees them on the Tunnels network while the palace grows: a wing filed
through the Ingest page gets a colour of its own and recolours no wing already there, and a wing
filter recolours none. Its own server, on a palace of two wings that share a room."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from _dashboard import Dashboard, main_block, open_app, rerun

pytestmark = pytest.mark.e2e

FIRST = ("wing_kai", "wing_priya")
NEW = "wing_abe"  # sorts first: a colour by position would shift every wing


def prefill(palace) -> None:
    palace.add_drawer("Kai wrote the auth migration runbook and its rollback steps.", FIRST[0], "auth-migration")
    palace.add_drawer("Priya moved the login service to the new identity provider on Tuesday.", FIRST[1],
                      "auth-migration")


@pytest.fixture
def server(dashboard) -> Dashboard:
    return dashboard(prefill=prefill)


def wing_colours(page: Page) -> dict[str, str]:
    """{wing: the fill of its box} on the Tunnels page's network."""
    net = main_block(page).locator("svg.mp-net")
    expect(net).to_be_visible()
    return net.evaluate("""(svg) => Object.fromEntries([...svg.querySelectorAll('g.mp-wing')].map(
        (g) => [decodeURIComponent(g.dataset.wing), g.querySelector('rect').getAttribute('fill')]))""")


def file_into_new_wing(page: Page, server: Dashboard) -> None:
    """Upload one conversation into NEW, in the shared room, through the Ingest page."""
    open_app(page, server, "ingest")
    main = main_block(page)
    with rerun(page):
        main.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
            [{"name": "zed.txt", "mimeType": "text/plain",
              "buffer": b"User: where is the auth migration runbook?\nAssistant: In the ops wiki, with rollback steps.\n"}])
    box = main.get_by_role("combobox", name="Wing", exact=True)
    box.fill(NEW)
    with rerun(page):
        box.press("Enter")
    room = main.get_by_role("textbox", name="Room (optional)")
    room.fill("auth-migration")
    with rerun(page):
        room.press("Enter")
    with rerun(page):
        main.get_by_role("button", name="Preview", exact=True).click()
    with rerun(page, 60_000):
        main.get_by_role("button", name="File 1 new drawer").click()
    expect(main.get_by_role("heading", name="Filed")).to_be_visible()


def test_a_new_wing_recolours_no_wing_and_a_filter_recolours_none(page: Page, server: Dashboard) -> None:
    open_app(page, server, "tunnels")
    before = wing_colours(page)
    assert set(before) == set(FIRST) and len(set(before.values())) == 2

    file_into_new_wing(page, server)
    open_app(page, server, "tunnels")
    after = wing_colours(page)
    assert set(after) == {*FIRST, NEW}
    assert {wing: after[wing] for wing in FIRST} == before  # the wings already there keep their colours
    assert after[NEW] not in before.values()  # and the new one has its own

    open_app(page, server, f"tunnels?wing={NEW}")
    filtered = wing_colours(page)
    assert filtered and all(after[wing] == colour for wing, colour in filtered.items())
