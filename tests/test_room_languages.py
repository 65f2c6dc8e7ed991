"""Room choice across languages and embedders: words in scripts the two sides do not share never count
against a part, and each embedder's likeness is read on its own scale (hand-made vectors)."""

from __future__ import annotations

import numpy as np

from mempalace.embedding.embedders import LikenessScale
from mempalace.rooms.naming import RoomChooser
from mempalace.language.scripts import script_overlap, script_shares
from mempalace.rooms.choice import TopicRooms

ROOM = np.array([[1.0, 0.0, 0.0]] * 2, np.float32)


def _alike(cosine: float) -> np.ndarray:
    """Two drawers whose vectors are `cosine` alike to the room's."""
    return np.array([[cosine, float(np.sqrt(1 - cosine * cosine)), 0.0]] * 2, np.float32)


def _rooms_of(first: list[str], second: list[str], cosine: float, **kwargs) -> tuple[str, str]:
    rooms = TopicRooms(RoomChooser([]), **kwargs)
    (opened,) = set(rooms.assign("wing_a", ROOM, first))
    (chosen,) = set(rooms.assign("wing_b", _alike(cosine), second))
    return opened, chosen


CHINESE = ["数据库 升级 迁移 方案 回滚", "数据库 升级 停机 窗口 回滚"]
ENGLISH = ["The database upgrade needs a rollback plan.", "Schedule the database upgrade downtime window."]
GARDEN = ["The tomato seedlings need compost in the raised beds.", "Water the tomato beds before the frost."]


def test_a_part_in_another_script_is_judged_by_meaning_alone() -> None:
    opened, chosen = _rooms_of(CHINESE, ENGLISH, 0.3)
    assert chosen == opened


def test_a_part_in_the_same_script_with_no_common_words_still_counts_them() -> None:
    opened, chosen = _rooms_of(GARDEN, ENGLISH, 0.3)
    assert chosen != opened


def test_script_overlap_is_the_shared_share_of_the_words() -> None:
    mixed = script_shares({"数据库": 1.0, "snowflake": 1.0})
    assert mixed == {"CJK": 0.5, "LATIN": 0.5}
    assert script_overlap(mixed, script_shares({"warehouse": 2.0})) == 0.5
    assert script_overlap(script_shares({"склад": 1.0}), script_shares({"warehouse": 1.0})) == 0.0
    assert script_overlap({}, script_shares({"warehouse": 1.0})) == 1.0  # no words: nothing says they differ


def test_a_part_joins_on_the_likeness_its_embedder_declares() -> None:
    assert _rooms_of(GARDEN, ENGLISH, 0.3)[0] != _rooms_of(GARDEN, ENGLISH, 0.3)[1]
    opened, chosen = _rooms_of(GARDEN, ENGLISH, 0.3, scale=LikenessScale(join=1.25))  # a model that spreads topics less widely
    assert chosen == opened


def test_ingest_reads_likeness_on_the_palace_embedders_scale(palace, monkeypatch) -> None:
    from mempalace.embedding import embedders as embedding
    from mempalace.ingest.planning import topic_rooms

    declared = LikenessScale(join=1.25, spread=0.5)
    monkeypatch.setattr(embedding.HashEmbedder, "likeness", declared, raising=False)
    assert embedding.likeness_scale(palace.settings.embedder) == declared
    assert embedding.likeness_scale("minilm-int8") == LikenessScale()
    assert topic_rooms(palace)._scale == declared


def test_conversations_are_cut_at_the_cost_scaled_by_the_embedders_spread(monkeypatch) -> None:
    from mempalace.rooms import choice as topics

    penalties: list[float] = []

    def spy(vectors, penalty=None, longest=None):
        penalties.append(penalty)
        return [(0, len(vectors))]

    monkeypatch.setattr(topics, "topic_segments", spy)
    TopicRooms(RoomChooser([]), scale=LikenessScale(spread=0.5)).assign("wing_a", ROOM, ENGLISH)
    assert penalties == [topics.SEGMENT_PENALTY * 0.5]
