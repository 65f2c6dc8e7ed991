"""Conversation dates and titles: kept per drawer, shown on hits and drawers, counted per day,
filtered by `after`/`before`; places listed newest conversation first; sources listed to pick from."""

from __future__ import annotations

import pytest

from mempalace import Palace
from mempalace.errors import InvalidInputError
from mempalace.access.rules import AccessRule, grant_for
from mempalace.models import DrawerDraft
from mempalace.scoped.palace import ScopedPalace


def _conversation(palace: Palace, wing: str, day: str | None, words: str, title: str, parent: str) -> None:
    extra = {"conversation_title": title, **({"conversation_date": f"{day}T10:00:00Z"} if day else {})}
    palace.file_drawers([DrawerDraft(id=f"{parent}-{i}", content=f"{words} part {i}", wing=wing, room="auth-migration",
                                    source_file=f"{parent}.json", chunk_index=i, parent_id=parent, extra=extra)
                        for i in range(2)])


@pytest.fixture
def dated(palace: Palace) -> Palace:
    _conversation(palace, "wing_kai", "2016-01-14", "tokens expired overnight", "Token expiry", "a")
    _conversation(palace, "wing_kai", "2019-06-01", "rotating signing keys", "Key rotation", "b")
    _conversation(palace, "wing_priya", "2024-03-09", "session cookies after the switch", "Cookies", "c")
    _conversation(palace, "wing_priya", None, "undated notes about logins", "Notes", "d")
    return palace


def test_hits_and_drawers_carry_the_conversation_date_and_title(dated: Palace) -> None:
    hit = dated.search("tokens expired", limit=1)[0]
    assert (hit.conversation_date, hit.title) == ("2016-01-14", "Token expiry")
    drawer = dated.get_drawer(hit.drawer_id)
    assert (drawer.conversation_date, drawer.title) == ("2016-01-14", "Token expiry")
    listed = {d.id: d for d in dated.browse("wing_priya")[1]}
    assert listed["d-0"].conversation_date is None and listed["d-0"].title == "Notes"


def test_a_date_range_keeps_to_conversations_of_those_days(dated: Palace) -> None:
    ids = lambda **days: {h.drawer_id[0] for h in dated.search("logins tokens keys cookies", limit=20, **days)}  # noqa: E731
    assert ids(after="2016-01-01", before="2019-12-31") == {"a", "b"}
    assert ids(after="2020-01-01") >= {"c", "d"}  # undated: its filing day (today) counts
    assert ids(before="2016-01-14") == {"a"}
    assert {h.drawer_id[0] for h in dated.search("tokens", mode="semantic", limit=20, before="2016-12-31")} == {"a"}
    with pytest.raises(InvalidInputError, match="YYYY-MM-DD"):
        dated.search("tokens", after="14/01/2016")
    with pytest.raises(InvalidInputError, match="later than"):
        dated.search("tokens", after="2020-01-01", before="2019-01-01")


def test_conversations_are_counted_by_their_own_day(dated: Palace) -> None:
    days = dated.conversations_per_day()
    assert {d: days[d] for d in ("2016-01-14", "2019-06-01", "2024-03-09")} == {"2016-01-14": 1, "2019-06-01": 1,
                                                                             "2024-03-09": 1}
    assert sum(days.values()) == 4  # the undated one by the day it was filed
    assert sum(dated.filed_per_day().values()) == 8


def test_a_place_lists_newest_conversation_first_and_sources_are_listed(dated: Palace) -> None:
    total, drawers = dated.browse(room="auth-migration", newest=True, limit=3)
    assert total == 8 and [d.id for d in drawers] == ["d-0", "d-1", "c-0"]  # undated: filed today, the newest
    order = [d.id for d in dated.browse(wing="wing_kai", newest=True)[1]]
    assert order == ["b-0", "b-1", "a-0", "a-1"]
    assert dated.sources() == {"a.json": 2, "b.json": 2, "c.json": 2, "d.json": 2}


def test_a_scoped_view_counts_and_lists_only_its_wings(dated: Palace) -> None:
    grant = grant_for((AccessRule(("kai@example.com",), "viewer", ("wing_kai",)),), "kai@example.com", "dashboard")
    view = ScopedPalace(dated, grant)
    assert sum(view.conversations_per_day().values()) == 2
    assert view.sources() == {"a.json": 2, "b.json": 2}
    assert {h.wing for h in view.search("cookies tokens", limit=20, after="2000-01-01")} == {"wing_kai"}
