"""Halls on real drawers (TEST split of tests/data/halls_real.jsonl), on the real model.

The texts are rebuilt from ../shared (their licences keep them out of the repo): without it the test
skips, and fails under CI=true, where ../shared is always mounted. The issue's target (issue 17 point
11) is 80 % accuracy over all TEST drawers, a null label right only with no hall; the classifier is
not there yet (57.7 % when this was written, tuned on DEV only), so the target is a strict xfail that
turns into a failure, to be made a plain assert, once it is reached, and the measured level is the
floor that guards against regressions. The held-out sets' floors are in tests/test_halls.py.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from _shared import SHARED

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
TARGET, FLOOR, PRECISION_FLOOR = 0.80, 0.55, 0.55


def _benchmark():
    spec = importlib.util.spec_from_file_location("bench_halls_real", BENCHMARKS / "halls_real.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def test_split():
    """(labels, predictions) of the TEST drawers: 201 texts embedded in one batched call."""
    if not (SHARED / "data" / "locomo10.json").is_file():
        message = f"{SHARED}/data is absent: the real drawers are rebuilt from ../shared (see ../shared/README.md)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(message)
        pytest.skip(message)
    bench = _benchmark()
    rows = [r for r in bench.load_labels() if not bench.in_dev(r["sha"])]
    predicted = bench.predict(bench.real_texts(rows, SHARED / "data"))
    return bench, [r["hall"] for r in rows], predicted


@pytest.mark.model
def test_real_drawers_keep_their_measured_accuracy_and_precision(test_split) -> None:
    bench, gold, predicted = test_split
    result = bench.score(gold, predicted)
    assert result.n == 201
    assert result.accuracy >= FLOOR and result.precision >= PRECISION_FLOOR, result
    assert 0.5 <= result.coverage <= 0.9, result  # it abstains, but not on everything


@pytest.mark.model
@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="issue 17 point 11: 80 % on TEST is the target; 57.7 % measured")
def test_real_drawers_reach_the_issue_target(test_split) -> None:
    bench, gold, predicted = test_split
    assert bench.score(gold, predicted).accuracy >= TARGET
