"""DNS rebinding: a page on another name that resolves to 127.0.0.1 cannot read the no-sign-in
dashboard. Chromium maps the name `rebind.test` to loopback, as a rebinding DNS server would."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from _dashboard import PAGE_TIMEOUT_MS, Dashboard, alerts, main_block, metric, open_app, sidebar, track_runs, wait_for_app
from conftest import CHROMIUM, VIEWPORT

pytestmark = pytest.mark.e2e
SECRET = "The vault combination is 31-7-42, told to nobody."


def _fill(palace) -> None:
    palace.add_drawer(SECRET, "wing_kai", "vault")


@pytest.fixture(scope="module")
def filled(module_dashboard) -> Dashboard:
    return module_dashboard(prefill=_fill)


def test_a_rebound_name_gets_a_refusal_and_loopback_still_works(filled: Dashboard, browser) -> None:
    chromium = browser.browser_type.launch(executable_path=str(CHROMIUM), args=[
        "--no-sandbox", "--host-resolver-rules=MAP rebind.test 127.0.0.1"])
    try:
        page = chromium.new_context(viewport=VIEWPORT).new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        track_runs(page)
        page.goto(f"http://rebind.test:{urlsplit(filled.url).port}/drawers")
        wait_for_app(page)
        expect(alerts(main_block(page), "error").filter(has_text="answers only at localhost")).to_be_visible()
        assert "31-7-42" not in page.content() and "wing_kai" not in page.content()
        expect(sidebar(page).get_by_text("Drawers")).to_have_count(0)

        local = chromium.new_context(viewport=VIEWPORT).new_page()
        local.set_default_timeout(PAGE_TIMEOUT_MS)
        track_runs(local)
        open_app(local, filled)
        assert metric(sidebar(local), "Drawers") == "1"
        expect(alerts(local, "error")).to_have_count(0)
    finally:
        chromium.close()
