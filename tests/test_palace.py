import pytest

from mempalace import Palace
from mempalace.errors import DrawerNotFoundError, InvalidInputError

VERBATIM = "Line one\r\n\tindented\n\n```python\nprint('hi')  \n```\n\nünïcødé ✓ 🚀  \n\n\n"


def test_content_is_stored_byte_for_byte(palace):
    result = palace.add_drawer(VERBATIM, wing="wing_kai", room="notes")
    assert result.status == "added" and len(result.drawer_ids) == 1
    assert palace.get_drawer(result.drawer_ids[0]).content == VERBATIM


def test_metadata_keeps_the_upstream_keys(palace):
    result = palace.add_drawer("Decided to use Postgres.", "Wing Kai", "Database Choice", hall="facts",
                               source_file="chat.txt", added_by="kai", topic="db")
    drawer = palace.get_drawer(result.drawer_ids[0])
    assert (drawer.wing, drawer.room, drawer.hall) == ("wing_kai", "database-choice", "hall_facts")
    assert drawer.source_file == "chat.txt" and drawer.chunk_index == 0 and drawer.added_by == "kai"
    assert drawer.filed_at and drawer.filed_at[:4].isdigit() and "T" in drawer.filed_at
    assert drawer.extra == {"topic": "db"} and drawer.room_by == "person"  # re-rooming never moves it


def test_readding_identical_content_to_the_same_place_is_a_no_op(palace):
    first = palace.add_drawer("The deploy runs at 9am.", "wing_ops", "deploys")
    again = palace.add_drawer("The deploy runs at 9am.", "Wing Ops", "Deploys")
    assert again.status == "exists" and again.drawer_ids == first.drawer_ids
    assert palace.count() == 1


def test_near_duplicates_are_refused_with_the_matches(palace):
    first = palace.add_drawer("We chose Redis for the session cache because it is fast", "wing_a", "cache")
    refused = palace.add_drawer("We chose Redis for the session cache because it is fast!", "wing_b", "cache")
    assert refused.status == "duplicate"
    assert refused.matches[0].drawer_id == first.drawer_ids[0]
    assert refused.matches[0].similarity >= 0.9
    assert palace.count() == 1


def test_identical_content_in_another_place_is_a_duplicate(palace):
    first = palace.add_drawer("Shared fact.", "wing_a", "facts")
    other = palace.add_drawer("Shared fact.", "wing_b", "facts")
    assert other.status == "duplicate" and other.matches[0].drawer_id == first.drawer_ids[0]


def test_threshold_is_configurable(palace_path, home):
    from mempalace.config import load_settings

    with Palace.open(palace_path, settings=load_settings(home, duplicate_threshold=0.999)) as strict:
        strict.add_drawer("alpha beta gamma delta epsilon zeta eta theta", "wing_a", "greek")
        result = strict.add_drawer("alpha beta gamma delta epsilon zeta eta theta iota", "wing_a", "greek")
        assert result.status == "added"


def test_check_duplicate_reports_similar_drawers(palace):
    palace.add_drawer("The GPU cluster costs 3 dollars per hour per node", "wing_a", "gpu-pricing")
    matches = palace.check_duplicate("The GPU cluster costs 3 dollars per hour per node")
    assert len(matches) == 1 and matches[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert palace.check_duplicate("Completely unrelated words about gardening tulips") == ()
    with pytest.raises(InvalidInputError):
        palace.check_duplicate("text", threshold=1.5)


def test_long_content_is_split_into_consecutive_drawers_sharing_a_parent(palace):
    text = "".join(f"Paragraph {i}: " + "word " * 60 + "\n\n" for i in range(12))
    result = palace.add_drawer(text, "wing_a", "long-notes")
    drawers = [palace.get_drawer(i) for i in result.drawer_ids]
    assert len(drawers) > 1
    assert "".join(d.content for d in drawers) == text
    assert [d.chunk_index for d in drawers] == list(range(len(drawers)))
    assert {d.parent_id for d in drawers} == {result.parent_id}
    assert palace.count() == len(drawers)


def test_ids_are_deterministic_and_survive_a_move(palace, palace_path, settings):
    result = palace.add_drawer("Priya prefers dark mode.", "wing_priya", "ui", hall="preferences")
    moved = palace.update_drawer(result.drawer_ids[0], room="User Interface", hall="facts")
    assert moved.id == result.drawer_ids[0]
    assert (moved.room, moved.hall, moved.content) == ("user-interface", "hall_facts", "Priya prefers dark mode.")
    assert palace.taxonomy() == {"wing_priya": {"user-interface": 1}}
    palace.close()
    with Palace.open(palace_path.parent / "other", settings=settings) as other:
        assert other.add_drawer("Priya prefers dark mode.", "wing_x", "y").drawer_ids == result.drawer_ids


def test_move_to_another_wing_updates_counts(palace):
    a = palace.add_drawer("Kai owns the billing service.", "wing_kai", "billing").drawer_ids[0]
    palace.add_drawer("Kai reviewed the login flow.", "wing_kai", "auth")
    palace.update_drawer(a, wing="wing_driftwood")
    assert palace.taxonomy() == {"wing_driftwood": {"billing": 1}, "wing_kai": {"auth": 1}}
    assert palace.list_wings() == {"wing_driftwood": 1, "wing_kai": 1}


def test_a_drawer_can_leave_its_hall_in_the_catalog_and_in_chroma(palace):
    a = palace.add_drawer("Kai prefers short standups.", "wing_kai", "standups", hall="preferences").drawer_ids[0]
    b = palace.add_drawer("Standups moved to 9:30.", "wing_kai", "standups", hall="events").drawer_ids[0]
    assert palace.update_drawer(a, hall="").hall is None
    assert palace.hall_counts() == {"": 1, "hall_events": 1}
    assert palace.move_drawers([b], hall="") == 1
    palace.rebuild_index()  # read back from Chroma itself: the key is gone there too
    assert palace.get_drawer(a).hall is None and palace.get_drawer(b).hall is None
    assert palace.search("standups", hall="events") == []
    assert palace.update_drawer(a, room="rituals").hall is None  # moving elsewhere keeps no hall
    with pytest.raises(InvalidInputError, match="empty"):
        palace.update_drawer(b, hall="  ")
    with pytest.raises(InvalidInputError, match="Say where"):
        palace.update_drawer(b)


def test_delete_removes_the_drawer_everywhere(palace):
    drawer_id = palace.add_drawer("Temporary note about lunch.", "wing_a", "misc").drawer_ids[0]
    deleted = palace.delete_drawer(drawer_id)
    assert deleted.content == "Temporary note about lunch."
    assert palace.count() == 0 and palace.taxonomy() == {}
    assert palace.search("lunch") == []
    with pytest.raises(DrawerNotFoundError, match="No drawer"):
        palace.get_drawer(drawer_id)
    with pytest.raises(DrawerNotFoundError):
        palace.delete_drawer(drawer_id)
    with pytest.raises(DrawerNotFoundError):
        palace.update_drawer(drawer_id, room="x")


def test_taxonomy_rooms_wings_and_halls(palace):
    palace.add_drawer("a1 auth decision", "wing_kai", "auth-migration", hall="facts")
    palace.add_drawer("a2 auth meeting", "wing_kai", "auth-migration", hall="events")
    palace.add_drawer("a3 gpu price", "wing_kai", "gpu-pricing")
    palace.add_drawer("b1 auth insight", "wing_priya", "auth-migration", hall="discoveries")
    assert palace.taxonomy() == {"wing_kai": {"auth-migration": 2, "gpu-pricing": 1},
                                 "wing_priya": {"auth-migration": 1}}
    assert palace.list_rooms() == {"auth-migration": 3, "gpu-pricing": 1}
    assert palace.list_rooms("Wing Kai") == {"auth-migration": 2, "gpu-pricing": 1}
    assert palace.hall_counts() == {"": 1, "hall_discoveries": 1, "hall_events": 1, "hall_facts": 1}
    status = palace.status()
    assert (status.drawers, status.wings, status.rooms, status.mode) == (4, 2, 2, "embedded")


def test_state_survives_reopening(palace, palace_path, settings):
    palace.add_drawer("persisted fact one", "wing_a", "r1")
    palace.add_drawer("persisted fact two", "wing_b", "r2")
    palace.close()
    with Palace.open(palace_path, settings=settings) as again:
        assert again.count() == 2
        assert again.taxonomy() == {"wing_a": {"r1": 1}, "wing_b": {"r2": 1}}
