"""Halls on real drawers (TEST split of tests/data/halls_real.jsonl), on the real model's vectors.

The texts are rebuilt from ../shared (their licences keep them out of the repo): without it the test
skips, and fails under CI=true, where ../shared is always mounted. Their vectors, made by the default
model, are stored in tests/data/halls_real_vectors.npy (float16, keyed by sha; `python
benchmarks/halls_real.py --save-vectors` rewrites it), so the test classifies without embedding 201
drawers; five of them are re-embedded by the real model and must still match, so a model change is
caught. The issue's target (issue 17 point 11) is 80 % accuracy over all TEST drawers, a null label
right only with no hall; the classifier is not there yet, so the target is a strict xfail that turns
into a failure, to be made a plain assert, once it is reached, and the measured level is the floor
that guards against regressions. The held-out sets' floors are in tests/test_halls.py.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from _shared import SHARED

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
TARGET, FLOOR, PRECISION_FLOOR = 0.80, 0.45, 0.72


def _benchmark():
    spec = importlib.util.spec_from_file_location("bench_halls_real", BENCHMARKS / "halls_real.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def test_split():
    """(benchmark, labels, texts, stored vectors, predictions) of the TEST drawers."""
    if not (SHARED / "data" / "locomo10.json").is_file():
        message = f"{SHARED}/data is absent: the real drawers are rebuilt from ../shared (see ../shared/README.md)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(message)
        pytest.skip(message)
    bench = _benchmark()
    rows = [r for r in bench.load_labels() if not bench.in_dev(r["sha"])]
    texts = bench.real_texts(rows, SHARED / "data")
    vectors = bench.stored_vectors(rows)
    return bench, [r["hall"] for r in rows], texts, vectors, bench.predict(texts, vectors)


@pytest.mark.model
def test_the_stored_vectors_are_the_models(test_split) -> None:
    bench, _, texts, vectors, _ = test_split
    picked = np.linspace(0, len(texts) - 1, 5).astype(int)
    fresh = bench.embed([texts[i] for i in picked])
    stored = vectors[picked]
    cosine = (fresh * stored).sum(axis=1) / np.linalg.norm(fresh, axis=1) / np.linalg.norm(stored, axis=1)
    assert cosine.min() > 0.999, cosine


def test_real_drawers_keep_their_measured_accuracy_and_precision(test_split) -> None:
    bench, gold, _, _, predicted = test_split
    result = bench.score(gold, predicted)
    assert result.n == 199
    assert result.accuracy >= FLOOR and result.precision >= PRECISION_FLOOR, result
    assert 0.3 <= result.coverage <= 0.6, result  # a hall only when clear, but not never


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="issue 17 point 11: 80 % on TEST is the target; 49.2 % measured, halls shown only when clear")
def test_real_drawers_reach_the_issue_target(test_split) -> None:
    bench, gold, _, _, predicted = test_split
    assert bench.score(gold, predicted).accuracy >= TARGET


def test_the_second_labeller_names_labelled_drawers_and_agreement_is_computed_as_documented() -> None:
    bench = _benchmark()
    first = {r["key"]: r for r in bench.load_labels()}
    second = bench.load_labels(bench.SECOND)
    assert len(second) == 120 and len({r["key"] for r in second}) == 120
    assert all(r["key"] in first and r["sha"] == first[r["key"]]["sha"] for r in second)
    assert {r["hall"] for r in second} <= {None, *bench.HALLS}
    assert bench.agreement(["a", "b", None, None], ["a", "b", None, None]) == (1.0, 1.0)
    observed, kappa = bench.agreement(["a", "a", "b", "b"], ["a", "b", "a", "b"])
    assert observed == 0.5 and abs(kappa) < 1e-9  # as often alike as chance: no agreement beyond it
    rows = [first[r["key"]] for r in second]
    line = bench.second_opinion(rows, [r["hall"] for r in rows])
    assert "on 120 of these drawers" in line and "classifier agrees with the first on 100.0%" in line
