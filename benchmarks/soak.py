"""Soak: four writers and two readers share one palace folder while processes, the server too, are SIGKILLed.

    python benchmarks/soak.py                 # 60 s, seed 1, the real model (minilm-int8)
    python benchmarks/soak.py --seconds 120 --seed 7 --model hash --palace /tmp/soak-palace

Workers (in soak_workers.py, one process each). Writers: `ingest` (`mempalace ingest`, a new transcript each time), `mcp` (`mempalace_add_drawer` through one
`mempalace mcp` stdio server and the MCP SDK), `cli-add` (`mempalace add`), `mover` (a `Palace` adding drawers,
then moving and deleting its own). Readers: `overview` (places, count, taxonomy, halls, graph_stats, a search;
checked against each other when nobody committed meanwhile) and `cli-search`. Every 3-5 s the parent SIGKILLs a
worker (with its mempalace child) or, every third time, the server (Chroma's process and the host in turn); a
killed worker is started again, the server by the next client that needs it. Every text carries unique tokens
(`soak...p0`); each worker logs, fsync'd, an attempt before it and the acknowledgement after. The real model is
the default: a CLI command costs about 2 s with either embedder on 2 cores.

Then a fresh process opens the palace, reads once (repairing what killed writers left) and checks the logs against
Chroma (read through the store) and the catalog. lost: an acknowledged write with a token or id missing, or an
acknowledged move or delete not in effect; duplicated: a token in two drawers; half-there: an unacknowledged write
(killed: "none", failed: "error") partly stored, or a refused one stored at all; mismatches: ids in only one of
catalog and Chroma, or wing/room/hall/text differing. Any of them, a drawer without a token or a failed final
search exits 1 and keeps the palace. "longest gap": a writer's longest time without an acknowledgement; "first
write after a server kill": until a write begun after the kill was acknowledged. Errors while the server is down
are expected: they are counted, with their most common messages.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import sqlite3
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

WRITERS = ("ingest", "mcp", "cli-add", "mover")  # the readers: overview, cli-search
TOKEN = re.compile(r"\bsoak[0-9a-z]+\b")
HOST = "mempalace.cli.host"

sys.path.insert(0, str(Path(__file__).resolve().parent))
from soak_workers import WORKERS, _json  # noqa: E402


def read_logs(logs: Path) -> list[dict]:
    """Every worker's log entries, each with its worker's kind; a line cut by SIGKILL is skipped."""
    lines = [(path.stem.rsplit("-", 1)[0], line) for path in sorted(logs.glob("*.jsonl"))
             for line in path.read_text().splitlines()]
    return [{**entry, "kind": kind} for kind, line in lines if (entry := _json(line, None))]


def check(palace_dir: str, logs: Path) -> dict:
    """The palace as Chroma (read through the store) and the catalog hold it, judged against the logs."""
    from mempalace import Palace

    palace = Palace.open(palace_dir)
    count = palace.count()  # a read: repairs whatever the killed writers left half done
    left_open = len(palace._catalog.open_writes())
    chroma = {r.id: r for page in palace._store.scan(documents=True) for r in page}
    rows = palace._catalog.rows(sorted(palace._catalog.ids()))
    problems: dict[str, list[str]] = defaultdict(list, mismatch=mismatches(chroma, rows))
    before = set((logs / PREEXISTING).read_text(encoding="utf-8").split()) if (logs / PREEXISTING).exists() else set()
    holders: dict[str, list[str]] = defaultdict(list)  # token -> the drawers holding it
    for record in chroma.values():
        found = TOKEN.findall(record.document)
        for token in found:
            holders[token].append(record.id)
        if not found and record.id not in before:
            problems["stray"].append(f"{record.id} holds no token: {record.document[:80]!r}")
    problems["duplicated"] = [f"{t} in {ids}" for t, ids in holders.items() if len(ids) > 1]
    unacked = judge(read_logs(logs), chroma, holders, problems)
    search_ok = final_search(palace, holders, problems)
    palace.close()
    return {"count": count, "chroma": len(chroma), "catalog": len(rows), "left_open": left_open,
            "search_ok": search_ok, "unacked": dict(unacked), "problems": dict(problems)}


def mismatches(chroma: dict, rows: dict) -> list[str]:
    """Ids in only one of Chroma and the catalog, then drawers whose wing, room, hall or text differ."""
    found = [f"{i} only in {'Chroma' if i in chroma else 'the catalog'}" for i in set(chroma) ^ set(rows)]
    for i in set(chroma) & set(rows):
        meta, row = chroma[i].metadata, rows[i]
        place = (meta.get("wing"), meta.get("room"), meta.get("hall") or "")
        if place != (row.wing, row.room, row.hall) or chroma[i].document != row.content:
            found.append(f"{i}: Chroma {place}, catalog {(row.wing, row.room, row.hall)}")
    return found


def judge(entries: list[dict], chroma: dict, holders: dict, problems: dict[str, list[str]]) -> Counter:
    """Files every logged write's problems; returns the unacknowledged ones counted by outcome and state."""
    attempts = {e["key"]: e for e in entries if e["t"] == "attempt"}
    outcomes = {e["key"]: e for e in entries if e["t"] in ("ack", "error", "refused")}
    unacked, expect = Counter(), {}  # expect: a drawer the mover added -> [where it must be, where it may be]
    for key, attempt in attempts.items():  # in log order: a drawer's add comes before its moves
        outcome, name = outcomes.get(key, {"t": "none"}), f"{attempt['kind']} {key}"
        if attempt["op"] in ("move", "delete"):
            where = expect.get(attempt["id"])
            if where and where[1] is None:  # after an op of unknown fate the mover leaves the drawer alone
                where[0 if outcome["t"] == "ack" else 1] = attempt["room"] if attempt["op"] == "move" else "gone"
            continue
        tokens = attempt["tokens"]
        present = [t for t in tokens if t in holders]
        stored = f"{len(present)}/{len(tokens)} tokens stored"
        if outcome["t"] == "ack" and attempt["kind"] == "mover":
            expect.update({i: ["mv-start", None] for i in outcome["ids"]})
        elif outcome["t"] == "ack":
            missing = [i for i in outcome["ids"] if i not in chroma]
            if len(present) < len(tokens) or missing or not outcome["ids"]:
                problems["lost"].append(f"{name}: {stored}, acknowledged ids missing: {missing}")
        else:
            state = "whole" if len(present) == len(tokens) else "absent" if not present else "half"
            unacked[f"{outcome['t']}-{state}"] += 1
            if state == "half" or (outcome["t"] == "refused" and present):
                problems["half-there"].append(f"{name} ({outcome['t']}): {stored}")
    for drawer, (state, maybe) in expect.items():
        actual = chroma[drawer].metadata.get("room") if drawer in chroma else "gone"
        if actual not in (state, maybe):
            problems["lost"].append(f"mover {drawer}: expected {state}" + (f" or {maybe}" if maybe else "")
                                    + f", found {actual}")
    return unacked


def final_search(palace: Any, holders: dict[str, list[str]], problems: dict[str, list[str]]) -> bool:
    """Whether a search for a token one drawer holds finds that drawer."""
    try:
        token = next(t for t, ids in holders.items() if len(ids) == 1)
        return holders[token][0] in [h.drawer_id for h in palace.search(token, limit=10)]
    except Exception as exc:
        problems["search"] = [f"{type(exc).__name__}: {exc}"]
        return False


# -- the parent: run, kill, restart, check, report -----------------------------------------------------

def processes() -> dict[int, tuple[int, str]]:
    """{pid: (parent pid, command line)} of every process."""
    table = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
            cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            table[int(name)] = (int(stat[stat.rindex(")") + 2:].split()[1]), cmd)
        except (OSError, ValueError):
            continue
    return table


def tree(pid: int, table: dict[int, tuple[int, str]]) -> list[int]:
    """`pid` and its descendants, leaving out any palace host (and its Chroma) one of them started."""
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo += [p for p, (ppid, cmd) in table.items() if ppid == found[-1] and HOST not in cmd]
    return found


def kill(pids: list[int], sig: int = signal.SIGKILL) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def stop_servers(palace: Path) -> None:
    """SIGTERMs this palace's hosts and Chroma servers, found by their command lines; SIGKILLs them after 20 s."""
    def ours() -> list[int]:
        return [p for p, (_, cmd) in processes().items()
                if str(palace) in cmd.split() and (HOST in cmd or "chromadb_rust_bindings" in cmd)]

    kill(ours(), signal.SIGTERM)
    deadline = time.time() + 20
    while ours() and time.time() < deadline:
        time.sleep(0.2)
    kill(ours())


class Soak:
    """The parent's run: six workers kept going, one of them or the server SIGKILLed every 3-5 s."""

    def __init__(self, args: argparse.Namespace, palace: Path, logs: Path, env: dict[str, str]):
        self.args, self.palace, self.logs, self.env = args, palace, logs, env
        self.me = [sys.executable, str(Path(__file__).resolve())]
        self.worker = [sys.executable, str(Path(__file__).resolve().with_name("soak_workers.py"))]
        self.rng = random.Random(args.seed)
        self.workers: dict[str, subprocess.Popen] = {}
        self.runs, self.kills, self.exits = Counter(), Counter(), Counter()
        self.deck, self.server_kills, self.servers = [], [], []  # kinds, times, (pid, url)s
        self.events: list[tuple[float, str]] = []  # kills and servers seen, kept for a closer look

    def start(self, kind: str) -> None:
        self.runs[kind] += 1
        name = self.logs / f"{kind}-{self.runs[kind]}"
        seed = self.args.seed * 10_000 + list(WORKERS).index(kind) * 1_000 + self.runs[kind]
        with open(f"{name}.out", "w") as out:
            self.workers[kind] = subprocess.Popen(
                [*self.worker, kind, "--palace", str(self.palace), "--log", f"{name}.jsonl", "--seed", str(seed)],
                env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def run(self) -> float:
        """Keeps the workers going for --seconds, noting each new server; returns how long that took."""
        from mempalace.server.starting import ServerInfo

        for kind in WORKERS:
            self.start(kind)
        began = time.time()
        next_kill, number, owed = began + self.rng.uniform(3, 5), 0, False
        while time.time() < began + self.args.seconds:
            info = ServerInfo.read(self.palace)
            if info and (info.pid, info.url) not in self.servers:
                self.servers.append((info.pid, info.url))
                self.events.append((time.time(), f"server {info.pid} {info.url} up"))
            for kind, proc in list(self.workers.items()):
                if proc.poll() is not None:
                    self.exits[f"{kind} {proc.returncode}"] += 1
                    self.start(kind)
            if time.time() >= next_kill:
                number += 1  # every third kill is the server's (the next one if none is up):
                owed = self.kill_one(info, owed or number % 3 == 2)
                next_kill = time.time() + self.rng.uniform(3, 5)
            time.sleep(0.2)
        return time.time() - began

    def kill_one(self, info: Any, owed: bool) -> bool:
        """SIGKILLs the server if one is owed and up, else the next worker; returns whether one is still owed."""
        table = processes()
        alive = info and table.get(info.pid, (0, ""))[1]
        host = info.pid if alive and HOST in alive and str(self.palace) in alive.split() else None
        if owed and host:
            chroma = [p for p, (ppid, _) in table.items() if ppid == host]
            victim = "server: chroma" if chroma and len(self.server_kills) % 2 == 0 else "server: host"
            kill(chroma if victim == "server: chroma" else [host])
            self.server_kills.append(time.time())
        else:
            self.deck = self.deck or self.rng.sample(list(WORKERS), len(WORKERS))  # each once a round, shuffled
            victim = self.deck.pop()
            kill(tree(self.workers[victim].pid, table))
            self.workers[victim].wait()
            self.start(victim)
        self.kills[victim] += 1
        self.events.append((time.time(), f"killed {victim}"))
        return owed and not host

    def finish(self) -> dict:
        """Stops the workers (each finishes what it is doing) and has a fresh process check the palace."""
        kill([proc.pid for proc in self.workers.values()], signal.SIGTERM)
        deadline = time.time() + 60
        for kind, proc in self.workers.items():
            try:
                proc.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                kill(tree(proc.pid, processes()))
                self.kills[f"{kind} (did not stop at the end)"] += 1
        done = subprocess.run([*self.me, "--check", "--palace", str(self.palace), "--log", str(self.logs)],
                              env=self.env, capture_output=True, text=True)
        (self.logs / "parent.json").write_text(json.dumps(self.events))
        return _json((done.stdout.strip().splitlines() or [""])[-1], None) or \
            {"problems": {"palace does not open": [done.stderr.strip()[-2000:]]}}

    def report(self, ran: float, result: dict) -> bool:
        """Prints the figures; returns whether the soak failed."""
        print(f"MemPalace soak: {ran:.0f} s, seed {self.args.seed}, model {self.args.model}, palace {self.palace}")
        entries = read_logs(self.logs)
        acks = [e for e in entries if e["t"] == "ack"]
        span = min((e["at"] for e in entries), default=0), max((e["at"] for e in entries), default=0)
        for kind in WORKERS:
            worker_lines(kind, self.runs[kind], [e for e in entries if e["kind"] == kind], span)
        unacked = ", ".join(f"{n} {k}" for k, n in sorted(result.get("unacked", {}).items())) or "none"
        print(f"writes acknowledged: {len(acks)}; unacknowledged attempts: {unacked}")
        exits = f"; workers that exited by themselves (kind code: times): {dict(self.exits)}" if self.exits else ""
        print(f"kills: {sum(self.kills.values())} ({', '.join(f'{k} {n}' for k, n in sorted(self.kills.items()))})"
              + exits)
        started = {e["key"]: e["at"] for e in entries if e["t"] == "attempt"}
        waits = [min((e["at"] for e in acks if started.get(e["key"], 0) > k), default=span[1]) - k
                 for k in self.server_kills]
        waited = f"median {statistics.median(waits):.1f} s, max {max(waits):.1f} s" if waits else "n/a"
        print(f"servers seen in mempalace.server.json: {len(self.servers)} for {len(self.server_kills)} server kills;"
              f" first write after a server kill: {waited}")
        problems, search = result.get("problems", {}), "ok" if result.get("search_ok") else "FAILED"
        print(f"palace: {result.get('count')} drawers (catalog {result.get('catalog')}, Chroma {result.get('chroma')}),"
              f" journal entries left open {result.get('left_open')}, final search {search}")
        figures = {k: len(problems.get(k, [])) for k in ("lost", "duplicated", "half-there", "mismatch")}
        print("lost {lost}, duplicated {duplicated}, half-there {half-there}, catalog/Chroma mismatches {mismatch}"
              .format(**figures))
        for kind, items in problems.items():
            for item in items[:5]:
                print(f"  {kind}: {item}")
        return any(problems.values()) or not result.get("search_ok")


def worker_lines(kind: str, runs: int, mine: list[dict], span: tuple[float, float]) -> None:
    """A worker's line of the report, then its most common error messages."""
    tally = Counter(e["t"] for e in mine)
    errors = Counter(re.sub(r"\d+", "N", e["err"])[:100] for e in mine if e.get("err"))
    if kind in WRITERS:
        times = [span[0], *sorted(e["at"] for e in mine if e["t"] == "ack"), span[1]]
        gap = max(b - a for a, b in zip(times, times[1:]))
        print(f"  {kind:<10} {runs:>2} processes  acknowledged {tally['ack']:>4}  errors {tally['error']:>3}"
              f"  refused as duplicates {tally['refused']}  longest gap {gap:.1f} s")
    else:
        bad = [e for e in mine if e["t"] == "read" and not e["ok"] and "sums" in e]
        checked = f" ({sum(1 for e in mine if e.get('checked'))} checked)" if kind == "overview" else ""
        print(f"  {kind:<10} {runs:>2} processes  reads {tally['read']:>4}{checked}  errors"
              f" {sum(errors.values()):>3}  inconsistent {len(bad)}" + (f", e.g. {bad[0]['sums']}" if bad else ""))
    for message, n in errors.most_common(3):
        print(f"      {n} x {message}")


PREEXISTING = "preexisting-ids.txt"  # in the logs folder: the drawers a soak started from (no tokens)
PALACE_STATE = ("mempalace.server.json", "mempalace.clients", "mempalace.lock", "mempalace.owner",
                "mempalace.start.lock", "mempalace-server.log", "*.rebuild-lock", "*.building.json")


def start_from(source: Path, palace: Path, logs: Path) -> None:
    """Soak on a copy of an existing palace (say, the 1M benchmark palace): its files without another
    process's state, and the ids it held, which carry no soak tokens."""
    shutil.copytree(source, palace, ignore=shutil.ignore_patterns(*PALACE_STATE))
    db = sqlite3.connect(f"file:{palace / 'mempalace_catalog.sqlite3'}?mode=ro", uri=True)
    with (logs / PREEXISTING).open("w", encoding="utf-8") as out:
        for (drawer_id,) in db.execute("SELECT id FROM drawers"):
            out.write(drawer_id + "\n")
    db.close()


def soak(args: argparse.Namespace) -> int:
    base = Path(tempfile.mkdtemp(prefix="mempalace-soak-")) if args.palace is None else args.palace.resolve().parent
    palace = (base / "palace" if args.palace is None else args.palace).resolve()
    logs = base / f"{palace.name}-logs"
    if any(p.exists() and any(p.iterdir()) for p in (palace, logs)):
        sys.exit(f"{palace} or {logs} is not empty: the soak needs a new palace folder.")
    logs.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("MEMPALACE_SHARED", "MEMPALACE_URL")}
    env.update(MEMPALACE_HOME=str(base / f"{palace.name}-home"), MEMPALACE_EMBEDDER=args.model)
    if args.start_from is None:
        subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(palace), "init"], env=env, check=True,
                       capture_output=True)
    else:
        start_from(args.start_from.resolve(), palace, logs)
    run = Soak(args, palace, logs, env)
    ran = run.run()
    failed = run.report(ran, run.finish())
    stop_servers(palace)
    if failed or args.palace is not None:
        print(f"palace, logs and home kept in {base}")
    else:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--palace", type=Path, help="a new folder for the palace (default: a temporary one)")
    parser.add_argument("--model", default="minilm-int8", help="the embedder (default: the real model; hash: faster)")
    parser.add_argument("--start-from", type=Path, help="soak on a copy of this palace (its drawers are kept apart)")
    parser.add_argument("--check", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--log", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check:
        print(json.dumps(check(str(args.palace), args.log)))
        return 0
    return soak(args)


if __name__ == "__main__":
    sys.exit(main())
