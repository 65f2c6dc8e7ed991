"""The workers of `soak.py`, one process each: `python benchmarks/soak_workers.py KIND --palace P --log L --seed N`.

Each writes a log of JSON lines (an attempt before each write, the outcome after it, fsync'd) that
soak.py's check compares with the palace. soak.py starts, kills and restarts them; run alone, a worker
writes into the palace until it gets SIGTERM.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MOVER_ROOMS = ("mv-north", "mv-south", "mv-east", "mv-west")
STOP: list[int] = []


def _json(text: str, default: Any) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return default


def _failure(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[-300:]


# -- workers ---------------------------------------------------------------------------------------

class Worker:
    """What every worker shares: its log, random words and unique tokens."""

    def __init__(self, kind: str, palace: str, log: Path, seed: int):
        self.kind, self.palace, self.rng, self.n, self.logs = kind, palace, random.Random(seed), 0, log.parent
        self._fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        text = (Path(importlib.util.find_spec("mempalace").origin).parent / "demo_conversations.txt").read_text()
        self.words = sorted(set(re.findall(r"[a-z]{4,}", text.lower())))
        self.tag = f"soak{kind[:2].replace('-', '')}{os.getpid():x}x{self.rng.randrange(1 << 16):x}"

    def log(self, t: str, **entry: object) -> None:
        """One JSON line, on disk before the worker goes on."""
        os.write(self._fd, (json.dumps({"at": time.time(), "t": t, **entry}) + "\n").encode())
        os.fsync(self._fd)

    def attempt(self, op: str, parts: int) -> tuple[str, list[str]]:
        self.n += 1
        key = f"{self.tag}n{self.n}"
        tokens = [f"{key}p{k}" for k in range(parts)]
        self.log("attempt", op=op, key=key, tokens=tokens)
        return key, tokens

    def sentence(self, token: str | None, length: int) -> str:
        words = [self.rng.choice(self.words) for _ in range(length)]
        if token:
            words.insert(self.rng.randrange(1, length + 1), token)  # never first: capitalize() would change it
        return " ".join(words).capitalize() + "."

    def content(self, tokens: list[str], length: int = 45) -> str:
        return "\n\n".join(self.sentence(t, length) for t in tokens)

    def cli(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run([sys.executable, "-m", "mempalace", "--palace", self.palace, *args],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(args, -1, "", f"timed out after {timeout:.0f} s")

    def outcome(self, op: str, key: str, status: str, ids: Any = (), err: str = "") -> None:
        if status in ("added", "exists"):
            self.log("ack", op=op, key=key, ids=list(ids), status=status)
        else:
            self.log("refused" if status == "duplicate" else "error", op=op, key=key, err=err[-300:] or status)


def ingest_worker(w: Worker) -> None:
    (w.logs / "files").mkdir(exist_ok=True)
    while not STOP:
        key, tokens = w.attempt("ingest", w.rng.randint(3, 6))
        path = w.logs / "files" / f"{key}.txt"
        path.write_text("".join(f"User: {w.sentence(t, 18)}\nAssistant: {w.sentence(None, 40)}\n\n" for t in tokens))
        done = w.cli("ingest", "--json", str(path), "--wing", "wing_ingest")
        reports = _json(done.stdout, [])
        errors = " ".join(e for r in reports for e in r.get("errors", []))  # with --json they are on stdout
        w.outcome("ingest", key, "added" if done.returncode == 0 else "error",
                  [i for r in reports for i in r.get("drawer_ids", [])], errors or done.stderr.strip())


def cli_add_worker(w: Worker) -> None:
    while not STOP:
        key, tokens = w.attempt("add", w.rng.randint(1, 4))
        done = w.cli("add", "--json", "--wing", "wing_cli", "--room", w.rng.choice(("cli-notes", "cli-ideas")),
                     w.content(tokens))
        data = _json(done.stdout, {}) if done.stdout.strip() else {}
        status = data.get("status", "") if done.returncode == 0 or data.get("status") == "duplicate" else ""
        w.outcome("add", key, status, data.get("drawer_ids", []), done.stderr.strip())


def mcp_worker(w: Worker) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def run() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "mempalace", "--palace", w.palace, "mcp"],
                                       env=dict(os.environ))
        with open(w.logs / f"mcp-server-{os.getpid()}.err", "a") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                while not STOP:
                    key, tokens = w.attempt("add", w.rng.randint(1, 4))
                    args = {"wing": "wing_mcp", "room": w.rng.choice(("agent-notes", "agent-facts")),
                            "content": w.content(tokens)}
                    try:
                        result = await session.call_tool("mempalace_add_drawer", args, read_timeout_seconds=180)
                    except Exception as exc:  # the stdio server is gone: the parent starts a new worker
                        w.outcome("add", key, "error", err=_failure(exc))
                        raise SystemExit(3)
                    if result.is_error:
                        w.outcome("add", key, "error", err=" ".join(getattr(c, "text", "") for c in result.content))
                    else:
                        w.outcome("add", key, result.structured_content["status"],
                                  result.structured_content["drawer_ids"])

    anyio.run(run)


def mover_worker(w: Worker) -> None:
    from mempalace import Palace

    palace = Palace.open(w.palace)
    known: dict[str, str] = {}  # drawer id -> room, for drawers this process added and still trusts
    while not STOP:
        choice = w.rng.random()
        if len(known) < 3 or choice < 0.35:
            key, tokens = w.attempt("add", w.rng.randint(1, 2))
            try:
                result = palace.add_drawer(w.content(tokens, 40), "wing_mover", "mv-start")
            except Exception as exc:
                w.outcome("add", key, "error", err=_failure(exc))
                continue
            w.outcome("add", key, result.status, result.drawer_ids)
            known.update({i: "mv-start" for i in result.drawer_ids} if result.added else {})
        else:
            drawer, op = w.rng.choice(sorted(known)), "move" if choice < 0.8 else "delete"
            here = known.pop(drawer)  # back only after an acknowledged move: after an error its fate is unknown
            room, key = w.rng.choice([r for r in MOVER_ROOMS if r != here]), f"{w.tag}o{w.rng.randrange(1 << 40):x}"
            w.log("attempt", op=op, key=key, id=drawer, room=room)
            try:
                if op == "move":
                    palace.update_drawer(drawer, room=room)
                else:
                    palace.delete_drawer(drawer)
            except Exception as exc:
                w.log("error", op=op, key=key, err=_failure(exc))
                continue
            w.log("ack", op=op, key=key, id=drawer, room=room)
            if op == "move":
                known[drawer] = room
        time.sleep(0.2)
    palace.close()


def overview_worker(w: Worker) -> None:
    from mempalace import Palace
    from mempalace.graph import graph_stats

    palace = Palace.open(w.palace)
    while not STOP:
        before = palace._catalog.data_version()  # changes when another process commits to the catalog
        try:
            places, count, wings = palace.places(), palace.count(), palace.list_wings()
            halls, tree, stats = palace.hall_counts(), palace.taxonomy(), graph_stats(palace)
            palace.search(w.rng.choice(w.words), limit=5)
        except Exception as exc:
            w.log("read", ok=False, err=_failure(exc))
            time.sleep(0.5)
            continue
        sums = {"places": sum(p[3] for p in places), "count": count, "wings": sum(wings.values()),
                "halls": sum(halls.values()), "taxonomy": sum(sum(r.values()) for r in tree.values())}
        steady = palace._catalog.data_version() == before
        consistent = len(set(sums.values())) == 1 and stats.total_wings <= len(wings)
        w.log("read", ok=consistent or not steady, checked=steady, **({} if consistent else {"sums": sums}))
        time.sleep(0.25)
    palace.close()


def cli_search_worker(w: Worker) -> None:
    while not STOP:
        done = w.cli("search", "--json", "--limit", "5", w.rng.choice(w.words), timeout=120)
        ok = done.returncode == 0 and isinstance(_json(done.stdout, None), list)
        w.log("read", ok=ok, **({} if ok else {"err": done.stderr.strip()[-300:]}))
        time.sleep(0.2)


WORKERS = {"ingest": ingest_worker, "mcp": mcp_worker, "cli-add": cli_add_worker, "mover": mover_worker,
           "overview": overview_worker, "cli-search": cli_search_worker}


# -- the final check (a fresh process) ---------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=list(WORKERS))
    parser.add_argument("--palace", required=True)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda number, _frame: STOP.append(number))
    WORKERS[args.kind](Worker(args.kind, args.palace, args.log, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
