"""Scoped-view benchmark: what reading a palace through `ScopedPalace` (the signed-in dashboard's and
`mcp --http`'s view) costs against the palace itself, at 100k drawers.

    python benchmarks/scoped.py --drawers 100000     # uses (or builds) benchmarks/out/palace-100000

In one process, private palace, the readers taking turns call by call (the machine drifts), for three readers:
`palace` (the Palace), `admin` (a ScopedPalace of every wing: the overhead proper) and `most wings`
(a viewer of every wing but one, named one by one: each read is filtered to that list).
1. Search p50, unfiltered and wing-filtered (the dashboard's 20 results).
2. Overview: everything the Overview page computes (places, counts, graph stats, filing days, halls),
   cold (the palace's memo cleared before each call, as after any write) and warm.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).parent))
from scale import ready_palace  # noqa: E402

from mempalace import Palace  # noqa: E402
from mempalace.access.rules import Actor, Grant, full_grant  # noqa: E402
from mempalace.graph import graph_stats  # noqa: E402
from mempalace.scoped.palace import ScopedPalace  # noqa: E402

QUERIES = ["how did the auth migration go", "gpu costs before the launch", "who fixed the cache outage",
           "billing policy review", "deploy rollout incident", "security audit plan", "search latency tuning",
           "backup budget", "payments refactor", "mobile testing notes"]
ROUNDS = 8


def overview(p: Any) -> int:
    """What the Overview page computes (dashboard.views.overview without Streamlit)."""
    places = p.places()
    graph_stats(p)
    p.filed_per_day()
    p.hall_counts()
    return sum(n for *_, n in places)


def timed(call: Callable[[], Any], times: int, before: Callable[[], None] = lambda: None) -> list[float]:
    out = []
    for _ in range(times):
        before()
        t0 = time.perf_counter()
        call()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--drawers", type=int, default=100_000)
    args = parser.parse_args()
    path = ready_palace(args.drawers)
    palace = Palace.open(path, private=True)
    wings = sorted(palace.list_wings())
    readers = {
        "palace": palace,
        "admin": ScopedPalace(palace, full_grant("bench", "python")),
        "most wings": ScopedPalace(palace, Grant(Actor("bench", "python"), (("viewer", tuple(wings[1:])),))),
    }
    palace.search("warm up the model")

    def cold() -> None:
        palace._memo.clear()  # as after a write: every view is computed again

    figures: dict[tuple[str, str], list[float]] = {}

    def record(measure: str, call: Callable[[Any], Any], times: int = 1, before: Callable[[], None] = lambda: None,
               turn: int = 0) -> None:
        """Time `call(reader)` for each reader, in an order that rotates with `turn` (no reader always first)."""
        names = list(readers)
        for name in names[turn % len(names):] + names[:turn % len(names)]:
            figures.setdefault((name, measure), []).extend(timed(lambda: call(readers[name]), times, before))

    for i, query in enumerate(QUERIES):  # warm every filter's cached vectors first: no reader pays for them
        for reader in readers.values():
            reader.search(query, limit=20)
            reader.search(query, wing=wings[1 + i % (len(wings) - 1)], limit=20)
    turn = 0
    for _ in range(ROUNDS):
        for i, query in enumerate(QUERIES):
            wing = wings[1 + i % (len(wings) - 1)]
            record("search", lambda r: r.search(query, limit=20), turn=turn)
            record("search, one wing", lambda r: r.search(query, wing=wing, limit=20), turn=turn + 1)
            turn += 1
        record("overview, cold", overview, 8, cold, turn)
        record("overview, warm", overview, 8, turn=turn + 1)
    print(f"{args.drawers:,} drawers, {len(wings)} wings; p50 in ms over {ROUNDS} rounds, readers taking turns;"
          " ratios are medians of call-by-call pairs")
    print(f"{'measure':<20}" + "".join(f"{n:>14}" for n in readers) + f"{'admin/palace':>14}{'most/palace':>14}")
    for measure in ("search", "search, one wing", "overview, cold", "overview, warm"):
        p50 = {n: statistics.median(figures[(n, measure)]) * 1000 for n in readers}
        base = figures[("palace", measure)]
        ratio = {n: statistics.median(a / b for a, b in zip(figures[(n, measure)], base)) for n in readers}
        print(f"{measure:<20}" + "".join(f"{p50[n]:>14.2f}" for n in readers)
              + f"{ratio['admin']:>14.3f}{ratio['most wings']:>14.3f}")
    palace.close()


if __name__ == "__main__":
    main()
