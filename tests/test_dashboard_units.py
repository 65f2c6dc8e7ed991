"""The dashboard's building blocks without Streamlit: safe rendering, the offline network page,
Markdown/CSV export, and the Palace views the pages read (browse, neighbours, filed_per_day, revision)."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from datetime import datetime, timezone

import pytest

from dashboard.network import MAX_ROOMS, choose_rooms, network_page
from dashboard.render import badge, highlight, md, query_terms, snippet_block, unlinked
from mempalace import Palace
from mempalace.config import load_settings
from mempalace.errors import InvalidInputError, PlaceNotFoundError
from mempalace.archive.export import CSV_COLUMNS, hits_to_csv, hits_to_markdown
from mempalace.models import DrawerDraft, RoomNode, SearchHit
from mempalace.store.chroma import SEQ_KEY
from mempalace.catalog.sync import new_stamp

SCRIPT = "</script><script>alert(7357)</script>"
ATTRIBUTE = 'x"onerror=alert(7357) y'


def commonmark(text: str) -> str:
    """`text` rendered the way a CommonMark renderer with GFM's tables, strikethrough and bare-address
    links (Streamlit's, in the browser) would."""
    markdown_it = pytest.importorskip("markdown_it")
    renderer = markdown_it.MarkdownIt("commonmark", {"linkify": True})
    return renderer.enable(["table", "strikethrough", "linkify"]).render(text)


# -- render ------------------------------------------------------------------------------------------


def test_a_hall_badge_says_what_its_hall_means_and_that_halls_are_given_when_clear():
    shown = badge("hall_events", "hall")
    assert 'title="An event: something that happened or is planned, with its time. A hall is given only' in shown
    assert "title=" not in badge("hall_events", "room") and "title=" not in badge("<x>", "hall")


def test_highlight_escapes_all_markup_without_terms():
    text = "<b>bold</b> & \"quotes\" 'single' <script>alert(1)</script>"
    assert highlight(text, []) == html.escape(text)
    assert "<" not in highlight(text, []).replace("&lt;", "")


def test_highlight_marks_terms_and_their_inflections_as_whole_words():
    assert highlight("OIDC first, then oidc again", ["oidc"]) == "<mark>OIDC</mark> first, then <mark>oidc</mark> again"
    # the words keyword search matches: a term and its inflections, whole; never a word it merely starts
    assert highlight("migrate, migrated; migration remigrate", ["migrate"]) == (
        "<mark>migrate</mark>, <mark>migrated</mark>; migration remigrate")
    assert highlight("The mouse and the mice", ["mice"]) == "The <mark>mouse</mark> and the <mark>mice</mark>"


def test_stop_words_are_not_highlighted():
    terms = query_terms("does gmail have labels")
    assert terms == ["gmail", "labels"]
    assert highlight("Gmail does have labels; it doesn't have folders.", terms) == (
        "<mark>Gmail</mark> does have <mark>labels</mark>; it doesn&#x27;t have folders.")


def test_highlight_escapes_around_and_inside_marks():
    out = highlight('<script>alert("x")</script> & login', ["script", "login"])
    assert out == ("&lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt; &amp; "
                   "<mark>login</mark>")
    assert re.sub(r"</?mark>", "", out) == html.escape('<script>alert("x")</script> & login')


def test_highlight_handles_unicode_words():
    assert highlight("Crème brûlée und Über-Straße", ["crème", "über"]) == (
        "<mark>Crème</mark> brûlée und <mark>Über</mark>-Straße")
    assert highlight("ÉCOLE école", ["école"]) == "<mark>ÉCOLE</mark> <mark>école</mark>"
    assert highlight("東京 の 会議", ["東京"]) == "<mark>東京</mark> の 会議"


def test_highlight_overlapping_terms_give_one_mark_per_word():
    out = highlight("authentication auth authority", ["auth", "authentication", "authority"])
    assert out == "<mark>authentication</mark> <mark>auth</mark> <mark>authority</mark>"
    assert "<mark><mark>" not in highlight("abc", ["ab", "abc", "a"])
    assert highlight("abc", ["ab", "abc", "a"]) == "<mark>abc</mark>"


def test_highlight_treats_regex_metacharacters_as_text():
    text = "Use c++ or a.b* or (x|y) [z] $HOME ^caret \\d"
    for terms in (["c++"], ["a.b*"], ["(x|y)"], ["[z]"], ["\\d"], query_terms("c++ a.b* (x|y) [z] \\d")):
        out = highlight(text, terms)  # never a regex error, always escaped
        assert re.sub(r"</?mark>", "", out) == html.escape(text)
    assert "<mark>c++</mark>" in highlight(text, ["c++"])
    assert "<mark>a.b*</mark>" in highlight(text, ["a.b*"])
    assert "<mark>" not in highlight("aXb ab", ["a.b"])  # '.' is a dot, not any character


def test_highlight_limit_cuts_before_escaping():
    text = "login " * 50
    out = highlight(text, ["login"], limit=12)
    assert out == "<mark>login</mark> <mark>login</mark> …"
    assert highlight("a < b", [], limit=3) == "a &lt;…"
    assert highlight("short", ["short"], limit=100) == "<mark>short</mark>"


def test_highlight_limit_is_a_width_so_a_chinese_snippet_is_as_long_as_a_latin_one():
    assert highlight("a" * 1000, [], limit=600) == "a" * 600 + "…"
    assert highlight("灰狗" * 500, ["灰狗"], limit=600) == "<mark>" + "灰狗" * 168 + "</mark>…"  # 1 em a character
    assert highlight("e\u0301" * 700, [], limit=600) == "e\u0301" * 600 + "…"  # an accent takes no room


def test_snippet_block_and_badge_escape():
    block = snippet_block("<img src=x onerror=alert(1)> login", ["login"])
    assert block.startswith('<div style="white-space:pre-wrap') and block.endswith("</div>")
    assert "<img" not in block and "&lt;img src=x onerror=alert(1)&gt; <mark>login</mark>" in block
    pill = badge('"><script>alert(1)</script>', "room")
    assert "<script" not in pill and "&quot;&gt;&lt;script&gt;" in pill and pill.count("<span") == 1


def test_md_escapes_markdown_and_link_syntax():
    for text in ("[x](javascript:alert(1))", "![img](http://evil/x.png)", "<http://evil.example>",
                 "<script>alert(1)</script>", "**bold** _em_ `code` ~~gone~~ # heading",
                 "https://evil.example/path", "www.evil.example", "| a | b |\n|---|---|\n| c | d |"):
        rendered = commonmark(md(text))
        assert "<a " not in rendered and "<img" not in rendered and "<script" not in rendered, (text, rendered)
        for tag in ("<strong>", "<em>", "<code>", "<del>", "<h1>", "<table>"):
            assert tag not in rendered, (text, rendered)
    assert md("[x](javascript:alert(1))") == r"\[x\]\(javascript\:alert\(1\)\)"
    assert md("wing_kai") == r"wing\_kai"


@pytest.mark.parametrize(("text", "shown"), [
    ("https://evil.example/login?", "https:\u2060//evil.example/login?"),
    ("www.evil.example/x", "www\u2060.evil.example/x"), ("WWW.evil.example", "WWW\u2060.evil.example"),
    ("help@evil.example", "help\u2060@evil.example"), ("&lt;b&gt; &amp;", "&lt;b&gt; &amp;"),
])
def test_unlinked_leaves_no_address_for_gfm_to_link_and_shows_entities_as_typed(text, shown):
    """GFM links web and mail addresses even after escapes are read: a word joiner (invisible) breaks them."""
    rendered = commonmark(unlinked(text))
    assert "<a " not in rendered and html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip() == shown


def test_md_flattens_to_one_line_and_takes_any_value():
    assert md("first line\n\n# second\tline  ") == r"first line \# second line"
    assert md(42) == "42" and md(None) == "None"
    assert "\n" not in md("a\r\nb\n- c")


def test_query_terms_drop_stop_words_short_words_and_repeats():
    assert query_terms("What is the auth migration for?") == ["auth", "migration"]
    assert query_terms("Why did LOGINS break, and why did logins break?") == ["logins", "break"]
    assert query_terms("a I x y") == [] and query_terms("") == []
    assert query_terms("c++ a.b*") == []  # only one-letter words
    assert query_terms("Crème brûlée über") == ["crème", "brûlée", "über"]


# -- network -----------------------------------------------------------------------------------------


def node(room: str, wings: tuple[str, ...], count: int = 1, halls: tuple[str, ...] = (), weight: float | None = None):
    if weight is None:
        weight = 1.0 if len(wings) == 2 else (0.5 if len(wings) > 2 else 0.0)
    return RoomNode(room, wings, halls, count, (), weight)


def _data_sets(page: str) -> list[list[dict]]:
    """The nodes and edges JSON pyvis wrote into the page."""
    return [json.loads(m) for m in re.findall(r"new vis\.DataSet\((\[.*?\])\);\n", page)]


def test_network_page_is_self_contained():
    drawn = network_page([node("auth-migration", ("wing_a", "wing_b"), 3), node("solo", ("wing_a",))], matched=2)
    page = drawn.html
    assert (drawn.matched, drawn.drawn) == (2, 2)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:|//|\.\./)""", page, re.IGNORECASE)
    assert "node_modules" not in page and "cdnjs" not in page and "<link" not in page
    assert not re.search(r"<script[^>]*\bsrc=", page)  # every script is inline
    assert "vis-network" in page and "new vis.Network(" in page and len(page) > 300_000  # the library, inlined
    nodes, edges = _data_sets(page)
    assert {n["id"] for n in nodes} == {"w:wing_a", "w:wing_b", "r:auth-migration", "r:solo"}
    assert {(e["from"], e["to"]) for e in edges} == {("r:auth-migration", "w:wing_a"), ("r:auth-migration", "w:wing_b"),
                                                    ("r:solo", "w:wing_a")}


@pytest.mark.parametrize("evil", [SCRIPT, ATTRIBUTE, '<img src=x onerror="alert(7357)">',
                                  '<a href="javascript:alert(7357)">x</a>'])
def test_names_never_reach_the_network_page_as_markup(evil):
    rooms = [node(evil, ("wing_a", f"wing_{evil}"), 2), node(f"room {evil}", ("wing_a",))]
    page = network_page(rooms, matched=2).html
    assert evil not in page
    assert "<script>alert" not in page and "<img src=x" not in page and '<a href="javascript' not in page
    assert not re.search(r'(?<!\\)"onerror=', page)  # only ever inside a JSON string, as \"
    outside = re.sub(r"new vis\.DataSet\(\[.*?\]\);\n", "", page)
    assert "7357" not in outside  # names appear only in the data, never in the surrounding HTML
    nodes, _ = _data_sets(page)
    shown = {n["id"]: n for n in nodes}
    # labels are drawn on the canvas as text, so they read as typed ("href" is broken by a zero-width space)
    readable = evil.replace("href", "hr\u200bef")
    assert shown[f"r:{evil}"]["label"] == readable
    assert shown[f"r:{evil}"]["title"].startswith(f"room {readable}\n2 drawers")
    assert shown[f"w:wing_{evil}"]["label"].replace("\n", "") == f"wing_{readable}"  # over its lines
    # a title holding "href" would switch pyvis to a popup that sets innerHTML: none may hold it
    assert not any("href" in n.get("title", "") for n in nodes)


def nodes_by_name(*rooms: RoomNode) -> dict[str, RoomNode]:
    return {r.room: r for r in rooms}


def test_choose_rooms_caps_at_max_rooms_most_connected_first():
    many = {f"room-{i:03}": node(f"room-{i:03}", ("wing_a",), count=i % 7 + 1) for i in range(MAX_ROOMS + 40)}
    many["hub"] = node("hub", ("wing_a", "wing_b", "wing_c"), count=1, weight=0.9)
    many["pair"] = node("pair", ("wing_a", "wing_b"), count=1, weight=1.0)
    many["pair-big"] = node("pair-big", ("wing_b", "wing_c"), count=9, weight=1.0)
    chosen, matched = choose_rooms(many)
    assert matched == MAX_ROOMS + 43 and len(chosen) == MAX_ROOMS
    # score = weight × (wings − 1) first (hub 1.8 > pairs 1.0), then wings, then drawers, then name
    assert [r.room for r in chosen[:3]] == ["hub", "pair-big", "pair"]
    singles = chosen[3:]
    assert [(-r.count, r.room) for r in singles] == sorted((-r.count, r.room) for r in singles)
    assert min(r.count for r in singles) >= max(r.count for r in many.values() if r not in chosen)
    chosen, matched = choose_rooms(many, cap=2)
    assert [r.room for r in chosen] == ["hub", "pair-big"] and matched == MAX_ROOMS + 43


def test_choose_rooms_filters_by_wings_min_wings_and_hall():
    rooms = nodes_by_name(
        node("auth-migration", ("wing_driftwood", "wing_kai", "wing_priya"), 3, ("hall_advice", "hall_events")),
        node("gpu-pricing", ("wing_kai", "wing_priya"), 2, ("hall_facts",)),
        node("deploy", ("wing_driftwood",), 1, ("hall_preferences",)),
        node("offsite", ("wing_priya",), 4))

    def names(found: tuple[list[RoomNode], int]) -> list[str]:
        return [r.room for r in found[0]]

    assert names(choose_rooms(rooms, wings=["wing_driftwood"])) == ["auth-migration", "deploy"]
    assert names(choose_rooms(rooms, wings=("wing_kai", "wing_driftwood"))) == ["auth-migration", "gpu-pricing",
                                                                              "deploy"]
    assert names(choose_rooms(rooms, min_wings=2)) == ["auth-migration", "gpu-pricing"]
    assert names(choose_rooms(rooms, min_wings=3)) == ["auth-migration"]
    assert names(choose_rooms(rooms, hall="hall_facts")) == ["gpu-pricing"]
    assert names(choose_rooms(rooms, wings=["wing_priya"], min_wings=1, hall="hall_advice")) == ["auth-migration"]
    assert choose_rooms(rooms, wings=["wing_nobody"]) == ([], 0)
    assert choose_rooms({}) == ([], 0)
    assert names(choose_rooms(rooms)) == ["auth-migration", "gpu-pricing", "offsite", "deploy"]


def test_an_empty_network_page_still_renders():
    drawn = network_page([], matched=0)
    assert (drawn.matched, drawn.drawn) == (0, 0) and "new vis.Network(" in drawn.html


# -- export ------------------------------------------------------------------------------------------


def hit(rank: int, content: str, **fields) -> SearchHit:
    values = dict(drawer_id=f"drawer_{rank:03}", wing="wing_kai", room="auth-migration", hall="hall_events",
                  source_file="sessions/kai.jsonl", filed_at="2025-03-04T10:00:00+00:00", score=0.9 - rank / 10,
                  similarity=0.5, semantic=0.4, lexical=0.3)
    values.update(fields)
    return SearchHit(rank=rank, content=content, **values)


AWKWARD = [
    "plain text",
    "a ``` fence inside\n```python\nprint('x')\n```\nand after",
    "`one` ``two`` ````four```` and a trailing run `````",
    "ends with a newline\n",
    "\nstarts with one, has CRLF\r\nand\ttabs and unicode: Über, 東京, emoji 🚀",
    "~~~\nnot a tilde fence\n~~~",
    "    indented code\n# not a heading\n- not a list\n> not a quote",
    "<script>alert(1)</script> [x](javascript:alert(1))",
]


def fenced_blocks(report: str) -> list[str]:
    """The text inside each hit's fence (a run of 3+ backticks, 'text', the content, the same run)."""
    found = []
    for match in re.finditer(r"^(`{3,})text\n", report, re.MULTILINE):
        fence, start = match.group(1), match.end()
        end = report.index(f"\n{fence}\n", start)  # the content holds no run as long as its fence
        found.append(report[start:end])
    return found


def test_markdown_keeps_each_hit_byte_for_byte_inside_a_long_enough_fence():
    hits = [hit(i + 1, text) for i, text in enumerate(AWKWARD)]
    report = hits_to_markdown("auth", hits)
    assert fenced_blocks(report) == AWKWARD
    for text in AWKWARD:
        longest = max((len(r) for r in re.findall(r"`+", text)), default=0)
        fence = "`" * max(3, longest + 1)
        assert f"\n{fence}text\n{text}\n{fence}\n" in report
    # a CommonMark renderer sees exactly one code block per hit, holding the text
    rendered = commonmark(report)
    assert rendered.count("<pre><code") == len(AWKWARD)
    assert "<script" not in rendered and "<a " not in rendered
    for text in AWKWARD:
        assert html.escape(text, quote=False).replace("\r\n", "\n") in rendered.replace("&quot;", '"')


def test_markdown_escapes_the_query_scope_and_names_and_gives_provenance():
    query = "**why** [x](javascript:alert(1)) <b>#1</b>\nnext line"
    hits = [hit(1, "Kai moved login to OIDC.", wing="wing_kai", room="auth_*migration*", hall="hall_events",
                source_file="[evil](http://x)/kai.jsonl", drawer_id="drawer_abc123", filed_at="2025-03-04T10:00:00+00:00"),
            hit(2, "No provenance here.", hall=None, source_file=None, filed_at=None)]
    report = hits_to_markdown(query, hits, {"wing": "wing_kai", "room": None, "hall": "hall_events"}, "/data/my_palace")
    lines = report.split("\n")
    assert lines[0] == r"# Search: \*\*why\*\* \[x\](javascript:alert(1)) \<b\>#1\</b\> next line"
    assert "- Scope: wing `wing_kai`, hall `hall_events`" in lines  # names as code spans, readable as typed
    assert "- Palace: `/data/my_palace`" in lines and "- Results: 2" in lines
    assert "## 1. `wing_kai` / `auth_*migration*` / `hall_events`" in lines
    assert "- Drawer: `drawer_abc123`" in lines
    assert "- Source: `[evil](http://x)/kai.jsonl`" in lines
    assert "- Filed: 2025-03-04T10:00:00+00:00" in lines
    assert "- Score: 0.800 (meaning similarity 0.500, parts: meaning 0.400 + words 0.300)" in lines
    second = report[report.index("## 2."):]
    assert "## 2. `wing_kai` / `auth-migration`" in second and "- Drawer: `drawer_002`" in second
    assert "- Source:" not in second and "- Filed:" not in second
    rendered = commonmark(report.split("```text")[0])  # everything above the first hit's text
    assert "<a " not in rendered and "<strong>" not in rendered and "<b>" not in rendered and "<em>" not in rendered


def test_markdown_without_hits_or_filters():
    report = hits_to_markdown("nothing", [])
    assert report.split("\n") == ["# Search: nothing", "", "- Scope: the whole palace", "- Results: 0", ""]
    assert "- Scope: the whole palace" in hits_to_markdown("q", [], {"wing": None, "room": ""})


def read_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_csv_round_trips_every_field_and_awkward_content():
    contents = ['commas, "quotes", and ""doubled""', "new\nlines\r\nand CRLF", "unicode: Über 東京 🚀", "", "plain"]
    hits = [hit(i + 1, text) for i, text in enumerate(contents)]
    rows = read_csv(hits_to_csv(hits))
    assert rows[0] == list(CSV_COLUMNS) and len(rows) == len(contents) + 1
    for row, original in zip(rows[1:], hits):
        record = dict(zip(CSV_COLUMNS, row))
        assert record["content"] == original.content
        assert record["drawer_id"] == original.drawer_id and record["rank"] == str(original.rank)
        assert float(record["score"]) == pytest.approx(original.score)
        assert (record["wing"], record["room"], record["hall"]) == (original.wing, original.room, original.hall)
        assert (record["source_file"], record["filed_at"]) == (original.source_file, original.filed_at)
    empty = dict(zip(CSV_COLUMNS, read_csv(hits_to_csv([hit(1, "x", hall=None, source_file=None, filed_at=None)]))[1]))
    assert (empty["hall"], empty["source_file"], empty["filed_at"]) == ("", "", "")
    assert read_csv(hits_to_csv([])) == [list(CSV_COLUMNS)]


@pytest.mark.parametrize("formula", ["=1+1", "+1", "-1", "@SUM(A1)", "=HYPERLINK(\"http://evil\")", "\t=1", "\r=1"])
def test_csv_defuses_cells_a_spreadsheet_would_run(formula):
    hits = [hit(1, formula, wing=formula, room=formula, source_file=formula, drawer_id=formula, score=-0.25)]
    record = dict(zip(CSV_COLUMNS, read_csv(hits_to_csv(hits))[1]))
    for column in ("content", "wing", "room", "source_file", "drawer_id"):
        assert record[column] == "'" + formula
    assert record["score"] == "-0.25"  # numbers stay numbers


def test_csv_leaves_other_text_alone():
    for text in ("a = b", " =not first", "'quoted", "x-y", "1+1"):
        assert dict(zip(CSV_COLUMNS, read_csv(hits_to_csv([hit(1, text)]))[1]))["content"] == text


# -- Palace views the pages read ---------------------------------------------------------------------


def foreign_add(palace: Palace, drawer_id: str, text: str, **meta) -> None:
    """Another client or tool writing straight into Chroma, with whatever metadata it likes."""
    palace._store.add([drawer_id], [text], [{**meta, SEQ_KEY: new_stamp()}], palace.embed([text]))
    palace._store.bump_marker()


def fill(palace: Palace) -> list[DrawerDraft]:
    """23 drawers over three wings, rooms and halls (file_drawers: no near-duplicate check)."""
    drafts = []
    for i in range(23):
        wing = ("wing_a", "wing_b", "wing_c")[i % 3]
        room = ("room-x", "room-y")[i % 2]
        hall = (None, "hall_facts", "hall_events")[i // 2 % 3]
        drafts.append(DrawerDraft(f"d{i:02}", f"drawer number {i} about topic {i * 31 % 17}", wing, room, hall,
                                  source_file=f"src/{i % 4}.txt", chunk_index=i))
    palace.file_drawers(drafts)
    return drafts


def test_browse_pages_through_a_place_in_order(palace):
    drafts = fill(palace)
    total, everything = palace.browse(limit=100)
    assert total == 23 and len(everything) == 23
    expected = sorted(drafts, key=lambda d: (d.wing, d.room, d.source_file, d.chunk_index))
    assert [d.id for d in everything] == [d.id for d in expected]
    pages = [palace.browse(offset=start, limit=5) for start in range(0, 25, 5)]
    assert all(t == 23 for t, _ in pages)
    assert [len(p) for _, p in pages] == [5, 5, 5, 5, 3]
    assert [d.id for _, p in pages for d in p] == [d.id for d in everything]
    assert palace.browse(offset=23, limit=5) == (23, []) and palace.browse(offset=500) == (23, [])
    assert palace.browse(limit=0) == (23, [])
    first = everything[0]
    original = next(d for d in drafts if d.id == first.id)
    assert (first.content, first.wing, first.room, first.hall, first.source_file, first.chunk_index) == (
        original.content, original.wing, original.room, original.hall, original.source_file, original.chunk_index)
    assert first.filed_at and first.filed_at[:2] == "20"


def test_browse_filters_by_wing_room_and_hall_with_names_as_stored(palace):
    drafts = fill(palace)

    def ids(**where) -> tuple[int, list[str]]:
        total, found = palace.browse(**where, limit=1000)
        return total, sorted(d.id for d in found)

    def want(test) -> tuple[int, list[str]]:
        chosen = sorted(d.id for d in drafts if test(d))
        return len(chosen), chosen

    assert ids(wing="wing_a") == want(lambda d: d.wing == "wing_a")
    assert ids(room="room-y") == want(lambda d: d.room == "room-y")
    assert ids(hall="hall_events") == want(lambda d: d.hall == "hall_events")
    assert ids(wing="wing_b", room="room-x") == want(lambda d: (d.wing, d.room) == ("wing_b", "room-x"))
    assert ids(wing="wing_c", room="room-y", hall="hall_facts") == want(
        lambda d: (d.wing, d.room, d.hall) == ("wing_c", "room-y", "hall_facts"))
    with pytest.raises(PlaceNotFoundError, match="No wing 'wing_nobody'"):
        ids(wing="wing_nobody")
    foreign_add(palace, "f1", "auth notes from upstream", wing="wing_zed", room="Auth Migration")
    assert ids(room="Auth Migration") == (1, ["f1"])  # stored names, not slugs
    with pytest.raises(PlaceNotFoundError, match="Did you mean Auth Migration"):  # stored unslugged: not this
        ids(room="auth-migration")
    assert palace.browse(wing="wing_zed")[1][0].room == "Auth Migration"


@pytest.mark.parametrize("bad", [{"offset": -1}, {"limit": -5}, {"offset": 1.0}, {"limit": "10"}, {"offset": True},
                                 {"limit": False}, {"offset": None}])
def test_browse_refuses_bad_paging(palace, bad):
    with pytest.raises(InvalidInputError):
        palace.browse(**bad)


def test_browse_caps_a_page_at_a_thousand(palace):
    palace.file_drawers([DrawerDraft(f"n{i:04}", f"note {i}", "wing_a", "room-x") for i in range(1_005)])
    total, found = palace.browse(limit=5_000)
    assert total == 1_005 and len(found) == 1_000
    assert len(palace.browse(offset=1_000, limit=5_000)[1]) == 5


@pytest.mark.parametrize("bad", [{"wing": 5}, {"room": ["a"]}, {"hall": b"hall_facts"}])
def test_browse_refuses_names_that_are_not_text(palace, bad):
    fill(palace)
    with pytest.raises(InvalidInputError):
        palace.browse(**bad)


def test_neighbours_are_the_chunks_around_a_drawer_from_the_same_parent(palace_path, home):
    with Palace.open(palace_path, settings=load_settings(home, drawer_chars=100)) as palace:
        text = " ".join(f"Sentence {i} of the long auth migration notes." for i in range(30))
        result = palace.add_drawer(text, "wing_kai", "auth-migration", source_file="notes.md")
        ids = list(result.drawer_ids)
        assert len(ids) >= 6
        # another conversation from the same file: a different parent, never a neighbour
        other = palace.add_drawer(" ".join(f"Unrelated line {i} about GPU pricing." for i in range(10)), "wing_kai",
                                  "gpu-pricing", source_file="notes.md")
        assert other.added
        assert [d.id for d in palace.neighbours(ids[3])] == ids[2:5]
        assert [d.chunk_index for d in palace.neighbours(ids[3])] == [2, 3, 4]
        assert [d.id for d in palace.neighbours(ids[0])] == ids[:2]
        assert [d.id for d in palace.neighbours(ids[-1])] == ids[-2:]
        assert [d.id for d in palace.neighbours(ids[3], around=2)] == ids[1:6]
        assert [d.id for d in palace.neighbours(ids[3], around=0)] == [ids[3]]
        assert "".join(d.content for d in palace.neighbours(ids[2], around=100)) == text  # verbatim, in order
        around = palace.neighbours(ids[1])
        assert all(d.parent_id == result.parent_id and d.source_file == "notes.md" for d in around)


def test_neighbours_fall_back_to_the_source_file(palace):
    palace.file_drawers([DrawerDraft(f"s{i}", f"chunk {i} of an imported file", "wing_a", "room-x",
                                     source_file="import.txt", chunk_index=i) for i in range(4)]
                        + [DrawerDraft("t1", "chunk 1 of another file", "wing_a", "room-x",
                                       source_file="other.txt", chunk_index=1)])
    assert [d.id for d in palace.neighbours("s1")] == ["s0", "s1", "s2"]
    assert [d.id for d in palace.neighbours("s3")] == ["s2", "s3"]
    assert [d.id for d in palace.neighbours("t1")] == ["t1"]


def test_neighbours_of_unknown_or_unplaced_drawers_are_empty(palace):
    foreign_add(palace, "loose", "a drawer with no parent and no source", wing="wing_a", room="room-x")
    assert palace.neighbours("loose") == []
    assert palace.neighbours("no-such-drawer") == []
    assert palace.neighbours("") == []


def test_filed_per_day_counts_the_drawers_stored_now(palace):
    assert palace.filed_per_day() == {}
    today = datetime.now(timezone.utc).date().isoformat()
    first = palace.add_drawer("Kai moved login to OIDC on Tuesday.", "wing_kai", "auth-migration")
    palace.add_drawer("GPU pricing went up again for the big nodes.", "wing_kai", "gpu-pricing")
    foreign_add(palace, "old-1", "filed long ago", wing="wing_a", room="r", filed_at="2024-02-29T23:59:59+00:00")
    foreign_add(palace, "old-2", "also long ago", wing="wing_a", room="r", filed_at="2024-02-29T00:00:00+00:00")
    foreign_add(palace, "older", "older still", wing="wing_a", room="r", filed_at="2023-12-31T12:00:00+00:00")
    foreign_add(palace, "undated", "no filing date", wing="wing_a", room="r")
    days = palace.filed_per_day()
    assert days == {"2023-12-31": 1, "2024-02-29": 2, today: 2}
    assert list(days) == sorted(days)
    palace.delete_drawer(first.drawer_ids[0])
    palace.delete_drawers(["older"])
    assert palace.filed_per_day() == {"2024-02-29": 2, today: 1}
    days["2099-01-01"] = 5  # a copy: callers cannot change what the palace remembers
    assert "2099-01-01" not in palace.filed_per_day()


def test_revision_changes_with_every_write_and_only_then(palace):
    start = palace.revision()
    assert palace.revision() == start
    added = palace.add_drawer("Kai moved login to OIDC on Tuesday.", "wing_kai", "auth-migration", "hall_events")
    after_add = palace.revision()
    assert after_add != start
    # reads leave it alone
    palace.count(), palace.list_wings(), palace.list_rooms(), palace.places(), palace.filed_per_day()
    palace.browse(), palace.neighbours(added.drawer_ids[0]), palace.search("OIDC"), palace.get_drawer(added.drawer_ids[0])
    assert palace.revision() == after_add
    # filing the same text again writes nothing
    assert palace.add_drawer("Kai moved login to OIDC on Tuesday.", "wing_kai", "auth-migration").status == "exists"
    assert palace.revision() == after_add

    seen = {start, after_add}

    def changed() -> None:
        now = palace.revision()
        assert now not in seen, "revision did not move"
        seen.add(now)

    palace.update_drawer(added.drawer_ids[0], room="login-work")
    changed()
    palace.move_drawers(added.drawer_ids, wing="wing_priya")
    changed()
    palace.file_drawers([DrawerDraft("batch-1", "a batch drawer", "wing_a", "room-x")])
    changed()
    foreign_add(palace, "foreign-1", "written by another tool", wing="wing_a", room="room-x")
    changed()
    palace.delete_drawer(added.drawer_ids[0])
    changed()
    palace.delete_drawers(["batch-1", "foreign-1"])
    changed()
    assert palace.revision() == palace.revision()


def test_a_reopened_palace_never_repeats_an_earlier_openings_revision(palace_path, settings):
    """Caches key views on the revision: a palace closed, written to by another tool and opened again
    must not get the old opening's number back, or the dashboard would show the old counts."""
    seen = set()
    for turn in range(3):
        with Palace.open(palace_path, settings=settings) as opened:
            seen.add(opened.revision())
            opened.add_drawer(f"drawer number {turn}", "wing_a", "room-x")
            seen.add(opened.revision())
    assert len(seen) == 6


def test_only_loopback_names_reach_the_dashboard_without_sign_in():
    from dashboard.signin import loopback_request

    for host, origin in [("localhost:8501", None), ("127.0.0.1:8501", "http://127.0.0.1:8501"),
                         ("[::1]:8501", "http://[::1]:8501"), ("LOCALHOST:8501", None), (None, None)]:
        assert loopback_request(host, origin), (host, origin)
    for host, origin in [("rebind.test:8501", "http://rebind.test:8501"), ("localhost:8501", "http://evil.example"),
                         ("127.0.0.1.nip.io:8501", None), ("localhost.evil.example", None), ("", None)]:
        assert not loopback_request(host, origin), (host, origin)
