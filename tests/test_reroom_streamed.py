"""Re-rooming and re-halling read texts and vectors a batch at a time and give the same result as
reading them all; a room's phrase tally stays small however many parts it holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.ingest import ingest_paths, reroom as reroom_module
from mempalace.ingest.rehall import rehall
from mempalace.ingest.reroom import reroom
from mempalace.rooms.part_phrases import read_part
from mempalace.rooms.naming import KEPT_PHRASES, PhraseTally, RoomChooser

TOPICS = ("ledger service", "billing export", "garden compost", "marathon training", "tax return")


def _session(path: Path, topic: str, n: int, session: str) -> Path:
    lines = []
    for i in range(n):
        question = f"How should the {topic} handle case {i}?"
        answer = f"For case {i}: " + " ".join(f"the {topic} keeps step {i}-{j} in order." for j in range(14))
        for role, text in (("user", question), ("assistant", answer)):
            content = text if role == "user" else [{"type": "text", "text": text}]
            lines.append({"type": role, "sessionId": session, "cwd": f"/home/kai/{topic.split()[0]}",
                          "timestamp": "2026-01-01T10:00:00Z", "message": {"role": role, "content": content}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def filed(palace: Palace, tmp_path: Path) -> Palace:
    """Three ingests (three batches) of several conversations, and one drawer a person moved."""
    for run in range(3):
        paths = [_session(tmp_path / f"{run}-{n}.jsonl", topic, 2 + (n + run) % 3, f"s-{run}-{n}")
                 for n, topic in enumerate(TOPICS)]
        assert all(r.ok for r in ingest_paths(palace, paths))
    palace.move_drawers(palace.drawer_ids()[:1], room="kept-by-me")
    return palace


def _reads(palace: Palace, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every read of texts and vectors."""
    sizes: list[int] = []
    original = palace.with_vectors

    def counted(placed):
        sizes.append(len(placed))
        return original(placed)

    monkeypatch.setattr(palace, "with_vectors", counted)
    return sizes


def test_re_rooming_a_few_drawers_at_a_time_finds_the_same_moves(filed: Palace, monkeypatch) -> None:
    whole = reroom(filed, dry_run=True)
    sizes = _reads(filed, monkeypatch)
    monkeypatch.setattr(reroom_module, "READ_AT_ONCE", 3)  # the name each module imported
    small = reroom(filed, dry_run=True)
    assert (small.considered, small.kept, small.moves) == (whole.considered, whole.kept, whole.moves)
    longest = max(len(g) for g in _conversation_sizes(filed))
    assert sizes and max(sizes) <= max(3, longest)  # a conversation longer than a read is read alone
    assert sum(sizes) >= whole.considered  # every drawer ingest filed was read, none all at once


def _conversation_sizes(palace: Palace) -> list[list[str]]:
    groups: dict[str, list[str]] = {}
    for d in palace.room_inventory():
        groups.setdefault(d.parent_id, []).append(d.id)
    return list(groups.values())


def test_re_halling_a_few_drawers_at_a_time_finds_the_same_changes(filed: Palace, monkeypatch) -> None:
    whole = rehall(filed, dry_run=True)
    sizes = _reads(filed, monkeypatch)
    monkeypatch.setattr(reroom_module, "READ_AT_ONCE", 3)  # the name each module imported
    import mempalace.ingest.rehall as rehall_module

    monkeypatch.setattr(rehall_module, "READ_AT_ONCE", 3)
    small = rehall(filed, dry_run=True)
    assert (small.considered, small.kept, small.changes) == (whole.considered, whole.kept, whole.changes)
    assert whole.considered > 3 and sizes and max(sizes) <= 3


def test_the_inventory_holds_places_not_texts_or_vectors(filed: Palace) -> None:
    placed = filed.room_inventory()
    assert len(placed) == len(filed.drawer_ids())
    assert not hasattr(placed[0], "content") and not hasattr(placed[0], "vector")
    read = filed.with_vectors(placed[:2])
    assert [d.id for d in read] == [p.id for p in placed[:2]]
    assert read[0].content == filed.get_drawer(placed[0].id).content and read[0].vector.shape[0] > 0


def test_a_tally_of_parts_added_one_by_one_names_the_room_after_what_they_share() -> None:
    texts = [[f"The sourdough starter needs feeding {n} times.", f"Rye flour in the sourdough starter, batch {n}."]
             for n in range(6)]
    tally = PhraseTally()
    for n, text in enumerate(texts):
        tally.add(read_part(text, wing=f"wing_{n % 2}"))
    assert tally.parts == 6 and "sourdough" in RoomChooser([]).best(tally)[0]


def test_a_rooms_tally_stays_small_and_keeps_what_most_parts_say() -> None:
    tally = PhraseTally()
    for n in range(400):  # every part says "pension fund", and many words of its own
        words = " ".join(_made_up(n * 30 + k) for k in range(30))
        tally.add(read_part([f"The pension fund report {n}: {words}."], wing=f"wing_{n % 3}"))
    assert tally.parts == 400 and len(tally.phrases) <= 2 * KEPT_PHRASES
    assert tally.phrases["fund-pens"].users == 400
    assert RoomChooser([]).best(tally)[0] in ("pension-fund", "pension")


def _made_up(n: int) -> str:
    """A word of its own for each n (letters only)."""
    letters = ""
    while True:
        n, k = divmod(n, 26)
        letters += "abcdefghijklmnopqrstuvwxyz"[k]
        if not n:
            return "zor" + letters


def test_an_entry_naming_another_wing_than_the_drawers_is_not_read(filed: Palace) -> None:
    from dataclasses import replace

    placed = filed.room_inventory()[0]
    assert filed.with_vectors([replace(placed, wing="wing_somebody_else")]) == []  # moved, or forged
    assert [d.id for d in filed.with_vectors([placed])] == [placed.id]


def test_the_kept_stack_of_room_meanings_is_what_stacking_them_gives() -> None:
    from collections import Counter

    import numpy as np

    from mempalace.rooms.meanings import RoomMeanings
    from mempalace.rooms.profile import RoomProfile

    profiles = {"b": RoomProfile(np.ones(4, np.float32)), "a": RoomProfile(np.zeros(4, np.float32))}
    kept = RoomMeanings()
    for step, (room, meaning) in enumerate([("a", np.full(4, 0.1)), ("b", np.full(4, 0.2, np.float32)), ("c", None)]):
        if meaning is None:
            profiles[room] = RoomProfile(np.full(4, 3.0))  # a room opens
        else:
            profiles[room].add(meaning, Counter(), "wing_a", 1)  # float64 joins float32: as np.stack would
        kept.changed(room)
        names, sums, norms = kept.of(profiles)
        expected = np.stack([profiles[n].meaning for n in sorted(profiles)])
        assert names == sorted(profiles) and sums.dtype == expected.dtype and np.array_equal(sums, expected), step
        assert np.array_equal(norms, np.linalg.norm(expected, axis=1))


def test_remembering_a_rooms_conversations_at_once_is_remembering_each() -> None:
    import numpy as np

    from mempalace.rooms.choice import TopicRooms

    def palace_of_two_wings(seed: int) -> TopicRooms:
        rooms = TopicRooms(RoomChooser([]))
        rng = np.random.default_rng(seed)
        for wing in ("wing_a", "wing_b"):
            rooms.observe(wing, rng.standard_normal((40, 8)).astype(np.float32))
        return rooms

    rng = np.random.default_rng(7)
    groups = [(wing, rng.standard_normal((k, 8)).astype(np.float32), [f"text {k}"] * k)
              for wing, k in [("wing_a", 3), ("wing_b", 2), ("wing_a", 5), ("wing_b", 1), ("wing_a", 40)]]
    each, together = palace_of_two_wings(1), palace_of_two_wings(1)
    for wing, vectors, texts in groups:
        each.remember("sourdough", wing, vectors, texts)
    together.remember_many("sourdough", groups)
    one, many = each._profiles["sourdough"], together._profiles["sourdough"]
    assert np.array_equal(one.meaning, many.meaning) and np.array_equal(one.raw, many.raw)
    assert (one.wings, one.named_at) == (many.wings, many.named_at)
    assert [t() for t in one.unread] == [t() for t in many.unread]
    assert [(w, t()) for w, t in one.unnamed] == [(w, t()) for w, t in many.unnamed]
