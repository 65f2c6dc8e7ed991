"""Halls on real drawers: the hall classifier against tests/data/halls_real.jsonl, on the real model.

    python benchmarks/halls_real.py                # DEV and TEST, then the two held-out sets
    python benchmarks/halls_real.py --split dev    # DEV only (the split to tune on)
    python benchmarks/halls_real.py --save-vectors # also store TEST's vectors for tests/test_halls_real.py
    python benchmarks/halls_real.py --curve        # precision and coverage per hall and threshold, on DEV + train

The 317 labelled drawers (benchmarks/real_drawers.py rebuilds their texts from ../shared; a text
whose hash differs from its label's is an error; `text_sha`, where a row has one, is the hash of its
text as the chunker now cuts it, after a cut rule moved whitespace or added a label, and `sha` stays
the row's identity) are split by the first hex digit of their `sha`:
DEV (0-5, 116 drawers) is what the classifier may be tuned on, TEST (6-f, 201 drawers) is only
reported. Accuracy counts every drawer: a null label ("no clear kind") is right only when the
classifier gives no hall, a hall label only when it gives that hall. Precision is over the drawers
given a hall, coverage is the share given one. The held-out sets of clean sentences in tests/data
are scored too; an abstention there counts as wrong.

A second labeller, who saw neither the classifier nor the first labels, labelled 120 of the drawers
from the same hall descriptions (tests/data/halls_real_second.jsonl): how often two people agree is
the ceiling any classifier can be judged against, printed after the splits.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from mempalace.models import HALLS  # noqa: E402

LABELS = ROOT / "tests" / "data" / "halls_real.jsonl"
VECTORS = ROOT / "tests" / "data" / "halls_real_vectors.npy"  # TEST's vectors (float16), keyed by sha
HELD_OUT = ("halls_holdout.jsonl", "halls_holdout2.jsonl")
SECOND = ROOT / "tests" / "data" / "halls_real_second.jsonl"  # a second labeller's labels of 120 drawers
TRAINING = ROOT / "tests" / "data" / "halls_real_train.jsonl"  # 341 more labelled drawers, LoCoMo sessions 6-12
COLUMNS = (None, *HALLS)


@dataclass(frozen=True)
class Score:
    """Accuracy over all drawers, precision over those given a hall, coverage = the share given one."""

    n: int
    accuracy: float
    precision: float
    coverage: float

    def line(self, name: str) -> str:
        return (f"{name}: accuracy {self.accuracy:.1%}, precision {self.precision:.1%}, "
                f"coverage {self.coverage:.1%} ({self.n} drawers)")


def in_dev(sha: str) -> bool:
    """The fixed split: DEV is every label whose hash starts with 0-5."""
    return int(sha[0], 16) < 6


def load_labels(path: Path = LABELS) -> list[dict]:
    """The rows of a JSONL label file (tests/data's real drawers or a held-out set)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def score(gold: Sequence[str | None], predicted: Sequence[str | None]) -> Score:
    """Accuracy, precision and coverage of `predicted` against `gold` (None = no hall, on both sides)."""
    given = [(g, p) for g, p in zip(gold, predicted) if p is not None]
    right = sum(g == p for g, p in zip(gold, predicted))
    return Score(len(gold), right / len(gold), sum(g == p for g, p in given) / max(len(given), 1),
                 len(given) / len(gold))


def per_hall(gold: Sequence[str | None], predicted: Sequence[str | None]) -> list[str]:
    """One line per label: how many, how many found (recall), how many of its predictions are right."""
    lines = []
    for hall in COLUMNS:
        labelled = sum(g == hall for g in gold)
        said = sum(p == hall for p in predicted)
        right = sum(g == p == hall for g, p in zip(gold, predicted))
        if labelled or said:
            lines.append(f"  {hall or 'no hall':<17} labelled {labelled:3d}  recall {right / max(labelled, 1):6.1%}  "
                         f"predicted {said:3d}  precision {right / max(said, 1):6.1%}")
    return lines


def confusion(gold: Sequence[str | None], predicted: Sequence[str | None]) -> list[str]:
    """Rows are labels, columns predictions ('-' = no hall)."""
    short = {None: "-", **{h: h.removeprefix("hall_")[:5] for h in HALLS}}
    counts = Counter(zip(gold, predicted))
    lines = ["  label \\ predicted " + " ".join(f"{short[c]:>6}" for c in COLUMNS)]
    for row in COLUMNS:
        lines.append(f"  {short[row]:<18}" + " ".join(f"{counts[(row, c)]:>6}" for c in COLUMNS))
    return lines


def agreement(first: Sequence[str | None], second: Sequence[str | None]) -> tuple[float, float]:
    """The share of drawers two labellers gave the same label (None included), and Cohen's kappa."""
    both = len(first)
    observed = sum(a == b for a, b in zip(first, second)) / both
    ones, twos = Counter(first), Counter(second)
    chance = sum(ones[k] * twos[k] for k in set(ones) | set(twos)) / both / both
    return observed, (observed - chance) / (1 - chance) if chance < 1 else 1.0


def second_opinion(rows: list[dict], predicted: list[str | None], path: Path = SECOND) -> str:
    """The second labeller against the first, and the classifier on the same drawers, in one line."""
    seconds = {r["key"]: r["hall"] for r in load_labels(path)}
    chosen = [(r["hall"], seconds[r["key"]], p) for r, p in zip(rows, predicted) if r["key"] in seconds]
    if not chosen:
        return "second labeller: none of these drawers"
    observed, kappa = agreement([a for a, _, _ in chosen], [b for _, b, _ in chosen])
    classifier = sum(a == p for a, _, p in chosen) / len(chosen)
    return (f"second labeller on {len(chosen)} of these drawers: agrees with the first on {observed:.1%} "
            f"(Cohen's kappa {kappa:.2f}); the classifier agrees with the first on {classifier:.1%} of them")


def real_texts(rows: list[dict], shared: Path | None = None) -> list[str]:
    """The drawers' texts, rebuilt from ../shared and checked against the labels' hashes."""
    from real_drawers import SHARED, real_drawers, text_hash

    drawers = real_drawers(shared or SHARED)
    texts = [drawers.get(r["key"], "") for r in rows]
    wrong = [r["key"] for r, t in zip(rows, texts) if text_hash(t) != r.get("text_sha", r["sha"])]
    if wrong:
        raise SystemExit(f"{len(wrong)} drawers differ from their labels (first: {wrong[0]}); ../shared changed?")
    return texts


def embed(texts: list[str]):
    """The default model's vectors of `texts`."""
    from mempalace.embedding.embedders import MiniLMInt8

    return MiniLMInt8().embed(texts)


def predict(texts: list[str], vectors=None) -> list[str | None]:
    """Each text's hall as ingest gives it: the default model's vectors (or `vectors`, made by it),
    the shipped model."""
    from mempalace.halls.classifier import HallClassifier

    return HallClassifier(embed, model="minilm-int8").classify(texts, embed(texts) if vectors is None else vectors)


def save_vectors(rows: list[dict], vectors, path: Path = VECTORS) -> None:
    """Store `rows`' vectors as float16, each with its sha, so the test classifies without embedding."""
    import numpy as np

    table = np.zeros(len(rows), dtype=[("sha", "S16"), ("vector", np.float16, (vectors.shape[1],))])
    table["sha"] = [r["sha"].encode() for r in rows]
    table["vector"] = vectors
    np.save(path, table)


def stored_vectors(rows: list[dict], path: Path = VECTORS):
    """`rows`' vectors from `path` (float32), looked up by sha; a KeyError names a row not stored."""
    import numpy as np

    table = np.load(path)
    index = {sha.decode(): row for row, sha in enumerate(table["sha"])}
    return table["vector"][[index[r["sha"]] for r in rows]].astype(np.float32)


def curve() -> None:
    """For the drawers over ONE_STATEMENT_WORDS of DEV and the 341 training drawers (never TEST): at each
    probability threshold, how many drawers each hall would be shown on and how many of those are right;
    then the chosen CLEAR point (a precision of 0.85 per hall, or the hall is not shown)."""
    import numpy as np
    from real_drawers import training_drawers

    from mempalace.halls.text import focus
    from mempalace.halls.classifier import _ORDER, CLEAR, ONE_STATEMENT_WORDS, HallClassifier

    rows = [r for r in load_labels() if in_dev(r["sha"])]
    train = training_drawers()
    gold = [r["hall"] for r in rows] + [r["hall"] for r in load_labels(TRAINING) if r["key"] in train]
    texts = real_texts(rows) + [train[r["key"]] for r in load_labels(TRAINING) if r["key"] in train]
    classifier = HallClassifier(embed, model="minilm-int8")
    seen = [focus(t) for t in texts]
    chances = np.array([classifier.probabilities(s, v) for s, v in zip(seen, embed(texts))])
    long = np.array([s.words > ONE_STATEMENT_WORDS for s in seen])
    print(f"DEV + train: {len(texts)} drawers, {long.sum()} over {ONE_STATEMENT_WORDS} words (the thresholds' scope)")
    for i, hall in enumerate(_ORDER):
        best = long & (chances.argmax(1) == i)
        points = []
        for t in np.arange(0.5, 0.96, 0.05):
            shown = best & (chances[:, i] >= t)
            right = sum(1 for g, s in zip(gold, shown) if s and g == hall)
            points.append(f"{t:.2f}: {shown.sum()}@{right / max(1, shown.sum()):.0%}")
        print(f"  {hall:17s} (labelled {gold.count(hall)}) shown@precision  " + "  ".join(points))
    print("chosen: " + ", ".join(f"{h} {t:.2f}" for h, t in CLEAR.items()))


def report(name: str, gold: list[str | None], predicted: list[str | None]) -> None:
    """A split's score line, per-label lines and confusion matrix."""
    print(score(gold, predicted).line(name))
    print("\n".join(per_hall(gold, predicted)))
    print("\n".join(confusion(gold, predicted)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("all", "dev", "test"), default="all")
    parser.add_argument("--save-vectors", action="store_true", help=f"store TEST's vectors in {VECTORS.name}")
    parser.add_argument("--curve", action="store_true", help="the thresholds' precision and coverage on DEV + train")
    args = parser.parse_args()
    if args.curve:
        curve()
        return
    rows = [r for r in load_labels() if args.split == "all" or in_dev(r["sha"]) == (args.split == "dev")]
    started = time.perf_counter()
    texts = real_texts(rows)
    vectors = embed(texts)
    predicted = predict(texts, vectors)
    if args.save_vectors:
        test = [i for i, r in enumerate(rows) if not in_dev(r["sha"])]
        save_vectors([rows[i] for i in test], vectors[test])
    print(f"{len(rows)} real drawers embedded and classified in {time.perf_counter() - started:.1f} s")
    for name, dev in (("DEV", True), ("TEST", False)):
        chosen = [(r["hall"], p) for r, p in zip(rows, predicted) if in_dev(r["sha"]) == dev]
        if chosen:
            report(name, [g for g, _ in chosen], [p for _, p in chosen])
    print(second_opinion(rows, predicted))
    if args.split == "all":
        for file in HELD_OUT:
            held = load_labels(ROOT / "tests" / "data" / file)
            guessed = predict([r["text"] for r in held])
            accuracy = sum(g == r["hall"] for g, r in zip(guessed, held)) / len(held)
            print(f"{file}: accuracy {accuracy:.0%}, no hall for {guessed.count(None)} of {len(held)}")


if __name__ == "__main__":
    main()
