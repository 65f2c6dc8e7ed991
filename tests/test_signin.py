"""Team sign-in, page by page, run by Streamlit's AppTest (no browser, no provider, the fake embedder).

`at.secrets` gives the app an `[auth]` section (so it is a team's dashboard) and `at.user` stands for
whatever Streamlit's OpenID Connect put in `st.user`; the `[[access]]` rules are in config.toml. The
browser tests in tests/e2e/test_team_signin.py do the same through a real provider; these cover the
rules per role and the edge cases of the ID token (an `exp` past, missing or not a number) quickly.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from urllib.parse import unquote

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.hits import opened_key
from mempalace import Palace
from mempalace.config import load_settings
from _apptest import APP, cards_in, charts_in, counts_in, started

AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "s" * 64, "client_id": "mempalace",
        "client_secret": "secret", "server_metadata_url": "http://localhost:9/.well-known/openid-configuration"}
VIEWER, EDITOR, ADMIN = "viewer@example.com", "editor@example.com", "admin@example.com"
RULES = f"""
[[access]]
who = "{VIEWER}"
role = "viewer"
wings = ["wing_orion"]

[[access]]
who = "{EDITOR}"
role = "editor"

[[access]]
who = "{ADMIN}"
role = "admin"
"""
DRAWERS = (  # launch-plan is a tunnel from the viewer's wing into wing_nimbus; launch-plans merges into it
    ("Orion launch plan: a pilot with ten customers in March.", "wing_orion", "launch-plan"),
    ("The Orion launch plans were reviewed again.", "wing_orion", "launch-plans"),
    ("Nimbus launch plan, confidential: codename NIGHTJAR.", "wing_nimbus", "launch-plan"),
    ("Quasar checklist with a NIGHTJAR briefing.", "wing_quasar", "badge-office"),
)
HIDDEN = ("nimbus", "quasar", "nightjar", "badge-office")
WING_BADGE = re.compile(r'<span style="background:#e8e1fb;[^>]*>([^<]*)</span>')  # dashboard.render.badge
PAGES = {"Overview": "overview", "Search": "search", "Tunnels": "tunnels", "Ingest": "ingest", "Drawers": "drawers",
         "Wake-up": "wakeup", "Changes": "changes", "Trash": "trash", "Audit": "audit"}


@pytest.fixture
def ids(home: Path) -> dict[str, str]:
    """The access rules and the palace; {wing/room: drawer id}."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(RULES, encoding="utf-8")
    found = {}
    with Palace.open(settings=load_settings(home)) as palace:
        for text, wing, room in DRAWERS:
            found[f"{wing}/{room}"] = palace.add_drawer(text, wing, room).drawer_ids[0]
    return found


def app(user: dict | None, **query: str) -> AppTest:
    """The team's dashboard after its first run, for `user` (as `st.user` holds it)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets = {"auth": dict(AUTH)}
    at.user = user if user is not None else {"is_logged_in": False}
    for name, value in query.items():
        at.query_params[name] = value
    started(at)
    at.run()
    assert not at.exception, at.exception
    return at


def signed_in(email: str, **claims: object) -> dict:
    return {"is_logged_in": True, "email": email, "email_verified": True, "exp": int(time.time()) + 3600, **claims}


def page(at: AppTest, name: str) -> AppTest:
    at.switch_page(f"app_pages/{name}.py").run()
    assert not at.exception, at.exception
    return at


def opens(at: AppTest, name: str) -> bool:
    """Whether the page is in this person's navigation (AppTest refuses to switch to one that is not)."""
    try:
        at.switch_page(f"app_pages/{name}.py")
    except ValueError as exc:
        assert "Could not find a navigation page" in str(exc)
        return False
    return True


def texts(at: AppTest) -> str:
    """Everything shown as text, labels and options included, in lower case (Markdown escapes removed)."""
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success", "text", "code", "title")
             for e in at.get(kind)]
    parts += [str(w.label) for w in [*at.button, *at.text_input, *at.selectbox, *at.toggle]]
    parts += [str(o) for box in at.selectbox for o in box.options]
    parts += [h.value for h in at.html]
    return "\n".join(parts).replace("\\", "").lower()


def card_ids(at: AppTest, key: str) -> list[str]:
    """The drawers whose cards are listed under `key`, in order, closed or open."""
    return cards_in(at.main, key)


def open_cards(at: AppTest, key: str) -> list[str]:
    """Open every card listed under `key` (a card draws its text, metadata, neighbours and controls only
    while open: `opened_key(key, id)`), run, and return their drawer ids."""
    shown = card_ids(at, key)
    assert shown
    for drawer_id in shown:
        at.session_state[opened_key(key, drawer_id)] = True
    at.run()
    assert not at.exception, at.exception
    assert set(shown) <= {c.value for c in at.main.code}  # each open card shows its drawer id
    return shown


def shows_nothing_of_the_palace(at: AppTest) -> None:
    assert not counts_in(at.sidebar) and not counts_in(at.main) and not at.dataframe
    assert not [t for t in DRAWERS if t[0].lower() in texts(at)]
    assert "palace" not in at.session_state


# -- signed out, expired, no access ---------------------------------------------------------------


def test_a_visitor_who_is_not_signed_in_sees_only_the_sign_in_screen(ids):
    at = app({"is_logged_in": False}, q="launch", wing="wing_orion")
    assert [t.value for t in at.title] == ["MemPalace"]
    assert [i.value for i in at.info] == ["Sign in to open this palace."]
    assert [b.label for b in at.button] == ["Sign in"]
    assert not at.sidebar.button and not at.sidebar.caption
    shows_nothing_of_the_palace(at)
    page(at, "search")  # asking for a page directly changes nothing
    assert [i.value for i in at.info] == ["Sign in to open this palace."] and not at.text_input
    shows_nothing_of_the_palace(at)


@pytest.mark.parametrize("exp", [-1, None, "2999-01-01", True], ids=["past", "missing", "text", "bool"])
def test_an_id_token_that_expired_or_has_no_usable_exp_counts_as_signed_out(ids, exp):
    user = signed_in(VIEWER)
    if exp is None:
        del user["exp"]
    else:  # a second ago, or not a number at all
        user["exp"] = int(time.time()) + exp if type(exp) is int else exp
    at = app(user)
    assert [i.value for i in at.info] == ["Your sign-in has expired. Sign in again to go on."]
    assert [b.label for b in at.button] == ["Sign in"]
    shows_nothing_of_the_palace(at)


def test_a_sign_in_that_expires_mid_session_stops_the_page_it_is_on(ids):
    at = app(signed_in(VIEWER))
    page(at, "drawers")
    assert [t.value for t in at.title] == ["Drawers"] and card_ids(at, "drawers")
    at.user = signed_in(VIEWER, exp=int(time.time()) - 1)
    at.run()
    assert [t.value for t in at.title] == ["MemPalace"]
    assert [i.value for i in at.info] == ["Your sign-in has expired. Sign in again to go on."]
    assert not at.main.toggle


@pytest.mark.parametrize("user, shown", [
    (signed_in("stranger@elsewhere.example"), "stranger@elsewhere.example"),
    (signed_in(ADMIN, email_verified=False), ADMIN),  # an address the provider has not verified
    (signed_in(""), "someone without an e-mail address"),
    ({**signed_in(ADMIN), "email_verified": None}, ADMIN),  # a provider that does not say
    ({**signed_in(ADMIN), "email_verified": "false"}, ADMIN),
    (signed_in("admin@example.com.evil.example"), "admin@example.com.evil.example"),
], ids=["unknown", "unverified", "no-email", "not-said", "false-as-text", "lookalike"])
def test_an_address_no_rule_names_gets_no_access(ids, user, shown):
    at = app(user)
    assert len(at.warning) == 1
    assert at.warning[0].value.replace("\\", "").startswith(f"You are signed in as {shown}, but you have no access")
    assert [b.label for b in at.button] == ["Sign out"]
    shows_nothing_of_the_palace(at)


def test_sign_out_leaves_the_next_run_signed_out(ids):
    at = app(signed_in(EDITOR))
    at.button(key="sign_out").click().run()
    assert at.user == {"is_logged_in": False}
    at.run()
    assert [i.value for i in at.info] == ["Sign in to open this palace."]


def test_an_unsaid_email_verified_counts_when_the_settings_trust_the_provider(home, ids):
    config = home / "config.toml"  # a top-level key: before the [[access]] tables
    config.write_text("trust_unverified_email = true\n" + config.read_text(encoding="utf-8"), encoding="utf-8")
    user = signed_in(ADMIN)
    del user["email_verified"]
    at = app(user)
    assert not any("no access" in w.value for w in at.warning) and "signed in as admin@example.com" in texts(at)
    at = app({**signed_in(ADMIN), "email_verified": False})  # an explicit no still refuses
    assert at.warning and "no access" in at.warning[0].value


def test_a_copy_of_a_signed_out_sign_in_no_longer_opens_the_palace(ids):
    issued = int(time.time()) - 60
    user = signed_in(EDITOR, iat=issued)
    at = app(user)
    at.button(key="sign_out").click().run()
    replay = app(user)  # the same claims again, as a copied cookie would bring them
    assert [i.value for i in replay.info] == ["You signed out. Sign in again to go on."]
    shows_nothing_of_the_palace(replay)
    fresh = app(signed_in(EDITOR, iat=issued + 30))  # a new sign-in, issued after the sign-out
    assert not fresh.info and "signed in as editor@example.com" in texts(fresh)


# -- what each role gets --------------------------------------------------------------------------


@pytest.mark.parametrize("email, role, wings, pages, counts", [
    (VIEWER, "viewer", "wing_orion", ["Overview", "Search", "Tunnels", "Drawers", "Wake-up"], ("2", "1", "2")),
    (EDITOR, "editor", "every wing",
     ["Overview", "Search", "Tunnels", "Ingest", "Drawers", "Wake-up", "Changes", "Trash"],
     ("4", "3", "3")),
    (ADMIN, "admin", "every wing", list(PAGES), ("4", "3", "3")),
])
def test_each_role_gets_its_caption_counts_and_pages(ids, email, role, wings, pages, counts):
    at = app(signed_in(email))
    assert at.sidebar.caption[0].value.replace("\\", "") == f"Signed in as {email} · {role} · {wings}"
    assert [b.label for b in at.sidebar.button] == ["Sign out", "Refresh"]
    assert not at.sidebar.text_input  # a team's palace is fixed: no path box
    assert tuple(counts_in(at.sidebar).values()) == counts
    assert [title for title, name in PAGES.items() if opens(at, name)] == pages


@pytest.mark.parametrize("email, move, delete, merge", [
    (VIEWER, False, False, False), (EDITOR, True, False, True), (ADMIN, True, True, True)])
def test_drawer_and_tunnel_controls_follow_the_role(ids, email, move, delete, merge):
    at = page(app(signed_in(email)), "drawers")
    shown = open_cards(at, "drawers")  # the controls are drawn in an open card only
    assert len(shown) == (2 if email == VIEWER else 4)
    labels = [b.label for b in at.main.button]
    assert ("Move" in labels) is move
    assert ("Delete" in labels) is delete
    assert bool([c for c in at.main.checkbox if c.label == "I want to delete this drawer"]) is delete
    assert bool(at.main.text_input) is move
    keys = {w.key for w in [*at.main.button, *at.main.checkbox, *at.main.text_input]}
    for drawer_id in shown:  # on every drawer listed, not just one
        assert {f"move_{drawer_id}", f"r_{drawer_id}", f"w_{drawer_id}"} <= keys if move else \
            not {f"move_{drawer_id}", f"r_{drawer_id}", f"w_{drawer_id}"} & keys
        assert {f"delete_{drawer_id}", f"confirm_{drawer_id}"} <= keys if delete else \
            not {f"delete_{drawer_id}", f"confirm_{drawer_id}"} & keys
    page(at, "tunnels")
    assert any("launch-plans (1) → launch-plan" in t.value for t in at.main.text)
    assert ("Merge" in [b.label for b in at.main.button]) is merge


def test_a_viewer_sees_no_trace_of_the_hidden_wings(ids):
    at = app(signed_in(VIEWER))
    for name in ("overview", "tunnels", "drawers"):
        page(at, name)
        if name == "drawers":  # with every card open: text, metadata, neighbours
            open_cards(at, "drawers")
        shown = texts(at)
        assert not [w for w in HIDDEN if w in shown], (name, [w for w in HIDDEN if w in shown])
    page(at, "tunnels")
    drawn = unquote(charts_in(at.main)["network"])  # the SVG, its data attributes decoded
    at.toggle(key="network_interactive").set_value(True).run()
    for network in (drawn, at.get("iframe")[0].proto.srcdoc):  # and the pyvis page on request
        assert "(wings you cannot see)" in network
        assert not [w for w in HIDDEN if w in network.lower()]


def test_a_viewer_is_offered_no_rename_and_no_names_from_hidden_wings(ids):
    at = page(app(signed_in(VIEWER), room="launch-plan"), "drawers")
    assert not [b for b in at.button if (b.key or "").startswith("drawers_other_name_")]
    assert not [w for w in HIDDEN if w in texts(at)]


def test_a_forged_wing_in_the_search_address_falls_back_to_the_viewers_wings(ids):
    at = page(app(signed_in(VIEWER), q="launch plan", wing="wing_nimbus"), "search")
    wing = at.main.selectbox[0]
    assert wing.label == "Wing" and wing.value == "(any)" and list(wing.options) == ["(any)", "wing_orion"]
    assert "wing" not in at.query_params
    assert [c.value for c in at.main.caption if "close match" in c.value] == ["2 close matches"]  # no weaker
    assert "search_weak" not in [t.key for t in at.main.toggle]  # no "Show weaker results": the two are every result
    assert open_cards(at, "hit") == [ids["wing_orion/launch-plan"], ids["wing_orion/launch-plans"]]
    assert {wing for h in at.main.html for wing in WING_BADGE.findall(h.value)} == {"wing_orion"}
    assert not [w for w in HIDDEN if w in texts(at)]


def test_a_deep_link_to_a_hidden_drawer_reads_as_an_unknown_id(ids):
    foreign = ids["wing_nimbus/launch-plan"]
    made_up = "drawer_" + "0" * (len(foreign) - len("drawer_"))

    def shown(drawer_id: str) -> list[str]:
        at = page(app(signed_in(VIEWER), drawer=drawer_id), "drawers")
        assert not at.main.text and not at.main.html and not at.main.markdown and not at.main.code
        assert not at.main.toggle and not at.main.caption
        return [e.value.replace("\\", "").replace(drawer_id, "<id>") for e in at.main.error]

    assert shown(foreign) == shown(made_up) == ["No drawer with id '<id>' in this palace."]
    own = ids["wing_orion/launch-plan"]
    at = page(app(signed_in(VIEWER), drawer=own), "drawers")
    assert card_ids(at, "linked") == [own] and [c.value for c in at.main.code] == [own]  # open at once
    at.toggle(key=f"linked_text_{own}").set_value(True).run()  # "Raw text": the exact stored text
    assert [c.value for c in at.main.code] == [DRAWERS[0][0], own]  # the exact text, byte for byte


def test_an_editor_of_empty_wings_is_not_offered_the_demo_it_may_not_file(home, ids):
    """The demo files into wings of its own (wing_kai, …): an editor of other wings could press the button
    and nothing would happen. They get an upload link instead, and no word that "the palace is empty"."""
    (home / "config.toml").write_text(RULES + '\n[[access]]\nwho = "new@example.com"\nrole = "editor"\n'
                                      'wings = ["wing_empty"]\n', encoding="utf-8")
    at = app(signed_in("new@example.com"))
    assert [i.value for i in at.info] == ["There are no drawers in the wings you may see yet."]
    assert not at.main.button
    assert [link.label for link in at.main.get("page_link")] == ["Upload transcripts"]
