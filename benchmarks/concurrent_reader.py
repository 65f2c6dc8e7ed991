"""Is reading an embedded Chroma palace from a second process safe while another process writes?

    python benchmarks/concurrent_reader.py --trials 3 --seconds 20

Uses plain chromadb (no MemPalace lock) on purpose: one process adds drawers in batches while a
second process opens the same directory and reads (count, get, query) in a loop. Reports, per
trial, how each process ended, what the reader saw, and whether the palace reopens intact.
This is the experiment behind MemPalace's rule that an embedded palace is held by one process.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WRITER = r"""
import sys, time, numpy as np, chromadb
path, seconds = sys.argv[1], float(sys.argv[2])
col = chromadb.PersistentClient(path).get_or_create_collection("mempalace_drawers", embedding_function=None,
                                                               metadata={"hnsw:space": "cosine"})
rng = np.random.default_rng(0); n = 0; end = time.time() + seconds
while time.time() < end:
    ids = [f"d{n + i}" for i in range(200)]
    col.add(ids=ids, embeddings=rng.standard_normal((200, 384)).astype("float32"),
            documents=[f"doc {i}" for i in ids], metadatas=[{"wing": f"w{i % 5}"} for i in range(200)])
    n += 200
print(n)
"""
READER = r"""
import sys, time, json, numpy as np, chromadb
path, seconds, reopen = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "reopen"
end = time.time() + seconds; reads = errors = 0; counts = []; first_error = None
client = None
while time.time() < end:
    try:
        if client is None:
            client = chromadb.PersistentClient(path)
        col = client.get_collection("mempalace_drawers", embedding_function=None)
        counts.append(col.count())
        col.get(where={"wing": "w1"}, include=["metadatas"], limit=50)
        col.query(query_embeddings=np.ones((1, 384), dtype="float32"), n_results=5)
        reads += 1
        if reopen:
            client.close(); client = None
    except Exception as exc:
        errors += 1; first_error = first_error or f"{type(exc).__name__}: {exc}"[:200]
        time.sleep(0.05)
print(json.dumps({"reads": reads, "errors": errors, "first_error": first_error,
                  "counts_seen": sorted(set(counts))[:3] + ["..."] + sorted(set(counts))[-3:]}))
"""
VERIFY = r"""
import sys, chromadb
col = chromadb.PersistentClient(sys.argv[1]).get_collection("mempalace_drawers", embedding_function=None)
print(col.count(), len(col.query(query_embeddings=[[1.0] * 384], n_results=5)["ids"][0]))
"""


def _finish(proc: subprocess.Popen, timeout: float) -> tuple[str, str]:
    """Output of a process, killing it (and saying so) if it hangs."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return out, f"HUNG: killed after {timeout:.0f} s more. {err}"


def trial(seconds: float, reopen: bool) -> dict:
    path = Path(tempfile.mkdtemp(prefix="mp-concurrency-"))
    try:
        subprocess.run([sys.executable, "-c", WRITER, str(path), "0.1"], check=True, capture_output=True)
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(seconds)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1)
        reader = subprocess.Popen([sys.executable, "-c", READER, str(path), str(seconds - 2),
                                   "reopen" if reopen else "keep"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        w_out, w_err = _finish(writer, seconds + 60)
        r_out, r_err = _finish(reader, 30)
        verify = subprocess.run([sys.executable, "-c", VERIFY, str(path)], capture_output=True, text=True)
        return {
            "writer_exit": writer.returncode, "written": w_out.strip()[-20:],
            "reader_exit": reader.returncode, "reader": r_out.strip()[-400:] or r_err.strip()[:300],
            "reopen_exit": verify.returncode, "reopen": verify.stdout.strip() or verify.stderr.strip()[-300:],
        }
    finally:
        shutil.rmtree(path, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--reopen", action="store_true", help="the reader reopens its client on every read")
    args = parser.parse_args()
    for number in range(1, args.trials + 1):
        print(f"trial {number}: {json.dumps(trial(args.seconds, args.reopen), indent=2)}", flush=True)


if __name__ == "__main__":
    main()
