"""Team sign-in in a real browser, with real parts: an OpenID Connect provider (oidc-provider-mock,
served from a thread of this process on a free loopback port) and Streamlit's own OIDC (`st.login`,
the `[auth]` section of a secrets file the tests write and pass with `--secrets.files`).

One provider and one dashboard for the module. The palace holds three wings; `viewer@example.com`
may read only wing_orion, whose room launch-plan is also in wing_nimbus (a tunnel into a wing the
viewer cannot see); `editor@example.com` edits every wing; `admin@example.com` is an admin. Each
test signs in through the provider's own authorization form (typing the `sub`; the provider's user
claims give the e-mail address), in a fresh browser context per person.

Browser and app both use `localhost` (the host of `redirect_uri`): Streamlit sets its auth cookies
for it and only honours them on a websocket whose origin is the redirect URI's.

The only write is the editor's move of the wing_quasar drawer to another room (no test counts rooms
in that wing); everything else only reads.

Signing out ends the sign-in everywhere: Streamlit keeps a sign-in only in a signed cookie, so the
palace records the sign-out and refuses any copy of the old cookie (the sign-out test replays one).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import logging
import re
import secrets
import time
import urllib.request
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from _dashboard import (CARD, Dashboard, alerts, dataframe_rows, exceptions, main_block, metric, open_app,
                        open_card, open_options, rerun, sidebar, track_runs)

pytestmark = pytest.mark.e2e

VIEWER, EDITOR, ADMIN = "viewer@example.com", "editor@example.com", "admin@example.com"
ORION, NIMBUS, QUASAR = "wing_orion", "wing_nimbus", "wing_quasar"
SHARED_ROOM = "launch-plan"
# (wing, room, hall, text). launch-plan is in orion and nimbus; launch-plans / launch-plan is a merge suggestion.
DRAWERS = (
    (ORION, SHARED_ROOM, "hall_events", "Orion launch plan: a pilot with ten customers in March, then open sign-ups."),
    (ORION, "launch-plans", "hall_facts", "The Orion launch plans were reviewed again and the pilot list is final."),
    (ORION, "pricing", "hall_facts", "Orion pricing stays at twelve dollars a seat during the pilot."),
    (NIMBUS, SHARED_ROOM, "hall_events", "Nimbus launch plan, confidential: codename NIGHTJAR ships to Helsinki first."),
    (NIMBUS, "recruiting-drive", "hall_facts", "Nimbus is recruiting two NIGHTJAR engineers for the Helsinki office."),
    (QUASAR, "badge-office", "hall_advice", "Quasar launch checklist: laptops, badges and a NIGHTJAR briefing."),
)
# Words that exist only in the wings the viewer cannot see (wing and room names, text); checked without case.
HIDDEN = ("nimbus", "quasar", "nightjar", "helsinki", "recruiting-drive", "badge-office")
HIDDEN_WING = "(wings you cannot see)"
QUERY = "launch plan for the pilot"
MOVED_TO = "badge-desk"
IDS: dict[tuple[str, str], str] = {}  # (wing, room) -> the id of its drawer, filled by prefill


# -- the provider and the dashboard -------------------------------------------------------------


@dataclasses.dataclass
class Provider:
    url: str

    def set_user(self, sub: str, claims: dict[str, object]) -> None:
        """The provider's own API: the claims its ID tokens for `sub` will carry from now on."""
        request = urllib.request.Request(f"{self.url}/users/{sub}", data=json.dumps(claims).encode(), method="PUT",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 204, response.status


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    import authlib.deprecate  # noqa: F401  (it puts an "always" filter for its warnings first, on import)

    with warnings.catch_warnings():  # oidc-provider-mock 0.3.4 imports authlib.jose, deprecated in Authlib 1.x
        warnings.simplefilter("ignore")
        from oidc_provider_mock import User, run_server_in_thread

    users = [User(sub=who, claims={"email": who, "email_verified": True}) for who in (VIEWER, EDITOR, ADMIN)]
    # Someone whose provider has not verified the address they claim (the admin's).
    users.append(User(sub="mallory", claims={"email": ADMIN, "email_verified": False}))
    quiet = logging.getLogger("werkzeug")  # one line per request otherwise, in every failure's report
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        with run_server_in_thread(port=0, user_claims=users) as server:  # port 0: a free one; tokens last 1 h
            yield Provider(f"http://localhost:{server.server_port}")
    finally:
        quiet.setLevel(level)


def write_access_rules(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f"""
[[access]]
who = "{VIEWER}"
role = "viewer"
wings = ["{ORION}"]

[[access]]
who = "{EDITOR}"
role = "editor"

[[access]]
who = ["{ADMIN}"]
role = "admin"
""", encoding="utf-8")


def prefill(palace) -> None:
    write_access_rules(palace.settings.home)  # read by the dashboard, which starts after this
    for wing, room, hall, text in DRAWERS:
        result = palace.add_drawer(text, wing, room, hall)
        assert result.added, (text, result)
        IDS[(wing, room)] = result.drawer_ids[0]


@pytest.fixture(scope="module")
def server(module_dashboard, provider: Provider, tmp_path_factory: pytest.TempPathFactory) -> Dashboard:
    secrets_file = tmp_path_factory.mktemp("auth") / "secrets.toml"
    secrets_file.write_text(f"""
[auth]
redirect_uri = "http://localhost:{{port}}/oauth2callback"
cookie_secret = "{secrets.token_hex(32)}"
client_id = "mempalace-e2e"
client_secret = "{secrets.token_hex(16)}"
server_metadata_url = "{provider.url}/.well-known/openid-configuration"
""", encoding="utf-8")
    started = module_dashboard(prefill=prefill, args=["--secrets.files", str(secrets_file)])
    return dataclasses.replace(started, url=started.url.replace("127.0.0.1", "localhost"))


# -- signing in ---------------------------------------------------------------------------------


def sign_in(page: Page, server: Dashboard, provider: Provider, sub: str) -> None:
    """Open the app signed out, press Sign in, type `sub` into the provider's form and authorize;
    return on the app's start page, where the provider sent the browser back."""
    open_app(page, server)
    expect(alerts(main_block(page), "info")).to_have_text("Sign in to open this palace.")
    main_block(page).get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(f"{provider.url}/oauth2/authorize?**")
    page.get_by_placeholder("sub").fill(sub)
    with rerun(page):
        page.get_by_role("button", name="Authorize", exact=True).click()
    assert page.url.startswith(server.url + "/"), page.url


@contextmanager
def signed_in(browser: Browser, server: Dashboard, provider: Provider, sub: str) -> Iterator[Page]:
    """A page in a browser context of its own (its own cookies), signed in as `sub`."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        track_runs(page)
        sign_in(page, server, provider, sub)
        yield page
    finally:
        context.close()


def caption(page: Page) -> str:
    return sidebar(page).get_by_text(re.compile(r"^Signed in as ")).inner_text()


def navigation(page: Page) -> list[str]:
    """The titles of the pages in the sidebar's navigation."""
    links = sidebar(page).get_by_test_id("stSidebarNavLink")
    return [text.split("\n")[-1].strip() for text in links.all_inner_texts()]


def sidebar_counts(page: Page) -> dict[str, str]:
    return {label: metric(sidebar(page), label) for label in ("Drawers", "Wings", "Rooms")}


def assert_nothing_hidden(page: Page, where: str) -> None:
    """No name or word of the viewer's hidden wings anywhere in the page's HTML (frames included)."""
    for frame in page.frames:
        html = frame.content().lower()
        leaked = [word for word in HIDDEN if word in html]
        assert not leaked, f"{where}: {leaked} in {frame.url}"


def option_names(scope: Page | Locator, label: str) -> list[str]:
    page = scope if hasattr(scope, "goto") else scope.page
    options = open_options(scope, label).get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    return [o.strip() for o in options]


def cards(page: Page) -> Locator:
    return main_block(page).locator(CARD)


def hit_wings(page: Page) -> list[str]:
    """The wing badge of every search result shown."""
    return [card.locator(".mp-place span").first.inner_text() for card in cards(page).all()]


def opened(page: Page, key: str, drawer_id: str) -> Locator:
    """The open card of the drawer listed under `key`: one drawn open already (a link to a drawer), or
    a closed one switched on (a run draws it open in its place), once it shows the drawer's id."""
    details = main_block(page).locator(f".st-key-{key}_card_{drawer_id}")
    if not details.count():
        details = open_card(main_block(page).locator(f"{CARD}:has([data-list='{key}'][data-open='{drawer_id}'])"))
    expect(details.get_by_test_id("stCode").last).to_have_text(drawer_id)
    return details


def card_ids(page: Page, key: str) -> list[str]:
    """The drawers whose closed cards are listed under `key`, in order (from their switches)."""
    return main_block(page).locator(f"button[data-list='{key}']").evaluate_all("bs => bs.map(b => b.dataset.open)")


def verbatim(details: Locator) -> Locator:
    """An open card's drawer text, rendered (the first Markdown in it)."""
    return details.get_by_test_id("stMarkdown").first


def show_weaker_results(page: Page) -> None:
    """Turn on the Search page's "Show weaker results" (there only when some results are weak)."""
    weak = main_block(page).get_by_label("Show weaker results", exact=True)
    if weak.count():
        with rerun(page):
            weak.press("Space")
        expect(weak).to_be_checked()


def download(page: Page, button: str) -> tuple[str, str]:
    """Press a download button; (the file's suggested name, its text)."""
    with page.expect_download() as saved, rerun(page):
        main_block(page).get_by_role("button", name=button, exact=True).click()
    return saved.value.suggested_filename, Path(saved.value.path()).read_text(encoding="utf-8")


# -- each role sees and may do what its grant says ------------------------------------------------


def test_a_viewer_of_one_wing_sees_only_that_wing_on_every_page(page: Page, server: Dashboard,
                                                                 provider: Provider) -> None:
    sign_in(page, server, provider, VIEWER)
    assert caption(page) == f"Signed in as {VIEWER} · viewer · {ORION}"
    expect(sidebar(page).get_by_role("button", name="Sign out", exact=True)).to_be_visible()
    expect(sidebar(page).get_by_role("textbox")).to_have_count(0)  # no palace path box: the palace is fixed
    assert navigation(page) == ["Overview", "Search", "Tunnels", "Drawers", "Wake-up"]  # no Ingest, no Audit
    assert sidebar_counts(page) == {"Drawers": "3", "Wings": "1", "Rooms": "3"}

    main = main_block(page)  # Overview
    assert metric(main, "Drawers") == "3" and metric(main, "Wings") == "1" and metric(main, "Rooms") == "3"
    wing_links = main.get_by_test_id("stPageLink-NavLink").filter(has_text=" rooms")
    expect(wing_links).to_have_text([re.compile(rf"{ORION} · 3 rooms$")])  # after the link's icon
    assert_nothing_hidden(page, "overview")
    for path in ("audit", "ingest"):  # typed into the address bar: not a page for a viewer
        open_app(page, server, path)
        expect(main_block(page).get_by_role("heading", name="Palace overview")).to_be_visible()
        expect(main_block(page).get_by_role("heading", name=re.compile("Audit log|Ingest"))).to_have_count(0)
        expect(page.get_by_test_id("stFileUploader")).to_have_count(0)

    open_app(page, server, "tunnels")
    main = main_block(page)
    expect(main.get_by_role("heading", name="Rooms that are probably one concept")).to_be_visible()
    expect(main.get_by_text("launch-plans (1) → launch-plan (1)", exact=False)).to_be_visible()
    expect(main.get_by_role("button", name="Merge")).to_have_count(0)  # viewers merge nothing
    nodes = main.locator("svg.mp-net").evaluate("""(svg) => [...svg.querySelectorAll('[data-wing], [data-room]')]
        .map((g) => g.dataset.wing ? 'w:' + decodeURIComponent(g.dataset.wing) : 'r:' + decodeURIComponent(g.dataset.room))""")
    assert f"w:{ORION}" in nodes and f"r:{SHARED_ROOM}" in nodes and f"w:{HIDDEN_WING}" in nodes, nodes
    tunnels = dataframe_rows(main.get_by_test_id("stDataFrame").first)  # "Tunnels between two wings"
    assert [(t["room"], HIDDEN_WING in t["wings"], ORION in t["wings"]) for t in tunnels] == [
        (SHARED_ROOM, True, True)], tunnels
    assert_nothing_hidden(page, "tunnels")
    expect(exceptions(page)).to_have_count(0)

    open_app(page, server, "drawers")
    main = main_block(page)
    assert option_names(main, "Wing") == ["(all)", ORION]
    ids = {IDS[(ORION, room)] for room in (SHARED_ROOM, "launch-plans", "pricing")}
    expect(main.locator(CARD)).to_have_count(3)
    assert set(card_ids(page, "drawers")) == ids
    for drawer_id in ids:  # each opened: its text, metadata and neighbours drawn, and no controls
        details = opened(page, "drawers", drawer_id)
        expect(verbatim(details)).to_contain_text("Orion")
        for button in ("Move", "Yes, move it", "Cancel", "Delete"):  # neither Move nor Delete
            expect(details.get_by_role("button", name=button, exact=True)).to_have_count(0)
        expect(details.get_by_role("textbox")).to_have_count(0)
        expect(details.get_by_role("combobox")).to_have_count(0)  # no Hall to move to
        expect(details.get_by_label("I want to delete this drawer")).to_have_count(0)
    assert_nothing_hidden(page, "drawers")  # with every card open
    expect(exceptions(page)).to_have_count(0)


def test_an_editor_may_move_but_not_delete_and_the_admin_audit_shows_the_move(
        page: Page, browser: Browser, server: Dashboard, provider: Provider) -> None:
    sign_in(page, server, provider, EDITOR)
    assert caption(page) == f"Signed in as {EDITOR} · editor · every wing"
    assert navigation(page) == ["Overview", "Search", "Tunnels", "Ingest", "Drawers", "Wake-up", "Changes",
                                "Trash"]  # no Audit
    assert sidebar_counts(page)["Drawers"] == "6" and sidebar_counts(page)["Wings"] == "3"

    open_app(page, server, "tunnels")
    expect(main_block(page).get_by_role("button", name="Merge")).not_to_have_count(0)

    open_app(page, server, "drawers")
    moved = IDS[(QUASAR, "badge-office")]
    details = opened(page, "drawers", moved)
    expect(details.get_by_role("checkbox", name="I want to delete this drawer")).to_have_count(0)
    expect(details.get_by_role("button", name="Delete", exact=True)).to_have_count(0)
    room = details.get_by_role("textbox", name="Room", exact=True)
    expect(room).to_have_value("badge-office")
    room.fill(MOVED_TO)
    with rerun(page):  # Streamlit takes a text input's value on Enter, with a run of its own
        room.press("Enter")
    with rerun(page):
        details.get_by_role("button", name="Move", exact=True).press("Enter")  # see test_drawers.py's CLICKS
    expect(details.get_by_test_id("stAlert")).to_have_text(
        f"Move this drawer from {QUASAR} / badge-office / hall_advice to {QUASAR} / {MOVED_TO} / hall_advice?")
    with rerun(page):
        details.get_by_role("button", name="Yes, move it", exact=True).press("Enter")
    expect(page.get_by_test_id("stAlert").filter(has_text="Moved")).to_contain_text(
        f"Moved the drawer to {QUASAR} / {MOVED_TO} / hall_advice.")
    details = opened(page, "drawers", moved)
    expect(details.get_by_role("textbox", name="Room", exact=True)).to_have_value(MOVED_TO)
    expect(exceptions(page)).to_have_count(0)

    with signed_in(browser, server, provider, ADMIN) as admin:
        open_app(admin, server, "audit")
        main = main_block(admin)
        main.get_by_role("button", name="Dates, drawer").click()  # a popover: its fields drawn when opened
        admin.get_by_role("textbox", name="Drawer id").fill(moved)
        with rerun(admin):
            admin.get_by_role("textbox", name="Drawer id").press("Enter")
        admin.keyboard.press("Escape")
        expect(main.get_by_text("2 entries", exact=True)).to_be_visible()
        expect(main.get_by_role("button", name="Dates, drawer (1 set)")).to_be_visible()  # closed, it says so
        shown = dataframe_rows(main.get_by_test_id("stDataFrame"))
        assert [(r["who"], r["from"], r["action"]) for r in shown][0] == (EDITOR, "dashboard", "move"), shown
        name, exported = download(admin, "Export CSV")
        assert name == "mempalace-audit.csv"
        rows = list(csv.DictReader(io.StringIO(exported)))
        moves = [r for r in rows if r["action"] == "move"]
        assert [(r["who"], r["from"], r["ids"]) for r in moves] == [(EDITOR, "dashboard", moved)], rows
        assert json.loads(moves[0]["details"]).get("room") == MOVED_TO, moves[0]
        assert {r["action"] for r in rows} == {"add", "move"}  # filed by prefill (from Python), moved by the editor
        expect(exceptions(admin)).to_have_count(0)


def test_an_admin_sees_every_wing_and_may_delete(page: Page, server: Dashboard, provider: Provider) -> None:
    sign_in(page, server, provider, ADMIN)
    assert caption(page) == f"Signed in as {ADMIN} · admin · every wing"
    assert navigation(page) == ["Overview", "Search", "Tunnels", "Ingest", "Drawers", "Wake-up", "Changes", "Trash",
                                "Audit"]
    main = main_block(page)
    assert metric(main, "Drawers") == "6" and metric(main, "Wings") == "3"

    open_app(page, server, f"search?q={QUERY.replace(' ', '+')}")
    expect(cards(page).first).to_be_visible()
    show_weaker_results(page)
    assert set(hit_wings(page)) == {ORION, NIMBUS, QUASAR}  # the hidden wings' drawers do match the query
    assert option_names(main_block(page), "Wing") == ["(any)", NIMBUS, ORION, QUASAR]

    foreign = IDS[(NIMBUS, SHARED_ROOM)]
    open_app(page, server, f"drawers?drawer={foreign}")  # the viewer's "not found" drawer exists
    expect(verbatim(opened(page, "linked", foreign))).to_contain_text("codename NIGHTJAR")

    open_app(page, server, "drawers")
    details = opened(page, "drawers", IDS[(ORION, "pricing")])
    expect(details.get_by_role("button", name="Move", exact=True)).to_be_visible()
    expect(details.get_by_role("checkbox", name="I want to delete this drawer")).not_to_be_checked()
    expect(details.get_by_role("button", name="Delete", exact=True)).to_be_disabled()
    expect(exceptions(page)).to_have_count(0)


# -- attacks -------------------------------------------------------------------------------------


def test_a_forged_wing_in_a_search_link_and_the_exports_stay_in_the_viewers_wing(
        page: Page, server: Dashboard, provider: Provider) -> None:
    sign_in(page, server, provider, VIEWER)
    open_app(page, server, f"search?q={QUERY.replace(' ', '+')}&wing={NIMBUS}")
    main = main_block(page)
    expect(main.get_by_role("combobox", name="Wing", exact=True)).to_have_value("(any)")
    assert "wing=" not in page.url  # the forged filter is dropped from the address too
    assert option_names(main, "Wing") == ["(any)", ORION]
    assert option_names(main, "Room") == ["(any)", SHARED_ROOM, "launch-plans", "pricing"]
    expect(cards(page).first).to_be_visible()
    show_weaker_results(page)  # every result the search gives, the exports' too
    assert set(hit_wings(page)) == {ORION}
    for drawer_id in card_ids(page, "hit"):  # open: text, metadata and neighbours drawn
        opened(page, "hit", drawer_id)
    assert_nothing_hidden(page, "search")

    name, markdown = download(page, "Export Markdown")
    assert name == "mempalace-search.md"
    assert DRAWERS[0][3] in markdown
    assert not [word for word in HIDDEN if word in markdown.lower()], markdown
    name, table = download(page, "Export CSV")
    assert name == "mempalace-search.csv"
    rows = list(csv.DictReader(io.StringIO(table)))
    assert rows and {r["wing"] for r in rows} == {ORION}, rows
    assert not [word for word in HIDDEN if word in table.lower()], table
    expect(exceptions(page)).to_have_count(0)


def test_a_deep_link_to_a_drawer_in_a_hidden_wing_reads_as_a_made_up_id(
        page: Page, server: Dashboard, provider: Provider) -> None:
    sign_in(page, server, provider, VIEWER)
    own = IDS[(ORION, "pricing")]
    open_app(page, server, f"drawers?drawer={own}")
    expect(verbatim(opened(page, "linked", own))).to_have_text(DRAWERS[2][3])  # open at once

    def shown_for(drawer_id: str) -> str:
        open_app(page, server, f"drawers?drawer={drawer_id}")
        main = main_block(page)
        for shown in ("stCheckbox", "stMarkdown", "stCode", "stText", "stHtml"):  # no card, no text
            expect(main.get_by_test_id(shown)).to_have_count(0)
        assert_nothing_hidden(page, f"drawers?drawer={drawer_id}")
        return main.inner_text().replace(drawer_id, "<id>")

    foreign = IDS[(NIMBUS, SHARED_ROOM)]
    made_up = "drawer_" + "0" * (len(foreign) - len("drawer_"))
    assert made_up != foreign
    assert shown_for(foreign) == shown_for(made_up)
    expect(alerts(main_block(page), "error")).to_have_text(f"No drawer with id '{made_up}' in this palace.")


# -- signing in and out ---------------------------------------------------------------------------


def test_after_sign_out_neither_the_browser_nor_a_copy_of_its_cookies_is_signed_in(
        page: Page, browser: Browser, server: Dashboard, provider: Provider) -> None:
    sign_in(page, server, provider, VIEWER)
    open_app(page, server, "search")
    expect(sidebar(page).get_by_text(f"Signed in as {VIEWER}", exact=False)).to_be_visible()
    kept = page.context.cookies()
    assert {"_streamlit_user", "_streamlit_user_tokens"} <= {c["name"] for c in kept}

    sidebar(page).get_by_role("button", name="Sign out", exact=True).click()
    page.wait_for_url(f"{provider.url}/oauth2/end_session?**")  # Streamlit ends the provider's session too
    with rerun(page):
        page.get_by_role("button", name="End session", exact=True).click()
    expect(alerts(main_block(page), "info")).to_have_text("Sign in to open this palace.")
    assert not {"_streamlit_user", "_streamlit_user_tokens"} & {c["name"] for c in page.context.cookies()}
    open_app(page, server, f"search?q={QUERY.replace(' ', '+')}")
    expect(alerts(main_block(page), "info")).to_have_text("Sign in to open this palace.")
    expect(main_block(page).get_by_role("textbox")).to_have_count(0)
    expect(sidebar(page)).to_have_count(0)
    assert_nothing_hidden(page, "search after sign-out")
    assert "Orion" not in page.content()

    # Streamlit's sign-in is a signed cookie holding the ID token's claims; the palace remembers the
    # sign-out, so a copy taken before it no longer signs in.
    replay = browser.new_context()
    try:
        replay.add_cookies(kept)
        again = replay.new_page()
        track_runs(again)
        open_app(again, server, f"search?q={QUERY.replace(' ', '+')}")
        expect(alerts(main_block(again), "info")).to_have_text("You signed out. Sign in again to go on.")
        expect(main_block(again).get_by_role("textbox")).to_have_count(0)
        assert "Orion" not in again.content()
        assert_nothing_hidden(again, "replayed cookie after sign-out")
    finally:
        replay.close()
    sign_in(page, server, provider, VIEWER)  # a new sign-in works again
    expect(sidebar(page).get_by_text(f"Signed in as {VIEWER}", exact=False)).to_be_visible()


def test_an_unknown_or_unverified_address_gets_no_access(page: Page, browser: Browser, server: Dashboard,
                                                         provider: Provider) -> None:
    stranger = "stranger@elsewhere.example"  # unknown to the provider too: it makes the user, e-mail = sub
    sign_in(page, server, provider, stranger)
    main = main_block(page)
    expect(alerts(main, "warning")).to_contain_text(f"You are signed in as {stranger}, but you have no access")
    expect(main.get_by_role("button", name="Sign out", exact=True)).to_be_visible()
    expect(sidebar(page)).to_have_count(0)  # no navigation, no counts
    open_app(page, server, f"search?q={QUERY.replace(' ', '+')}")
    expect(alerts(main_block(page), "warning")).to_contain_text("you have no access to this palace")
    expect(main_block(page).get_by_role("textbox")).to_have_count(0)
    assert "Orion" not in page.content()
    assert_nothing_hidden(page, "a stranger's search")

    with signed_in(browser, server, provider, "mallory") as mallory:  # claims the admin's address, unverified
        expect(alerts(main_block(mallory), "warning")).to_contain_text(f"You are signed in as {ADMIN}, but you "
                                                                       "have no access")
        expect(sidebar(mallory)).to_have_count(0)


def test_a_sign_in_ends_when_its_id_token_expires(page: Page, server: Dashboard, provider: Provider) -> None:
    # The provider copies a user's extra claims into the ID token, exp included: this one lasts seconds.
    expires = int(time.time()) + 12  # a warm sign-in takes a few seconds
    provider.set_user("brief", {"email": VIEWER, "email_verified": True, "exp": expires})
    sign_in(page, server, provider, "brief")
    assert caption(page) == f"Signed in as {VIEWER} · viewer · {ORION}"
    while time.time() <= expires + 1:
        page.wait_for_timeout(250)
    open_app(page, server, "search")
    expect(alerts(main_block(page), "info")).to_have_text("Your sign-in has expired. Sign in again to go on.")
    expect(main_block(page).get_by_role("button", name="Sign in", exact=True)).to_be_visible()
    expect(sidebar(page)).to_have_count(0)
    assert "Orion" not in page.content()
