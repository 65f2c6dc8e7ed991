"""The Overview's charts (their markup) and the tunnel network (its spec), read without a browser: every series
its own colour and the rest grey, names never cut short, the timeline's bars per day, week or month,
and wing boxes whose text stays readable on their colour."""

from __future__ import annotations

import html
import itertools
import json
import re
from urllib.parse import unquote

import pytest

from dashboard import charts, network
from dashboard.colours import BASE, OTHER, WHITE, contrast, difference, distinct
from dashboard.network import FRAME_WIDTH, ROOM_PX, WING_PX, network_page
from mempalace.models import RoomNode

WINGS = [f"conversations_with_person_{i:02}_about_work" for i in range(14)]
ROOMS = [f"room-number-{j:02}-of-the-palace" for j in range(16)]
PLACES = [{"wing": w, "room": r, "hall": f"hall_{j % 3}", "drawers": 1 + (i + j) % 4}
          for i, w in enumerate(WINGS) for j, r in enumerate(ROOMS)]
JUST_NOTICEABLE = 1.0  # a CIEDE2000 difference about this small is the least two colours can differ and be told apart


def segments(markup: str, attribute: str) -> list[str]:
    """The values of `attribute` on the chart's clickable parts, in order, unescaped (a place's name
    as a click sends it back: data attributes are percent-encoded, see dashboard.render.place_data)."""
    values = [html.unescape(v) for v in re.findall(rf'{attribute}="([^"]*)"', markup)]
    return [unquote(v) for v in values] if attribute.startswith("data-") else values


# -- colours -------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 13, 20, 40])
def test_generated_colours_are_all_told_apart_from_each_other_grey_and_white(n):
    colours = distinct(n)
    assert len(colours) == n and colours[:len(BASE)] == list(BASE)[:n]
    assert distinct(n + 7)[:n] == colours  # a series keeps its colour when more are added
    nearest = min(difference(a, b) for a, b in itertools.combinations(colours, 2))
    assert nearest > 10 * JUST_NOTICEABLE, nearest
    assert min(difference(c, OTHER) for c in colours) > 10 * JUST_NOTICEABLE
    assert min(difference(c, WHITE) for c in colours) > 20 * JUST_NOTICEABLE


# -- Wings and rooms -----------------------------------------------------------------------------


def test_every_room_shown_has_its_own_colour_and_the_rest_are_grey():
    bars = charts.room_bars(PLACES)
    names, palette = [name for name, _ in bars.legend], [colour for _, colour in bars.legend]
    assert len(names) == charts.TOP_ROOMS + 1 and names[-1] is None  # the rest, shown as "other rooms"
    assert set(names[:-1]) < set(ROOMS) and palette[-1] == OTHER
    assert len(set(palette)) == len(palette)  # no two series share a colour, grey is for the rest only
    assert {room for _, rooms in bars.wings for room, _ in rooms} == set(names)
    assert all([r for r, _ in rooms] == [n for n in names if n in dict(rooms)] for _, rooms in bars.wings)
    markup = charts.taxonomy_bars(PLACES)
    assert segments(markup, "data-room") == [room for _, rooms in bars.wings for room, _ in rooms if room]
    assert sum(int(t.rsplit(": ", 1)[1].split()[0]) for t in segments(markup, "title")) == sum(
        p["drawers"] for p in PLACES)  # every drawer in exactly one segment


def test_a_few_rooms_need_no_grey():
    few = [p for p in PLACES if p["room"] in ROOMS[:3]]
    legend = charts.room_bars(few).legend
    assert sorted(name for name, _ in legend) == ROOMS[:3] and OTHER not in {c for _, c in legend}


def test_a_long_name_may_wrap_after_its_separators_only():
    assert charts.breakable("wing_drift-wood.v2") == "wing_<wbr>drift-<wbr>wood.<wbr>v2"
    assert charts.breakable("<b>_x") == "&lt;b&gt;_<wbr>x"


def test_wing_and_room_names_are_whole_escaped_and_say_their_place_on_hover():
    odd = [{"wing": 'wing_<b>"x"</b>', "room": "r&d <script>", "hall": 'hall_<i>"y"', "drawers": 2}]
    for markup in (charts.taxonomy_bars(PLACES), charts.hall_heatmap(PLACES)):
        labels = [html.unescape(t.replace("<wbr>", "")) for t in re.findall(r'<span class="mp-label">((?:[^<]|<wbr>)*)</span>', markup)]
        assert sorted(labels) == sorted(WINGS)  # every wing, its whole name
    legend = [html.unescape(t) for t in re.findall(r'class="mp-swatch"[^>]*></span>([^<]*)</span>',
                                                   charts.taxonomy_bars(PLACES))]
    assert legend[:-1] == [name for name, _ in charts.room_bars(PLACES).legend][:-1] and legend[-1] == "other rooms"
    for markup in (charts.taxonomy_bars(odd), charts.hall_heatmap(odd)):
        assert "<b>" not in markup and "<script>" not in markup and "<i>" not in markup
        assert segments(markup, "data-wing") == ['wing_<b>"x"</b>']
    assert segments(charts.taxonomy_bars(odd), "title") == ['wing_<b>"x"</b> · r&d <script>: 2 drawers']
    rest = [t for t in segments(charts.taxonomy_bars(PLACES), "title") if "other rooms" in t]
    assert rest and all(t.endswith(f"(a click lists all of {t.split(' · ')[0]})") for t in rest)  # it lists the wing
    assert segments(charts.hall_heatmap(odd), "data-hall") == ['hall_<i>"y"']
    assert segments(charts.hall_heatmap(odd), "title") == ['wing_<b>"x"</b> · hall_<i>"y": 2 drawers']


def test_a_room_called_like_the_rest_is_its_own_room_and_the_rest_names_only_its_wing():
    many = [{"wing": "w", "room": f"room-{j:02}", "hall": None, "drawers": 20 - j} for j in range(14)]
    many.append({"wing": "w", "room": charts.OTHER_ROOMS, "hall": None, "drawers": 50})
    bars = charts.room_bars(many)
    assert bars.legend[0] == (charts.OTHER_ROOMS, charts.distinct(1)[0]) and bars.legend[-1][0] is None
    markup = charts.taxonomy_bars(many)
    assert segments(markup, "data-room")[0] == charts.OTHER_ROOMS  # the real room is clickable as itself
    rest = re.findall(r'<span style="[^"]*background:#b0b0b0"([^>]*)>', markup)
    assert len(rest) == 1 and "data-wing" in rest[0] and "data-room" not in rest[0]


def test_heatmap_cells_follow_the_hall_order_and_darken_with_their_count():
    wings, halls, counts = charts.hall_cells(PLACES + [{"wing": WINGS[0], "room": "x", "hall": None, "drawers": 9}])
    assert wings == sorted(WINGS) and halls == ["hall_0", "hall_1", "hall_2", None]
    assert counts[(WINGS[0], None)] == 9
    assert charts.heat(0.0) == "#efedf5" and charts.heat(1.0) == "#3f007d"
    assert contrast(charts.heat(1.0), WHITE) >= 4.5
    three = [{"wing": "a", "room": "r", "hall": "hall_facts", "drawers": n} for n in (1, 5)] + [
        {"wing": "b", "room": "r", "hall": "hall_facts", "drawers": 12}, {"wing": "b", "room": "r", "hall": None, "drawers": 3}]
    markup = charts.hall_heatmap(three)
    fills = dict(re.findall(r'class="mp-cell" style="background:(#[0-9a-f]{6});[^"]*"[^>]*>([\d,]+)<', markup))
    shade = {n: sum(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c, n in fills.items()}
    assert shade["12"] < shade["6"] < shade["3"]  # darker with more drawers
    assert markup.count('class="mp-cell"') == 3 and markup.count("<span></span>") == 2  # a's no-hall cell is empty
    no_hall = re.search(r'<span class="mp-cell"[^>]*title="b · \(none\): 3 drawers"[^>]*>', markup).group(0)
    assert 'data-wing="b"' in no_hall and 'data-hall="none"' in no_hall  # the wing's drawers in no hall
    alone = charts.hall_heatmap([{"wing": "a", "room": "r", "hall": "hall_facts", "drawers": 4}])
    assert f"background:{charts.heat(1.0)}" in alone  # one cell, or all equal: the darkest


@pytest.mark.parametrize("result, place", [
    ({"picked": {"wing": "wing_kai", "room": "auth-migration"}}, {"wing": "wing_kai", "room": "auth-migration"}),
    ({"picked": {"wing": "wing_kai", "room": charts.OTHER_ROOMS}}, {"wing": "wing_kai", "room": charts.OTHER_ROOMS}),
    ({"picked": {"wing": "wing_kai", "hall": ""}}, {"wing": "wing_kai"}),
    ({"picked": {"wing": "wing_kai", "tabindex": "0"}}, {"wing": "wing_kai"}),  # only a place's parts
    ({"picked": None}, {}), ({}, {}), (None, {}),
])
def test_a_click_names_the_place_it_landed_on(result, place):
    assert charts.picked(result) == place


# -- timeline ------------------------------------------------------------------------------------


@pytest.mark.parametrize("days, unit, bars, count", [
    ({"2025-03-03": 2, "2025-03-04": 1, "2025-03-20": 4}, "day", [("2025-03-03", 2), ("2025-03-04", 1),
                                                                  ("2025-03-20", 4)], 18),
    ({"2025-01-01": 2, "2025-01-03": 1, "2025-09-30": 4}, "week", [("2024-12-30", 3), ("2025-09-29", 4)], 40),
    ({"2021-06-05": 2, "2021-06-28": 1, "2025-02-11": 4}, "month", [("2021-06-01", 3), ("2025-02-01", 4)], 45),
])
def test_the_timeline_has_a_bar_per_day_week_or_month(days, unit, bars, count):
    found_unit, found = charts.periods(days)
    assert found_unit == unit and len(found) == count  # every period of the span, the empty ones too
    assert [(start, n) for start, _, n in found if n] == bars
    assert sum(n for _, _, n in found) == sum(days.values())
    markup = charts.timeline(days, "conversations", "conversation")
    assert markup.count('class="mp-bar"') == count and f"conversations per {unit}" in markup


def test_a_decade_of_months_is_labelled_every_few_years_under_its_own_bars():
    unit, found = charts.periods({"2016-01-05": 3, "2026-11-01": 4})
    ticks = charts.ticks_for(unit, [start for start, _, _ in found])
    assert unit == "month" and len(found) == len(ticks) == 131
    labelled = [(found[i][0], tick) for i, tick in enumerate(ticks) if tick]
    assert labelled == [(f"{year}-01-01", str(year)) for year in range(2016, 2027, 2)]  # each under its January
    markup = charts.timeline({"2016-01-05": 3, "2026-11-01": 4}, "drawers filed", "drawer filed")
    assert markup.count('class="mp-tick"') == 131 and markup.count("<span>2016</span>") == 1
    assert "January 2016 to November 2026" in markup


@pytest.mark.parametrize("days, unit, labels", [
    ({"2025-03-03": 1, "2025-03-20": 2}, "day", ["03 Mar", "10 Mar", "17 Mar"]),
    ({"2025-01-01": 2, "2025-09-30": 4}, "week", [f"{month} 2025" for month in
                                                  ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep")]),
    ({"2025-02-11": 1, "2025-05-01": 1}, "day", ["Mar 2025", "Apr 2025", "May 2025"]),  # 12 Mondays: too many
    ({"2026-11-01": 3}, "day", ["01 Nov"]),
])
def test_the_axis_has_a_few_labels_at_any_span(days, unit, labels):
    found_unit, found = charts.periods(days)
    assert found_unit == unit
    assert [tick for tick in charts.ticks_for(unit, [start for start, _, _ in found]) if tick] == labels


def test_a_stray_old_date_gives_years_and_a_date_that_is_no_day_is_left_out():
    unit, found = charts.periods({"1970-01-01": 1, "2026-11-01": 3, "2024-00-00": 5})
    assert unit == "year" and len(found) == 57 and sum(n for _, _, n in found) == 4
    assert found[0][:2] == ("1970-01-01", "1970")


def test_the_timeline_of_nothing_says_so():
    assert charts.periods({}) == ("day", [])
    assert "No drawers filed yet." in charts.timeline({}, "drawers filed", "drawer filed")


# -- the network ---------------------------------------------------------------------------------


def network_nodes(rooms: list[RoomNode]) -> dict[str, dict]:
    page = network_page(rooms, matched=len(rooms)).html
    nodes = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);\n", page).group(1))
    return {n["id"]: n for n in nodes}


def test_twenty_wings_get_twenty_colours_with_readable_text():
    wings = [f"wing_{i:02}" for i in range(20)]
    rooms = [RoomNode(f"room-{i}", (w, wings[(i + 1) % 20]), (), 2, (), 1.0) for i, w in enumerate(wings)]
    nodes = network_nodes(rooms)
    boxes = [nodes[f"w:{w}"] for w in wings]
    assert len({b["color"] for b in boxes}) == 20
    assert min(difference(a["color"], b["color"]) for a, b in itertools.combinations(boxes, 2)) > 12 * JUST_NOTICEABLE
    for box in boxes:
        assert contrast(box["color"], box["font"]["color"]) >= 4.5, box  # WCAG AA for text


def test_no_wing_is_drawn_in_the_tunnel_orange_or_the_room_grey():
    """A wing box the colour of a tunnel's dot would read as a tunnel (the second wing drew orange)."""
    wings = [f"wing_{i:02}" for i in range(30)]
    rooms = [RoomNode(f"room-{i}", (w,), (), 2, (), 0.0) for i, w in enumerate(wings)]
    colours = [n["color"] for n in network_nodes(rooms).values() if n["id"].startswith("w:")]
    assert len(set(colours)) == 30
    assert min(difference(c, network.TUNNEL) for c in colours) > 12 * JUST_NOTICEABLE
    assert min(difference(c, network.ROOM) for c in colours) > 12 * JUST_NOTICEABLE
    assert distinct(3, avoid=(network.TUNNEL,)) == [BASE[0], *BASE[2:4]]  # the rest keep their order


@pytest.mark.parametrize("count", [14, 20])
def test_a_palace_of_many_wings_is_laid_out_to_be_read_at_full_size(count):
    """Sizes are screen px at scale 1, and the layout fits the frame at scale 1 (with vis's 10 % margin):
    with more wings, their names wrap narrower rather than the drawing shrinking."""
    wings = [f"conversations_with_person_{i:02}_about_work" for i in range(count)]
    rooms = [RoomNode(f"notes-{i}", (w,), (), 1 + i, (), 0.0) for i, w in enumerate(wings)]
    rooms += [RoomNode(r, (wings[j % count], wings[(j + 3) % count]), (), 3, (), 1.0) for j, r in enumerate(ROOMS)]
    nodes = network_nodes(rooms)
    wings = [n for n in nodes.values() if n["id"].startswith("w:")]
    assert {n["font"]["size"] for n in wings} == {WING_PX} and WING_PX >= 13
    assert {n["font"]["size"] for n in nodes.values() if n["id"].startswith("r:")} == {ROOM_PX} and ROOM_PX >= 11
    assert all(n["font"]["strokeColor"] == WHITE for n in nodes.values() if n["id"].startswith("r:"))  # a halo
    across = max(abs(n["x"]) + n["widthConstraint"]["maximum"] / 2 + n["margin"] for n in wings)
    down = max(abs(n["y"]) + 20 for n in nodes.values())  # a box's half height, or a label under a dot
    first_view = min(1.0, FRAME_WIDTH / (2.2 * across), 620 / (2.2 * down))  # the scale vis's fit will pick
    assert ROOM_PX * first_view >= 11, first_view
