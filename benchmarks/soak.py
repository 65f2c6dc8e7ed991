"""Soak: four writers and two readers share one palace folder while processes, the server too, are SIGKILLed.

    python benchmarks/soak.py                 # 60 s, seed 1, the real model (minilm-int8)
    python benchmarks/soak.py --seconds 120 --seed 7 --model hash --palace /tmp/soak-palace

Writers: `ingest` (a new transcript per round, `mempalace ingest`), `mcp` (one `mempalace mcp` stdio server
fed `mempalace_add_drawer` through the MCP SDK), `cli-add` (`mempalace add`), `mover` (a `Palace` adding
drawers, then moving and deleting its own). Readers: `overview` (places, count, taxonomy, halls, graph_stats,
a search, checked against each other when nobody committed meanwhile) and `cli-search`. Every 3-5 s the
parent SIGKILLs a worker (with its mempalace child) or, every third time, the server (alternately Chroma's
process and the host); a killed worker is started again, the server by the next client that needs it. Every
text carries unique tokens (`soak...p0`); each worker logs an attempt before it and the acknowledgement after
it, fsync'd. The real model is the default: a CLI command costs about 2 s with either embedder on 2 cores.

Then a fresh process opens the palace, reads once (repairing what killed writers left) and compares the logs
with Chroma (read through the store) and the catalog. lost: acknowledged writes with a token or id missing,
acknowledged moves or deletes not in effect; duplicated: a token in two drawers; half-there: an
unacknowledged (killed: "none", failed: "error") write partly stored; mismatches: ids in only one of catalog
and Chroma, or wing/room/hall/text differing. Any of them, a drawer without a token or a failed final search
exits 1 and keeps the palace. A writer's "longest gap" is its longest time without an acknowledgement; "first
write after a server kill" is how long until a write begun after the kill was acknowledged. Errors while the
server is down are expected: they are counted, with their most common messages.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import shutil
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
MOVER_ROOMS = ("mv-north", "mv-south", "mv-east", "mv-west")
HOST = "mempalace.cli.host"
STOP: list[int] = []


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


def _json(text: str, default: Any) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return default


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
                        w.outcome("add", key, "error", err=f"{type(exc).__name__}: {exc}")
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
                w.outcome("add", key, "error", err=f"{type(exc).__name__}: {exc}")
                continue
            w.outcome("add", key, result.status, result.drawer_ids)
            known.update({i: "mv-start" for i in result.drawer_ids} if result.added else {})
        else:
            drawer, op = w.rng.choice(sorted(known)), "move" if choice < 0.8 else "delete"
            room = w.rng.choice([r for r in MOVER_ROOMS if r != known[drawer]])
            key = f"{w.tag}o{w.rng.randrange(1 << 40):x}"
            w.log("attempt", op=op, key=key, id=drawer, room=room)
            del known[drawer]  # back only after an acknowledged move: after an error its fate is unknown
            try:
                if op == "move":
                    palace.update_drawer(drawer, room=room)
                else:
                    palace.delete_drawer(drawer)
            except Exception as exc:
                w.log("error", op=op, key=key, err=f"{type(exc).__name__}: {exc}"[-300:])
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
            w.log("read", ok=False, err=f"{type(exc).__name__}: {exc}"[-300:])
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

def read_logs(logs: Path) -> list[dict]:
    entries = []
    for path in sorted(logs.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = _json(line, None)  # a line cut by SIGKILL is skipped
            if entry:
                entries.append({**entry, "kind": path.stem.rsplit("-", 1)[0]})
    return entries


def check(palace_dir: str, logs: Path) -> dict:
    from mempalace import Palace

    palace = Palace.open(palace_dir)
    count = palace.count()  # a read: repairs whatever the killed writers left half done
    left_open = len(palace._catalog.open_writes())
    chroma = {r.id: r for page in palace._store.scan(documents=True) for r in page}
    rows = palace._catalog.rows(sorted(palace._catalog.ids()))
    problems: dict[str, list[str]] = defaultdict(list)
    problems["mismatch"] = [f"{i} only in {'Chroma' if i in chroma else 'the catalog'}"
                            for i in set(chroma) ^ set(rows)]
    for i in set(chroma) & set(rows):
        place = (chroma[i].metadata.get("wing"), chroma[i].metadata.get("room"), chroma[i].metadata.get("hall") or "")
        if place != (rows[i].wing, rows[i].room, rows[i].hall) or chroma[i].document != rows[i].content:
            problems["mismatch"].append(f"{i}: Chroma {place}, catalog {(rows[i].wing, rows[i].room, rows[i].hall)}")
    holders: dict[str, list[str]] = defaultdict(list)
    for record in chroma.values():
        found = TOKEN.findall(record.document)
        for token in found:
            holders[token].append(record.id)
        if not found:
            problems["stray"].append(f"{record.id} holds no token: {record.document[:80]!r}")
    problems["duplicated"] = [f"{t} in {ids}" for t, ids in holders.items() if len(ids) > 1]
    entries = read_logs(logs)
    attempts = {e["key"]: e for e in entries if e["t"] == "attempt"}
    outcomes = {e["key"]: e for e in entries if e["t"] in ("ack", "error", "refused")}
    unacked, history = Counter(), defaultdict(list)
    for key, attempt in attempts.items():
        outcome = outcomes.get(key, {"t": "none"})
        if attempt["op"] in ("move", "delete"):
            history[attempt["id"]].append((attempt, outcome["t"]))
            continue
        present = [t for t in attempt["tokens"] if t in holders]
        if outcome["t"] == "ack" and attempt["kind"] == "mover":
            for drawer in outcome["ids"]:
                history[drawer].insert(0, (attempt, "added"))  # judged below, with its moves
        elif outcome["t"] == "ack":
            missing = [i for i in outcome["ids"] if i not in chroma]
            if len(present) < len(attempt["tokens"]) or missing or not outcome["ids"]:
                problems["lost"].append(f"{attempt['kind']} {key}: {len(present)}/{len(attempt['tokens'])} "
                                        f"tokens stored, acknowledged ids missing: {missing}")
        else:
            state = "whole" if len(present) == len(attempt["tokens"]) else "absent" if not present else "half"
            unacked[f"{outcome['t']}-{state}"] += 1
            if state == "half" or (outcome["t"] == "refused" and present):
                problems["half-there"].append(f"{attempt['kind']} {key} ({outcome['t']}): "
                                              f"{len(present)}/{len(attempt['tokens'])} tokens stored")
    for drawer, ops in history.items():
        state, maybe = "mv-start", None  # where it must be, and where it may be if its last op's fate is unknown
        for attempt, outcome in ops[1:]:
            if outcome != "ack":
                maybe = attempt["room"] if attempt["op"] == "move" else "gone"
                break
            state = attempt["room"] if attempt["op"] == "move" else "gone"
        actual = chroma[drawer].metadata.get("room") if drawer in chroma else "gone"
        if ops[0][1] == "added" and actual not in (state, maybe):
            problems["lost"].append(f"mover {drawer}: expected {state}" + (f" or {maybe}" if maybe else "")
                                    + f", found {actual}")
    try:
        token = next(t for t, ids in holders.items() if len(ids) == 1)
        search_ok = holders[token][0] in [h.drawer_id for h in palace.search(token, limit=10)]
    except Exception as exc:
        search_ok, problems["search"] = False, [f"{type(exc).__name__}: {exc}"]
    palace.close()
    return {"count": count, "chroma": len(chroma), "catalog": len(rows), "left_open": left_open,
            "search_ok": search_ok, "unacked": dict(unacked), "problems": dict(problems)}


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
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def server_info(palace: Path) -> dict | None:
    try:
        return json.loads((palace / "mempalace.server.json").read_text())
    except (OSError, ValueError):
        return None


def our_servers(palace: Path) -> list[int]:
    """Hosts and Chroma servers of this palace, found by their command lines."""
    return [p for p, (_, cmd) in processes().items()
            if str(palace) in cmd.split() and (HOST in cmd or "chromadb_rust_bindings" in cmd)]


def soak(args: argparse.Namespace) -> int:
    base = Path(tempfile.mkdtemp(prefix="mempalace-soak-")) if args.palace is None else args.palace.resolve().parent
    palace = (base / "palace" if args.palace is None else args.palace).resolve()
    logs = base / f"{palace.name}-logs"
    if any(p.exists() and any(p.iterdir()) for p in (palace, logs)):
        sys.exit(f"{palace} or {logs} is not empty: the soak needs a new palace folder.")
    logs.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("MEMPALACE_SHARED", "MEMPALACE_URL")}
    env.update(MEMPALACE_HOME=str(base / f"{palace.name}-home"), MEMPALACE_EMBEDDER=args.model)
    me = [sys.executable, str(Path(__file__).resolve())]
    subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(palace), "init"], env=env, check=True,
                   capture_output=True)
    rng, runs, workers, deck = random.Random(args.seed), Counter(), {}, []

    def start(kind: str) -> None:
        runs[kind] += 1
        with open(logs / f"{kind}-{runs[kind]}.out", "w") as out:
            workers[kind] = subprocess.Popen(
                [*me, "--worker", kind, "--palace", str(palace), "--log", str(logs / f"{kind}-{runs[kind]}.jsonl"),
                 "--seed", str(args.seed * 10_000 + list(WORKERS).index(kind) * 1_000 + runs[kind])],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    for kind in WORKERS:
        start(kind)
    began = time.time()
    kills, exits, server_kills, servers, events = Counter(), Counter(), [], [], []
    next_kill, number, owed = began + rng.uniform(3, 5), 0, False
    while time.time() < began + args.seconds:
        info = server_info(palace)
        if info and (info["pid"], info["url"]) not in servers:
            servers.append((info["pid"], info["url"]))
            events.append((time.time(), f"server {info['pid']} {info['url']} up"))
        for kind, proc in list(workers.items()):
            if proc.poll() is not None:
                exits[f"{kind} {proc.returncode}"] += 1
                start(kind)
        if time.time() >= next_kill:
            number, table = number + 1, processes()
            alive = info and table.get(info["pid"], (0, ""))[1]
            host = info["pid"] if alive and HOST in alive and str(palace) in alive.split() else None
            owed = owed or number % 3 == 2  # every third kill is the server's (the next one if none is up)
            if owed and host:
                chroma = [p for p, (ppid, _) in table.items() if ppid == host]
                victim = "server: chroma" if chroma and len(server_kills) % 2 == 0 else "server: host"
                kill(chroma if victim == "server: chroma" else [host])
                server_kills.append(time.time())
                owed = False
            else:
                deck = deck or rng.sample(list(WORKERS), len(WORKERS))  # each worker once per round, shuffled
                victim = deck.pop()
                kill(tree(workers[victim].pid, table))
                workers[victim].wait()
                start(victim)
            kills[victim] += 1
            events.append((time.time(), f"killed {victim}"))
            next_kill = time.time() + rng.uniform(3, 5)
        time.sleep(0.2)
    ran = time.time() - began
    for proc in workers.values():
        kill([proc.pid], signal.SIGTERM)  # each finishes what it is doing, then stops
    deadline = time.time() + 60
    for kind, proc in workers.items():
        try:
            proc.wait(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            kill(tree(proc.pid, processes()))
            kills[f"{kind} (did not stop at the end)"] += 1
    done = subprocess.run([*me, "--check", "--palace", str(palace), "--log", str(logs)], env=env,
                          capture_output=True, text=True)
    result = _json((done.stdout.strip().splitlines() or [""])[-1], None) or \
        {"problems": {"palace does not open": [done.stderr.strip()[-2000:]]}}
    (logs / "parent.json").write_text(json.dumps(events))  # kills and servers seen, for a closer look
    failed = report(args, palace, ran, read_logs(logs), runs, kills, exits, server_kills, servers, result)
    kill(our_servers(palace), signal.SIGTERM)
    deadline = time.time() + 20
    while our_servers(palace) and time.time() < deadline:
        time.sleep(0.2)
    kill(our_servers(palace))
    if failed or args.palace is not None:
        print(f"palace, logs and home kept in {base}")
    else:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


def report(args, palace, ran, entries, runs, kills, exits, server_kills, servers, result) -> bool:
    print(f"MemPalace soak: {ran:.0f} s, seed {args.seed}, model {args.model}, palace {palace}")
    started = {e["key"]: e["at"] for e in entries if e["t"] == "attempt"}
    acks = [e for e in entries if e["t"] == "ack"]
    first, last = min((e["at"] for e in entries), default=0), max((e["at"] for e in entries), default=0)
    for kind in WORKERS:
        mine = [e for e in entries if e["kind"] == kind]
        tally = Counter(e["t"] for e in mine)
        errors = Counter(re.sub(r"\d+", "N", e["err"])[:100] for e in mine if e.get("err"))
        if kind in WRITERS:
            times = [first, *sorted(e["at"] for e in acks if e["kind"] == kind), last]
            gap = max(b - a for a, b in zip(times, times[1:]))
            print(f"  {kind:<10} {runs[kind]:>2} processes  acknowledged {tally['ack']:>4}  errors {tally['error']:>3}"
                  f"  refused as duplicates {tally['refused']}  longest gap {gap:.1f} s")
        else:
            bad = [e for e in mine if e["t"] == "read" and not e["ok"] and "sums" in e]
            checked = f" ({sum(1 for e in mine if e.get('checked'))} checked)" if kind == "overview" else ""
            print(f"  {kind:<10} {runs[kind]:>2} processes  reads {tally['read']:>4}{checked}  errors"
                  f" {sum(errors.values()):>3}  inconsistent {len(bad)}" + (f", e.g. {bad[0]['sums']}" if bad else ""))
        for message, n in errors.most_common(3):
            print(f"      {n} x {message}")
    unacked = ", ".join(f"{n} {k}" for k, n in sorted(result.get("unacked", {}).items())) or "none"
    print(f"writes acknowledged: {len(acks)}; unacknowledged attempts: {unacked}")
    print(f"kills: {sum(kills.values())} (" + ", ".join(f"{k} {n}" for k, n in sorted(kills.items())) + ")"
          + (f"; workers that exited by themselves (kind code: times): {dict(exits)}" if exits else ""))
    waits = [min((e["at"] for e in acks if started.get(e["key"], 0) > k), default=last) - k for k in server_kills]
    print(f"servers seen in mempalace.server.json: {len(servers)} for {len(server_kills)} server kills; first write"
          " after a server kill: " + (f"median {statistics.median(waits):.1f} s, max {max(waits):.1f} s" if waits
                                      else "n/a"))
    problems = result.get("problems", {})
    print(f"palace: {result.get('count')} drawers (catalog {result.get('catalog')}, Chroma {result.get('chroma')}), "
          f"journal entries left open {result.get('left_open')}, final search "
          + ("ok" if result.get("search_ok") else "FAILED"))
    figures = {k: len(problems.get(k, [])) for k in ("lost", "duplicated", "half-there", "mismatch")}
    print("lost {lost}, duplicated {duplicated}, half-there {half-there}, catalog/Chroma mismatches {mismatch}"
          .format(**figures))
    for kind, items in problems.items():
        for item in items[:5]:
            print(f"  {kind}: {item}")
    return any(problems.values()) or not result.get("search_ok")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--palace", type=Path, help="a new folder for the palace (default: a temporary one)")
    parser.add_argument("--model", default="minilm-int8", help="the embedder (default: the real model; hash: faster)")
    parser.add_argument("--worker", choices=list(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--check", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--log", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        signal.signal(signal.SIGTERM, lambda number, _frame: STOP.append(number))
        WORKERS[args.worker](Worker(args.worker, str(args.palace), args.log, args.seed))
        return 0
    if args.check:
        print(json.dumps(check(str(args.palace), args.log)))
        return 0
    return soak(args)


if __name__ == "__main__":
    sys.exit(main())
