"""Cost growth 10k -> 100k -> 1M drawers on palaces of one realistic shape (`_scale_palace.py`).

    python benchmarks/growth.py --drawers 10000 100000 1000000      # builds benchmarks/out/scale-N once
    python benchmarks/growth.py --drawers 1000000 --parts cli process

Parts (each in new processes, wall clock):
- `open`: the first open of a palace without a catalog (as an upstream palace arrives), private, then
  a later open (`mempalace status`), with the process's peak RSS;
- `cli`: `status` and `search` end to end with the shared palace's server running (median of 5), each
  call's peak RSS, and the Chroma server's RSS;
- `process`: in one long-lived process, shared and private: taxonomy and counts cold and warm,
  `graph_stats` cold, search p50 wing-filtered and unfiltered, the process's RSS;
- `recall`: Chroma's HNSW top-10 against an exact search over every vector (50 queries).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _scale_palace import build  # noqa: E402
from sharing import QUERIES, TIMED_SEARCHES, env, stop_server  # noqa: E402

OUT = Path(__file__).parent / "out"
SOURCE = OUT / "palace-100000"  # real MiniLM vectors (scale.py --drawers 100000 builds it)
CATALOG_FILES = ("mempalace_catalog.sqlite3", "mempalace_catalog.sqlite3-wal", "mempalace_catalog.sqlite3-shm")
MEASURED = r"""
import os, sys
from mempalace.cli import main
code = 0
try:
    main.main(args=sys.argv[1:], prog_name="mempalace")
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 1
sys.stdout.flush()
peak = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print(f"MAXRSS {peak}", file=sys.stderr, flush=True)
os._exit(code)
"""  # as `mempalace` runs (`mempalace.cli.run`), telling its peak memory (VmHWM: ru_maxrss keeps the
# parent's peak across fork and exec) before it ends
IN_PROCESS = r"""
import json, statistics, sys, time
from mempalace import Palace
from mempalace.graph import graph_stats
t0 = time.perf_counter()
palace = Palace.open(sys.argv[1], private=sys.argv[2] == "private")
opened = time.perf_counter() - t0
views = lambda: (palace.taxonomy(), palace.count(), palace.list_wings(), palace.hall_counts())
t0 = time.perf_counter(); views(); cold = time.perf_counter() - t0
warm = []
for _ in range(200):
    t0 = time.perf_counter(); views(); warm.append(time.perf_counter() - t0)
t0 = time.perf_counter(); graph_stats(palace); graph = time.perf_counter() - t0
tree = palace.taxonomy()
wings = sorted(tree, key=lambda w: -sum(tree[w].values()))
palace.search("warm up the model")
""" + TIMED_SEARCHES + r"""
wing, unfiltered, largest = timed(True), timed(False), []
for i in range(20):
    t0 = time.perf_counter(); palace.search(QUERIES[i % len(QUERIES)], wing=wings[0]); largest.append(time.perf_counter() - t0)
total = palace.count()
pages = {}
for name, offset, newest in (("first", 0, False), ("deep", max(total - 100, 0), False), ("newest deep", max(total - 100, 0), True)):
    t0 = time.perf_counter(); palace.browse(offset=offset, limit=25, newest=newest); pages[name] = time.perf_counter() - t0
print(json.dumps({"pages": pages, "open": opened, "cold": cold, "warm": statistics.median(warm), "graph": graph,
                  "wing": statistics.median(wing), "unfiltered": statistics.median(unfiltered),
                  "largest_wing": statistics.median(largest), "wings": len(wings),
                  "rss_mb": int([l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]) / 1024}))
palace.close()
"""
RECALL = r"""
import json, sqlite3, sys
import numpy as np
from mempalace import Palace
path = sys.argv[1]
db = sqlite3.connect(f"file:{path}/mempalace_catalog.sqlite3?mode=ro", uri=True)
ids, blobs = [], []
for drawer_id, vector in db.execute("SELECT id, vector FROM drawers"):
    ids.append(drawer_id); blobs.append(vector)
matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), -1)
del blobs
palace = Palace.open(path, private=True)
queries = [q + s for q in QUERIES for s in ("", " last year", " next steps", " what went wrong", " the numbers")]
found = []
for vector in palace.embed(queries):
    exact = {ids[i] for i in np.argpartition(-(matrix @ vector), 10)[:10]}
    hnsw = {drawer_id for drawer_id, _ in palace._store.nearest(vector, 10)}
    found.append(len(exact & hnsw) / 10)
print(json.dumps({"recall": sum(found) / len(found), "worst": min(found), "queries": len(found)}))
palace.close()
"""


def cli(args: list[str], private: bool) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one `mempalace` call in its own process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MEASURED, *args], env=env(private), capture_output=True, text=True)
    took = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"mempalace {' '.join(args)} failed: {done.stderr[-2000:]}")
    rss = [line for line in done.stderr.splitlines() if line.startswith("MAXRSS ")][-1]
    return took, int(rss.split()[1]) / 1024


def palace_of(drawers: int) -> Path:
    path = OUT / f"scale-{drawers}"
    if not path.exists():
        if not SOURCE.exists():
            raise SystemExit(f"{SOURCE} is missing: build it first with `python benchmarks/scale.py --drawers 100000`.")
        print(f"building {path.name} ...", flush=True)
        print(f"built {drawers:,} drawers in {build(path, drawers, SOURCE):.0f} s", flush=True)
    return path


def first_open(path: Path) -> dict:
    stop_server(path)
    for name in CATALOG_FILES:
        (path / name).unlink(missing_ok=True)
    first, first_rss = cli(["--palace", str(path), "status"], private=True)
    later = [cli(["--palace", str(path), "status"], private=True) for _ in range(3)]
    return {"first open": f"{first:.1f} s ({first_rss:.0f} MB)",
            "later open (status)": f"{statistics.median(t for t, _ in later):.2f} s"}


def server_rss(path: Path) -> float:
    import psutil

    from mempalace.server.starting import ServerInfo

    info = ServerInfo.read(path)
    host = psutil.Process(info.pid)
    return sum(p.memory_info().rss for p in [host, *host.children(recursive=True)]) / 2**20


def cli_figures(path: Path) -> dict:
    place = ["--palace", str(path)]
    cli([*place, "search", "warm the server up"], private=False)
    status = [cli([*place, "status"], private=False) for _ in range(5)]
    search = [cli([*place, "search", QUERIES[i]], private=False) for i in range(5)]
    return {"CLI status (shared)": f"{statistics.median(t for t, _ in status):.2f} s ({max(r for _, r in status):.0f} MB)",
            "CLI search (shared)": f"{statistics.median(t for t, _ in search):.2f} s ({max(r for _, r in search):.0f} MB)",
            "Chroma server + host RSS": f"{server_rss(path):.0f} MB"}


def process_figures(path: Path) -> dict:
    rows = {}
    for private in (False, True):
        code = f"QUERIES = {QUERIES!r}\n" + IN_PROCESS
        if private:
            stop_server(path)
        done = subprocess.run([sys.executable, "-c", code, str(path), "private" if private else "shared"],
                              env=env(private), capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"the in-process measurement failed: {done.stderr[-3000:]}")
        got = json.loads(done.stdout.strip().splitlines()[-1])
        how = "private" if private else "shared"
        rows[f"taxonomy+counts cold / warm ({how})"] = f"{got['cold'] * 1000:.1f} ms / {got['warm'] * 1000:.2f} ms"
        rows[f"graph_stats cold ({how})"] = f"{got['graph'] * 1000:.1f} ms"
        rows[f"search p50 wing / largest wing / unfiltered ({how})"] = (
            f"{got['wing'] * 1000:.0f} / {got['largest_wing'] * 1000:.0f} / {got['unfiltered'] * 1000:.0f} ms")
        rows[f"Drawers listing first / deepest page / newest deepest ({how})"] = " / ".join(
            f"{got['pages'][k] * 1000:.0f}" for k in ("first", "deep", "newest deep")) + " ms"
        rows[f"process RSS after ({how})"] = f"{got['rss_mb']:.0f} MB"
    return rows


def recall(path: Path) -> dict:
    stop_server(path)
    code = f"QUERIES = {QUERIES!r}\n" + RECALL
    done = subprocess.run([sys.executable, "-c", code, str(path)], env=env(True), check=True,
                          capture_output=True, text=True)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return {"HNSW top-10 recall vs exact": f"{got['recall']:.3f} (worst {got['worst']:.1f}, {got['queries']} queries)"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drawers", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--parts", nargs="+", choices=("open", "cli", "process", "recall"),
                        default=["open", "cli", "process", "recall"])
    args = parser.parse_args()
    parts = {"open": first_open, "cli": cli_figures, "process": process_figures, "recall": recall}
    for drawers in args.drawers:
        path = palace_of(drawers)
        print(f"\n{drawers:,} drawers ({path})", flush=True)
        for part in args.parts:
            for label, figure in parts[part](path).items():
                print(f"  {label:55s} {figure}", flush=True)
        stop_server(path)


if __name__ == "__main__":
    main()
