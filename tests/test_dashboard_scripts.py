"""The Tunnels page on a palace named in Chinese and Russian: the network gives each name the room
its script takes (dashboard.widths)."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from _apptest import charts_in, start
from mempalace import Palace

PLANS = "李明和王芳的家庭与工作计划"  # 13 characters: 182 px at the wing boxes' 14 px, one line would be


def test_the_network_wraps_a_chinese_wing_name_by_its_width_and_names_every_room_whole(settings):
    with Palace.open(settings=settings) as palace:
        for text, wing, room in [("今年的个税 app 里要记得申报专项附加扣除。", PLANS, "个税"),
                                 ("孩子的钢琴课改到每周三下午四点。", PLANS, "钢琴课"),
                                 ("数据库升级到 PostgreSQL 16 之前先跑一遍 migration。", PLANS, "数据库升级"),
                                 ("Kai: the database upgrade is set for Friday.", "wing_kai", "数据库升级"),
                                 ("Переезд в новую квартиру назначен на субботу.", "наташа", "переезд")]:
            palace.add_drawer(text, wing, room)
    at = start()
    at.switch_page("app_pages/tunnels.py").run()
    assert not at.exception, at.exception
    markup = charts_in(at.main)["network"]
    wing = re.search(f'<g class="mp-wing" data-wing="{quote(PLANS, safe="")}".*?</g>', markup, re.S).group()
    lines = [html.unescape(line) for line in re.findall(r"<tspan [^>]*>([^<]*)</tspan>", wing)]
    assert "".join(lines) == PLANS and len(lines) == 2, lines  # at most 130 px a line, 1 em a character
    labels = {html.unescape(text) for text in re.findall(r'<text x="[^"]*" y="[^"]*">([^<]*)</text>', markup)}
    assert labels == {"个税", "钢琴课", "数据库升级", "переезд"}
