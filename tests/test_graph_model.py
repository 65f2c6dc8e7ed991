"""Room-merge suggestions on the real model, against 140 labelled pairs of room names
(tests/data/room_merge_pairs.jsonl: 70 that mean the same concept, 70 that do not).

One palace holds every room name exactly as written (stored through Chroma as another tool would, so
`GPU Pricing` stays unnormalised), each room's sentence(s) as drawers, spread over seven wings.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.config import load_settings
from mempalace.graph import suggest_room_merges
from mempalace.graph.merges import DEFAULT_MIN_SCORE
from mempalace.models import MergeSuggestion
from mempalace.store.chroma import SEQ_KEY
from mempalace.catalog.sync import new_stamp

pytestmark = pytest.mark.model

PAIRS_FILE = Path(__file__).parent / "data" / "room_merge_pairs.jsonl"
WINGS = [f"wing_{name}" for name in ("kai", "priya", "driftwood", "orion", "lena", "marco", "sol")]
MIN_SAME_FOUND = 35  # of 70; 40 when this was written
MAX_DIFFERENT_FOUND = 5  # of 70; 3 when this was written


def load_pairs() -> list[dict]:
    with PAIRS_FILE.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


PAIRS = load_pairs()


def room_texts(pairs: list[dict]) -> dict[str, list[str]]:
    """{room name as written: its distinct sentences}, in file order."""
    texts: dict[str, list[str]] = {}
    for pair in pairs:
        for name, text in ((pair["a"], pair["text_a"]), (pair["b"], pair["text_b"])):
            found = texts.setdefault(name, [])
            if text not in found:
                found.append(text)
    return texts


@pytest.fixture(scope="module")
def suggestions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[MergeSuggestion], dict]]:
    """One palace on the real model; yields (every suggestion at the default min_score, its room counts)."""
    root = tmp_path_factory.mktemp("room-merges")
    settings = load_settings(root / "home", embedder="minilm-int8")
    drawers = [(room, text) for room, texts in room_texts(PAIRS).items() for text in texts]
    with Palace.open(root / "palace", settings=settings) as palace:
        assert palace.settings.embedder == "minilm-int8"
        vectors = palace.embed([text for _, text in drawers])
        ids = [f"drawer_pair_{i:04d}" for i in range(len(drawers))]
        metadatas = [{"wing": WINGS[i % len(WINGS)], "room": room, SEQ_KEY: new_stamp()}
                     for i, (room, _) in enumerate(drawers)]
        palace._store.add(ids, [text for _, text in drawers], metadatas, vectors)
        palace._store.bump_marker()
        rooms = palace.list_rooms()
        yield suggest_room_merges(palace, limit=1000), rooms


def test_the_data_set_is_as_described() -> None:
    assert len(PAIRS) == 140
    assert sum(p["same"] for p in PAIRS) == 70
    assert all(p["a"] != p["b"] and p["text_a"] and p["text_b"] for p in PAIRS)


def test_the_palace_keeps_every_room_name_as_written(suggestions) -> None:
    _, rooms = suggestions
    texts = room_texts(PAIRS)
    assert rooms == {room: len(found) for room, found in texts.items()}
    assert {"GPU Pricing", "gpu-pricing", "ML_pipeline", "React Native App"} <= set(rooms)


def test_suggestions_are_well_formed(suggestions) -> None:
    found, rooms = suggestions
    assert found
    assert len({frozenset((s.source, s.target)) for s in found}) == len(found)
    for s in found:
        assert 0 < s.score <= 1, s
        assert s.score >= DEFAULT_MIN_SCORE, s
        assert s.source != s.target, s
        assert s.source in rooms and s.target in rooms, s
        assert (s.source_count, s.target_count) == (rooms[s.source], rooms[s.target]), s
        assert s.reasons, s
        assert set(s.source_wings) <= set(WINGS) and set(s.target_wings) <= set(WINGS), s
    scores = [s.score for s in found]
    assert scores == sorted(scores, reverse=True)


def test_labelled_pairs_meet_the_targets(suggestions) -> None:
    found, _ = suggestions
    suggested = {frozenset((s.source, s.target)) for s in found}
    same = [p for p in PAIRS if p["same"]]
    different = [p for p in PAIRS if not p["same"]]
    hits = [(p["a"], p["b"]) for p in same if frozenset((p["a"], p["b"])) in suggested]
    false_merges = [(p["a"], p["b"], p["note"]) for p in different if frozenset((p["a"], p["b"])) in suggested]
    assert len(hits) >= MIN_SAME_FOUND, f"only {len(hits)} of {len(same)} same-concept pairs suggested: {hits}"
    assert len(false_merges) <= MAX_DIFFERENT_FOUND, f"{len(false_merges)} false merges: {false_merges}"


def test_spelling_variants_score_as_documented(suggestions) -> None:
    found, _ = suggestions
    by_pair = {frozenset((s.source, s.target)): s for s in found}
    same_slug = by_pair[frozenset(("auth-migration", "auth_migration"))]
    assert same_slug.score == 1.0 and same_slug.reasons == ("the same name once normalised",)
    # on equal counts the slug-shaped name is the target
    assert by_pair[frozenset(("meal-prep", "meal_prep"))].target == "meal-prep"
