"""The drawer card (dashboard.hits) and a place's listing (dashboard.listing), through the Drawers page
in AppTest (see tests/test_app.py's header for how pages are driven), plus the card's score line."""

from __future__ import annotations

import json
import re
from unittest.mock import patch

from streamlit.testing.v1 import AppTest

from dashboard import cards
from dashboard.hits import opened_key, score_block, score_line
from mempalace import Palace
from mempalace.config import Settings
from mempalace.models import DrawerDraft, SearchHit
from mempalace.store.chroma import SEQ_KEY
from mempalace.catalog.sync import new_stamp
from _apptest import cards_in, closed_cards, start

LINK = "see https://example.com/a_b for the plan"  # a URL in drawer text: never a link outside the text
EVIL = "<img src=x onerror=alert(1)>"
# (parent id, conversation day, title, wing, room, hall, the conversation's drawers)
CONVERSATIONS = (
    ("conv-old", "2016-01-14", f"Kickoff {EVIL}", "wing_kai", "planning", "hall_events",
     ("Kai: we start the auth migration on Monday.", f"Priya: fine, {LINK}.")),
    ("conv-new", "2024-03-02", "Launch review", "wing_priya", "planning", "hall_facts",
     ("Priya: the launch went well, two regressions.",)),
    ("conv-mid", "2020-06-30", None, "wing_kai", "budget", None, ("Kai: the GPU budget doubles next year.",)),
)


def seed(settings: Settings, more: int = 0) -> None:
    """The conversations above, plus `more` undated one-drawer notes in wing_kai/backlog."""
    drafts = [DrawerDraft(f"{parent}-{i}", text, wing, room, hall, f"{parent}.json", i, parent,
                          {k: v for k, v in {"format": "chatgpt", "conversation_id": parent, "conversation_date": day,
                                             "conversation_title": title, "speakers": "Kai, Priya",
                                             "added_by": "mempalace-ingest"}.items() if v}, room_by="ingest")
              for parent, day, title, wing, room, hall, texts in CONVERSATIONS for i, text in enumerate(texts)]
    drafts += [DrawerDraft(f"note-{i:02}", f"Backlog note {i}: a flaky test.", "wing_kai", "backlog")
               for i in range(more)]
    with Palace.open(settings=settings) as palace:
        palace.file_drawers(drafts)


def drawers_page(**query: str) -> AppTest:
    at = start(**query)
    at.switch_page("app_pages/drawers.py").run()
    assert not at.exception, at.exception
    return at


def ids_shown(at: AppTest) -> list[str]:
    """The drawers listed, in order, closed or open."""
    return cards_in(at.main, "drawers")


def open_drawer(at: AppTest, drawer_id: str) -> AppTest:
    """Open a listed drawer's "Open drawer" (its content is drawn only while open)."""
    at.session_state[f"drawers_open_{drawer_id}"] = True
    at.run()
    assert not at.exception, at.exception
    return at


def walk(block) -> list:
    """Every element under `block`, in the order drawn."""
    found = []
    for child in getattr(block, "children", {}).values():
        found += [child] if not getattr(child, "children", None) else walk(child)
    return found


def filters(at: AppTest) -> list[str]:
    return [at.selectbox(key=f"drawers_{name}").value for name in ("wing", "room", "hall")]


def span_caption(at: AppTest) -> str:
    return next(c.value for c in at.main.caption if "of" in c.value and "drawer" in c.value)


def test_cards_show_the_place_title_and_day_newest_first_with_labelled_metadata(settings):
    seed(settings)
    at = drawers_page()
    assert filters(at) == ["(all)", "(all)", "(all)"]
    assert span_caption(at) == "drawers 1–4 of 4 · newest conversation first"
    assert ids_shown(at) == ["conv-new-0", "conv-mid-0", "conv-old-0", "conv-old-1"]  # each conversation in order
    cards = closed_cards(at.main, "drawers")
    assert len(cards) == 4 and not at.main.toggle  # closed cards are one HTML block, no widgets
    assert all(c.endswith('<span class="mp-switch"></span>Open drawer</button></article>') for c in cards)
    assert [re.findall(r'background:#e8e1fb[^>]*>([^<]*)<', c)[0] for c in cards] == [
        "wing_priya", "wing_kai", "wing_kai", "wing_kai"]  # the wing on every card, "(all)" wings or not
    old = next(c for c in cards if "Kickoff" in c)
    assert "<strong>Kickoff &lt;img src=x onerror=alert(1)&gt;</strong>" in old
    assert '<time datetime="2016-01-14"' in old and ">2016-01-14</time>" in old
    assert re.search(r"<small[^>]*>filed \d{4}-\d\d-\d\d</small>", old)
    assert not any("<img" in h.value or "<a " in h.value for h in at.main.html)
    assert not at.main.code and not at.main.text_input  # closed drawers are not drawn
    open_drawer(at, "conv-old-0")
    assert [c.value for c in at.main.code] == ["conv-old-0"]
    assert any("example.com/a_b" in m.value for m in at.main.markdown)
    table = next(h.value for h in at.main.html if "<table" in h.value and "conv-old.json" in h.value)
    rows = dict(re.findall(r"<th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td>", table))
    assert {k: rows[k] for k in ("format", "conversation id", "speakers", "added by", "room chosen by",
                                 "conversation date", "source file")} == {
        "format": "chatgpt", "conversation id": "conv-old", "speakers": "Kai, Priya", "added by": "mempalace-ingest",
        "room chosen by": "ingest (re-rooming may choose again)", "conversation date": "2016-01-14",
        "source file": "conv-old.json"}
    assert any("Neighbouring drawers" in c.value for c in at.main.caption)
    drawn = [(type(e).__name__, getattr(e, "key", None) or getattr(e, "value", "")) for e in walk(at.main)]
    move = drawn.index(("TextInput", "r_conv-old-0"))
    assert move < next(i for i, (_, v) in enumerate(drawn) if "Neighbouring drawers" in str(v))  # under its drawer


def test_an_open_card_keeps_its_place_between_the_closed_ones_and_closes_again(settings):
    seed(settings)
    at = drawers_page()
    order = ids_shown(at)
    assert len([h for h in at.main.html if "mp-card" in h.value]) == 1  # all four closed: one block
    open_drawer(at, order[1])
    assert ids_shown(at) == order  # the open card is drawn where it was listed
    assert [len(re.findall("<article", h.value)) for h in at.main.html if "mp-card" in h.value] == [1, 2]
    assert [c.value for c in at.main.code] == [order[1]] and at.toggle(key=f"drawers_open_{order[1]}").value
    head = next(h.value for h in at.main.html if f'data-card="{order[1]}"' in h.value)
    assert "mp-snippet" not in head  # the whole text follows: the snippet is not shown twice
    at.toggle(key=f"drawers_open_{order[1]}").set_value(False).run()
    assert ids_shown(at) == order and not at.main.code and not at.main.toggle


def test_the_switches_are_heard_by_one_opener_per_listing_which_opens_only_listed_cards(settings):
    seed(settings)
    at = drawers_page()
    openers = [c for c in at.main.get("bidi_component") if c.proto.component_name == "mempalace.card_opener"]
    assert len(openers) == 1 and json.loads(openers[0].proto.json) == "drawers"  # it hears this listing's switches
    assert openers[0].proto.id.endswith("drawers_opener") and 'setTriggerValue("opened"' in cards.OPENER_JS
    assert at.session_state["drawers_listed"] == set(ids_shown(at))
    for asked, opens in (("conv-mid-0", True), ("no-such-drawer", False)):  # a stale or forged id opens nothing
        state = {"drawers_opener": {"opened": asked}, "drawers_listed": set(ids_shown(at))}
        with patch.object(cards.st, "session_state", state):
            cards._opened("drawers_opener", "drawers")
        assert (opened_key("drawers", asked) in state) is opens


def test_a_place_from_the_address_pages_25_at_a_time_and_an_empty_one_says_so(settings):
    seed(settings, more=30)
    at = drawers_page(wing="wing_kai")
    assert filters(at) == ["wing_kai", "(all)", "(all)"]
    assert span_caption(at) == "drawers 1–25 of 33 · page 1 of 2 · newest conversation first"
    first = ids_shown(at)
    assert len(first) == 25 and at.button(key="drawers_prev").proto.disabled
    at.button(key="drawers_next").click().run()
    assert span_caption(at) == "drawers 26–33 of 33 · page 2 of 2 · newest conversation first"
    assert ids_shown(at)[-3:] == ["conv-mid-0", "conv-old-0", "conv-old-1"] and not set(first) & set(ids_shown(at))
    at.selectbox(key="drawers_room").select("planning").run()  # a new place starts at its first page
    assert span_caption(at) == "drawers 1–2 of 2 · newest conversation first"
    assert at.query_params == {"wing": "wing_kai", "room": "planning"}
    for query, shown in (({"room": "planning", "hall": "hall_facts"}, ["conv-new-0"]),
                         ({"hall": "hall_events"}, ["conv-old-0", "conv-old-1"]), ({"wing": "wing_priya",
                          "hall": "hall_events"}, [])):  # any of wing, room and hall, as a link gives them
        at.query_params.clear()
        at.query_params.update(query)
        at.run()
        assert ids_shown(at) == shown and at.query_params == query, query
    assert [i.value for i in at.main.info] == [r"There are no drawers in wing\_priya / hall\_events\."]
    assert not at.main.toggle and not any("showing" in c.value or "#0" in c.value for c in at.main.caption)


def test_a_place_the_palace_does_not_hold_is_said_to_be_dropped(settings):
    seed(settings)
    at = drawers_page(wing="wing_kai", room="no-such-room")
    assert filters(at) == ["wing_kai", "(all)", "(all)"] and at.query_params == {"wing": "wing_kai"}
    assert [w.value for w in at.main.warning] == ["No room “no\\-such\\-room” in wing\\_kai: "
                                                  "that filter is off, so this shows every room."]
    assert ids_shown(at) == ["conv-mid-0", "conv-old-0", "conv-old-1"]  # the whole wing, as the warning says
    at.run()
    assert not at.main.warning
    at.selectbox(key="drawers_room").select("budget").run()
    at.selectbox(key="drawers_wing").select("wing_priya").run()  # the user's own choice empties the room
    assert filters(at) == ["wing_priya", "(all)", "(all)"] and not at.main.warning


def test_move_and_delete_ask_first_then_say_what_they_did(settings):
    seed(settings)
    at = drawers_page(room="budget")
    target = "conv-mid-0"
    open_drawer(at, target).text_input(key=f"r_{target}").input("Spending Plans")
    at.button(key=f"move_{target}").click().run()
    assert [w.value for w in at.main.warning] == [
        r"Move this drawer from wing\_kai / budget to wing\_kai / spending\-plans?"]
    assert at.session_state["palace"].get_drawer(target).room == "budget"  # nothing moved yet
    at.button(key=f"move_yes_{target}").click().run()
    assert not at.exception and not at.main.warning  # its room emptied by the user's own move: the toast says it
    assert at.session_state["palace"].get_drawer(target).room == "spending-plans"
    assert [s.value for s in at.main.success] == [r"Moved the drawer to wing\_kai / spending\-plans\."]
    assert at.query_params == {} and target in ids_shown(at)  # its room is gone: the filter falls back to all

    at.query_params.update({"room": "planning", "hall": "hall_facts"})
    at.run()
    target = "conv-new-0"
    assert open_drawer(at, target).button(key=f"delete_{target}").proto.disabled
    at.checkbox(key=f"confirm_{target}").check().run()
    at.button(key=f"delete_{target}").click().run()
    assert not at.exception and target not in at.session_state["palace"].find_drawers([target])
    assert [s.value for s in at.main.success] == [r"Deleted the drawer from wing\_priya / planning / hall\_facts\."]
    at.button(key="trash_undo_button").click().run()  # the Undo beside it puts the drawer back where it was
    assert not at.exception and not at.main.success
    assert at.session_state["palace"].get_drawer(target).room == "planning"
    assert [t.value for t in at.toast] == ["Undone: 1 drawer back where it was."]


def test_a_deep_link_to_a_drawer_that_is_gone_says_so_and_links_to_the_list(settings):
    seed(settings)
    at = drawers_page(drawer="no-such-drawer")
    assert at.main.error and "no-such-drawer" in at.main.error[0].value.replace("\\", "")
    assert [(link.label, link.proto.page) for link in at.main.get("page_link")] == [("All drawers", "drawers")]


def test_deleting_from_a_deep_link_says_so_and_goes_back_to_its_place(settings):
    seed(settings)
    target = "conv-old-0"
    at = drawers_page(drawer=target)
    assert [link.proto.query_string for link in at.main.get("page_link")] == ["wing=wing_kai&room=planning"]
    at.checkbox(key=f"confirm_{target}").check().run()
    at.button(key=f"delete_{target}").click().run()
    assert not at.exception and not at.main.error
    assert [s.value for s in at.main.success] == [r"Deleted the drawer from wing\_kai / planning / hall\_events\."]
    assert at.query_params == {"wing": "wing_kai", "room": "planning"}
    assert ids_shown(at) == ["conv-old-1"]


def test_a_move_keeps_a_hall_another_tool_wrote_can_leave_it_and_refuses_a_bad_name(settings):
    seed(settings)
    with Palace.open(settings=settings) as palace:  # another tool, straight into Chroma
        palace._store.add(["foreign"], ["A note another tool filed."], [
            {"wing": "wing_kai", "room": "notes", "hall": "hall_misc", SEQ_KEY: new_stamp()}],
            palace.embed(["A note another tool filed."]))
        palace._store.bump_marker()
    at = open_drawer(drawers_page(room="notes"), "foreign")
    assert at.selectbox(key="h_foreign").value == "hall_misc"
    at.text_input(key="w_foreign").input("   ")
    at.button(key="move_foreign").click().run()
    assert [e.value for e in at.main.error] == [r"The wing name is empty\."] and not at.main.warning
    at.text_input(key="w_foreign").input("wing_kai")
    at.text_input(key="r_foreign").input("Kept Notes")
    at.button(key="move_foreign").click().run()
    at.button(key="move_yes_foreign").click().run()
    palace = at.session_state["palace"]
    assert (palace.get_drawer("foreign").room, palace.get_drawer("foreign").hall) == ("kept-notes", "hall_misc")
    at.selectbox(key="h_foreign").select("(none)")
    at.button(key="move_foreign").click().run()
    at.button(key="move_yes_foreign").click().run()
    assert not at.exception and palace.get_drawer("foreign").hall is None
    assert [s.value for s in at.main.success] == [r"Moved the drawer to wing\_kai / kept\-notes\."]


def test_the_score_line_says_what_each_number_is():
    def hit(score, similarity, semantic, lexical, close=True):
        return SearchHit(1, "d", "text", "w", "r", None, None, None, score, similarity, semantic, lexical, close=close)

    assert score_line(hit(0.586, 0.71, 0.426, 0.16)) == "#1 · score 0.59 (meaning 0.71, words 0.40)"
    assert score_line(hit(0.6, 0.6, 0.6, 0.0)) == "#1 · score 0.60 (meaning 0.60)"  # semantic mode
    assert score_line(hit(0.06, 0.1, 0.06, 0.0, close=False)).endswith("(meaning 0.10, words 0.00) · weak match")
    block = score_block(hit(0.06, 0.1, 0.06, 0.0, close=False))  # on the card: what each number is, on hover
    assert block.startswith('<div class="mp-score" title="Hybrid search: score = 0.') and "A weak match holds" in block
    assert "<strong>#1</strong> · score 0.06 (meaning 0.10, words 0.00) · weak match" in block
