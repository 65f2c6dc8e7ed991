"""The Overview's charts and the tunnel network, read from their specs without a browser: every series
its own colour and the rest grey, names never cut short, the timeline's bars per day, week or month,
and wing boxes whose text stays readable on their colour."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from dashboard import charts
from dashboard.colours import BASE, OTHER, WHITE, contrast, distance, distinct
from dashboard.network import FRAME_WIDTH, ROOM_PX, WING_PX, network_page
from mempalace.models import RoomNode

WINGS = [f"conversations_with_person_{i:02}_about_work" for i in range(14)]
ROOMS = [f"room-number-{j:02}-of-the-palace" for j in range(16)]
PLACES = [{"wing": w, "room": r, "hall": f"hall_{j % 3}", "drawers": 1 + (i + j) % 4}
          for i, w in enumerate(WINGS) for j, r in enumerate(ROOMS)]
JUST_NOTICEABLE = 0.02  # an Oklab distance about this small is the least two colours can differ and be told apart


def spec(chart) -> dict:
    return chart.to_dict()


def rows(chart) -> list[dict]:
    (data,) = spec(chart)["datasets"].values()
    return data


# -- colours -------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 13, 20, 40])
def test_generated_colours_are_all_told_apart_from_each_other_grey_and_white(n):
    colours = distinct(n)
    assert len(colours) == n and colours[:len(BASE)] == list(BASE)[:n]
    assert distinct(n + 7)[:n] == colours  # a series keeps its colour when more are added
    nearest = min(distance(a, b) for a, b in itertools.combinations(colours, 2))
    assert nearest > 4 * JUST_NOTICEABLE, nearest
    assert min(distance(c, OTHER) for c in colours) > 3 * JUST_NOTICEABLE
    assert min(distance(c, WHITE) for c in colours) > 5 * JUST_NOTICEABLE


# -- Wings and rooms -----------------------------------------------------------------------------


def test_every_room_shown_has_its_own_colour_and_the_rest_are_grey():
    colour = spec(charts.taxonomy_bars(PLACES))["encoding"]["color"]
    domain, palette = colour["scale"]["domain"], colour["scale"]["range"]
    assert len(domain) == charts.TOP_ROOMS + 1 and domain[-1] == charts.OTHER_ROOMS
    assert set(domain[:-1]) < set(ROOMS) and palette[-1] == OTHER
    assert len(set(palette)) == len(palette)  # no two series share a colour, grey is for the rest only
    assert colour["sort"] == domain  # the legend lists them in that order, "other rooms" last
    legend = colour["legend"]
    assert legend["labelLimit"] >= 300 and legend["symbolLimit"] == 0  # whole names, every entry
    shown = {row["room"] for row in rows(charts.taxonomy_bars(PLACES))}
    assert shown == set(domain)


def test_a_few_rooms_need_no_grey():
    few = [p for p in PLACES if p["room"] in ROOMS[:3]]
    scale = spec(charts.taxonomy_bars(few))["encoding"]["color"]["scale"]
    assert sorted(scale["domain"]) == ROOMS[:3] and OTHER not in scale["range"]


def test_legend_columns_fit_the_plot_so_no_label_is_cut():
    legend = spec(charts.taxonomy_bars(PLACES))["encoding"]["color"]["legend"]
    columns = re.fullmatch(r"max\(1, floor\(width / (\d+)\)\)", legend["columns"]["expr"])
    assert columns, legend["columns"]
    longest = max(len(r) for r in ROOMS)  # 28 characters: a column at least ~6.5 px a character wide
    assert int(columns.group(1)) >= 6.5 * longest + 24


def test_wing_and_hall_labels_are_not_clipped():
    bars = spec(charts.taxonomy_bars(PLACES))["encoding"]
    cells = spec(charts.hall_heatmap(PLACES))["encoding"]
    for axis in (bars["y"]["axis"], cells["y"]["axis"], cells["x"]["axis"]):
        assert axis["labelLimit"] >= 300  # Streamlit's theme cuts labels at 100 px
    assert cells["x"]["axis"]["labelOverlap"] is False  # every hall named, none dropped for overlapping
    assert {t["field"] for t in bars["tooltip"]} == {"wing", "room", "drawers"}
    assert {t["field"] for t in cells["tooltip"]} == {"wing", "hall", "drawers"}


# -- timeline ------------------------------------------------------------------------------------


@pytest.mark.parametrize("days, unit, bars", [
    ({"2025-03-03": 2, "2025-03-04": 1, "2025-03-20": 4}, "day", [("2025-03-03", 2), ("2025-03-04", 1),
                                                                  ("2025-03-20", 4)]),
    ({"2025-01-01": 2, "2025-01-03": 1, "2025-09-30": 4}, "week", [("2024-12-30", 3), ("2025-09-29", 4)]),
    ({"2021-06-05": 2, "2021-06-28": 1, "2025-02-11": 4}, "month", [("2021-06-01", 3), ("2025-02-01", 4)]),
])
def test_the_timeline_has_a_bar_per_day_week_or_month(days, unit, bars):
    chart = charts.timeline(days, "conversations")
    encoding = spec(chart)["encoding"]
    assert encoding["y"]["title"] == "conversations" and encoding["y2"] == {"datum": 0}
    assert [(t["field"], t["title"]) for t in encoding["tooltip"]] == [("period", unit), ("count", "conversations")]
    assert [(row["start"][:10], row["count"]) for row in rows(chart)] == bars
    assert all(row["end"] > row["start"] for row in rows(chart))


def test_the_timeline_of_nothing_and_the_old_name_still_draw():
    assert rows(charts.timeline({}, "drawers filed")) == []
    assert spec(charts.filed_over_time({"2025-03-03": 2}))["encoding"]["y"]["title"] == "drawers filed"


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
    assert min(distance(a["color"], b["color"]) for a, b in itertools.combinations(boxes, 2)) > 4 * JUST_NOTICEABLE
    for box in boxes:
        assert contrast(box["color"], box["font"]["color"]) >= 4.5, box  # WCAG AA for text


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
