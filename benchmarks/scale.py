"""Scale benchmark: taxonomy/counts cold and warm, and search latency, on a large palace.

    python benchmarks/scale.py --drawers 100000          # builds benchmarks/out/palace-100000 once
    python benchmarks/scale.py --drawers 10000 --rebuild
    python benchmarks/scale.py --drawers 10000 --embedder use-m3   # benchmarks/out/palace-10000-use-m3

The palace is written straight into Chroma the way another client would (stamped rows with real
vectors of the chosen embedder, MiniLM by default), so the first `Palace.open` also shows what building the catalog costs. "Cold" is
the first call in a new process with the palace already open; "warm" is a repeat call.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).parent / "out"
TOPICS = ["auth", "billing", "gpu", "deploy", "cache", "search", "vault", "onboarding", "pricing", "latency",
          "schema", "backup", "alerts", "payments", "mobile", "design", "hiring", "roadmap", "security", "docs"]
ASPECTS = ["migration", "outage", "review", "costs", "plan", "bug", "tuning", "policy", "metrics", "rollout",
           "testing", "refactor", "audit", "budget", "retro", "design", "limits", "incident", "upgrade", "notes"]
VERBS = ["decided", "found", "noticed", "agreed", "measured", "proposed", "learned", "fixed", "shipped", "asked"]


def drawer_text(rng: random.Random, room: str, i: int) -> str:
    topic, aspect = room.split("-", 1)
    words = rng.sample(TOPICS + ASPECTS, 6)
    return (f"{rng.choice(['Kai', 'Priya', 'Sam', 'Ana'])} {rng.choice(VERBS)} that the {topic} {aspect} "
            f"needs {' and '.join(words[:2])} work before {rng.choice(['Monday', 'the launch', 'Q3', 'March'])}. "
            f"Ticket {i}: {' '.join(words[2:])} were discussed at length with the team.")


def build(path: Path, drawers: int, embedder_name: str = "minilm-int8") -> None:
    from mempalace.embedding.embedders import load_embedder
    from mempalace.store.chroma import SEQ_KEY, ChromaStore
    from mempalace.store.embedding_function import PalaceEmbeddingFunction

    rng = random.Random(7)
    rooms = [f"{t}-{a}" for t in TOPICS for a in ASPECTS]  # 400 rooms
    wing_rooms = {f"wing_{w:02d}": rng.sample(rooms, 40) for w in range(20)}
    embedder = load_embedder(embedder_name)
    store = ChromaStore.embedded(path, PalaceEmbeddingFunction(embedder), create=True)
    started = time.perf_counter()
    batch = 2_000
    for start in range(0, drawers, batch):
        ids, docs, metas = [], [], []
        for i in range(start, min(start + batch, drawers)):
            wing = f"wing_{i % 20:02d}"
            room = rng.choice(wing_rooms[wing])
            ids.append(f"drawer_bench_{i:07d}")
            docs.append(drawer_text(rng, room, i))
            metas.append({"wing": wing, "room": room, "hall": rng.choice(["hall_facts", "hall_events", "hall_advice"]),
                          "source_file": f"session_{i // 50}.jsonl", "chunk_index": i % 50, "added_by": "bench",
                          "filed_at": "2026-11-01T00:00:00+00:00", SEQ_KEY: 1_000_000 + i})
        store.add(ids, docs, metas, embedder.embed(docs))
        print(f"  built {start + len(ids):,} drawers ({time.perf_counter() - started:.0f} s)", flush=True)
    store.close()


CHILD = r"""
import json, statistics, sys, time
from mempalace import Palace
t0 = time.perf_counter()
palace = Palace.open(sys.argv[1])
opened = time.perf_counter() - t0
def views():
    return palace.taxonomy(), palace.count(), palace.list_wings(), palace.hall_counts()
t0 = time.perf_counter(); views(); cold = time.perf_counter() - t0
warm = []
for _ in range(200):
    t0 = time.perf_counter(); views(); warm.append(time.perf_counter() - t0)
wings = sorted(palace.list_wings())
queries = ["how did the auth migration go", "gpu costs before the launch", "who fixed the cache outage",
           "billing policy review", "deploy rollout incident", "security audit plan", "search latency tuning",
           "backup budget", "payments refactor", "mobile testing notes"]
def timed(**kw):
    out = []
    for i in range(50):
        q = queries[i % len(queries)]
        extra = {"wing": wings[i % len(wings)]} if kw.pop("per_wing", False) or kw.get("_w") else {}
        t0 = time.perf_counter(); palace.search(q, **{**extra, **{k: v for k, v in kw.items() if k != "_w"}})
        out.append(time.perf_counter() - t0)
    return out
palace.search("warm up the model")
wing_first = timed(_w=True)
wing_steady = timed(_w=True)
unfiltered = timed()
vector_wing = timed(_w=True, mode="vector")
palace.close()
print(json.dumps({"open": opened, "cold": cold, "warm": warm, "wing_first": wing_first,
                  "wing_steady": wing_steady, "unfiltered": unfiltered, "vector_wing": vector_wing}))
"""


def measure(path: Path) -> dict:
    result = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True,
                            env=_env(path))
    return json.loads(result.stdout.strip().splitlines()[-1])


def ms(values: list[float], q: float = 0.5) -> str:
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:.2f} ms"


def _env(path: Path) -> dict:
    """The environment of a process opening `path`: the embedder its name says it was built with."""
    return {**os.environ, "MEMPALACE_EMBEDDER": "use-m3" if path.name.endswith("-use-m3") else "minilm-int8"}


def ready_palace(drawers: int, rebuild: bool = False, embedder: str = "minilm-int8") -> Path:
    """benchmarks/out/palace-N (palace-N-use-m3 with use-m3), built if missing, opened once so that its
    catalog is current."""
    path = OUT / (f"palace-{drawers}" + ("-use-m3" if embedder == "use-m3" else ""))
    if rebuild and path.exists():
        shutil.rmtree(path)
    if not path.exists():
        print(f"Building a {drawers:,}-drawer palace at {path} (real {embedder} vectors)…")
        build(path, drawers, embedder)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sys; from mempalace import Palace; "
                    "p = Palace.open(sys.argv[1]); p.count(); p.close()", str(path)], check=True, env=_env(path))
    print(f"Catalog ready (built from Chroma if missing or of an older schema): {time.perf_counter() - t0:.1f} s"
          " incl. process start")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drawers", type=int, default=100_000)
    parser.add_argument("--rebuild", action="store_true", help="build the palace again even if it exists")
    parser.add_argument("--embedder", default="minilm-int8", choices=["minilm-int8", "use-m3"])
    args = parser.parse_args()
    path = ready_palace(args.drawers, args.rebuild, args.embedder)
    runs = [measure(path) for _ in range(3)]
    cold = [r["cold"] for r in runs]
    print(f"\n{args.drawers:,} drawers, 20 wings, ~400 rooms")
    print(f"open (new process, catalog present): {ms([r['open'] for r in runs])}")
    print(f"taxonomy+counts cold (3 processes):  median {ms(cold)}  max {ms(cold, 1.0)}")
    warm = [w for r in runs for w in r["warm"]]
    print(f"taxonomy+counts warm (600 calls):    p50 {ms(warm)}  p95 {ms(warm, 0.95)}")
    for key, label in [("wing_first", "search, wing filter, first per wing"),
                       ("wing_steady", "search, wing filter, steady"), ("unfiltered", "search, no filter"),
                       ("vector_wing", "vector-only search, wing filter")]:
        values = [v for r in runs for v in r[key]]
        print(f"{label + ':':38s} p50 {ms(values)}  p95 {ms(values, 0.95)}")


if __name__ == "__main__":
    main()
