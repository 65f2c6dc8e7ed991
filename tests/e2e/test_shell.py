"""The dashboard shell in a real browser: it starts on an empty palace, and a bad palace typed into
the sidebar is an error message, not a traceback. Both tests share one server on an empty palace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from _dashboard import COUNT, Dashboard, alerts, exceptions, main_block, metric, open_app, rerun, sidebar

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def empty(module_dashboard) -> Dashboard:
    return module_dashboard()


def test_starts_on_an_empty_palace(page: Page, empty: Dashboard) -> None:
    open_app(page, empty)
    expect(page).to_have_title(re.compile("MemPalace"))
    side = sidebar(page)
    expect(side.get_by_role("heading", name="MemPalace")).to_be_visible()
    assert metric(side, "Drawers") == "0"
    expect(alerts(main_block(page), "info").filter(has_text="The palace is empty")).to_be_visible()
    expect(exceptions(page)).to_have_count(0)
    expect(alerts(page, "error")).to_have_count(0)


def test_a_bad_palace_path_is_an_error_not_a_traceback(page: Page, empty: Dashboard, tmp_path: Path) -> None:
    not_a_palace = tmp_path / "notes.txt"
    not_a_palace.write_text("not a directory")
    open_app(page, empty)
    box = sidebar(page).get_by_role("textbox", name="Palace path or server URL")
    box.fill(str(not_a_palace))
    with rerun(page):
        box.press("Enter")
    error = alerts(sidebar(page), "error")
    expect(error).to_have_count(1)
    expect(error).to_contain_text(f"{not_a_palace} is a file, not a palace directory")
    expect(exceptions(page)).to_have_count(0)
    expect(page.get_by_text("Traceback")).to_have_count(0)
    expect(sidebar(page).locator(COUNT)).to_have_count(0)
