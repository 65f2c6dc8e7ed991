"""Graph benchmark: graph_stats cold and warm on a large palace, the other graph calls, and what a
naive scan of every drawer's metadata (how other tools build the graph) costs on the same palace.

    python benchmarks/graph.py                    # uses (or builds) benchmarks/out/palace-100000
    python benchmarks/graph.py --drawers 10000

"Cold" is the first call in a new process with the palace open and its catalog on disk; "after a
write" is the first call after a drawer was filed through the API; "warm" is a repeat call.
Targets (issue 4): cold ≤ 100 ms, warm ≤ 5 ms on 100,000 drawers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale import ms, ready_palace  # noqa: E402  (the same palace as the scale benchmark)

CHILD = r"""
import json, sys, time
from mempalace import Palace
from mempalace.graph import build_graph, find_tunnels, graph_stats, suggest_room_merges, traverse
palace = Palace.open(sys.argv[1])
def timed(call, repeat=1):
    took = []
    for _ in range(repeat):
        t0 = time.perf_counter(); value = call(); took.append(time.perf_counter() - t0)
    return took, value
out = {}
out["cold"], stats = timed(lambda: graph_stats(palace))
out["warm"], _ = timed(lambda: graph_stats(palace), 300)
room = stats.top_tunnels[0].room
out["build_graph"], (nodes, edges) = timed(lambda: build_graph(palace))
out["find_tunnels"], _ = timed(lambda: find_tunnels(palace, "wing_00"), 50)
out["traverse"], _ = timed(lambda: traverse(palace, room, 2), 50)
out["suggest_first"], _ = timed(lambda: suggest_room_merges(palace))
added = palace.add_drawer(f"graph benchmark drawer {time.time_ns()}", "wing_bench", room)
out["after_write"], after = timed(lambda: graph_stats(palace))
palace.delete_drawers(list(added.drawer_ids))
out["shape"] = [stats.total_rooms, stats.tunnel_rooms, stats.total_edges, stats.total_wings, len(nodes), len(edges)]
out["exact"] = after.total_wings == stats.total_wings + 1
print(json.dumps(out))
"""

NAIVE = r"""
import sys, time
from itertools import combinations
import chromadb
client = chromadb.PersistentClient(sys.argv[1])
collection = client.get_collection("mempalace_drawers")
t0 = time.perf_counter()
rooms, offset = {}, 0
while True:
    page = collection.get(include=["metadatas"], limit=5000, offset=offset)
    if not page["ids"]:
        break
    for meta in page["metadatas"]:
        rooms.setdefault(meta.get("room"), set()).add(meta.get("wing"))
    offset += len(page["ids"])
edges = sum(1 for wings in rooms.values() for _ in combinations(sorted(wings), 2))
print(time.perf_counter() - t0, offset, edges)
"""


def child(script: str, path: Path) -> str:
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drawers", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5, help="new processes to measure cold calls in")
    args = parser.parse_args()
    path = ready_palace(args.drawers)
    runs = [json.loads(child(CHILD, path)) for _ in range(args.runs)]
    rooms, tunnels, edges, wings, nodes, edge_list = runs[0]["shape"]
    print(f"\n{args.drawers:,} drawers: {rooms} rooms ({tunnels} tunnels, {edges:,} edges) in {wings} wings")
    cold = [r["cold"][0] for r in runs]
    print(f"graph_stats cold ({args.runs} processes):  median {ms(cold)}  max {ms(cold, 1.0)}   target ≤ 100 ms")
    warm = [w for r in runs for w in r["warm"]]
    print(f"graph_stats warm ({len(warm)} calls):     p50 {ms(warm)}  p95 {ms(warm, 0.95)}   target ≤ 5 ms")
    after = [r["after_write"][0] for r in runs]
    print(f"graph_stats right after a write:     median {ms(after)}  (exact: {all(r['exact'] for r in runs)})")
    for key, label in [("build_graph", f"build_graph ({nodes} nodes, {edge_list:,} edges)"),
                       ("find_tunnels", "find_tunnels(wing_00), warm"), ("traverse", "traverse 2 hops, warm"),
                       ("suggest_first", "suggest_room_merges, first call")]:
        values = [v for r in runs for v in r[key]]
        print(f"{label + ':':37s}median {ms(values)}")
    naive = [float(child(NAIVE, path).split()[0]) for _ in range(2)]
    print(f"naive scan of every drawer's metadata: {ms(naive)} (what rebuilding the graph per call costs)")


if __name__ == "__main__":
    main()
