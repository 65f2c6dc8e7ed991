"""A room's best other names: from its own conversations, never its own name or another room's, and
`mempalace rooms --names ROOM` shows them with its earlier names."""

import json

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main as cli
from mempalace.errors import PlaceNotFoundError
from mempalace.ingest.room_alternatives import name_alternatives

SLEEP = [
    "User: Our baby wakes every two hours. Is sleep training too early at five months?\n\n"
    "Assistant: Sleep training can start around four to six months. A bedtime routine helps first.",
    "User: We tried the bedtime routine for a week. Sleep training with short checks next?\n\n"
    "Assistant: Yes: short checks every few minutes; keep the bedtime routine the same each night.",
    "User: The night feeds still wake her. Should night feeds stop before sleep training?\n\n"
    "Assistant: Drop one night feed at a time; a steady bedtime routine makes sleep training easier.",
]


def _file(palace: Palace, texts: list[str], wing: str, room: str) -> None:
    for n, text in enumerate(texts):
        palace.add_drawer(text, wing, room, source_file=f"{room}-{n}.txt")


def test_other_names_come_from_the_rooms_conversations_and_leave_out_names_in_use(palace):
    _file(palace, SLEEP, "wing_home", "baby")
    _file(palace, ["User: Bedtime routine for the dog? It barks at night.\n\nAssistant: Walk it before bed."],
          "wing_pets", "bedtime-routine")
    found = name_alternatives(palace, "baby")
    assert found and "baby" not in found
    assert "bedtime-routine" not in found  # another room's name
    assert {"sleep-training", "night-feeds"} & set(found)


def test_an_unknown_room_is_a_clear_error(palace):
    _file(palace, SLEEP, "wing_home", "baby")
    with pytest.raises(PlaceNotFoundError, match="No room 'babby'"):
        name_alternatives(palace, "babby")


def test_rooms_names_shows_earlier_and_other_names(palace_path, settings):
    with Palace.open(palace_path, settings=settings) as palace:
        _file(palace, SLEEP, "wing_home", "baby")
        palace.rename_room("baby", "infant")
    runner = CliRunner()
    shown = runner.invoke(cli, ["--palace", str(palace_path), "rooms", "--names", "baby"])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0] == "infant  (3 drawers)"
    assert lines[1] == "  earlier names: baby"
    assert "sleep-training" in lines[2] and lines[3].startswith("  to rename: mempalace rename-room infant ")
    data = json.loads(runner.invoke(cli, ["--palace", str(palace_path), "--json", "rooms", "--names", "infant"]).output)
    assert data["room"] == "infant" and data["earlier"] == ["baby"] and "sleep-training" in data["alternatives"]
    wrong = runner.invoke(cli, ["--palace", str(palace_path), "rooms", "--names", "infant", "--rebuild"])
    assert wrong.exit_code != 0 and "use it alone" in wrong.output


def test_a_scoped_view_names_a_room_from_its_own_wings_only(palace):
    from mempalace.access.rules import token_grant
    from mempalace.scoped.palace import ScopedPalace

    _file(palace, SLEEP, "wing_home", "baby")
    _file(palace, ["User: Who keeps the nightjar ledger for the baby fund? The nightjar ledger is late.",
                   "Assistant: Quarterly totals go in the nightjar ledger; audits read the nightjar ledger twice."],
          "wing_secret", "baby")
    assert any("nightjar" in name for name in name_alternatives(palace, "baby", count=20))
    scoped = ScopedPalace(palace, token_grant("t", "viewer", ("wing_home",)))
    found = name_alternatives(scoped, "baby", count=20)
    assert found and not any("nightjar" in name for name in found)


def test_a_name_held_out_of_sight_or_an_earlier_name_is_never_offered(palace):
    from mempalace.access.rules import token_grant
    from mempalace.errors import InvalidInputError
    from mempalace.scoped.palace import ScopedPalace

    _file(palace, SLEEP, "wing_home", "baby")
    assert "sleep-training" in name_alternatives(palace, "baby")
    _file(palace, ["User: Sleep training for a puppy in a crate?\n\nAssistant: Yes, short stays first."],
          "wing_secret", "sleep-training")
    _file(palace, ["User: Bedtime routine for the cat?\n\nAssistant: Feed it late."], "wing_home", "cats")
    palace.rename_room("cats", "pets")  # `cats` is now an earlier name
    scoped = ScopedPalace(palace, token_grant("t", "editor", ("wing_home",)))
    found = name_alternatives(scoped, "baby", count=20)
    assert found and "sleep-training" not in found and "cats" not in found
    with pytest.raises(InvalidInputError, match="taken in this palace") as refused:
        scoped.rename_room("baby", "Sleep training")
    assert "secret" not in str(refused.value) and "merge" not in str(refused.value)
