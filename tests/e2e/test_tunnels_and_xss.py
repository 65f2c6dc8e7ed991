"""The tunnel network in a real browser, and markup in names and text that must never run.

One server for the module, on the demo palace plus drawers that another tool stored straight into
the store (so their wing, room and source names are kept exactly, not slugged), with script payloads
in their text, rooms, wings and source files. Both tests only read the palace.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import Frame, Locator, Page, expect

from _dashboard import (CARD, Dashboard, choose, exceptions, interactive_network, main_block, open_app, open_card,
                        open_options, rerun)

pytestmark = pytest.mark.e2e

P1 = "<script>window.__xss=1</script>"
P2 = '<img src=x onerror="window.__xss=2">'
P3 = '"><svg onload=window.__xss=3>'
P4 = "[click](javascript:window.__xss=4)"
P5 = "</script><script>window.__xss=5</script>"
PAYLOADS = (P1, P2, P3, P4, P5)
# A title with "href" in it makes pyvis show tooltips in its own popup, through innerHTML.
P6 = '<img src=x onerror="window.__xss=6"> see href'

QUERY = "pasted login page markup"
TEXT = f"Kai pasted the login page markup from the bug report: {P1} then {P2} then {P3} then {P4} then {P5} end."
# (id, text, wing, room, source file): rooms P1 and P2 are tunnels between a payload wing and a demo wing.
FOREIGN = (
    ("xss-1", TEXT, P3, P1, P2),
    ("xss-2", f"Second copy of the pasted login page markup {P1} in wing_kai.", "wing_kai", P1, P5),
    ("xss-3", f"Priya saw the pasted login page markup {P2} too.", P5, P2, P4),
    ("xss-4", f"Login page markup pasted again {P3} {P4}.", "wing_priya", P2, P1),
    ("xss-5", f"Pasted login page markup with a link {P4} and {P5}.", P5, P4, P3),
    ("xss-6", "Pasted login page markup with an href in the room name.", "wing_kai", P6, "notes.txt"),
    ("xss-7", "More pasted login page markup, with an href room.", P3, P6, "notes.txt"),
    ("xss-8", "The R&D budget for next year's login work.", "wing_priya", "R&D budget", "budget.txt"),
)


def prefill(palace) -> None:
    from mempalace.ingest.demo import load_demo
    from mempalace.store.chroma import SEQ_KEY
    from mempalace.catalog.sync import new_stamp

    load_demo(palace)
    for drawer_id, text, wing, room, source in FOREIGN:  # as tests/test_graph.py's foreign_add, with more fields
        palace._store.add([drawer_id], [text], [{"wing": wing, "room": room, "hall": "hall_discoveries",
                                                 "source_file": source, SEQ_KEY: new_stamp()}], palace.embed([text]))
    palace._store.bump_marker()


@pytest.fixture(scope="module")
def server(module_dashboard) -> Dashboard:
    return module_dashboard(prefill=prefill)


def network_frame(page: Page) -> Frame:
    """The interactive (pyvis) network, switched on, once vis-network has drawn it."""
    frame = interactive_network(page)
    frame.wait_for_function("() => typeof window.network === 'object' && window.network !== null")
    return frame


def network_names(page: Page) -> dict[str, str]:
    """{name: its hover text} of every room and wing the SVG network draws, as the browser reads them."""
    net = main_block(page).locator("svg.mp-net")
    expect(net).to_be_visible()
    return net.evaluate("""(svg) => Object.fromEntries([...svg.querySelectorAll('[data-room], [data-wing]')].map(
        (g) => [g.querySelector('text').textContent, g.querySelector('title').textContent]))""")


def hover_node(page: Page, frame: Frame, node: str) -> None:
    """Move the mouse onto a node of the network (its tooltip opens)."""
    spot = frame.evaluate("""(id) => {
        const p = network.canvasToDOM(network.getPositions([id])[id]);
        const r = document.querySelector('canvas').getBoundingClientRect();
        return {x: p.x + r.left, y: p.y + r.top};
    }""", node)
    iframe = main_block(page).get_by_test_id("stIFrame").bounding_box()
    page.mouse.move(iframe["x"] + spot["x"] - 20, iframe["y"] + spot["y"] - 20)
    page.mouse.move(iframe["x"] + spot["x"], iframe["y"] + spot["y"], steps=5)


def test_the_tunnel_network_draws_offline(page: Page, server: Dashboard) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    open_app(page, server, "tunnels")
    net = main_block(page).locator("svg.mp-net")
    expect(net.locator("[data-wing]")).to_have_count(len({wing for _, _, wing, _, _ in FOREIGN} | {
        "wing_kai", "wing_driftwood", "wing_priya"}))
    box = net.bounding_box()
    assert box and box["width"] > 600 and box["height"] > 500, box
    frame = network_frame(page)
    canvas = frame.locator("canvas")
    expect(canvas).to_have_count(1)
    expect(canvas).to_be_visible()
    box = canvas.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 100, box
    drawn = frame.evaluate("""() => {
        const canvas = document.querySelector('canvas');
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let inked = 0;
        for (let i = 0; i < pixels.length; i += 4) if (pixels[i] < 200 || pixels[i + 1] < 200) inked++;
        return {width: canvas.width, height: canvas.height, inked, nodes: network.body.data.nodes.getIds()};
    }""")
    assert drawn["width"] > 0 and drawn["height"] > 0, drawn
    assert drawn["inked"] > 1000, "the canvas is blank"
    assert {"w:wing_kai", "w:wing_driftwood", "w:wing_priya", "r:auth-migration"} <= set(drawn["nodes"])
    expect(exceptions(page)).to_have_count(0)
    page.wait_for_timeout(500)  # anything the page would still fetch late
    outside = [url for url in requested
               if not url.startswith((server.url + "/", "data:", "about:", "blob:")) and url != server.url]
    assert requested and not outside, outside


def xss_fired(page: Page) -> list[str]:
    """Where `window.__xss` is set: the page and every frame in it."""
    return [f"{frame.url}: {value}" for frame in page.frames
            if (value := frame.evaluate("() => typeof window.__xss === 'undefined' ? null : String(window.__xss)"))]


def assert_inert(page: Page, where: str) -> None:
    page.wait_for_timeout(300)  # an onerror or onload handler would have run by now
    assert xss_fired(page) == [], where
    main = main_block(page)
    assert main.locator("script, [onerror], [onload], a[href^='javascript:' i]").count() == 0, where


def visible_payloads(page: Page) -> set[str]:
    return {p for p in PAYLOADS if main_block(page).get_by_text(p).filter(visible=True).count()}


def test_markup_in_text_and_names_is_shown_not_run(page: Page, server: Dashboard) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    seen: set[str] = set()

    open_app(page, server)  # Overview: tiles, charts, the places table, tunnel and wing links
    assert_inert(page, "overview")
    tunnels = main_block(page).get_by_test_id("stPageLink-NavLink")
    expect(tunnels.filter(has_text=P1).first).to_be_visible()
    expect(tunnels.filter(has_text=P3).first).to_be_visible()  # a wing in "Rooms per wing"
    seen |= visible_payloads(page)

    open_app(page, server, f"search?q={quote(QUERY)}")
    main = main_block(page)
    cards = main.locator(CARD)
    expect(cards.first).to_be_visible()
    first = cards.filter(has_text="from the bug report").first
    expect(first.locator(".mp-place")).to_contain_text(P3)  # the wing badge
    expect(first.locator(".mp-place")).to_contain_text(P2)  # the source file badge
    details = open_card(first)
    expect(details.get_by_test_id("stMarkdown").filter(has_text="from the bug report").first).to_have_text(TEXT)
    assert_inert(page, "search")
    seen |= visible_payloads(page)
    options = open_options(main, "Wing")  # wing names as options
    expect(options.get_by_role("option", name=P5, exact=True)).to_be_visible()
    expect(options.get_by_role("option", name=P3, exact=True)).to_be_visible()
    page.keyboard.press("Escape")
    assert_inert(page, "search, wing options")

    open_app(page, server, "tunnels")
    drawn = network_names(page)
    assert P1 in drawn and drawn[P1].startswith(f"room {P1}\n")  # the payload rooms are drawn as text...
    assert_inert(page, "tunnels, the SVG network")  # ...and nothing ran
    frame = network_frame(page)
    labels = frame.evaluate("() => network.body.data.nodes.get().map(n => n.label + ' ' + (n.title || ''))")
    assert any("__xss=1" in label for label in labels)  # the payload rooms are drawn...
    assert_inert(page, "tunnels")  # ...and nothing ran, in the page or in the network's frame
    hover_node(page, frame, "r:" + P6)  # "href" in a tooltip would make pyvis show them all through innerHTML
    tooltip = frame.locator("div.vis-tooltip, div.popup").filter(visible=True)
    expect(tooltip).to_contain_text('room <img src=x onerror="window.__xss=6">')  # as text
    assert tooltip.locator("img, script, svg").count() == 0
    assert_inert(page, "tunnels, a tooltip")
    seen |= visible_payloads(page)

    open_app(page, server, "drawers")
    choose(main_block(page), "Wing", P5)
    card = main_block(page).locator(CARD).filter(has_text="Priya saw the pasted login page markup").first
    expect(card.locator(".mp-place")).to_contain_text(P4)  # the source file badge
    details = open_card(card)
    expect(details.get_by_test_id("stMarkdown").filter(has_text="Priya saw").first).to_have_text(
        f"Priya saw the pasted login page markup {P2} too.")
    expect(details.get_by_role("textbox", name="Room", exact=True)).to_have_value(P2)
    assert_inert(page, "drawers")
    seen |= visible_payloads(page)

    assert dialogs == []
    assert seen == set(PAYLOADS), f"shown as text: {seen}"
    expect(exceptions(page)).to_have_count(0)


def test_names_in_the_network_read_as_typed(page: Page, server: Dashboard) -> None:
    """Labels and hover text are text, in the SVG and on the pyvis canvas: names must not arrive as HTML
    entities, and a click on a room lists that room's drawers."""
    open_app(page, server, "tunnels")
    drawn = network_names(page)
    assert drawn["R&D budget"].startswith("room R&D budget\n") and P1 in drawn and P3 in drawn
    assert drawn[P3].startswith(f"wing {P3}\n")  # a wing's whole name, over its lines
    frame = network_frame(page)
    labels = frame.evaluate("() => Object.fromEntries(network.body.data.nodes.get().map(n => [n.id, n.label]))")
    assert labels["r:R&D budget"] == "R&D budget"
    assert labels["r:" + P1] == P1 and labels["w:" + P3].replace("\n", "") == P3  # a wing's name over its lines
    hover_node(page, frame, "r:" + P1)
    tooltip = frame.locator("div.vis-tooltip, div.popup").filter(visible=True)
    expect(tooltip).to_contain_text(f"room {P1}")


def test_the_network_zooms_and_moves_and_a_click_or_enter_lists_a_place(page: Page, server: Dashboard) -> None:
    open_app(page, server, "tunnels")
    net = main_block(page).locator("svg.mp-net")
    view = lambda: net.evaluate("(svg) => { const b = svg.viewBox.baseVal; return [b.x, b.y, b.width, b.height]; }")
    home = view()
    net.hover()
    page.mouse.wheel(0, -400)  # a plain wheel scrolls the page...
    assert view() == home
    page.keyboard.down("Control")
    page.mouse.wheel(0, -400)  # ...with Ctrl it zooms in round the pointer
    page.keyboard.up("Control")
    zoomed = view()
    assert zoomed[2] < home[2] * 0.8, (home, zoomed)
    net.dblclick(position={"x": 5, "y": 5})  # a double click on the background shows it all again
    assert view() == home

    for hall in (None, "hall_discoveries"):  # after a rerun too: its listeners replace the last run's
        if hall:
            choose(main_block(page), "Hall", hall)
            net = main_block(page).locator("svg.mp-net")
        drag_from(page, net.locator("[data-wing]").filter(has_text="wing_priya"), 120, 60)  # starts on a wing...
        page.wait_for_timeout(500)
        assert "/tunnels" in page.url and "wing=" not in page.url  # ...moves the view and opens nothing
        assert view()[0] != home[0]

    room = main_block(page).locator("svg.mp-net [data-room]").filter(has_text="R&D budget")
    with rerun(page):
        room.locator("circle").click()  # the next click after a drag is a click
    page.wait_for_url(lambda url: "room=R%26D" in url and "hall=hall_discoveries" in url)  # the filter goes along
    expect(main_block(page).locator(CARD).filter(has_text="The R&D budget for next year")).to_have_count(1)

    open_app(page, server, "tunnels")
    main_block(page).locator("svg.mp-net [data-wing]").filter(has_text="wing_priya").focus()
    with rerun(page):
        page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "wing=wing_priya" in url)
    expect(main_block(page).locator(CARD).first).to_be_visible()


def drag_from(page: Page, where: Locator, dx: float, dy: float) -> None:
    """Press the mouse on `where`, move it by (dx, dy) in steps, release it."""
    box = where.bounding_box()
    assert box, where
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y + dy, steps=6)
    page.mouse.up()
