"""Sharing benchmark: what a shared palace costs, as a person types commands and as the dashboard and
an agent search, against the same palace opened private (embedded).

    python benchmarks/sharing.py --drawers 100000     # uses (or builds) benchmarks/out/palace-100000

1. CLI, end to end (a new `mempalace` process each time, wall clock, median of 7):
   `status` and `search` with the palace's server already running; then the first command after
   the server was stopped (`search`, which has to start it; `status` needs no server at all).
2. Search p50 inside a long-lived process (the dashboard's case: one `Palace` for many searches),
   wing-filtered and unfiltered, shared against private, in alternating rounds (the machine drifts).
3. MCP `mempalace_search` p50 through the SDK's stdio client, shared against private, likewise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale import ready_palace  # noqa: E402

MEMPALACE = str(Path(sys.executable).parent / "mempalace")
ROUNDS = 3
QUERIES = ["how did the auth migration go", "gpu costs before the launch", "who fixed the cache outage",
           "billing policy review", "deploy rollout incident", "security audit plan", "search latency tuning",
           "backup budget", "payments refactor", "mobile testing notes"]
TIMED_SEARCHES = r"""
def timed(filtered):
    out = []
    for i in range(60):
        t0 = time.perf_counter()
        palace.search(QUERIES[i % len(QUERIES)], wing=wings[i % len(wings)] if filtered else None)
        out.append(time.perf_counter() - t0)
    return out
"""  # a child's 60 searches, round robin over QUERIES (and `wings` when filtered): growth.py's too
IN_PROCESS = r"""
import json, sys, time
from mempalace import Palace
palace = Palace.open(sys.argv[1], private=sys.argv[2] == "private")
wings = sorted(palace.list_wings())
palace.search("warm up the model")
""" + TIMED_SEARCHES + r"""
print(json.dumps({"wing": timed(True), "unfiltered": timed(False)}))
palace.close()
"""


def env(private: bool) -> dict[str, str]:
    return {**os.environ, "MEMPALACE_SHARED": "0" if private else "1"}


def wall(args: list[str], private: bool = False) -> float:
    started = time.perf_counter()
    subprocess.run([MEMPALACE, *args], env=env(private), check=True, capture_output=True)
    return time.perf_counter() - started


def stop_server(palace: Path) -> None:
    """Stop the folder's host, also one still starting Chroma (a client may go on before it serves)."""
    from mempalace.server.starting import host_pid

    pid = host_pid(palace)
    if pid is None:
        return
    os.kill(pid, signal.SIGTERM)
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def cli_figures(palace: Path) -> dict[str, list[float]]:
    place = ["--palace", str(palace)]
    wall([*place, "search", "warm the server up"])
    figures: dict[str, list[float]] = {"status": [], "search": [], "first search": [], "first status": []}
    for i in range(7):
        figures["status"].append(wall([*place, "status"]))
        figures["search"].append(wall([*place, "search", QUERIES[i]]))
    for i in range(3):
        stop_server(palace)
        figures["first status"].append(wall([*place, "status"]))
        stop_server(palace)
        figures["first search"].append(wall([*place, "search", QUERIES[i]]))
    return figures


def in_process(palace: Path, private: bool) -> dict[str, list[float]]:
    code = f"QUERIES = {QUERIES!r}\n" + IN_PROCESS
    done = subprocess.run([sys.executable, "-c", code, str(palace), "private" if private else "shared"],
                          env=env(private), check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


async def mcp_search(palace: Path, private: bool) -> list[float]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=MEMPALACE, args=["--palace", str(palace), "mcp"], env=env(private))
    times = []
    async with Client(params) as client:
        await client.call_tool("mempalace_search", {"query": "warm up the model"})
        for i in range(60):
            started = time.perf_counter()
            result = await client.call_tool("mempalace_search", {"query": QUERIES[i % len(QUERIES)]})
            times.append(time.perf_counter() - started)
            assert not result.is_error, result.content
    return times


def p50(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drawers", type=int, default=100_000)
    args = parser.parse_args()
    palace = ready_palace(args.drawers)
    stop_server(palace)
    cli = cli_figures(palace)
    print(f"\n{args.drawers:,} drawers. CLI, a new process each time (median; max):")
    for name, values in cli.items():
        print(f"  mempalace {name:13s} {p50(values)}; max {max(values) * 1000:.0f} ms")
    print(f"Search inside one process (p50 of {ROUNDS} alternating rounds each), shared vs private:")
    runs: dict[bool, dict[str, list[float]]] = {True: {"wing": [], "unfiltered": []},
                                                False: {"wing": [], "unfiltered": []}}
    mcp: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(ROUNDS):
        for private in (True, False):
            stop_server(palace)
            for key, values in in_process(palace, private).items():
                runs[private][key] += values
            stop_server(palace)
            mcp[private] += asyncio.run(mcp_search(palace, private))
    for key in ("wing", "unfiltered"):
        ratio = statistics.median(runs[False][key]) / statistics.median(runs[True][key])
        print(f"  {key:10s} private {p50(runs[True][key])}  shared {p50(runs[False][key])}  ({ratio:.2f}×)")
    ratio = statistics.median(mcp[False]) / statistics.median(mcp[True])
    print(f"MCP mempalace_search p50: private {p50(mcp[True])}  shared {p50(mcp[False])}  ({ratio:.2f}×)")
    stop_server(palace)


if __name__ == "__main__":
    main()
