"""The sidebar's palace box in a real browser: a typo never creates a palace, a relative path is the
home folder's, other schemes than http(s) are refused, and errors show in the main area while the
box stays usable. One server for the module, with its own HOME (where relative paths go)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from _dashboard import COUNT, ROOT, Dashboard, alerts, exceptions, main_block, open_app, rerun, sidebar

pytestmark = pytest.mark.e2e
BOX = "Palace path or server URL"


@pytest.fixture(scope="module")
def user_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("user")


@pytest.fixture(scope="module")
def server(module_dashboard, user_home: Path) -> Dashboard:
    return module_dashboard(env={"HOME": str(user_home)})


def type_in_box(page: Page, text: str) -> None:
    box = sidebar(page).get_by_role("textbox", name=BOX)
    box.fill(text)
    with rerun(page):
        box.press("Enter")


def test_a_missing_path_offers_to_create_a_palace_and_creates_nothing(page: Page, server: Dashboard,
                                                                      tmp_path: Path) -> None:
    open_app(page, server)
    expect(page.get_by_test_id("stAppDeployButton")).to_have_count(0)  # client.toolbarMode = "viewer"
    wanted = tmp_path / "no" / "such" / "palace"
    type_in_box(page, str(wanted))
    main = main_block(page)
    expect(alerts(main, "warning")).to_have_text(f"No palace at {wanted}")
    expect(main.get_by_role("button", name="Create a palace here")).to_be_visible()
    expect(sidebar(page).locator(COUNT)).to_have_count(0)
    expect(exceptions(page)).to_have_count(0)
    assert not (tmp_path / "no").exists()


def test_a_relative_path_is_taken_from_the_home_folder(page: Page, server: Dashboard, user_home: Path) -> None:
    open_app(page, server)
    type_in_box(page, "notes/palace")
    expect(alerts(main_block(page), "warning")).to_have_text(f"No palace at {user_home / 'notes' / 'palace'}")
    assert not (user_home / "notes").exists() and not (ROOT / "notes").exists()


def test_another_scheme_is_refused_in_the_main_area_and_the_box_stays_usable(page: Page, server: Dashboard,
                                                                             user_home: Path) -> None:
    open_app(page, server)
    type_in_box(page, "ftp://whatever")
    main = main_block(page)
    expect(alerts(main, "error")).to_contain_text("ftp:// is not a way to reach a palace")
    expect(main).to_contain_text(f"In the sidebar's {BOX} box")
    assert not (ROOT / "ftp:").exists() and not (user_home / "ftp:").exists()
    type_in_box(page, "")  # fixed: back to the default palace
    expect(alerts(page, "error")).to_have_count(0)
    expect(alerts(main, "info").filter(has_text="The palace is empty")).to_be_visible()


def test_a_wrong_palace_then_the_right_one_keeps_the_search_form(page: Page, server: Dashboard) -> None:
    """The run that shows the error does not draw the page; once the palace is right again, the
    form shows the search the URL still holds (it came back blank, and the next rerun lost it)."""
    open_app(page, server, "search?q=minivan+plans&mode=semantic")
    main = main_block(page)
    expect(main.get_by_role("textbox", name="Search your palace")).to_have_value("minivan plans")
    type_in_box(page, "ftp://whatever")
    expect(alerts(main, "error")).to_contain_text("ftp:// is not a way to reach a palace")
    type_in_box(page, "")
    expect(main.get_by_role("textbox", name="Search your palace")).to_have_value("minivan plans")
    expect(main.get_by_role("combobox", name="Mode")).to_have_value("Semantic")
    assert "q=minivan+plans" in page.url and "mode=semantic" in page.url
