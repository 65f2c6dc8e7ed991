"""A palace in Chinese and Russian in a real browser: the tunnel network lays out Chinese and Cyrillic
names without one label on another, cards show the names and text whole, the room filter lists and
chooses a Chinese room, and a Chinese or Russian keyword is marked inside its sentence, markup in the
text shown as written.

This machine may have no CJK font, and Chromium's stand-in glyph is narrower (0.37 em) than a CJK
font's characters (1 em, as every CJK font sets them): the network's boxes are measured in the browser
with each CJK character counted 1 em wide, so they are the boxes a reader with a CJK font sees.
One server for the module; every test only reads.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from _dashboard import CARD, Dashboard, choose, exceptions, main_block, open_app

pytestmark = pytest.mark.e2e

XSS = '<img src=x onerror="window.__xss=1">'
LIMING, KAI, PLANS, NATASHA = "wing_李明", "wing_kai", "李明和王芳的家庭与工作计划", "наташа"
GREYHOUND = "我们上周末领养了一只灰狗，它特别怕冷，冬天出门要给它穿衣服。"
PICNIC = "周末带孩子去公园野餐和放风筝的计划"
MOVE = "Переезд в новую квартиру назначен на субботу, грузчики придут в девять."
DRAWERS = (  # (text, wing, room): 数据库升级 is a tunnel between 李明's wing and Kai's
    ("数据库升级到 PostgreSQL 16 之前，先在 staging 环境跑一遍 migration 脚本。", LIMING, "数据库升级"),
    ("Kai: the database upgrade to Postgres 16 is set for Friday night; 李明 runs the migration.", KAI, "数据库升级"),
    (GREYHOUND, LIMING, "灰狗领养"),
    (f"灰狗的领养手续：填表、家访、付押金。有人贴了这段 {XSS} 问是什么。", LIMING, "灰狗领养"),
    ("今年的个税 app 里要记得申报专项附加扣除，三月一日开始。", PLANS, "个税"),
    ("我们在招聘一个后端工程师，要求熟悉 Go 和 Kubernetes。", PLANS, "招聘"),
    ("Kubernetes 集群迁移到新的节点池，周五晚上十点操作。", KAI, "kubernetes-集群迁移"),
    ("周末带孩子去公园野餐，顺便放风筝，记得带防晒霜和水。", PLANS, PICNIC),
    ("孩子的钢琴课改到每周三下午四点。", PLANS, "钢琴课"),
    ("看了三套房子，第二套离地铁最近，月供大概一万二。", PLANS, "买房"),
    ("装修公司报价太高了，打算自己找工长，厨房先做。", PLANS, "装修"),
    ("体检报告出来了，血脂有点高，医生建议少吃油炸的。", PLANS, "体检"),
    ("五一去云南的旅行计划：昆明两天，大理三天，丽江两天。", PLANS, "旅行计划"),
    ("读书会这个月读《三体》，周六下午在咖啡馆讨论。", PLANS, "读书会"),
    ("健身房的私教课买了二十节，每周练三次力量。", PLANS, "健身"),
    ("下周四晚上七点开家长会，要带孩子的作业本。", PLANS, "家长会"),
    ("年终总结要写今年完成的三个项目和明年的目标。", PLANS, "年终总结"),
    (MOVE, NATASHA, "переезд"),
    ("Ремонт кухни: плитку выбрали серую, мастер начнёт в понедельник.", NATASHA, "ремонт-кухни-и-ванной-комнаты"),
    ("Налоговый вычет за квартиру подаём через госуслуги в апреле.", NATASHA, "налоговый-вычет"),
    ("Kai: the on-call rotation moves to weekly handovers on Monday.", KAI, "on-call-rotation"),
)

# Boxes of the SVG network's room labels, room dots and wing boxes as drawn, with each CJK character
# widened to 1 em about the text's middle (see the docstring); what lies on what, by name.
OVERLAPS = """(svg) => {
    const WIDE = /[\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\u3000-\\u303f\\uff01-\\uff60]/u;
    const scale = svg.getScreenCTM().a;  // screen px per unit of the drawing
    const widening = (text) => {  // px a CJK font draws the text wider than it is drawn here
        const em = parseFloat(getComputedStyle(text).fontSize);
        let extra = 0, at = 0;
        for (const c of text.textContent) {
            if (WIDE.test(c)) extra += em - text.getSubStringLength(at, c.length);
            at += c.length;
        }
        return extra * scale;
    };
    const grown = (box, extra) => ({left: box.left - extra / 2, right: box.right + extra / 2, top: box.top,
                                    bottom: box.bottom});
    const named = (g) => decodeURIComponent(g.dataset.room || g.dataset.wing);
    const items = [];
    for (const g of svg.querySelectorAll('[data-room]')) {
        const text = g.querySelector('text');
        if (text) items.push({name: named(g), kind: 'label', g, box: grown(text.getBoundingClientRect(), widening(text))});
        items.push({name: named(g), kind: 'dot', g, box: g.querySelector('circle').getBoundingClientRect()});
    }
    for (const g of svg.querySelectorAll('[data-wing]')) {  // a wing's box fits its longest line (fitWings)
        const rect = g.querySelector('rect').getBoundingClientRect(), margin = Number(g.querySelector('rect').dataset.margin);
        const widest = Math.max(...[...g.querySelectorAll('tspan')].map(
            (t) => t.getBoundingClientRect().width + widening(t) + 2 * margin * scale));
        items.push({name: named(g), kind: 'wing', g, box: grown(rect, Math.max(0, widest - rect.width))});
    }
    const meet = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
        && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;  // more than a pixel each way
    const found = [];
    items.forEach((a, i) => items.slice(i + 1).forEach((b) => {
        if (a.g !== b.g && (a.kind !== 'dot' || b.kind !== 'dot') && meet(a.box, b.box))
            found.push(`${a.kind} ${a.name} × ${b.kind} ${b.name}`);
    }));
    return {overlaps: found, labels: [...svg.querySelectorAll('[data-room] text')].map((t) => t.textContent),
            wings: items.filter((i) => i.kind === 'wing').map((i) => i.name)};
}"""


def prefill(palace) -> None:
    for text, wing, room in DRAWERS:
        palace.add_drawer(text, wing, room, source_file=f"{room}.txt")


@pytest.fixture(scope="module")
def server(module_dashboard) -> Dashboard:
    return module_dashboard(prefill=prefill)


def test_the_network_lays_out_chinese_and_cyrillic_names_apart(page: Page, server: Dashboard) -> None:
    open_app(page, server, "tunnels")
    net = main_block(page).locator("svg.mp-net")
    expect(net).to_be_visible()
    drawn = net.evaluate(OVERLAPS)
    assert sorted(drawn["labels"]) == sorted({room for _, _, room in DRAWERS}), drawn  # every room named in full
    assert set(drawn["wings"]) == {LIMING, KAI, PLANS, NATASHA}, drawn
    assert drawn["overlaps"] == [], drawn
    expect(exceptions(page)).to_have_count(0)


def cards_shown(page: Page) -> list[dict]:
    """Each card's room badge, snippet text and marked words, as the browser shows them."""
    cards = main_block(page).locator(CARD)
    expect(cards.first).to_be_visible()
    return cards.evaluate_all("""(cards) => cards.map((card) => ({
        room: card.querySelectorAll('.mp-place span')[1].textContent,
        text: card.querySelector('.mp-snippet').textContent,
        marks: [...card.querySelectorAll('.mp-snippet mark')].map((m) => m.textContent)}))""")


def test_the_room_filter_lists_and_chooses_a_chinese_room(page: Page, server: Dashboard) -> None:
    open_app(page, server, "drawers")
    choose(main_block(page), "Room", "灰狗领养")
    page.wait_for_url(lambda url: f"room={quote('灰狗领养')}" in url)
    shown = cards_shown(page)
    assert [card["room"] for card in shown] == ["灰狗领养", "灰狗领养"], shown
    assert GREYHOUND in [card["text"] for card in shown], shown  # the text whole, as stored
    assert any(XSS in card["text"] for card in shown), shown  # markup shown as written...
    assert page.evaluate("() => window.__xss") is None  # ...and never run


def test_a_narrow_page_wraps_a_card_between_names_not_inside_one(page: Page, server: Dashboard) -> None:
    page.set_viewport_size({"width": 360, "height": 800})  # a phone: Chinese may break between any two characters
    open_app(page, server, f"drawers?room={quote(PICNIC)}")
    expect(main_block(page).locator(CARD)).to_have_count(1)
    badges = main_block(page).locator(f"{CARD} .mp-place span").evaluate_all("""(badges) => badges.map((b) => ({
        name: b.textContent, lines: b.getClientRects().length,
        fits: [...b.getClientRects()].reduce((width, line) => width + line.width, 0)
            < b.closest('.mp-place').getBoundingClientRect().width}))""")
    assert [b["name"] for b in badges] == [PLANS, PICNIC, f"{PICNIC}.txt"], badges
    assert all(b["lines"] == 1 for b in badges if b["fits"]), badges  # a name that fits a line keeps to one


def test_a_chinese_or_russian_keyword_is_marked_inside_its_sentence(page: Page, server: Dashboard) -> None:
    open_app(page, server, f"search?q={quote('灰狗')}")
    found = {card["text"]: card for card in cards_shown(page)}
    assert found[GREYHOUND]["marks"] == ["灰狗"] and found[GREYHOUND]["room"] == "灰狗领养", found
    assert page.evaluate("() => window.__xss") is None
    open_app(page, server, f"search?q={quote('переезд')}")
    found = {card["text"]: card for card in cards_shown(page)}
    assert found[MOVE]["marks"] == ["Переезд"] and found[MOVE]["room"] == "переезд", found
    expect(exceptions(page)).to_have_count(0)
