"""What a palace of many wings looks like at 1400 px: the Overview's legend and axes name every wing and
room whole, each room in its own colour; the tunnel table's last column is on screen; the network's
labels are at least 11 px in its first view, and none lies on another label, a dot or a wing.

One server for the module, on 14 wings with long names and 16 shared rooms plus two of each wing's
own (44 rooms), stored straight into the store so the names are kept as written. Both tests only read.
"""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from playwright.sync_api import Frame, Page, expect

from _dashboard import Dashboard, interactive_network, main_block, open_app

pytestmark = pytest.mark.e2e

WIDE = {"width": 1400, "height": 900}
PEOPLE = ("alice", "bob", "carmen", "deshawn", "elena", "farouk", "grace", "hiroshi", "ines", "jamal", "kirsten",
          "luis", "mei", "nadia")
WINGS = tuple(f"conversations_with_{name}_about_work" for name in PEOPLE)
SHARED = ("quarterly-roadmap-review", "database-migration-plan", "hiring-pipeline", "customer-escalations",
          "security-audit-findings", "office-relocation", "budget-forecast-2025", "onboarding-checklist",
          "incident-postmortems", "api-versioning", "design-system", "pricing-experiments", "release-notes",
          "team-offsite-planning", "vendor-contracts", "on-call-rotation")
MIN_LABEL_PX = 11


def places() -> list[tuple[str, str, int]]:
    """(wing, room, drawers): each shared room in two neighbouring wings, the last three in more, and
    two rooms of each wing's own."""
    found = []
    for i, (name, wing) in enumerate(zip(PEOPLE, WINGS)):
        for j, room in enumerate(SHARED + (f"{name}-notes", f"{name}-one-to-ones")):
            wider = (j >= 14 and (i + j) % 3 == 0) or (j == 13 and i % 4 == 0)
            if j >= len(SHARED) or j in (i, (i + 1) % 14) or wider:
                found.append((wing, room, 1 + (i + j) % 3))
    return found


def prefill(palace) -> None:
    from mempalace.store.chroma import SEQ_KEY
    from mempalace.catalog.sync import new_stamp

    ids, texts, metas = [], [], []
    for wing, room, drawers in places():
        for k in range(drawers):
            ids.append(f"{wing}-{room}-{k}")
            texts.append(f"A talk in {wing} about {room.replace('-', ' ')}, part {k}.")
            metas.append({"wing": wing, "room": room, "hall": ("hall_facts", "hall_events", "hall_discoveries")[k],
                          "source_file": f"{wing}.txt", SEQ_KEY: new_stamp()})
    vector = palace.embed(["a talk"])[0]  # one vector for all: nothing here searches, and embedding 130 takes seconds
    palace._store.add(ids, texts, metas, [vector] * len(ids))
    palace._store.bump_marker()


@pytest.fixture(scope="module")
def server(module_dashboard) -> Dashboard:
    return module_dashboard(prefill=prefill)


def test_the_overview_names_every_wing_and_room_whole_each_room_in_its_own_colour(page: Page, server: Dashboard):
    page.set_viewport_size(WIDE)
    open_app(page, server)
    bars, cells = main_block(page).locator(".st-key-bars"), main_block(page).locator(".st-key-cells")
    keys = bars.locator(".mp-legend .mp-key")  # the charts' component is an open shadow root: locators reach in
    expect(keys).to_have_count(13)
    legend = bars.locator(".mp-legend").evaluate("""(el) => {
        const right = el.getBoundingClientRect().right;
        const keys = [...el.querySelectorAll('.mp-key')];
        return {labels: keys.map(k => k.textContent),
                fills: keys.map(k => getComputedStyle(k.querySelector('.mp-swatch')).backgroundColor),
                inside: keys.every(k => k.getBoundingClientRect().right <= right + 1)};
    }""")
    rooms = {room for _, room, _ in places()}
    assert legend["labels"][-1] == "other rooms" and set(legend["labels"][:-1]) <= rooms, legend
    assert len(set(legend["fills"])) == 13, legend["fills"]  # twelve rooms and the rest: thirteen colours
    assert legend["fills"][-1] == "rgb(176, 176, 176)" and legend["inside"], legend
    for chart in (bars, cells):  # whole names (a long one wraps), each inside the chart
        labels = chart.locator(".mp-label").evaluate_all("""(els) => els.map(e => ({text: e.innerText.trim(),
            inside: e.getBoundingClientRect().left >= e.closest('.mp-chart').getBoundingClientRect().left - 1}))""")
        assert set(WINGS) == {label["text"].replace("\n", "") for label in labels}, labels
        assert all(label["inside"] for label in labels), labels
    segment = bars.locator(f'[data-wing="{WINGS[0]}"][data-room]:not([data-room="other%20rooms"])').first
    assert WINGS[0] in (segment.get_attribute("title") or "")  # the hover text names the place
    room = unquote(segment.get_attribute("data-room"))  # as a click sends it (dashboard.render.place_data)
    segment.click()  # in-app: the Search page lists that place
    page.wait_for_url(lambda url: f"room={room}" in url and "wing=" in url)
    expect(main_block(page).locator(".mp-place").first).to_be_visible()  # its drawers' cards
    assert room in main_block(page).locator(".mp-place").first.text_content()


def network_frame(page: Page) -> Frame:
    frame = interactive_network(page)
    frame.wait_for_function("() => window.network && Object.keys(network.body.nodes).length > 0")
    return frame


def test_the_tunnel_table_fits_the_page_and_network_labels_read_at_11_px(page: Page, server: Dashboard):
    page.set_viewport_size(WIDE)
    open_app(page, server, "tunnels")
    net = main_block(page).locator("svg.mp-net")
    expect(net).to_be_visible()
    drawn = net.evaluate("""(svg) => {
        const scale = svg.getScreenCTM().a;  // screen px per unit of the drawing
        const px = (sel) => [...svg.querySelectorAll(sel)].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
        const fills = [...svg.querySelectorAll('[data-wing] rect')].map((r) => r.getAttribute('fill'));
        const inside = (outer, inner) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5;
        const clipped = [...svg.querySelectorAll('[data-wing]')].filter((g) => ![...g.querySelectorAll('tspan')]
            .every((t) => inside(g.querySelector('rect').getBoundingClientRect(), t.getBoundingClientRect())));
        const boxes = (sel) => [...svg.querySelectorAll(sel)].map((e) => [e.closest('g'), e.getBoundingClientRect()]);
        const meet = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
            && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;  // more than a pixel each way
        const labels = boxes('[data-room] text'), others = [...boxes('[data-room] circle'), ...boxes('[data-wing] rect')];
        const covered = labels.filter(([g, box], i) => labels.some(([h, other], j) => j !== i && meet(box, other))
            || others.some(([h, other]) => h !== g && meet(box, other))).map(([g]) => g.dataset.room);
        return {rooms: Math.min(...px('[data-room] text')), wings: Math.min(...px('[data-wing] tspan')),
                count: svg.querySelectorAll('[data-room]').length, fills, clipped: clipped.length,
                width: svg.getBoundingClientRect().width, labelled: labels.length, covered};
    }""")
    assert drawn["count"] == len({room for _, room, _ in places()}), drawn
    # no label lies on another, on another room's dot or on a wing; the tunnels (placed first) all keep theirs
    assert drawn["covered"] == [] and drawn["labelled"] >= len(SHARED), drawn
    assert drawn["rooms"] >= MIN_LABEL_PX and drawn["wings"] >= MIN_LABEL_PX, drawn
    assert len(set(drawn["fills"])) == len(WINGS) and drawn["clipped"] == 0, drawn  # own colours, names whole
    sizes = network_frame(page).evaluate("""async () => {
        await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));  // after the fit
        const scale = network.getScale(), px = {wings: [], rooms: []};
        for (const [id, node] of Object.entries(network.body.nodes))
            px[id.startsWith('w:') ? 'wings' : 'rooms'].push(node.options.font.size * scale);
        return {scale, wings: Math.min(...px.wings), rooms: Math.min(...px.rooms), count: px.rooms.length};
    }""")
    assert sizes["count"] == len({room for _, room, _ in places()}), sizes
    assert sizes["rooms"] >= MIN_LABEL_PX and sizes["wings"] >= MIN_LABEL_PX, sizes  # ~7 px before issue 17

    table = main_block(page).get_by_test_id("stDataFrame").first
    table.scroll_into_view_if_needed()
    heads = table.locator("table thead th")  # Glide renders headers only for the columns in view
    expect(heads).to_have_count(6)
    assert heads.all_text_contents() == ["room", "drawers", "weight", "score", "wings", "halls"]
    grid = table.evaluate("""(el) => {
        const scroller = el.querySelector('.dvn-scroller');
        return {right: el.getBoundingClientRect().right, scroll: scroller.scrollWidth, width: scroller.clientWidth};
    }""")
    assert grid["scroll"] <= grid["width"] and grid["right"] <= WIDE["width"], grid  # nothing to scroll to
