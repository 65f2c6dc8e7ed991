"""Real drawers for the hall test set: ../shared's transcripts and LoCoMo sessions, cut by ingest's
own chunker, in a fixed order with stable keys. The texts stay in ../shared (their licences keep
them out of this repository); the labels in tests/data/halls_real.jsonl name drawers by key and hash,
and so do those of `training_drawers` (LoCoMo sessions 6-12) in tests/data/halls_real_train.jsonl.

    python benchmarks/real_drawers.py --dump /tmp/drawers.jsonl   # key, sha256, text for labelling
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from locomo import session_numbers, session_transcript  # noqa: E402
from mempalace.formats.registry import Source, parse  # noqa: E402
from mempalace.text.drawer_chunks import chunk_conversation  # noqa: E402

_CANDIDATES = (ROOT.parent / "shared" / "data", Path("/work/shared/data"))  # beside the checkout, else /work/shared
SHARED = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])
TRANSCRIPTS = ("claude_code", "codex_cli", "gemini_cli", "plain_text", "slack_export")
LOCOMO_SESSIONS_PER_CONVERSATION = 5
TRAINING_SESSIONS = slice(5, 12)  # sessions 6-12 of each LoCoMo conversation: tests/data/halls_real_train.jsonl
TRAINING_LABELS = ROOT / "tests" / "data" / "halls_real_train.jsonl"


def text_hash(text: str) -> str:
    """The label file's `sha`: the first 16 hex digits of the text's sha256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _chunks(source: Source, label: str) -> Iterator[tuple[str, str]]:
    _, conversations = parse(source)
    for number, conversation in enumerate(conversations):
        for index, chunk in enumerate(chunk_conversation(conversation)):
            yield f"{label}#{number}#{index}", chunk.content


def transcript_drawers(shared: Path = SHARED) -> Iterator[tuple[str, str]]:
    """(key, text) of every drawer ingest cuts from the shared transcripts."""
    for kind in TRANSCRIPTS:
        for path in sorted((shared / "transcripts" / kind).iterdir()):
            yield from _chunks(Source.from_path(path), f"{kind}/{path.name}")


def locomo_drawers(shared: Path = SHARED, sessions: slice = slice(LOCOMO_SESSIONS_PER_CONVERSATION)
                   ) -> Iterator[tuple[str, str]]:
    """(key, text) of the drawers of the first sessions (or `sessions`) of every LoCoMo conversation."""
    samples = json.loads((shared / "locomo10.json").read_text(encoding="utf-8"))
    for sample in samples:
        conversation = sample["conversation"]
        for number in session_numbers(conversation)[sessions]:
            text = session_transcript(conversation, number)
            name = f"locomo/{sample['sample_id']}/session_{number}.txt"
            yield from _chunks(Source.from_bytes(text.encode("utf-8"), name), name)


def real_drawers(shared: Path = SHARED) -> dict[str, str]:
    """{key: text} of every candidate drawer, transcripts first."""
    return dict([*transcript_drawers(shared), *locomo_drawers(shared)])


def training_drawers(shared: Path = SHARED, labels: Path = TRAINING_LABELS) -> dict[str, str]:
    """{key: text} of the labelled training drawers (LoCoMo sessions 6-12, disjoint from the test
    set's), in the label file's order; a text whose hash differs from its label's is an error."""
    drawers = dict(locomo_drawers(shared, TRAINING_SESSIONS))
    rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = {r["key"]: drawers.get(r["key"], "") for r in rows}
    wrong = [r["key"] for r in rows if text_hash(texts[r["key"]]) != r["sha"]]
    if wrong:
        raise ValueError(f"{len(wrong)} training drawers differ from their labels (first: {wrong[0]})")
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=0, help="at most this many, drawn at random (seed 17)")
    args = parser.parse_args()
    drawers = list(real_drawers().items())
    if args.sample:
        drawers = random.Random(17).sample(drawers, min(args.sample, len(drawers)))
    with args.dump.open("w", encoding="utf-8") as out:
        for key, text in drawers:
            out.write(json.dumps({"key": key, "sha": text_hash(text), "text": text}, ensure_ascii=False) + "\n")
    print(f"{len(drawers)} drawers written to {args.dump}")


if __name__ == "__main__":
    main()
