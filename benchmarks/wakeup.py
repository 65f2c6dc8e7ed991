"""Wake-up timing on a big palace: the first wake-up after opening (cold), a recomputed one and a
remembered one (warm), and Claude Code's SessionStart hook as a whole new process.

    python benchmarks/wakeup.py                                  # benchmarks/out/palace-100000 (scale.py builds it)
    python benchmarks/wakeup.py --palace benchmarks/out/palace-100000-use-m3

The wake-up reads the catalog alone, so the palace's embedder does not matter (nothing is embedded).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--palace", type=Path, default=ROOT / "benchmarks" / "out" / "palace-100000")
    args = parser.parse_args()
    from mempalace import Palace

    started = time.perf_counter()
    with Palace.open(args.palace, private=True, create=False) as palace:
        opened = time.perf_counter()
        wings = sorted(palace.list_wings(), key=lambda w: -palace.list_wings()[w])
        first = palace.wake_up(wings[0])
        cold = time.perf_counter() - opened
        again = []
        for budget in range(801, 811):  # each budget computed anew, the catalog warm
            t = time.perf_counter()
            palace.wake_up(wings[0], budget)
            again.append(time.perf_counter() - t)
        t = time.perf_counter()
        palace.wake_up(wings[0])
        remembered = time.perf_counter() - t
        drawers = palace.count()
    payload = json.dumps({"hook_event_name": "SessionStart", "cwd": f"/work/{wings[0]}"})
    hook = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(args.palace), "hooks", "run", "claude-code"],
                       input=payload, capture_output=True, text=True, check=True, cwd=ROOT)
        hook.append(time.perf_counter() - t)
    print(f"{args.palace.name}: {drawers:,} drawers; wing {wings[0]}; open {opened - started:.2f} s")
    print(f"  cold wake-up {cold * 1000:.0f} ms; warm (recomputed) median {statistics.median(again) * 1000:.1f} ms; "
          f"remembered {remembered * 1e6:.0f} µs; {first.tokens} tokens, {len(first.drawer_ids)} drawers named")
    print(f"  SessionStart hook, whole process: median {statistics.median(hook):.2f} s (max {max(hook):.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
