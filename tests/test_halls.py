"""The hall classifier: cue rules alone, and cues plus labelled examples on the real model.

The two held-out sets in tests/data were written by people who never saw the classifier or the
training examples (`mempalace/ingest/hall_examples.jsonl`); the accuracy floor here is the issue's
80 % target, measured at 82 % and 85 % when they were first run.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mempalace.embedding import HashEmbedder, MiniLMInt8
from mempalace.ingest.halls import HallClassifier, classify_hall, hall_scores
from mempalace.models import HALLS

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("text, hall", [
    ("We decided to use Postgres 16 for the billing service.", "hall_facts"),
    ("Yesterday the deploy failed at 14:00 and we rolled back.", "hall_events"),
    ("Turns out the memory leak was caused by the cache never evicting sessions.", "hall_discoveries"),
    ("I really prefer tabs over spaces and I hate long meetings.", "hall_preferences"),
    ("You should pin your dependencies; make sure CI uses the lock file.", "hall_advice"),
    ("The sky.", "hall_facts"),  # no cue at all: a fact
])
def test_cues_alone_pick_the_obvious_hall(text: str, hall: str) -> None:
    assert classify_hall(text) == hall


def test_scores_cover_every_hall_and_are_deterministic() -> None:
    text = "Turns out you should always prefer the decided plan from yesterday's meeting."
    assert set(hall_scores(text)) == set(HALLS)
    assert hall_scores(text) == hall_scores(text)


def test_classifier_returns_one_hall_per_text_with_or_without_vectors() -> None:
    embedder = HashEmbedder()
    classifier = HallClassifier(embedder.embed)
    texts = ["Kai always drinks tea.", "Restart the worker after changing the queue size.", ""]
    with_vectors = classifier.classify(texts, embedder.embed(texts))
    assert len(with_vectors) == 3 and set(with_vectors) <= set(HALLS)
    assert classifier.classify(texts) == classifier.classify(texts)


@pytest.mark.model
@pytest.mark.parametrize("name", ["halls_holdout.jsonl", "halls_holdout2.jsonl"])
def test_held_out_accuracy_meets_the_target_on_the_real_model(name: str) -> None:
    rows = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    model = MiniLMInt8()
    texts = [r["text"] for r in rows]
    predicted = HallClassifier(model.embed).classify(texts, model.embed(texts))
    accuracy = sum(p == r["hall"] for p, r in zip(predicted, rows)) / len(rows)
    assert len(rows) == 100 and accuracy >= 0.80


@pytest.mark.model
def test_the_shipped_centroids_match_the_examples_and_the_model() -> None:
    from importlib import resources

    from mempalace.ingest.halls import centroids_file_name, compute_centroids

    shipped = resources.files("mempalace.ingest").joinpath(centroids_file_name("minilm-int8"))
    assert shipped.is_file(), ("hall_examples.jsonl changed: run python -c 'from mempalace.ingest.halls "
                               "import save_shipped_centroids as s; s()' and commit the new .npy")
    with shipped.open("rb") as handle:
        assert np.allclose(np.load(handle), compute_centroids(MiniLMInt8().embed), atol=1e-4)
