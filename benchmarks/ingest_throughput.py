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
then 3. re-ingest of everything, unchanged; then 4. a dry run of a few sessions (`--dry-files`, 0 to
skip), then the real ingest of them, each with a palace of its own opening (two commands): the real
run reuses the dry run's vectors from the vector cache. The first slice's ingest includes the one-time
embedding of the hall classifier's examples.
Targets (ingest issue): ingest ≥ 90 % of raw drawers/s; re-ingest ≤ 5 % of the first ingest.
"""

from __future__ import annotations

import argparse
import json
import shutil
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
    from mempalace.formats import registry as formats
    from mempalace.formats.base import Source
    from mempalace.text.drawer_chunks import chunk_conversation

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


def split(files: list[Path], work: Path, count: int) -> list[Path]:
    """`count` folders in `work`, the files moved into them in order."""
    slices = [work / f"slice-{n:02d}" for n in range(count)]
    for n, path in enumerate(files):
        slices[n * count // len(files)].mkdir(exist_ok=True)
        path.rename(slices[n * count // len(files)] / path.name)
    return slices


def alternate(palace: object, embedder: object, texts: list[list[str]], slices: list[Path]) -> tuple[float, float, int]:
    """Slice by slice, the bare model on the slice's drawer texts, then ingest of the slice's files:
    (raw seconds, ingest seconds, drawers added)."""
    from mempalace.ingest import ingest_paths
    from mempalace.ingest.planning import EMBED_BATCH

    raw_seconds = ingest_seconds = 0.0
    added = 0
    palace.embed(["warm-up"])  # type: ignore[attr-defined]  # load the palace's model before timing, as for raw
    for group, where in zip(texts, slices):
        raw_seconds += len(group) / raw_rate(embedder, group, EMBED_BATCH)
        start = time.perf_counter()
        reports = ingest_paths(palace, [where])
        ingest_seconds += time.perf_counter() - start
        added += sum(r.added for r in reports)
        errors = [e for r in reports for e in r.errors]
        if errors:
            print("errors:", *errors, sep="\n  ")
    return raw_seconds, ingest_seconds, added


def dry_then_real(work: Path, files: list[Path]) -> tuple[float, float, int]:
    """Seconds of a dry run of `files` and then of their real ingest, each opening the palace anew
    (as `mempalace ingest --dry-run` then `mempalace ingest` would, in a home of their own), and how
    many drawers the real run filed."""
    from mempalace import Palace
    from mempalace.config import load_settings
    from mempalace.ingest import ingest_paths

    folder = work / "dry-case"
    folder.mkdir()
    for path in files:
        shutil.copy(path, folder / path.name)
    settings = load_settings(work / "dry-home", embedder="minilm-int8")
    seconds, added = [], 0
    for dry_run in (True, False):
        start = time.perf_counter()
        with Palace.open(work / "dry-palace", settings=settings) as palace:
            added = sum(r.added for r in ingest_paths(palace, [folder], dry_run=dry_run))
        seconds.append(time.perf_counter() - start)
    return seconds[0], seconds[1], added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--sessions", type=int, default=None, help="limit the number of sessions")
    parser.add_argument("--slices", type=int, default=8, help="raw and ingest alternate slice by slice")
    parser.add_argument("--dry-files", type=int, default=6, help="sessions for the dry run, then ingest, case")
    args = parser.parse_args()
    if not args.locomo.is_file():
        sys.exit(f"{args.locomo} not found: pass --locomo PATH (LoCoMo-10 JSON).")

    from mempalace import Palace
    from mempalace.config import load_settings
    from mempalace.embedding.embedders import MiniLMInt8
    from mempalace.ingest import ingest_paths
    from mempalace.ingest.planning import EMBED_BATCH

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        folder = work / "transcripts"
        folder.mkdir()
        sessions = write_transcripts(args.locomo, folder, args.sessions)
        slices = split(sorted(folder.iterdir()), work, args.slices)
        settings = load_settings(work / "home", embedder="minilm-int8")
        texts = [planned_texts(s, settings.ingest_drawer_chars) for s in slices]
        total = sum(map(len, texts))
        print(f"{sessions} sessions in {args.slices} slices → {total} drawers, "
              f"{sum(len(t) for group in texts for t in group) / total:.0f} chars on average")
        embedder = MiniLMInt8()
        embedder.embed(texts[0][:EMBED_BATCH])  # warm-up, not timed
        with Palace.open(work / "palace", settings=settings) as palace:
            raw_seconds, ingest_seconds, added = alternate(palace, embedder, texts, slices)
            start = time.perf_counter()
            again = ingest_paths(palace, slices)
            repeat = time.perf_counter() - start
        dry = dry_then_real(work, sorted(slices[0].iterdir())[: args.dry_files]) if args.dry_files > 0 else None
    raw, rate = total / raw_seconds, added / ingest_seconds
    print(f"raw embedder: {total} drawers in {raw_seconds:.1f} s = {raw:.1f} drawers/s")
    print(f"ingest: {added} drawers in {ingest_seconds:.1f} s = {rate:.1f} drawers/s = {100 * rate / raw:.1f} % of raw "
          "(target ≥ 90 %)")
    print(f"re-ingest unchanged: {repeat:.2f} s = {100 * repeat / ingest_seconds:.2f} % of the first run "
          f"(target ≤ 5 %), added {sum(r.added for r in again)}")
    if dry:
        print(f"dry run of {args.dry_files} sessions: {dry[0]:.1f} s; the ingest after it: {dry[1]:.1f} s = "
              f"{100 * dry[1] / dry[0]:.0f} % of the dry run (vectors reused), added {dry[2]}")


if __name__ == "__main__":
    main()
