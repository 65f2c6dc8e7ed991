"""Blobs at ingest: seconds for files of 1 MB and 30 MB of text without spaces, as `mempalace ingest`
answers them (a process of its own, model loading included, the real model, a fresh palace each).

    python benchmarks/ingest_blobs.py            # 1 MB and 30 MB
    python benchmarks/ingest_blobs.py --mb 1 5

Two files per size: the blob alone on one line (base64 of random bytes: refused, nothing filed) and the
same blob pasted into a two-message chat (filed: the blob in drawers of its own, read by meaning as a
short description). Each is run as a dry run and as a real ingest. Target (ingest issue): a one-line
blob file is answered in ≤ 10 s, dry run or not, and the palace is unchanged.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHAT = ("User: here is the screenshot data from the bug report, can you tell what it is?\n\n{blob}\n\n"
        "Assistant: That is a PNG image encoded as base64; decode it with base64 -d to look at it.\n")


def blob(megabytes: int) -> str:
    size = megabytes * 1024 * 1024
    return base64.b64encode(random.Random(megabytes).randbytes(size * 3 // 4 + 3)).decode()[:size]


def ingest(home: Path, path: Path, dry_run: bool) -> tuple[float, dict, int]:
    """Seconds, the report and the drawers stored after `mempalace ingest` of `path` in `home`."""
    env = {**os.environ, "MEMPALACE_HOME": str(home)}
    command = [sys.executable, "-m", "mempalace", "--json", "ingest", str(path), *(["--dry-run"] if dry_run else [])]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    [report] = json.loads(done.stdout)
    status = subprocess.run([sys.executable, "-m", "mempalace", "--json", "status"], env=env, capture_output=True,
                            text=True)
    stored = json.loads(status.stdout)["drawers"] if status.returncode == 0 else 0
    return seconds, report, stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, nargs="+", default=[1, 30])
    args = parser.parse_args()
    print(f"{'case':28s} {'dry run':>9s} {'ingest':>9s}   drawers   result")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for megabytes in args.mb:
            text = blob(megabytes)
            for name, body in ((f"{megabytes} MB one-line blob", text), (f"{megabytes} MB blob in a chat",
                                                                        CHAT.format(blob=text))):
                path = work / f"{name.replace(' ', '_')}.txt"
                path.write_text(body, encoding="utf-8")
                home = work / f"home-{path.stem}"
                dry, _, _ = ingest(home, path, True)
                real, report, stored = ingest(home, path, False)
                result = report["errors"][0][:70] + "…" if report["errors"] else f"filed, rooms {report['rooms']}"
                print(f"{name:28s} {dry:8.1f}s {real:8.1f}s {stored:9d}   {result}")


if __name__ == "__main__":
    main()
