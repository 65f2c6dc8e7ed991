"""Sources that sync themselves: what checking an unchanged source costs, what the watcher costs idle,
and whether syncs SIGKILLed part-way while sessions grow lose or repeat anything.

    python benchmarks/sources_sync.py            # 10,000 files, watcher 60 s, soak 120 s (about 5 minutes)
    python benchmarks/sources_sync.py --quick    # 1,000 files, watcher 20 s, soak 30 s

Every palace is private (embedded, MEMPALACE_SHARED=0) with the fake `hash` embedder, under a temporary
MEMPALACE_HOME (removed at the end unless --keep); nothing here touches ~/.mempalace.
1. A tree like ~/.claude/projects (--projects folders x --files Claude Code sessions of 3 exchanges each)
   is registered as a source. The first folder is filed by a real `sync_sources` (timed); the others
   are filed by one `ingest_paths` (grouped, much faster than file by file) and each file is recorded
   with `SourceBook.record_file` as a sync records it (its size, mtime and the conversations filed from
   it); a sync then must find nothing changed. Timed: `sync_sources` on the unchanged source (median
   of 5), `SourceBook.changes` alone (median of 5), `mempalace sources sync` as a new process (median
   of 3), and `sync_sources` after one exchange was appended to one file (3 files in turn). Target
   (issue 33): the unchanged check <= 1 s at 10,000 files; it reads no file and embeds nothing.
2. `mempalace sources watch --every S` (default 5 s; the shipped default is sources_sync_seconds = 60)
   runs as a subprocess on that unchanged source; after its first sync its CPU seconds (utime + stime
   from /proc/PID/stat) are measured over --watch-seconds, with its RSS at the end.
3. Soak: a writer process appends exchanges to --soak-files session files, a line at a time, sometimes
   half a line completed later, while `mempalace sources sync` processes run one after another and
   half of them are SIGKILLed after 30-100 % of the time a whole sync takes (most die while filing).
   After the writer stops a final sync runs, the final files are ingested into a fresh palace with
   `ingest_paths`, and the two palaces are compared: drawer ids expected (the fresh one's) against
   present, each message's token (lost: in no drawer; duplicated: in more drawers than in the fresh
   palace), drawers per conversation, and the catalog against Chroma. Expected: 0 lost, 0 duplicated.
   The soak's sync processes are killed part-way while they file; the writer is never killed.
"""

from __future__ import annotations

import argparse
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
from collections import Counter
from pathlib import Path

CLI = [sys.executable, "-m", "mempalace"]
TOKEN = re.compile(r"\bz[qa]\d{3}n\d{5}\b")  # one per message of the soak: zq (question) / za (answer)
WORDS = ("tide table harbour spring neap moon pull chart buoy channel depth pilot ferry anchor swell "
         "current ebb flood gauge datum survey beacon keel hull berth").split()


# -- session files --------------------------------------------------------------------------------------

def record(kind: str, text: str, session: str, number: int, cwd: str) -> str:
    """One Claude Code JSONL record, newline included (as tests/test_sources.py writes them)."""
    message = ({"role": "user", "content": text} if kind == "user" else
               {"role": "assistant", "type": "message", "content": [{"type": "text", "text": text}]})
    return json.dumps({"type": kind, "sessionId": session, "uuid": f"{session}-{number}", "cwd": cwd,
                       "timestamp": f"2026-02-10T{10 + number // 3600 % 12:02d}:{number // 60 % 60:02d}:"
                                    f"{number % 60:02d}.000Z", "message": message}) + "\n"


def exchange(session: str, number: int, cwd: str, question: str, answer: str) -> list[str]:
    """A question and its answer: the two lines of exchange `number`."""
    return [record("user", question, session, 2 * number, cwd),
            record("assistant", answer, session, 2 * number + 1, cwd)]


def session_id(project: int, file: int) -> str:
    return f"5e55a000-0000-4000-8000-{project:06d}{file:06d}"


def write_project(root: Path, project: int, files: int) -> Path:
    """A project folder of `files` small sessions (3 exchanges each, about 1.6 KB)."""
    folder = root / f"-home-ada-project{project:03d}"
    folder.mkdir(parents=True, exist_ok=True)
    cwd = f"/home/ada/project{project:03d}"
    for file in range(files):
        sid, harbour = session_id(project, file), project * 1000 + file
        lines = [line for i in range(3) for line in exchange(
            sid, i, cwd, f"Question {i} in project {project}, session {file}: how do the tide tables for "
                         f"harbour {harbour} change in spring?",
            f"Answer {i}: at harbour {harbour} spring tides rise higher because sun and moon pull together; "
            f"see table {i} of project {project}.")]
        (folder / f"{sid}.jsonl").write_text("".join(lines), encoding="utf-8")
    return folder


def append_exchange(path: Path, number: int) -> None:
    """One more exchange at the end of a session file (its first record's cwd still names the project)."""
    sid = path.stem
    with path.open("a", encoding="utf-8") as out:
        out.writelines(exchange(sid, number, "/home/ada/appended",
                                f"Appended question {number} of {sid}: when is the next neap tide?",
                                f"Appended answer {number}: the next neap tide at {sid[-6:]} falls in seven days."))


def timed(call, times: int) -> tuple[float, object]:
    """The median wall-clock seconds of `times` calls, and the last call's result."""
    took, result = [], None
    for _ in range(times):
        started = time.perf_counter()
        result = call()
        took.append(time.perf_counter() - started)
    return statistics.median(took), result


# -- 1. the unchanged source ----------------------------------------------------------------------------

def build_source(base: Path, projects: int, files: int) -> tuple[object, Path, list[tuple[str, str]]]:
    """The tree and its palace, every file filed and recorded: returns the open palace, the tree and rows."""
    from mempalace import Palace
    from mempalace.sources.sync import book_of, sync_sources

    root = (base / "projects").resolve()
    write_project(root, 0, files)
    palace = Palace.open(base / "palace", create=True)
    book = book_of(palace)
    book.add(root, name="claude-code")
    took, [first] = timed(lambda: sync_sources(palace), 1)
    rows = [("first filing by a real sync (hash embedder)",
             f"{first.files_changed} files, {first.added} drawers in {took:.1f} s ({1000 * took / files:.0f} ms/file)")]
    started = time.perf_counter()
    folders = [write_project(root, project, files) for project in range(1, projects)]
    wrote = time.perf_counter() - started
    started = time.perf_counter()
    added = file_and_record(palace, book, "claude-code", folders)
    rows.append(("the other files: ingest_paths + record_file",
                 f"{len(folders) * files:,} files written in {wrote:.1f} s, {added:,} drawers filed and recorded "
                 f"in {time.perf_counter() - started:.0f} s"))
    left = book.changes(book.entry("claude-code"))
    if left.any:
        sys.exit(f"the build left {len(left.changed)} files changed and {len(left.gone)} gone: nothing to measure")
    return palace, root, rows


def file_and_record(palace: object, book: object, name: str, folders: list[Path]) -> int:
    """Files `folders` in one ingest, then records each file as a sync does; returns the drawers added."""
    from mempalace.ingest import ingest_paths
    from mempalace.catalog.source_book import stat_file

    reports = {report.source: report for report in ingest_paths(palace, folders)}  # file names are unique
    for folder in folders:
        for path in sorted(folder.iterdir()):
            report = reports[path.name]
            error = "" if report.ok or report.skipped else report.errors[0]
            book.record_file(name, stat_file(path), report.parents, error)
    return sum(report.added for report in reports.values())


def unchanged_rows(palace: object, files: int) -> list[tuple[str, str]]:
    """`sync_sources` and `SourceBook.changes` on the unchanged source, in this process."""
    from mempalace.sources.sync import book_of, sync_sources

    book = book_of(palace)
    took, [report] = timed(lambda: sync_sources(palace), 5)
    if report.files_changed or report.files_seen != files:
        sys.exit(f"the unchanged sync saw {report.summary()}")
    alone, changes = timed(lambda: book.changes(book.entry("claude-code")), 5)
    return [(f"sync_sources, unchanged, {files:,} files (median of 5)", f"{took:.3f} s (target <= 1 s)"),
            ("  of which SourceBook.changes alone (median of 5)", f"{alone:.3f} s ({changes.unchanged:,} unchanged)")]


def appended_rows(palace: object, root: Path, projects: int, files: int) -> list[tuple[str, str]]:
    """`sync_sources` after one exchange was appended to one file of the tree, three files in turn."""
    from mempalace.sources.sync import sync_sources

    done = []
    for turn, project in enumerate(sorted({projects // 4, projects // 2, 3 * projects // 4})):
        path = root / f"-home-ada-project{project:03d}" / f"{session_id(project, (7 * turn + 3) % files)}.jsonl"
        append_exchange(path, 3)
        took, [report] = timed(lambda: sync_sources(palace), 1)
        done.append(f"{took:.2f} s ({report.files_changed} file, +{report.added} drawers)")
    return [("sync_sources after one exchange appended to one file", "; ".join(done))]


def cli_rows(palace_dir: Path) -> list[tuple[str, str]]:
    """`mempalace sources sync` of the unchanged source as a new process (imports and opening included)."""
    command = [*CLI, "--palace", str(palace_dir), "--json", "sources", "sync"]
    runs: list[subprocess.CompletedProcess] = []
    took, _ = timed(lambda: runs.append(subprocess.run(command, capture_output=True, text=True)), 3)
    failed = [run for run in runs if run.returncode]
    for run in failed:
        print(f"`mempalace sources sync` failed (exit code {run.returncode}):", run.stdout, run.stderr, flush=True)
    changed = [json.loads(run.stdout)[0]["files_changed"] for run in runs if not run.returncode]
    return [("mempalace sources sync, unchanged, new process (median of 3)",
             f"{took:.2f} s (files changed: {changed}" + (f"; {len(failed)} FAILED)" if failed else ")"))]


# -- 2. the watcher, idle -------------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int) -> tuple[float, float]:
    """(RSS, peak RSS) of a process in MB."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024


def last_sync(palace_dir: Path) -> str | None:
    from mempalace.catalog.source_book import SOURCES_FILE, SourceBook

    return SourceBook(palace_dir / SOURCES_FILE).entry("claude-code").last_sync


def watcher_rows(palace_dir: Path, seconds: float, every: float, files: int) -> list[tuple[str, str]]:
    """`mempalace sources watch --every EVERY` on the unchanged source: CPU per minute after its first sync."""
    time.sleep(1.1)  # the book stamps syncs to the second: the watcher's first one gets a new stamp
    before = last_sync(palace_dir)
    started = time.monotonic()
    watcher = subprocess.Popen([*CLI, "--palace", str(palace_dir), "sources", "watch", "--every", f"{every:g}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while last_sync(palace_dir) == before:
            if watcher.poll() is not None or time.monotonic() - started > 120:
                sys.exit(f"the watcher did not sync (exit code {watcher.returncode})")
            time.sleep(0.05)
        first, cpu_first = time.monotonic() - started, cpu_seconds(watcher.pid)
        time.sleep(max(0.0, every - 0.5))  # into the pause after the first sync
        began, cpu_began = time.monotonic(), cpu_seconds(watcher.pid)
        time.sleep(seconds)
        used, span = cpu_seconds(watcher.pid) - cpu_began, time.monotonic() - began
        rss, peak = memory_mb(watcher.pid)
    finally:
        watcher.send_signal(signal.SIGINT)
        watcher.wait(timeout=30)
    return [(f"watcher --every {every:g}: start to first sync", f"{first:.1f} s wall, {cpu_first:.2f} CPU s"),
            (f"watcher idle CPU, {files:,} files, over {span:.0f} s (~{span / every:.0f} syncs)",
             f"{60 * used / span:.2f} CPU s/min ({used / max(1, round(span / every)):.3f} s per sync)"),
            ("watcher memory at the end", f"RSS {rss:.0f} MB (peak {peak:.0f} MB)")]


# -- 3. the soak ----------------------------------------------------------------------------------------

def soak_lines(path: Path, number: int, rng: random.Random) -> list[str]:
    """The two lines of exchange `number` of a soak file, each message carrying its own token."""
    file = int(path.stem[-6:])
    words = lambda low, high: " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))  # noqa: E731
    return exchange(path.stem, number, f"/home/ada/soak{file % 3}",
                    f"Question zq{file:03d}n{number:05d}: {words(4, 30)}?",
                    f"Answer za{file:03d}n{number:05d}: {words(10, 80)}.")


def writer_main(src: Path, stop: Path, seed: int) -> None:
    """The soak's writer: appends to random files a line at a time (a fifth of the time only part of
    one, completed later) until `stop` exists, then completes what it began and prints its count."""
    rng = random.Random(seed)
    files = sorted(src.rglob("*.jsonl"))
    queues: dict[Path, list[str]] = {path: [] for path in files}
    counts = Counter({path: 1 for path in files})  # exchange 0 was written when the file was made
    fds = {path: os.open(path, os.O_WRONLY | os.O_APPEND) for path in files}
    while not stop.exists():
        path = rng.choice(files)
        if not queues[path]:
            queues[path] = soak_lines(path, counts[path], rng)
            counts[path] += 1
        line = queues[path][0]
        cut = rng.randrange(1, len(line)) if rng.random() < 0.2 else len(line)
        os.write(fds[path], line[:cut].encode())  # ASCII: a cut never splits a character
        queues[path][0:1] = [line[cut:]] if cut < len(line) else []
        time.sleep(rng.uniform(0.02, 0.2))
    for path, queue in queues.items():
        os.write(fds[path], "".join(queue).encode())
        os.close(fds[path])
    print(json.dumps({"exchanges": sum(counts.values())}))


def soak_source(base: Path, files: int, rng: random.Random) -> tuple[Path, Path]:
    """The soak's session files (one exchange each, in three project folders), registered by the CLI."""
    src, palace_dir = base / "soak-sessions", base / "soak-palace"
    for file in range(files):
        path = src / f"-home-ada-soak{file % 3}" / f"{session_id(999, file)}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(soak_lines(path, 0, rng)), encoding="utf-8")
    subprocess.run([*CLI, "--palace", str(palace_dir), "sources", "add", str(src), "--name", "soak"],
                   check=True, capture_output=True)
    return src, palace_dir


def written_state(palace_dir: Path) -> tuple:
    """What the syncs have written so far: the book's file rows and the catalog's drawers (count, last rowid)."""
    import sqlite3

    def read(name: str, sql: str) -> list:
        if not (palace_dir / name).exists():
            return []
        with sqlite3.connect(palace_dir / name, timeout=30) as db:
            return db.execute(sql).fetchall()

    return (read("mempalace_sources.sqlite3", "SELECT path, size, mtime_ns FROM files ORDER BY path"),
            read("mempalace_catalog.sqlite3", "SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM drawers"))


def sync_loop(palace_dir: Path, seconds: float, rng: random.Random, logs: Path) -> tuple[Counter, list[float]]:
    """`mempalace sources sync` processes one after another for `seconds`, half of them SIGKILLed after
    30-100 % of the median time a whole sync took so far; counts them (killed "part-way": the book or
    the catalog changed while it ran) and returns them with the seconds each sync left alone took.
    Their stderr goes to LOGS/soak-sync-errors.log, when each began and ended to LOGS/soak-syncs.jsonl."""
    tally: Counter = Counter()
    whole: list[float] = []  # seconds each sync that was left alone took
    deadline = time.monotonic() + seconds
    with (logs / "soak-sync-errors.log").open("ab") as errors, (logs / "soak-syncs.jsonl").open("a") as events:
        while time.monotonic() < deadline:
            before, began, at = written_state(palace_dir), time.monotonic(), time.time()
            sync = subprocess.Popen([*CLI, "--palace", str(palace_dir), "sources", "sync"],
                                    stdout=subprocess.DEVNULL, stderr=errors)
            tally["started"] += 1
            kill_after = rng.uniform(0.3, 1.0) * statistics.median(whole or [2.0]) if rng.random() < 0.5 else None
            try:
                code = sync.wait(timeout=kill_after)
                tally["completed" if code == 0 else "failed"] += 1
                whole += [time.monotonic() - began] if kill_after is None else []
            except subprocess.TimeoutExpired:
                sync.kill()
                sync.wait()
                tally["killed"] += 1
                tally["killed part-way"] += written_state(palace_dir) != before
            events.write(json.dumps({"began": at, "ended": time.time(), "code": sync.returncode}) + "\n")  # -9: killed
            time.sleep(rng.uniform(0, 0.5))
    return tally, whole


def stored(palace: object) -> dict[str, tuple[str, str]]:
    """{drawer id: (text, conversation)} as Chroma holds them (read through the palace's store)."""
    return {r.id: (r.document, str(r.metadata.get("parent_id"))) for page in palace._store.scan(documents=True)
            for r in page}


def soak_check(palace_dir: Path, src: Path, fresh_dir: Path) -> dict:
    """The soak's palace against a fresh ingest of the final files: ids, tokens and conversations."""
    from mempalace import Palace
    from mempalace.ingest import ingest_paths

    with Palace.open(palace_dir) as palace:
        palace.count()  # a read: repairs whatever a killed sync left half done
        got, catalog = stored(palace), palace._catalog.ids()
    with Palace.open(fresh_dir, create=True) as fresh:
        failed = [error for report in ingest_paths(fresh, [src]) for error in report.errors]
        want = stored(fresh)
    tokens = set(TOKEN.findall("".join(path.read_text(encoding="utf-8") for path in src.rglob("*.jsonl"))))
    held = Counter(t for text, _ in got.values() for t in TOKEN.findall(text))
    should = Counter(t for text, _ in want.values() for t in TOKEN.findall(text))
    per_got, per_want = Counter(p for _, p in got.values()), Counter(p for _, p in want.values())
    extra = sorted(set(got) - set(want))
    return {"messages": len(tokens), "expected": len(want), "present": len(got),
            "lost ids": len(set(want) - set(got)), "extra ids": len(extra),
            "lost": sum(held[t] == 0 for t in tokens), "duplicated": sum(held[t] > should[t] for t in tokens),
            "not in the fresh palace": sum(should[t] == 0 for t in tokens),
            "conversations over": sum(n > per_want[p] for p, n in per_got.items()),
            "catalog vs Chroma": len(set(got) ^ catalog), "fresh ingest errors": failed[:3],
            "extra examples": [got[i][0][:100] for i in extra[:3]]}


def soak_rows(base: Path, files: int, seconds: float, seed: int) -> list[tuple[str, str]]:
    """Runs the soak and checks it; the rows of its figures."""
    rng = random.Random(seed)
    src, palace_dir = soak_source(base, files, rng)
    stop = base / "soak-stop"
    writer = subprocess.Popen([sys.executable, __file__, "--writer", str(src), "--stop", str(stop), "--seed",
                               str(seed + 1)], stdout=subprocess.PIPE, text=True)
    tally, whole = sync_loop(palace_dir, seconds, rng, base)
    stop.touch()
    exchanges = json.loads(writer.communicate(timeout=60)[0])["exchanges"]
    final = subprocess.run([*CLI, "--palace", str(palace_dir), "--json", "sources", "sync"],
                           capture_output=True, text=True)
    if final.returncode:
        sys.exit(f"the final sync failed: {final.stderr[-2000:]}")
    found = soak_check(palace_dir, src, base / "soak-fresh")
    print("soak details:", json.dumps(found), flush=True)
    errors = (base / "soak-sync-errors.log").read_text(errors="replace").strip()
    if errors:
        print("stderr of the syncs (last 1,000 characters):", errors[-1000:], sep="\n", flush=True)
    changed = json.loads(final.stdout)[0]["files_changed"]
    return [(f"soak: {files} files, {seconds:.0f} s, hash embedder",
             f"{exchanges} exchanges written ({found['messages']} messages); final sync: {changed} files changed"),
            ("  syncs", f"{tally['started'] + 1} run (final one included), {tally['killed']} SIGKILLed "
                        f"({tally['killed part-way']} part-way), {tally['failed']} failed; one left alone took "
                        f"{statistics.median(whole or [0]):.1f} s (median)"),
            ("  drawers", f"expected {found['expected']}, present {found['present']}; ids lost {found['lost ids']}, "
                          f"extra {found['extra ids']}"),
            ("  lost / duplicated messages", f"{found['lost']} / {found['duplicated']} (conversations with more "
                                             f"drawers than expected: {found['conversations over']})"),
            ("  catalog vs Chroma mismatches", str(found["catalog vs Chroma"]))]


# -- the run --------------------------------------------------------------------------------------------

def print_table(rows: list[tuple[str, str]]) -> None:
    if not rows:
        return
    width = max(len(measure) for measure, _ in rows)
    print(f"\n{'measured':<{width}}  figure\n{'-' * width}  {'-' * 40}")
    for measure, figure in rows:
        print(f"{measure:<{width}}  {figure}")


def source_rows(base: Path, args: argparse.Namespace, rows: list[tuple[str, str]]) -> None:
    """Parts 1 and 2 (their rows added to `rows`): the 10,000-file source unchanged, grown by one
    exchange, and watched."""
    files = args.projects * args.files
    print(f"building {args.projects} x {args.files} session files and their palace...", flush=True)
    palace, root, built = build_source(base, args.projects, args.files)
    rows += built
    palace_dir = base / "palace"
    try:
        rows += unchanged_rows(palace, files)
        rows += appended_rows(palace, root, args.projects, args.files)
    finally:
        palace.close()  # the processes below open the (embedded) palace themselves
    rows += cli_rows(palace_dir)
    if "watch" in args.parts:
        print(f"watching for {args.watch_seconds:.0f} s...", flush=True)
        rows += watcher_rows(palace_dir, args.watch_seconds, args.every, files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 files, watcher 20 s, soak 30 s")
    parser.add_argument("--projects", type=int, help="project folders (default 100; --quick 10)")
    parser.add_argument("--files", type=int, default=100, help="session files per project folder")
    parser.add_argument("--every", type=float, default=5.0, help="the watcher's --every (shipped default: 60)")
    parser.add_argument("--watch-seconds", type=float, help="how long the idle watcher is measured (60; --quick 20)")
    parser.add_argument("--soak-files", type=int, default=20)
    parser.add_argument("--soak-seconds", type=float, help="how long syncs are run and killed (120; --quick 30)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parts", nargs="+", choices=("source", "watch", "soak"), default=["source", "watch", "soak"])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (palaces, files, logs)")
    parser.add_argument("--writer", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--stop", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.writer:
        writer_main(args.writer, args.stop, args.seed)
        return 0
    args.projects = args.projects or (10 if args.quick else 100)
    args.watch_seconds = args.watch_seconds or (20.0 if args.quick else 60.0)
    args.soak_seconds = args.soak_seconds or (30.0 if args.quick else 120.0)
    base = Path(tempfile.mkdtemp(prefix="mempalace-sources-bench-"))
    os.environ.update(MEMPALACE_HOME=str(base / "home"), MEMPALACE_EMBEDDER="hash", MEMPALACE_SHARED="0")
    os.environ.pop("MEMPALACE_URL", None)
    started, rows = time.monotonic(), []
    try:
        if {"source", "watch"} & set(args.parts):
            source_rows(base, args, rows)
        if "soak" in args.parts:
            print(f"soak: {args.soak_seconds:.0f} s...", flush=True)
            rows += soak_rows(base, args.soak_files, args.soak_seconds, args.seed)
    finally:
        print_table(rows)
        print(f"\n{time.monotonic() - started:.0f} s in all; private palaces, the hash embedder, "
              f"{os.cpu_count()} cores")
        if args.keep:
            print(f"kept in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
