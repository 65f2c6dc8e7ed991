"""Ingest into a large palace against ingest into an empty one: drawers per second, room choice included.

    python benchmarks/ingest_at_scale.py --palace benchmarks/out/scale-1000000 --sessions 100

The same LoCoMo sessions (plain-text transcripts, as `ingest_throughput.py` writes them) are ingested
with the real model, shared (each palace's Chroma in its server, as for every command) or with
`--private` in this process, first into an empty palace, then into the large one (its ~2,900 rooms
compete for every conversation), then into a second empty one (the machine drifts); the large
palace's figure is compared with the mean of the two empty ones. The drawers added to the large
palace are removed afterwards, so it stays the benchmark palace it was.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ingest_throughput import LOCOMO, write_transcripts  # noqa: E402
from sharing import MEMPALACE, env, stop_server  # noqa: E402


def ingest_into(palace_dir: Path, folder: Path, private: bool) -> tuple[float, int, list[str]]:
    """(seconds, drawers added, their ids) of ingesting every file of `folder` into the palace."""
    from mempalace import Palace
    from mempalace.ingest import ingest_paths

    if not private and palace_dir.exists():  # a palace in use: its server runs, index loaded; `ingest` is new
        subprocess.run([MEMPALACE, "--palace", str(palace_dir), "search", "warm up"], env=env(False), check=True,
                       capture_output=True)
    with Palace.open(palace_dir, private=private) as palace:
        if private:
            palace.search("warm up")  # before the clock: the catalog, the model and Chroma's index (2 GB at 1M)
        else:
            palace.embed(["warm up"])  # the model: loaded by any ingest before its first drawer
        started = time.perf_counter()
        reports = ingest_paths(palace, sorted(folder.iterdir()))
        took = time.perf_counter() - started
    ids = [i for r in reports for i in r.drawer_ids]
    return took, len(ids), ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--palace", type=Path, required=True, help="the large palace (left as it was)")
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--private", action="store_true", help="Chroma in this process (a million drawers' index"
                        " loaded here slows the model's embedding by a third on 2 cores)")
    args = parser.parse_args()
    from mempalace import Palace

    stop_server(args.palace)  # a server left running by a dashboard or command: this run starts its own
    with tempfile.TemporaryDirectory(prefix="mempalace-ingest-scale-") as scratch:
        folder = Path(scratch) / "sessions"
        folder.mkdir()
        written = write_transcripts(args.locomo, folder, args.sessions)
        empty_a = ingest_into(Path(scratch) / "empty-a", folder, args.private)
        large = ingest_into(args.palace, folder, args.private)
        empty_b = ingest_into(Path(scratch) / "empty-b", folder, args.private)
        with Palace.open(args.palace, private=args.private) as palace:
            for start in range(0, len(large[2]), 5_000):
                palace.delete_drawers(large[2][start : start + 5_000])
        for path in (Path(scratch) / "empty-a", Path(scratch) / "empty-b", args.palace):
            stop_server(path)
    rate = lambda run: run[1] / run[0]  # noqa: E731
    empty = (rate(empty_a) + rate(empty_b)) / 2
    print(f"{written} sessions, real model, {'private' if args.private else 'shared'} palaces")
    print(f"empty palace:  {empty_a[1]} drawers in {empty_a[0]:.1f} s and {empty_b[0]:.1f} s "
          f"({rate(empty_a):.1f} and {rate(empty_b):.1f} drawers/s)")
    print(f"large palace:  {large[1]} drawers in {large[0]:.1f} s ({rate(large):.1f} drawers/s): "
          f"{rate(large) / empty:.1%} of the empty palace's (goal >= 80 %)")
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
