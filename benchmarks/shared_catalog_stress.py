"""A shared catalog under load: one process rebuilds it (`Catalog.load`) over and over while others
open it, count and search it, each opening a new connection every time.

    python benchmarks/shared_catalog_stress.py --seconds 90 --readers 3

Prints how many loads and opens each process made and every error it met, by kind. Before the fix
of 2026-12-05 most minutes gave errors ("database disk image is malformed", "vtable constructor
failed") and, in three runs of five, a reader deleting the catalog as damaged: opening it chmod'ed
the file through a descriptor of its own, and closing that descriptor dropped the process's SQLite
locks; an opener also made the schema's triggers again under a load (see `mempalace/catalog/shared_file.py`).
After it: 0 errors in 60 and 90 s runs.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _rows(count: int, generation: int) -> list:
    from mempalace.catalog.catalog import Row

    return [Row(f"d{i}", f"drawer {i} of load {generation} about topic {i % 17}, the kiln and its cone",
                f"wing_{i % 5}", f"room-{i % 11}", "hall_facts", "", 0, f"p{i}", "2026-01-01", generation * 100_000 + i,
                np.random.rand(8).astype(np.float32)) for i in range(count)]


def _writer(path: Path, stop, told) -> None:
    from mempalace.catalog.catalog import Catalog

    catalog, loads = Catalog(path), 0
    while not stop.is_set():
        loads += 1
        try:
            rows = _rows(3_000, loads)
            catalog.load([rows[i:i + 500] for i in range(0, len(rows), 500)])
        except Exception as exc:  # counted and shown: what this benchmark is for
            told.put(f"writer: {type(exc).__name__}: {exc}")
    told.put(f"writer: {loads} loads")


def _reader(path: Path, stop, told, number: int) -> None:
    from mempalace.catalog.catalog import Catalog

    opens = 0
    while not stop.is_set():
        try:
            catalog = Catalog(path)
            catalog.count()
            catalog.lexical("kiln cone", {}, 10)
            catalog.close()
            opens += 1
        except Exception as exc:
            told.put(f"reader: {type(exc).__name__}: {exc}")
    told.put(f"reader {number}: {opens} opens")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--readers", type=int, default=3)
    args = parser.parse_args()
    path = Path(tempfile.mkdtemp(prefix="mempalace-catalog-stress-")) / "catalog.sqlite3"
    stop, told = mp.Event(), mp.Queue()
    workers = [mp.Process(target=_writer, args=(path, stop, told))]
    workers += [mp.Process(target=_reader, args=(path, stop, told, n)) for n in range(args.readers)]
    for worker in workers:
        worker.start()
    time.sleep(args.seconds)
    stop.set()
    for worker in workers:
        worker.join(60)
    said: Counter[str] = Counter()
    while not told.empty():
        said[told.get()[:200]] += 1
    for line, times in sorted(said.items()):
        print(f"{times:5} × {line}")
    errors = sum(n for line, n in said.items() if "Error" in line)
    print(f"errors: {errors}")


if __name__ == "__main__":
    main()
