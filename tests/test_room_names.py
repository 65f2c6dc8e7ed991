"""Room names people can trust: places and products may name rooms, people never; renames keep old
names working everywhere (search, browse, add, the CLI); a person's name for a room is never undone;
re-ingesting renames nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from _cli import as_json, ok
from mempalace.cli import main
from mempalace.errors import InvalidInputError
from mempalace.ingest import ingest
from mempalace.rooms.part_phrases import read_part
from mempalace.rooms.naming import Meaning, PhraseTally, RoomChooser

LISBON = ["We land in Lisbon on Friday; what should we see in Lisbon first?",
          "For Lisbon, start with Alfama and the tram 28, then Belem for the pasteis.",
          "Is three days in Lisbon enough, or should we add Sintra?"]
TERRAFORM = ["Moving our infrastructure to Terraform: which modules first?",
             "Start the Terraform state in a remote backend, then import the VPC into Terraform.",
             "Terraform plan shows 40 changes after the import."]
WITH_PEOPLE = ["Marisol said the pottery glaze cracked again in the kiln.",
               "Ask Marisol about the glaze recipe; Dr. Okafor thinks the pottery kiln runs hot.",
               "The glaze on the pottery needs a slower cool down, Marisol agrees."]


def tokens(room: str) -> set[str]:
    return set(room.split("-"))


def meaning_ranker(texts: list[str]) -> Meaning:
    """What ingest ranks names against: the real model and `texts`' mean vector."""
    from mempalace.embedding.embedders import load_embedder

    model = load_embedder("minilm-int8")
    return Meaning(model.embed, model.embed(texts).sum(axis=0))


@pytest.mark.model
def test_a_place_or_a_product_names_a_room() -> None:
    for texts, word in ((LISBON, "lisbon"), (TERRAFORM, "terraform")):
        room = RoomChooser([]).choose(texts, names=["User", "Assistant"], rank=meaning_ranker(texts))
        assert word in tokens(room), room


def test_a_mentioned_person_or_a_speaker_never_names_a_room() -> None:
    room = RoomChooser([]).choose(WITH_PEOPLE, names=["Kenji", "Assistant"])
    assert not tokens(room) & {"marisol", "okafor", "kenji", "dr"}, room
    spoken = RoomChooser([]).choose(["Kenji: the glaze cracked", "Kenji again: the glaze"], names=["Kenji Watanabe"])
    assert "kenji" not in tokens(spoken) and "watanabe" not in tokens(spoken), spoken


def test_a_handle_made_of_a_speakers_name_is_a_person() -> None:
    part = read_part(["Fix the glaze tests - kwatanabe", "Glaze tests pass - kwatanabe"], names=["Kenji Watanabe"])
    assert not any("kwatanabe" in key for key in part.support)


def test_a_room_is_named_from_all_its_parts() -> None:
    first = ["The tomato blight spread to the peppers; should I spray copper?",
             "Blight again on the lower leaves of the tomato plants."]
    later = [["Planning the vegetable garden: raised beds or in-ground rows?", "The vegetable garden needs compost."],
             ["Which vegetables grow in partial shade in a small vegetable garden?", "My vegetable garden gets 4 hours."],
             ["Fall prep for the vegetable garden: mulch the beds.", "Cover crops for the vegetable garden over winter."]]
    chooser = RoomChooser([])
    alone = chooser.best(PhraseTally([read_part(first)]))[0]
    together = chooser.best(PhraseTally([read_part(first)] + [read_part(p) for p in later]))[0]
    assert "garden" not in tokens(alone) and "garden" in tokens(together), (alone, together)


def test_a_generic_word_names_a_room_only_beside_a_specific_one() -> None:
    flaky = [["The flaky tests failed twice on main today.", "Retry the flaky tests before merging?"],
             ["Quarantine the flaky tests in CI.", "Two more flaky tests this week."]]
    named = RoomChooser([]).best(PhraseTally([read_part(p) for p in flaky]))[0]
    assert named == "flaky-tests", named
    bare = [["Run the tests again.", "The tests pass now."], ["More tests for the parser.", "Tests are green."]]
    assert RoomChooser([]).best(PhraseTally([read_part(p) for p in bare]))[0] != "tests"


def test_a_renamed_room_is_found_by_its_old_name_everywhere(palace) -> None:
    palace.add_drawer("The blight reached the tomatoes.", "wing_home", "blight")
    palace.add_drawer("Raised beds for the vegetable patch.", "wing_work", "blight")
    result = palace.rename_room("blight", "Vegetable Garden")
    assert (result.old, result.new, result.moved, result.aliases) == ("blight", "vegetable-garden", 2, ("blight",))
    assert set(palace.list_rooms()) == {"vegetable-garden"}
    assert palace.room_aliases() == {"blight": "vegetable-garden"}
    assert {h.room for h in palace.search("tomatoes", room="blight")} == {"vegetable-garden"}
    assert palace.browse(room="blight")[0] == 2
    added = palace.add_drawer("Mulch the beds before the frost.", "wing_home", "blight")
    assert palace.get_drawer(added.drawer_ids[0]).room == "vegetable-garden"
    assert palace.resolve_room("Blight") == "vegetable-garden"
    with pytest.raises(InvalidInputError, match="already has that name"):
        palace.rename_room("blight", "vegetable-garden")


def test_renaming_twice_keeps_every_earlier_name(palace) -> None:
    palace.add_drawer("The blight reached the tomatoes.", "wing_home", "blight")
    palace.rename_room("blight", "tomatoes")
    palace.rename_room("tomatoes", "vegetable-garden")
    assert palace.room_aliases() == {"blight": "vegetable-garden", "tomatoes": "vegetable-garden"}
    assert palace.browse(room="tomatoes")[0] == palace.browse(room="blight")[0] == 1


def _transcript(path: Path, turns: list[tuple[str, str]]) -> Path:
    path.write_text("".join(f"{speaker}: {text}\n" for speaker, text in turns), encoding="utf-8")
    return path


GARDEN = [("User", "The vegetable garden beds need compost before planting."),
          ("Assistant", "Mix two inches of compost into the vegetable garden beds."),
          ("User", "Which vegetables should go in the vegetable garden first?"),
          ("Assistant", "Peas and lettuce go into the vegetable garden first.")]


def test_a_persons_name_for_a_room_is_never_undone_and_reingest_renames_nothing(palace, tmp_path: Path) -> None:
    first = _transcript(tmp_path / "garden.txt", GARDEN)
    assert not ingest(palace, first, wing="wing_home").errors
    (room,) = palace.list_rooms("wing_home")
    palace.rename_room(room, "allotment")
    assert not ingest(palace, first, wing="wing_home").errors  # the same file again
    more = _transcript(tmp_path / "garden2.txt", [(s, t.replace("first", "next")) for s, t in GARDEN])
    assert not ingest(palace, more, wing="wing_home").errors
    assert "allotment" in palace.list_rooms("wing_home")
    assert room not in palace.list_rooms()


def test_reingesting_the_same_files_renames_nothing(palace, tmp_path: Path) -> None:
    path = _transcript(tmp_path / "garden.txt", GARDEN)
    ingest(palace, path, wing="wing_home")
    before = (palace.list_rooms(), palace.room_aliases())
    report = ingest(palace, path, wing="wing_home")
    assert report.added == 0 and not report.errors
    assert (palace.list_rooms(), palace.room_aliases()) == before


def test_cli_renames_a_room_and_lists_its_old_name(tmp_path: Path) -> None:
    runner = CliRunner()

    def cli(*args: str):
        return runner.invoke(main, ["--palace", str(tmp_path / "p"), *args])

    ok(cli("add", "--wing", "wing_home", "--room", "blight", "The blight reached the tomatoes."))
    renamed = as_json(cli("rename-room", "blight", "vegetable-garden", "--json"))
    assert (renamed["old"], renamed["new"], renamed["aliases"]) == ("blight", "vegetable-garden", ["blight"])
    assert "vegetable-garden  (was blight)" in ok(cli("rooms")).stdout
    ok(cli("add", "--wing", "wing_home", "--room", "blight", "Mulch before the frost."))
    assert as_json(cli("rooms", "--json")) == {"vegetable-garden": 2}


def test_add_to_a_new_room_that_means_an_existing_one_suggests_it(tmp_path: Path) -> None:
    runner = CliRunner()

    def cli(*args: str):
        return runner.invoke(main, ["--palace", str(tmp_path / "p"), *args])

    ok(cli("add", "--wing", "wing_home", "--room", "auth-migration", "We moved login to OAuth."))
    said = ok(cli("add", "--wing", "wing_work", "--room", "migrating auth", "Mobile login broke after the move."))
    assert "did you mean 'auth-migration'?" in said.stdout
    assert as_json(cli("rooms", "--json")) == {"auth-migration": 1, "migrating-auth": 1}  # never silently
    filed = as_json(cli("add", "--wing", "wing_work", "--room", "Migrating Auths", "--closest-room",
                        "SSO users need a new token.", "--json"))
    assert filed["did_you_mean"] is None
    assert as_json(cli("rooms", "--json"))["auth-migration"] == 2
    unrelated = as_json(cli("add", "--wing", "wing_home", "--room", "sourdough", "Feed the starter.", "--json"))
    assert unrelated["did_you_mean"] is None


@pytest.mark.model
def test_a_synonym_of_a_room_is_suggested(model_palace) -> None:
    from mempalace.graph.merges import same_concept_room

    model_palace.add_drawer("Our EKS cluster moves from 1.29 to 1.31.", "wing_ops", "kubernetes-upgrade")
    model_palace.add_drawer("Sourdough starter smells of acetone.", "wing_home", "sourdough")
    assert same_concept_room(model_palace, "k8s-upgrade") == "kubernetes-upgrade"
    assert same_concept_room(model_palace, "kubernetes-upgrade") is None  # the room itself
    assert same_concept_room(model_palace, "tax-forms") is None


def _chat(path: Path, lines: list[str]) -> Path:
    return _transcript(path, [("User" if n % 2 == 0 else "Assistant", text) for n, text in enumerate(lines)])


BEDS = ["Building raised beds for my vegetable garden: cedar or pine boards?",
        "Cedar raised beds last ten years; line pine raised beds and they last five.",
        "How deep should the raised beds be?",
        "Ten inches of soil in raised beds is enough for most crops; fill the raised beds with compost."]
GARDENS = [["I want to start a vegetable garden this spring in the backyard.",
            "For a first vegetable garden, start with raised beds, good compost and easy crops like lettuce and beans.",
            "How big should the vegetable garden be?",
            "Two raised beds of four by eight feet are plenty for a first vegetable garden."],
           ["Which vegetables can I grow in a shady vegetable garden?",
            "Leafy greens, peas and herbs handle shade; fruiting crops need six hours of sun in a vegetable garden.",
            "And when do I plant the vegetable garden?",
            "Sow peas and greens after the last frost, then beans and squash once the soil warms."],
           ["Getting the vegetable garden ready for winter: what should I do?",
            "Pull spent crops, add compost, mulch the beds and sow a cover crop in the vegetable garden.",
            "Do I leave the roots in the garden beds?",
            "Yes, cut plants at the soil line: the roots feed the soil of the vegetable garden."]]


@pytest.mark.model
def test_a_room_named_from_its_first_chat_is_renamed_as_it_grows(model_palace, tmp_path: Path) -> None:
    ingest(model_palace, _chat(tmp_path / "beds.txt", BEDS), wing="wing_a")
    (first,) = model_palace.list_rooms()
    for n, lines in enumerate(GARDENS):
        report = ingest(model_palace, _chat(tmp_path / f"garden{n}.txt", lines), wing=f"wing_{'bcd'[n]}")
        assert not report.errors, report.errors
    rooms = model_palace.list_rooms()
    assert len(rooms) == 1 and "garden" in next(iter(rooms)), rooms
    (now,) = rooms
    assert now != first and model_palace.room_aliases() == {first: now}
    assert {h.room for h in model_palace.search("cedar boards", room=first)} == {now}


SHARED_TOOL = ["Docker keeps rebuilding the whole image when I change one line of the Django app.",
               "Order the Dockerfile so requirements install before the app code is copied.",
               "Docker compose also restarts the database each time.",
               "Mount the app as a volume in docker compose for development instead."]
OTHER_USE = ["Our team's wiki runs in Docker; we need a policy for archiving stale onboarding pages.",
             "Tag each wiki page with an owner and a review date; archive pages nobody reviewed in a year.",
             "Who decides what counts as stale documentation for new hires?",
             "Each page owner; the onboarding checklist links only reviewed documentation."]


@pytest.mark.model
def test_two_unrelated_chats_sharing_a_tool_word_get_two_rooms(model_palace, tmp_path: Path) -> None:
    ingest(model_palace, _chat(tmp_path / "build.txt", SHARED_TOOL), wing="wing_a")
    ingest(model_palace, _chat(tmp_path / "wiki.txt", OTHER_USE), wing="wing_b")
    assert not set(model_palace.list_rooms("wing_a")) & set(model_palace.list_rooms("wing_b")), (
        model_palace.list_rooms("wing_a"), model_palace.list_rooms("wing_b"))
    assert not any("docker" == room for room in model_palace.list_rooms())


def test_a_command_word_and_a_plural_in_ies_do_not_make_new_names() -> None:
    part = read_part(["mix phx.server doesnt seem to start", "run mix phx.server again"])
    assert "mix" not in part.support
    chooser = RoomChooser(["city"])
    assert chooser.choose(["The cities layer needs more cities.", "Cities again: the cities map."]) != "cities"


def test_a_name_one_room_gives_up_can_go_to_the_next_and_renames_apply_in_that_order(palace) -> None:
    import numpy as np

    from mempalace.rooms.choice import TopicRooms

    rooms = TopicRooms(RoomChooser(["talk", "reminders"]))
    vector = np.ones((1, 8), np.float32)
    garden = ["The vegetable garden beds need compost.", "Vegetable garden beds and compost again."]
    chat = ["Let us talk about the talk show.", "The talk show talk was fun."]
    for room, texts, extra in (("talk", garden, 3), ("reminders", chat, 1)):
        rooms.remember(room, "wing_a", vector, texts[:1])
        profile = rooms._profiles[room]
        for n in range(extra + 1):
            profile.said.add(read_part(texts, wing=f"wing_{n}"))
        profile.wings["wing_a"] += extra
        rooms._grown.add(room)
    renamed = rooms.settle_names()
    (first, garden), second = renamed.items()
    assert first == "talk" and "garden" in garden and second == ("reminders", "talk"), renamed
    palace.add_drawer("garden notes", "wing_a", "talk")
    palace.add_drawer("show notes", "wing_a", "reminders")
    for old, new in renamed.items():  # as ingest applies them: in the order chosen
        palace.rename_room(old, new)
    assert set(palace.list_rooms()) == {garden, "talk"}


def test_an_adjective_written_only_before_a_noun_never_names_a_room_alone() -> None:
    said = [["Quick question: can the annealer run on several cores at once?", "Take a quick look at the annealer."],
            ["Quick fix for the annealer's cooling schedule.", "The annealer's schedule cools too fast."]]
    part = read_part(said[0])
    assert "quick" in part.modifiers and "annealer" not in part.modifiers
    assert "quick" not in tokens(RoomChooser([]).best(PhraseTally([read_part(p) for p in said]))[0])
    standing = read_part(["The general said the dawn attack was on.", "Ask the general."])
    assert "general" not in standing.modifiers  # a noun here: written alone


def test_a_word_the_lexicon_lacks_that_is_built_as_a_verb_never_names_a_room() -> None:
    from mempalace.language.lexicon import can_head

    assert not any(can_head(w) for w in ("parallelize", "parallelized", "dockerise", "jsonify"))
    assert all(can_head(w) for w in ("kubernetes", "enterprise", "franchise", "terraform"))


def test_a_compound_a_short_word_binds_is_one_word_of_a_name() -> None:
    from mempalace.language.lexicon import can_head

    part = read_part(["Who covers the on-call rotation over the holidays?", "The on-call pager woke me at 3am.",
                      "Clone traveling-sailor before the e-mail goes out."])
    assert {"on-call", "on-call rotation", "e-mail", "traveling sailor"} <= set(part.surface.values())
    assert not {"call", "traveling-sailor"} & set(part.surface.values())  # two topic words stay two
    assert all(can_head(w) for w in ("on-call", "check-in", "traveling-sailor"))
    assert not any(can_head(w) for w in ("read-only", "user-friendly"))
    said = PhraseTally([read_part(p) for p in ([["Who takes the on-call shift this weekend?", "My on-call week was rough."],
                                                 ["Swap on-call with me?", "The on-call handoff doc is stale."]])])
    chooser = RoomChooser([])
    name, score, own = chooser.best(said, current="on-call")
    assert name == "on-call" and own == score > 0  # a room keeps its own hyphened name's score
    chooser.take("on-call")
    assert chooser.best(said)[0] != "on-call"  # and no second room gets it
    assert read_part(["rate-limiting", "rate limiting"]).support.keys() >= {"limit-rate"}


def test_a_hyphened_word_is_its_parts_when_they_only_join_or_name_people() -> None:
    part = read_part(["Mary-Jane wrote the how-to guide and a to-do list for twenty-five dollars",
                      "Jean-Luc: the kenji-san handoff"], names=["Jean-Luc Picard", "Kenji Watanabe"])
    words = {w for s in part.surface.values() for w in s.split()}
    assert not {"mary-jane", "how-to", "to-do", "twenty-five", "jean-luc", "kenji-san", "mary", "jean", "kenji"} & words
    wing = RoomChooser([], wings=["wing_call_center"])
    said = [["Who is on-call tonight?", "The on-call phone rang."], ["on-call again this week"]]
    assert "call" not in wing.best(PhraseTally([read_part(p) for p in said]))[0]  # a wing's word, inside one


def test_a_gerund_keeps_its_object_when_a_pair_is_cut_to_its_head() -> None:
    from mempalace.rooms.naming import _head_of

    final = {"limit-rate": 1.0, "limit": 0.95, "insomnia": 0.95, "chronic-insomnia": 1.0}
    spelling = {"limit-rate": "rate limiting", "limit": "limiting", "insomnia": "insomnia",
                "chronic-insomnia": "chronic insomnia"}
    assert _head_of("limit-rate", spelling, final) == "rate limiting"
    assert _head_of("chronic-insomnia", spelling, final) == "insomnia"
    final |= {"ceil-kitchen": 1.0, "ceil": 0.95}
    spelling |= {"ceil-kitchen": "kitchen ceiling", "ceil": "ceiling"}
    assert _head_of("ceil-kitchen", spelling, final) == "ceiling"  # a noun in -ing is no gerund


def test_time_and_day_may_end_a_name_beside_a_specific_word_but_never_name_alone() -> None:
    said = [["How much screen time should a nine year old get?", "Screen time before bed ruins her sleep."],
            ["We set a screen time limit on the tablet.", "The screen time report says four hours."]]
    assert RoomChooser([]).best(PhraseTally([read_part(p) for p in said]))[0] == "screen-time"
    alone = [["What time is it there?", "Any time works."], ["Same time tomorrow?", "Time flies."]]
    assert RoomChooser([]).best(PhraseTally([read_part(p) for p in alone]))[0] == "general"


def test_a_given_name_english_has_no_other_use_for_never_names_a_room_even_in_lower_case() -> None:
    from mempalace.language.lexicon import only_a_name

    assert only_a_name("enrique") and only_a_name("Enrique")
    assert not any(only_a_name(w) for w in ("grant", "amber", "will", "lisbon", "terraform", "mac", "alpha"))
    said = [["restart enrique please", "enrique crashed overnight"], ["enrique crashed again", "logs from enrique"]]
    assert "enrique" not in tokens(RoomChooser([]).best(PhraseTally([read_part(p) for p in said]))[0])


def test_a_contraction_typed_without_its_apostrophe_is_no_topic_word() -> None:
    part = read_part(["mix phx.server doesnt seem to start and i dont know why", "thats odd, the server doesnt boot"])
    assert not {"doesnt", "dont", "thats"} & {w for s in part.surface.values() for w in s.split()}
