"""The tunnel network as one SVG (dashboard.network_map): what it draws, where a click leads, and names
that stay text."""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ElementTree
from urllib.parse import unquote

import pytest

from dashboard import charts
from dashboard.network import (BOX_MARGIN, CHAR_EM, MAX_RADIUS, ROOM_PX, WING_PX, label_width, layout, network_page,
                               room_box, wing_box, wing_lines)
from dashboard.network_map import MIN_HEIGHT, network_svg
from mempalace.models import RoomNode

SVG = "{http://www.w3.org/2000/svg}"


def node(room: str, wings: tuple[str, ...], count: int = 1, weight: float | None = None) -> RoomNode:
    return RoomNode(room, wings, (), count, (), (1.0 if len(wings) > 1 else 0.0) if weight is None else weight)


def parse(markup: str) -> ElementTree.Element:
    """The drawing as XML (so it is well formed), in the SVG namespace, out of its scrolling frame."""
    frame = ElementTree.fromstring(markup.replace("<svg ", f'<svg xmlns="{SVG[1:-1]}" ', 1))
    assert frame.tag == "div" and frame.get("class") == "mp-net-frame" and len(frame) == 1
    return frame[0]


def places(svg: ElementTree.Element, kind: str) -> dict[str, ElementTree.Element]:
    """{name: its group} of the wings or rooms, by the name a click on it sends back."""
    return {unquote(g.get(f"data-{kind}")): g for g in svg.iter(f"{SVG}g") if g.get(f"data-{kind}")}


def test_the_svg_draws_every_wing_room_and_edge_with_its_place_to_open():
    rooms = [node("auth-migration", ("wing_a", "wing_b"), 9, 0.8), node("solo", ("wing_a",), 2)]
    svg = parse(network_svg(rooms))
    wings, placed = places(svg, "wing"), places(svg, "room")
    assert set(wings) == {"wing_a", "wing_b"} and set(placed) == {"auth-migration", "solo"}
    assert all(g.get("tabindex") == "0" and g.get("role") == "link" for g in [*wings.values(), *placed.values()])
    assert len(list(svg.iter(f"{SVG}line"))) == 3  # one per (room, wing)
    tip = placed["auth-migration"].find(f"{SVG}title").text
    assert tip.startswith("room auth-migration\n9 drawers\nwings: wing_a, wing_b") and "tunnel weight 0.80" in tip
    fills = {name: g.find(f"{SVG}rect").get("fill") for name, g in wings.items()}
    assert len(set(fills.values())) == 2  # a colour of its own per wing
    spots = dict(layout(rooms).room_at)
    circle = placed["solo"].find(f"{SVG}circle")
    assert (float(circle.get("cx")), float(circle.get("cy"))) == spots[rooms[1]]  # the pyvis page's layout


def test_the_svg_is_plain_markup_with_nothing_to_fetch_or_run():
    svg = network_svg([node("auth-migration", ("wing_a", "wing_b"), 3)])
    assert "<script" not in svg and "href" not in svg and "url(" not in svg and not re.search(r"\son\w+=", svg)


@pytest.mark.parametrize("evil", ["</script><script>alert(7357)</script>", 'x"onerror=alert(7357) y',
                                  '<img src=x onerror="alert(7357)">', "</svg><b>bold</b>"])
def test_names_stay_text_in_the_svg(evil):
    rooms = [node(evil, ("wing_a", f"wing_{evil}"), 2), node(f"room {evil}", ("wing_a",))]
    markup = network_svg(rooms)
    assert evil not in markup and "<img" not in markup and "<b>" not in markup
    svg = parse(markup)  # well formed: no name closed an element or opened one
    assert set(places(svg, "room")) == {evil, f"room {evil}"}
    labels = [t.text for t in svg.iter(f"{SVG}text") if t.text]
    assert evil in labels
    wing = places(svg, "wing")[f"wing_{evil}"]
    assert "".join(span.text for span in wing.iter(f"{SVG}tspan")) == f"wing_{evil}"  # whole, over its lines


def test_a_click_sends_back_the_exact_stored_name():
    """HTML turns a CR into LF and a NUL into U+FFFD: names go into data attributes percent-encoded."""
    odd = "notes\r\nfrom\x00 R&D 100%"
    markup = network_svg([node(odd, ("wing_a", "wing_b"))], hall="hall_facts")
    [encoded] = re.findall(r'data-room="([^"]*)"', markup)
    assert unquote(encoded) == odd and "\r" not in encoded and "\x00" not in encoded
    assert charts.picked({"picked": {"room": encoded, "hall": "hall_facts", "x": "y"}}) == {"room": odd,
                                                                                           "hall": "hall_facts"}
    assert markup.count('data-hall="hall_facts"') == 3  # a click keeps the network's hall filter


def test_a_long_wing_name_wraps_whole_after_its_separators_and_its_box_holds_every_line():
    assert wing_lines("wing_kai", 130) == ["wing_kai"]
    for name, wrap in [("wing_conversations_with_claude_2024", 130), ("abcd_efgh_ijkl_mnop_qrst_uvwx_yzab_cd01", 70),
                       ("x" * 100, 70), ("___", 70), ("", 130)]:
        lines = wing_lines(name, wrap)
        assert "".join(lines) == name  # whole: cut where it must, never lost
        assert all(label_width(line, WING_PX) <= wrap + 1e-6 for line in lines)
        width, height = wing_box(name, wrap)
        assert width <= wrap + 12 and height == len(lines) * 1.25 * WING_PX + 12  # the layout sizes the lines drawn
    assert wing_lines("wing_conversations_with_claude_2024", 130)[0].endswith("_")  # after a separator


def test_the_drawing_is_as_tall_as_its_shape_needs():
    flat = parse(network_svg([node("solo", ("wing_a",)), node("pair", ("wing_a", "wing_b"))]))
    assert MIN_HEIGHT <= int(flat.get("height")) < 620  # wide and flat: shorter than the frame
    many = parse(network_svg([node(f"r{i}", (f"wing_{i}", f"wing_{i + 1}")) for i in range(30)]))
    assert int(many.get("height")) == 620


def test_a_very_long_room_name_is_cut_under_its_dot_and_whole_on_hover():
    name = "notes-" * 1000
    short = network_svg([node("a", ("wing_a", "wing_b"))])
    svg = parse(network_svg([node("a", ("wing_a", "wing_b")), node(name, ("wing_a",))]))
    room = places(svg, "room")[name]
    assert room.find(f"{SVG}text").text == name[:47] + "…"  # 48 Latin characters
    assert room.find(f"{SVG}title").text.startswith(f"room {name}\n")
    width = float(svg.get("viewBox").split()[2])
    assert width < 2 * float(parse(short).get("viewBox").split()[2])  # the drawing keeps its scale


def test_an_empty_network_is_an_empty_drawing():
    svg = parse(network_svg([]))
    assert [g.get("class") for g in svg.iter(f"{SVG}g")] == ["mp-edges"] and not list(svg.iter(f"{SVG}line"))
    assert svg.get("aria-label") == "Tunnel network: 0 wings, 0 rooms"


def label_boxes(svg: ElementTree.Element) -> dict[str, tuple[float, float, float, float]]:
    """{room: (left, top, right, bottom)} of each room's dot and label as drawn (label widths estimated
    as the layout estimates them), or of its dot alone when it has no label."""
    found = {}
    for name, group in places(svg, "room").items():
        circle, text = group.find(f"{SVG}circle"), group.find(f"{SVG}text")
        x, y, r = (float(circle.get(k)) for k in ("cx", "cy", "r"))
        half = max(r, label_width(text.text) / 2) if text is not None else r
        found[name] = (x - half, y - r, x + half, y + (r + ROOM_PX + 4 if text is not None else r))
    return found


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


@pytest.mark.parametrize("count", [12, 120])
def test_no_label_lies_on_another_and_a_crowded_network_names_the_rest_on_hover(count):
    wings = [f"wing_{name}" for name in ("kai", "priya", "orion", "family", "lee", "mara")]
    rooms = [node(f"shared-topic-number-{i}", (wings[i % 6], wings[(i + 2) % 6]), 3) for i in range(count // 2)]
    rooms += [node(f"own-topic-number-{i}", (wings[i % 6],), 2) for i in range(count - count // 2)]
    svg = parse(network_svg(rooms))
    boxes = label_boxes(svg)
    assert len(boxes) == count and not [(a, b) for a, b in itertools.combinations(boxes, 2)
                                        if overlap(boxes[a], boxes[b])]
    labelled = {name for name, g in places(svg, "room").items() if g.find(f"{SVG}text") is not None}
    every_tip = all(g.find(f"{SVG}title").text.startswith(f"room {name}\n") for name, g in places(svg, "room").items())
    assert every_tip  # a room drawn without its label is still named on hover
    if count == 12:
        assert len(labelled) == count
    else:  # the tunnels come first and keep their labels; some lone rooms have no room for theirs
        assert {r.room for r in rooms[:count // 4]} <= labelled and len(labelled) < count


def test_one_huge_room_keeps_a_dot_that_leaves_the_drawing_readable():
    rooms = [node("everything", ("wing_a", "wing_b"), 100_000), node("notes", ("wing_a",), 3)]
    circle = places(parse(network_svg(rooms)), "room")["everything"].find(f"{SVG}circle")
    assert float(circle.get("r")) == MAX_RADIUS  # 3 + 1.6 × √100,000 would be 509 px


def test_a_wide_name_is_measured_wider_so_its_label_gets_room():
    assert label_width("会議") == 2 * ROOM_PX and label_width("ab") == 2 * CHAR_EM * ROOM_PX
    assert label_width("e\u0301te\u0301") == label_width("ete")  # an accent is drawn over its letter
    assert label_width("переезд") > label_width("pereezd")  # Cyrillic letters run wider


CJK_WING = "李明和王芳的家庭与工作计划"


def test_a_chinese_wing_name_wraps_by_its_width_and_its_box_holds_it():
    lines = wing_lines(CJK_WING, 130)
    assert "".join(lines) == CJK_WING and len(lines) == 2  # 13 characters of 14 px: 182 px in one line
    assert all(len(line) * WING_PX <= 130 for line in lines)  # a CJK font draws each character 1 em wide
    assert wing_box(CJK_WING, 130)[0] >= max(len(line) for line in lines) * WING_PX + 2 * BOX_MARGIN


def test_a_long_chinese_room_name_is_cut_by_its_width():
    name = "周末带孩子去公园野餐和放风筝顺便在湖边吃午饭然后去看电影再回家做晚饭"  # 36 characters: 432 px
    svg = parse(network_svg([node("a", ("wing_a", "wing_b")), node(name, ("wing_a",))]))
    label = places(svg, "room")[name].find(f"{SVG}text").text
    assert label == name[:26] + "…"  # as wide as 48 Latin letters at most


def test_rooms_keep_clear_of_a_chinese_wing_box_as_a_cjk_font_draws_it():
    rooms = [node(room, (CJK_WING,)) for room in ("个税", "招聘", "钢琴课", "买房", "装修", "体检", "旅行计划", "读书会",
                                                  "健身", "家长会", "年终总结", "周末带孩子去公园野餐和放风筝的计划")]
    rooms += [node("数据库升级", ("wing_kai", "wing_李明")), node("灰狗领养", ("wing_李明",)),
              node("переезд", ("наташа",)), node("ремонт-кухни-и-ванной-комнаты", ("наташа",))]
    plan = layout(rooms)
    wing_x, wing_y = plan.wing_at[CJK_WING]
    lines = wing_lines(CJK_WING, plan.wrap)
    half_w = max(len(line) for line in lines) * WING_PX / 2 + BOX_MARGIN  # 1 em a character
    half_h = len(lines) * 1.25 * WING_PX / 2 + BOX_MARGIN
    wing = (wing_x - half_w, wing_y - half_h, wing_x + half_w, wing_y + half_h)
    for room, (x, y) in plan.room_at:
        half, up, down = room_box(room, plan.radius[room.room], room.room not in plan.unlabelled)
        assert not overlap((x - half, y - up, x + half, y + down), wing), room.room


def test_the_pyvis_page_leaves_out_the_labels_the_svg_has_no_room_for():
    wings = [f"wing_{i}" for i in range(6)]
    rooms = [node(f"shared-topic-number-{i}", (wings[i % 6], wings[(i + 2) % 6]), 3) for i in range(60)]
    rooms += [node(f"own-topic-number-{i}", (wings[i % 6],), 2) for i in range(60)]
    unlabelled = layout(rooms).unlabelled
    page = pyvis_nodes(rooms)
    assert unlabelled and all(page[f"r:{name}"]["label"] == " " for name in unlabelled)  # pyvis puts the id for ""
    assert all(page[f"r:{name}"]["title"].startswith(f"room {name}\n") for name in unlabelled)  # named on hover
    assert all(page[f"r:{r.room}"]["label"] == r.room for r in rooms if r.room not in unlabelled)


def pyvis_nodes(rooms: list[RoomNode]) -> dict[str, dict]:
    """{id: node} of the pyvis page's network data."""
    page = network_page(rooms, matched=len(rooms)).html
    return {n["id"]: n for n in json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);\n", page).group(1))}


def test_a_wing_keeps_its_colour_whatever_the_filters_leave_out():
    rooms = [node("a-b", ("wing_a", "wing_b")), node("c-d", ("wing_c", "wing_d")), node("b-d", ("wing_b", "wing_d"))]
    palette = ("wing_a", "wing_b", "wing_c", "wing_d")
    everything = layout(rooms, palette=palette).colour
    some = layout(rooms[1:], palette=palette).colour  # wing_a's rooms filtered out
    assert set(some) == {"wing_b", "wing_c", "wing_d"} and all(some[w] == everything[w] for w in some)
    assert len(set(everything.values())) == 4


def test_adding_wings_recolours_none_of_the_wings_already_there():
    from dashboard.colours import named_colours

    grown = ["chatgpt", "claude_ai", "slack_acme", "claude_code", "codex_cli", "gemini_cli", "plain_text", "wing_kai",
             "wing_driftwood", "wing_priya", "spotter", "enrique", "traveling_sailor", "wing_orion", "aaa", "wing_mara"]
    first: dict[str, str] = {}
    for n in range(1, len(grown) + 1):
        colours = named_colours(grown[:n])  # the palace's wings, oldest first
        assert all(colours[w] == first.get(w, colours[w]) for w in grown[:n]), n
        assert len(set(colours.values())) == n  # no two wings share one
        first.update(colours)
    assert len(set(named_colours([f"w{i}" for i in range(60)]).values())) == 60


def test_the_network_keeps_each_wings_colour_as_the_palace_grows(palace):
    from mempalace.graph import build_graph
    from mempalace.scoped.palace import ScopedPalace
    from mempalace.access.rules import full_grant

    view = ScopedPalace(palace, full_grant("me", "python"))
    seen: dict[str, str] = {}
    for wing in ("chatgpt", "claude_ai", "aaa_first_by_name", "slack_acme", "claude_code"):
        palace.add_drawer(f"The auth migration notes from {wing}.", wing, "auth-migration")
        nodes, _ = build_graph(view)
        colours = layout(list(nodes.values()), palette=view.wings_oldest_first()).colour
        assert all(colours[w] == c for w, c in seen.items()), (wing, colours, seen)
        seen = dict(colours)
    assert view.wings_oldest_first()[:2] == ("chatgpt", "claude_ai")
