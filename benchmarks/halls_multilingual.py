"""Halls on non-English drawers: precision first (a wrong hall is worse than none).

    python benchmarks/halls_multilingual.py --embedder use-m3            # DEV (tune on it)
    python benchmarks/halls_multilingual.py --embedder use-m3 --held-out # the held-out set, run once

DEV (benchmarks/data/halls_multilingual_dev.jsonl): 36 drawers of ../shared/data/multilingual_dev as
ingest cuts them (Chinese, Spanish, English+Spanish threads; rebuilt from ../shared by key) and 36
short statements in Chinese, Japanese, Spanish, Russian, German and French. HELD-OUT
(tests/data/halls_multilingual_heldout.jsonl): 60 drawers, 10 per language, written and labelled
(by the engineer who then wrote the cues, not by a blind writer) and committed before any rule was
written, and never tuned on. A null label is "no clear kind": right only with no hall.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

DEV = ROOT / "benchmarks" / "data" / "halls_multilingual_dev.jsonl"
HELD_OUT = ROOT / "tests" / "data" / "halls_multilingual_heldout.jsonl"
BLIND = ROOT / "benchmarks" / "data" / "halls_multilingual_blind.jsonl"
SHARED_DEV = next((p for p in (ROOT.parent / "shared", Path("/work/shared")) if p.is_dir()), ROOT.parent / "shared") / "data" / "multilingual_dev"


def drawers(keys: set[str], folder: Path) -> dict[str, str]:
    """`wing/conv_NN#i` → the i-th drawer ingest cuts from that conversation."""
    from mempalace.formats import plain_text
    from mempalace.formats.base import Source
    from mempalace.text.drawer_chunks import chunk_conversation

    found = {}
    for name in sorted({k.split("#")[0] for k in keys}):
        for conversation in plain_text.parse(Source.from_path(folder / f"{name}.txt")):
            for index, chunk in enumerate(chunk_conversation(conversation)):
                found[f"{name}#{index}"] = chunk.content
    return found


def load(path: Path, folder: Path = SHARED_DEV) -> list[dict]:
    """The labelled rows, each with its text (rebuilt from ../shared where the row has a key)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    keyed = {r["key"] for r in rows if "key" in r}
    texts = drawers(keyed, folder) if keyed else {}
    return [{**r, "text": r.get("text") or texts[r["key"]]} for r in rows]


def predict(texts: list[str], embedder: str) -> list[str | None]:
    """Each text's hall as ingest gives it with `embedder` (its model fitted in a temporary cache)."""
    import tempfile

    from mempalace.embedding.embedders import EMBEDDERS
    from mempalace.halls.classifier import HallClassifier

    with tempfile.TemporaryDirectory() as cache:
        model = EMBEDDERS[embedder](Path(cache))
        return HallClassifier(model.embed, Path(cache), model=embedder).classify(texts, model.embed(texts))


def report(rows: list[dict], predicted: list[str | None]) -> dict[str, tuple[int, int, int]]:
    """Per language, overall and over the drawers read as not English ("not-en"): (drawers, given a hall,
    right among those given), printed with coverage and accuracy."""
    from mempalace.halls.text import focus

    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for row, hall in zip(rows, predicted):
        for lang in (row["lang"], "all", *(["not-en"] if focus(row["text"]).local else [])):
            c = counts[lang]
            c[0] += 1
            c[1] += hall is not None
            c[2] += hall is not None and hall == row["hall"]
            c[3] += hall == row["hall"]
    for lang, (n, given, right, correct) in sorted(counts.items()):
        print(f"  {lang:4s} {n:3d} drawers  given {given:3d}  precision {right / max(given, 1):6.1%}  "
              f"coverage {given / n:6.1%}  accuracy {correct / n:6.1%}")
    return {k: (v[0], v[1], v[2]) for k, v in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="minilm-int8")
    parser.add_argument("--held-out", action="store_true", help="score the held-out set (once, at the end)")
    parser.add_argument("--blind", action="store_true", help="score the blind set (written by someone who never saw "
                        "the code: 90 drawers, 15 per language, 18 with no clear kind; once, never tuned on)")
    parser.add_argument("--errors", action="store_true", help="print each wrong hall (DEV only)")
    args = parser.parse_args()
    rows = load(BLIND if args.blind else HELD_OUT if args.held_out else DEV)
    predicted = predict([r["text"] for r in rows], args.embedder)
    print(f"{'BLIND' if args.blind else 'HELD-OUT' if args.held_out else 'DEV'} with {args.embedder}:")
    report(rows, predicted)
    if args.errors and not (args.held_out or args.blind):
        for row, hall in zip(rows, predicted):
            if hall != row["hall"]:
                print(f"  [{row['lang']}] label {row['hall']} got {hall}: {row['text'][:90]!r}")


if __name__ == "__main__":
    main()
