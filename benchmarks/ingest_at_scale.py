"""Ingest into a large palace against ingest into an empty one: drawers per second, room choice included.

    python benchmarks/ingest_at_scale.py --palace benchmarks/out/scale-1000000 --sessions 100

The same LoCoMo sessions (plain-text transcripts, as `ingest_throughput.py` writes them) are ingested
with the real model, shared (each palace's Chroma in its server, as for every command) or with
`--private` in this process, first into an empty palace, then into the large one (its ~2,900 rooms
compete for every conversation), then into a second empty one (the machine drifts); the large
palace's figure is compared with the mean of the two empty ones, for each of `--rounds` rounds, and
the median round is the figure. The drawers added to the large palace are removed after each round,
so it stays the benchmark palace it was.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ingest_throughput import LOCOMO, write_transcripts  # noqa: E402
from sharing import MEMPALACE, env, stop_server  # noqa: E402


def ingest_into(palace_dir: Path, folder: Path, private: bool, warm: bool) -> tuple[float, int, list[str]]:
    """(seconds, drawers added, their ids) of ingesting every file of `folder` into the palace, in a
    process of its own as `mempalace ingest` runs (nothing an earlier run loaded or learnt carries over),
    or with `warm` in this one, as a dashboard or a source's sync ingests again and again."""
    if not private and palace_dir.exists():  # a palace in use: its server runs, index loaded
        subprocess.run([MEMPALACE, "--palace", str(palace_dir), "search", "warm up"], env=env(False), check=True,
                       capture_output=True)
    if warm:
        found = _ingest_here(palace_dir, folder, private)
        return found["seconds"], len(found["ids"]), found["ids"]
    command = [sys.executable, __file__, "--palace", str(palace_dir), "--one", str(folder)]
    done = subprocess.run(command + (["--private"] if private else []), check=True, capture_output=True, text=True)
    found = json.loads(done.stdout.splitlines()[-1])
    return found["seconds"], len(found["ids"]), found["ids"]


def _ingest_here(palace_dir: Path, folder: Path, private: bool) -> dict:
    """What `ingest_into` measures, in this process: the clock starts once the model is loaded."""
    from mempalace import Palace
    from mempalace.ingest import ingest_paths

    with Palace.open(palace_dir, private=private) as palace:
        if private:
            palace.search("warm up")  # before the clock: the catalog, the model and Chroma's index (2 GB at 1M)
        else:
            palace.embed(["warm up"])  # the model: loaded by any ingest before its first drawer
        started = time.perf_counter()
        reports = ingest_paths(palace, sorted(folder.iterdir()))
        took = time.perf_counter() - started
    return {"seconds": took, "ids": [i for r in reports for i in r.drawer_ids]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--palace", type=Path, required=True, help="the large palace (left as it was)")
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3, help="empty, large, empty: this many times (the machine"
                        " drifts by seconds between runs, so one round says little)")
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--private", action="store_true", help="Chroma in this process (a million drawers' index"
                        " loaded here slows the model's embedding by a third on 2 cores)")
    parser.add_argument("--warm", action="store_true", help="every ingest in this process (a dashboard's or"
                        " a sync's), not each in a new one (the CLI's)")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # one ingest of this folder, as JSON
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_ingest_here(args.palace, args.one, args.private)))
        return
    stop_server(args.palace)  # a server left running by a dashboard or command: this run starts its own,
    if not args.private:  # which then runs throughout, so that every ingest sees the same machine
        subprocess.run([MEMPALACE, "--palace", str(args.palace), "search", "warm up"], env=env(False), check=True,
                       capture_output=True)
    ratios = []
    with tempfile.TemporaryDirectory(prefix="mempalace-ingest-scale-") as scratch:
        folder = Path(scratch) / "sessions"
        folder.mkdir()
        written = write_transcripts(args.locomo, folder, args.sessions)
        print(f"{written} sessions, real model, {'private' if args.private else 'shared'} palaces, "
              f"{'all in this process' if args.warm else 'each ingest in a new process'}")
        for number in range(1, args.rounds + 1):
            ratios.append(_round(number, args.palace, folder, Path(scratch), args.private, args.warm))
        stop_server(args.palace)
    ratios.sort()
    print(f"median of {len(ratios)} rounds: {ratios[len(ratios) // 2]:.1%} of the empty palace's drawers/s "
          f"(range {ratios[0]:.1%}-{ratios[-1]:.1%}; goal >= 80 %)")
    which = resource.RUSAGE_SELF if args.warm else resource.RUSAGE_CHILDREN
    print(f"peak RSS of an ingest{'ing process' if args.warm else ''}: {resource.getrusage(which).ru_maxrss / 1024:.0f} MB")


def _round(number: int, palace: Path, folder: Path, scratch: Path, private: bool, warm: bool) -> float:
    """One round: into a fresh empty palace, into the large one (then taken out again), into another
    empty one; the large palace's drawers/s over the mean of the empty ones'."""
    from mempalace import Palace

    empty_a = ingest_into(scratch / f"empty-{number}a", folder, private, warm)
    large = ingest_into(palace, folder, private, warm)
    with Palace.open(palace, private=private) as opened:
        for start in range(0, len(large[2]), 5_000):
            opened.delete_drawers(large[2][start : start + 5_000])
    empty_b = ingest_into(scratch / f"empty-{number}b", folder, private, warm)
    for path in (scratch / f"empty-{number}a", scratch / f"empty-{number}b"):
        stop_server(path)
    rate = lambda run: run[1] / run[0]  # noqa: E731
    ratio = rate(large) / ((rate(empty_a) + rate(empty_b)) / 2)
    print(f"round {number}: empty {empty_a[0]:.1f} s and {empty_b[0]:.1f} s, large {large[0]:.1f} s "
          f"({large[1]} drawers each): {ratio:.1%}", flush=True)
    return ratio


if __name__ == "__main__":
    main()
