"""The hall classifier: what it reads of a drawer, cue rules alone, and cues plus labelled examples
on the real model.

The two held-out sets in tests/data were written by people who never saw the classifier or the
training examples (`mempalace/halls/hall_examples*.jsonl`); their floors are what the classifier
measured on them before it could answer "no hall" (82 % and 85 %): abstaining must not cost clean
sentences their hall. Real drawers are scored in tests/test_halls_real.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mempalace.embedding.embedders import HashEmbedder, MiniLMInt8
from mempalace.halls.text import focus
from mempalace.halls.classifier import HallClassifier, classify_hall, hall_scores
from mempalace.models import HALLS

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("text, hall", [
    ("We decided to use Postgres 16 for the billing service.", "hall_facts"),
    ("Yesterday the deploy failed at 14:00 and we rolled back.", "hall_events"),
    ("Turns out the memory leak was caused by the cache never evicting sessions.", "hall_discoveries"),
    ("I really prefer tabs over spaces and I hate long meetings.", "hall_preferences"),
    ("You should pin your dependencies; make sure CI uses the lock file.", "hall_advice"),
    ("The sky over the harbour.", "hall_facts"),  # words but no cue at all: a fact
])
def test_cues_alone_pick_the_obvious_hall(text: str, hall: str) -> None:
    assert classify_hall(text) == hall


def test_scores_cover_every_hall_and_are_deterministic() -> None:
    text = "Turns out you should always prefer the decided plan from yesterday's meeting."
    assert set(hall_scores(text)) == set(HALLS)
    assert hall_scores(text) == hall_scores(text)


def test_classifier_returns_a_hall_or_none_per_text_with_or_without_vectors() -> None:
    embedder = HashEmbedder()
    classifier = HallClassifier(embedder.embed)
    texts = ["Kai always drinks tea.", "Restart the worker after changing the queue size.", ""]
    with_vectors = classifier.classify(texts, embedder.embed(texts))
    assert len(with_vectors) == 3 and set(with_vectors) <= {*HALLS, None} and with_vectors[2] is None
    assert classifier.classify(texts) == classifier.classify(texts)


def test_focus_keeps_the_prose_and_sets_tool_lines_code_links_and_social_phrases_aside() -> None:
    seen = focus("User: thanks! why does the cron job run twice?\n→ Bash: crontab -l\n← result (2 lines): 0 3 * * *\n"
                 "Assistant: Two entries: one in /etc/cron.d and one in your crontab. See <https://x.example/a_b|the docs>.\n"
                 "```\nexport PATH=/usr/bin\nrun() { echo hi; }\n```")
    assert "Bash" not in seen.prose and "crontab -l" not in seen.prose and "x.example" not in seen.prose
    assert "Two entries" in seen.prose and "thanks" not in seen.prose.lower()
    assert "run twice?" in seen.user and "run twice" not in seen.prose  # a user's question counts, in their turn
    assert seen.code_lines == 2 and seen.chatter > 0


@pytest.mark.parametrize("text", [
    "Kai: hey! long time no see, how are you?\n\nNoor: Hi Kai! Good, thanks. Talk soon!",
    "→ Bash: ls\n← result (3 lines): a b c",
    "Ana: <https://example.com/a/b/c>",
    'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    main()\nValueError: bad value',
])
def test_greetings_tool_only_turns_bare_links_and_tracebacks_get_no_hall(text: str) -> None:
    assert classify_hall(text) is None
    embedder = HashEmbedder()
    assert HallClassifier(embedder.embed).classify([text], embedder.embed([text])) == [None]


@pytest.mark.parametrize("text, hall", [
    ("User: write a script that renames my photos by the date they were taken\nAssistant: Here you go:\n"
     "```python\nfor path in folder.glob('*.jpg'):\n    path.rename(folder / f'{taken(path)}.jpg')\n```", "hall_advice"),
    ("User: can you review my merge sort? it feels slow\nAssistant: It copies the list on every call.", "hall_advice"),
    ("User: what's 17 * 23?\nAssistant: 391.", "hall_facts"),
    ("github: [shop:main] 2 new commits by Lea:\nFix the cart total - Lea\nAdd tests - Lea", "hall_events"),
])
def test_requests_questions_and_bot_notifications_by_cues(text: str, hall: str) -> None:
    assert classify_hall(text) == hall


@pytest.mark.model
@pytest.mark.parametrize("name, floor", [("halls_holdout.jsonl", 0.80), ("halls_holdout2.jsonl", 0.80)])
def test_held_out_accuracy_stays_at_its_floor_on_the_real_model(name: str, floor: float) -> None:
    rows = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    model = MiniLMInt8()
    texts = [r["text"] for r in rows]
    predicted = HallClassifier(model.embed, model=model.name).classify(texts, model.embed(texts))
    accuracy = sum(p == r["hall"] for p, r in zip(predicted, rows)) / len(rows)
    assert len(rows) == 100 and accuracy >= floor and predicted.count(None) <= 6


MIXED = ("Priya: Honestly I prefer dark roast coffee, the light stuff tastes sour to me and I never drink it "
         "after noon.",
         "Kai: You should always pin your dependency versions before a release, and run the full test suite twice.",
         "Priya: The staging database has 64 GB of memory and runs Postgres 15 on two replicas in Frankfurt.",
         "Kai: Turns out the flaky test was caused by a timezone bug in the fixture, not the network.")


@pytest.mark.model
def test_an_exchange_of_mixed_kinds_gets_no_hall_though_each_message_alone_gets_its_own() -> None:
    model = MiniLMInt8()
    texts = ["\n\n".join(MIXED), *MIXED]
    predicted = HallClassifier(model.embed, model=model.name).classify(texts, model.embed(texts))
    assert predicted == [None, "hall_preferences", "hall_advice", "hall_facts", "hall_discoveries"]


EXAMPLE_VECTORS = DATA / "halls_real_vectors_examples.npy"
REFIT = ("python -c 'from pathlib import Path; from mempalace.halls.classifier import save_shipped_model as s; "
         "s(Path(\"tests/data/halls_real_vectors_examples.npy\"))'")


def test_the_shipped_model_is_the_one_fitted_on_the_stored_example_vectors() -> None:
    """The shipped file is named by the examples' digest (edited examples or training settings need a
    new one), the stored vectors belong to the current examples, one by one, and refitting on them
    gives the shipped centroids and weights."""
    import hashlib
    from importlib import resources

    from mempalace.halls.classifier import examples, fit_model, model_file_name

    shipped = resources.files("mempalace.halls").joinpath(model_file_name("minilm-int8"))
    assert shipped.is_file(), f"the hall examples or training settings changed: run {REFIT} and commit both .npy"
    table = np.load(EXAMPLE_VECTORS)
    shas = [hashlib.sha256(e["text"].encode()).hexdigest()[:16].encode() for e in examples()]
    assert list(table["sha"]) == shas, f"stale {EXAMPLE_VECTORS.name}: run {REFIT}"
    with shipped.open("rb") as handle:
        assert np.allclose(np.load(handle), fit_model(table["vector"].astype(np.float32)), atol=1e-5)


@pytest.mark.model
def test_the_stored_example_vectors_are_the_models() -> None:
    """Eight examples, spread over the file, re-embedded by the real model match their stored vectors."""
    from mempalace.halls.classifier import examples

    table, rows = np.load(EXAMPLE_VECTORS), examples()
    picked = np.linspace(0, len(rows) - 1, 8).astype(int)
    fresh = MiniLMInt8().embed([rows[i]["text"] for i in picked])
    stored = table["vector"][picked].astype(np.float32)
    cosine = (fresh * stored).sum(axis=1) / np.linalg.norm(fresh, axis=1) / np.linalg.norm(stored, axis=1)
    assert cosine.min() > 0.999, cosine
