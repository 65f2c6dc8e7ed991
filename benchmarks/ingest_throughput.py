"""Ingest throughput against the raw embedder on the same texts, and the cost of re-ingesting.

    python benchmarks/ingest_throughput.py                 # LoCoMo sessions from ../shared, as transcripts
    python benchmarks/ingest_throughput.py --sessions 60   # fewer sessions, quicker

Each LoCoMo session is written as a plain-text transcript (`Name: text` lines, the session date
on top) in a temporary folder, the way people export chats. The benchmark then measures, in one
process and with the real model:
1. raw: `MiniLMInt8.embed` on exactly the drawer texts ingest would file, in batches of 256 sorted by
   length (as ingest batches them);
2. ingest: `mempalace.ingest.ingest_paths` of the same files into one embedded palace;
slice by slice, alternating, because this machine's speed drifts by ±10 % from minute to minute;
then 3. re-ingest of everything, unchanged. The first slice's ingest includes the one-time embedding
of the hall classifier's examples.
Targets (ingest issue): ingest ≥ 90 % of raw drawers/s; re-ingest ≤ 5 % of the first ingest.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = ROOT.parent / "shared" / "data" / "locomo10.json"


def write_transcripts(locomo: Path, folder: Path, limit: int | None) -> int:
    """One `.txt` per LoCoMo session (speaker-labelled lines, date first, no captions); returns how many."""
    from locomo import session_numbers, session_transcript  # benchmarks/locomo.py, beside this script

    written = 0
    for sample in json.loads(locomo.read_text(encoding="utf-8")):
        for n in session_numbers(sample["conversation"]):
            if limit is not None and written >= limit:
                return written
            (folder / f"{sample['sample_id']}-session-{n}.txt").write_text(
                session_transcript(sample["conversation"], n, captions=False), encoding="utf-8")
            written += 1
    return written


def planned_texts(folder: Path, target: int) -> list[str]:
    """The drawer texts ingest will file for the folder (same parser and chunker, no palace)."""
    from mempalace import formats
    from mempalace.formats.base import Source
    from mempalace.ingest.chunks import chunk_conversation

    texts: dict[str, None] = {}
    for path in sorted(folder.iterdir()):
        _, conversations = formats.parse(Source.from_path(path))
        for conversation in conversations:
            texts.update((c.content, None) for c in chunk_conversation(conversation, target))
    return list(texts)


def raw_rate(embedder: object, texts: list[str], batch: int) -> float:
    """Drawers/s of the bare model on `texts`, batched as well as ingest batches them (shortest first)."""
    ordered = sorted(texts, key=len)
    start = time.perf_counter()
    for first in range(0, len(ordered), batch):
        embedder.embed(ordered[first : first + batch])  # type: ignore[attr-defined]
    return len(texts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--sessions", type=int, default=None, help="limit the number of sessions")
    parser.add_argument("--slices", type=int, default=8, help="raw and ingest alternate slice by slice")
    args = parser.parse_args()
    if not args.locomo.is_file():
        sys.exit(f"{args.locomo} not found: pass --locomo PATH (LoCoMo-10 JSON).")

    from mempalace import Palace
    from mempalace.config import load_settings
    from mempalace.embedding import MiniLMInt8
    from mempalace.ingest import ingest_paths
    from mempalace.ingest.planning import EMBED_BATCH

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        folder = work / "transcripts"
        folder.mkdir()
        sessions = write_transcripts(args.locomo, folder, args.sessions)
        files = sorted(folder.iterdir())
        slices = [work / f"slice-{n:02d}" for n in range(args.slices)]
        for n, path in enumerate(files):
            slices[n * args.slices // len(files)].mkdir(exist_ok=True)
            path.rename(slices[n * args.slices // len(files)] / path.name)
        settings = load_settings(work / "home", embedder="minilm-int8")
        texts = [planned_texts(s, settings.ingest_drawer_chars) for s in slices]
        total = sum(map(len, texts))
        print(f"{sessions} sessions in {args.slices} slices → {total} drawers, "
              f"{sum(len(t) for group in texts for t in group) / total:.0f} chars on average")
        embedder = MiniLMInt8()
        embedder.embed(texts[0][:EMBED_BATCH])  # warm-up, not timed
        raw_seconds = ingest_seconds = 0.0
        added = 0
        with Palace.open(work / "palace", settings=settings) as palace:
            palace.embed(["warm-up"])  # load the palace's model before timing, as for raw
            for group, where in zip(texts, slices):
                raw_seconds += len(group) / raw_rate(embedder, group, EMBED_BATCH)
                start = time.perf_counter()
                reports = ingest_paths(palace, [where])
                ingest_seconds += time.perf_counter() - start
                added += sum(r.added for r in reports)
                errors = [e for r in reports for e in r.errors]
                if errors:
                    print("errors:", *errors, sep="\n  ")
            start = time.perf_counter()
            again = ingest_paths(palace, slices)
            repeat = time.perf_counter() - start
    raw, rate = total / raw_seconds, added / ingest_seconds
    print(f"raw embedder: {total} drawers in {raw_seconds:.1f} s = {raw:.1f} drawers/s")
    print(f"ingest: {added} drawers in {ingest_seconds:.1f} s = {rate:.1f} drawers/s = {100 * rate / raw:.1f} % of raw "
          "(target ≥ 90 %)")
    print(f"re-ingest unchanged: {repeat:.2f} s = {100 * repeat / ingest_seconds:.2f} % of the first run "
          f"(target ≤ 5 %), added {sum(r.added for r in again)}")


if __name__ == "__main__":
    main()
