"""Cutting a conversation into topics: a short chat that changes topic in its first or last drawer is
cut there, however short, and a chat of one topic is not; a part whose best name is a room's joins it a bit
sooner (hand-made vectors)."""

from __future__ import annotations

import numpy as np

from mempalace.embedding.embedders import LikenessScale
from mempalace.rooms.naming import RoomChooser
from mempalace.rooms.choice import STRAY_LIKENESS, TopicRooms, strays_apart

GARDEN = "The tomato seedlings need compost in the raised beds before the frost."
DATABASE = "The database upgrade needs a rollback plan and a downtime window."


def _chat(*cosines: float) -> np.ndarray:
    """Unit vectors, the first along x and each other one `cosine` alike to it."""
    return np.array([[1.0, 0.0]] + [[c, float(np.sqrt(1 - c * c))] for c in cosines], np.float32)


def test_a_two_drawer_chat_that_changes_topic_gets_two_rooms() -> None:
    rooms = TopicRooms(RoomChooser([]))
    first, second = rooms.assign("wing_a", _chat(0.0), [GARDEN, DATABASE])
    assert first != second


def test_a_two_drawer_chat_of_one_topic_keeps_one_room() -> None:
    rooms = TopicRooms(RoomChooser([]))
    first, second = rooms.assign("wing_a", _chat(0.5), [GARDEN, GARDEN])
    assert first == second


def test_only_a_first_or_last_drawer_unlike_the_rest_of_its_part_stands_alone() -> None:
    vectors = np.array([[1.0, 0.0], [0.98, 0.199], [1.0, 0.0], [0.0, 1.0]], np.float32)
    assert strays_apart(vectors, [(0, 4)], 0.1) == [(0, 3), (3, 4)]
    assert strays_apart(vectors[::-1].copy(), [(0, 4)], 0.1) == [(0, 1), (1, 4)]
    assert strays_apart(vectors[:3], [(0, 3)], 0.1) == [(0, 3)]
    assert strays_apart(vectors, [(0, 2), (2, 4)], 0.1) == [(0, 2), (2, 3), (3, 4)]


def test_the_bar_follows_the_embedders_spread() -> None:
    tight = 0.9 * STRAY_LIKENESS  # below MiniLM's bar, above the bar of a model that spreads half as wide
    assert len(set(TopicRooms(RoomChooser([])).assign("wing_a", _chat(tight), [GARDEN, DATABASE]))) == 2
    spread = TopicRooms(RoomChooser([]), scale=LikenessScale(spread=0.5))
    assert len(set(spread.assign("wing_a", _chat(tight), [GARDEN, DATABASE]))) == 1


def test_a_part_without_topic_words_joins_no_other_wings_room_below_the_bar_but_its_own_wings() -> None:
    rooms = TopicRooms(RoomChooser([]))
    [server] = rooms.assign("wing_a", np.array([[1.0, 0.0, 0.0]], np.float32),
                            ["The phoenix server does not start after the upgrade; the server log says why."])
    [garden] = rooms.assign("wing_a", np.array([[0.0, 1.0, 0.0]], np.float32), [GARDEN])  # wing_a's last room
    assert "general" not in (server, garden) and server != garden
    near = np.array([[0.25, 0.0, float(np.sqrt(1 - 0.25**2))]], np.float32)  # a bit like server, no topic word
    assert rooms.assign("wing_b", near, ["ok, thanks!"]) == ["general"]
    assert rooms.assign("wing_a", near, ["ok, thanks!"]) == [server]


MORTGAGE = ["The mortgage rate went up again, so the mortgage payment grows.",
            "Should we lock the mortgage now or wait for the bank?"]


def _a_bit_less_alike_than_joining_needs(rooms: TopicRooms, texts: list[str]) -> str:
    """The room of a two-drawer part at cosine 0.2 to the mortgage room: joining needs a bit more."""
    vectors = np.array([[0.2, float(np.sqrt(1 - 0.2**2)), 0.0]] * 2, np.float32)
    return rooms.assign("wing_a", vectors, texts)[0]


def test_a_part_whose_best_name_is_a_rooms_joins_it_when_nearly_alike_enough() -> None:
    rooms = TopicRooms(RoomChooser([]))
    [mortgage, _] = rooms.assign("wing_a", np.array([[1.0, 0.0, 0.0]] * 2, np.float32), MORTGAGE)
    appraisal = ["Our mortgage appraisal came in low, so the mortgage lender hesitates.",
                 "The lender wants another appraisal before the mortgage closes."]
    assert mortgage == "mortgage"
    assert _a_bit_less_alike_than_joining_needs(rooms, appraisal) == "mortgage"  # not a room `appraisal`


def test_a_part_named_otherwise_that_is_as_alike_opens_its_own_room() -> None:
    rooms = TopicRooms(RoomChooser([]))
    rooms.assign("wing_a", np.array([[1.0, 0.0, 0.0]] * 2, np.float32), MORTGAGE)
    sourdough = ["Our sourdough starter came in slow, so the sourdough baker hesitates.",
                 "The baker wants another starter before the sourdough proofs."]
    assert _a_bit_less_alike_than_joining_needs(rooms, sourdough) == "sourdough"


def test_a_stored_room_keeps_its_name_s_claim_after_a_far_part_wanting_it_opens_elsewhere() -> None:
    rooms = TopicRooms(RoomChooser(["mortgage"]))
    rooms.observe("wing_a", np.array([[1.0, 0.0, 0.0]] * 2, np.float32))
    rooms.remember("mortgage", "wing_a", np.array([[1.0, 0.0, 0.0]] * 2, np.float32), MORTGAGE)
    puppy = ["The mortgage is due. The puppy chewed the sofa; the puppy needs training.",
             "About the mortgage: paid. Mortgage done. Puppy training is Friday."]
    assert rooms.assign("wing_a", np.array([[-1.0, 0.0, 0.0]] * 2, np.float32), puppy)[0] != "mortgage"
    appraisal = ["Our mortgage appraisal came in low, so the mortgage lender hesitates.",
                 "The lender wants another appraisal before the mortgage closes."]
    assert _a_bit_less_alike_than_joining_needs(rooms, appraisal) == "mortgage"
