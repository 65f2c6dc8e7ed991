"""Soak: deletes, restores, undos and backups killed with SIGKILL at random moments lose nothing.

    python benchmarks/trash_soak.py                  # 120 s, hash embedder, private palace
    python benchmarks/trash_soak.py --seconds 600 --drawers 400

A child process opens the palace and runs random operations (delete a wing, a room or some drawers;
restore a change from the trash; undo the newest change; move drawers; rename a room; write a backup) until the parent kills it
after a random 0.05-2 s. After each kill the parent opens the palace and checks that every drawer
filed at the start is live or in the trash exactly once (never both, never neither), that the
catalog agrees with Chroma, and that every backup folder verifies (a killed backup leaves none).
Printed: operations finished, kills, and any violation (exit 1 on one).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WINGS = ("wing_a", "wing_b", "wing_c", "wing_d")
ROOMS = ("db", "pets", "money", "trips", "music")


def seed(palace_dir: Path, home: Path, drawers: int) -> list[str]:
    from mempalace.config import load_settings
    from mempalace.models import DrawerDraft
    from mempalace.palace.palace import Palace

    drafts = [DrawerDraft(f"d-{i:04}", f"Drawer {i} about {ROOMS[i % 5]} in {WINGS[i % 4]}, note {i * 7919 % 1000}.",
                          WINGS[i % 4], ROOMS[i % 5]) for i in range(drawers)]
    with Palace.open(palace_dir, settings=load_settings(home), private=True) as palace:
        palace.file_drawers(drafts)
    return [d.id for d in drafts]


def worker(palace_dir: Path, home: Path, backups: Path, seed_value: int) -> None:
    """Random operations until killed; prints one line per finished operation."""
    from mempalace.archive.backup import stamp_name, write_backup
    from mempalace.config import load_settings
    from mempalace.errors import MempalaceError
    from mempalace.palace.palace import Palace

    rng = random.Random(seed_value)
    with Palace.open(palace_dir, settings=load_settings(home), private=True) as palace:
        while True:
            kind = rng.choice(("delete", "delete", "restore", "undo", "undo", "move", "rename", "backup"))
            try:
                if kind == "delete":
                    choice = rng.choice(("wing", "room", "ids"))
                    if choice == "ids":
                        palace.delete_where(ids=rng.sample(palace.drawer_ids(), k=min(5, palace.count())) or ["x"])
                    else:
                        palace.delete_where(**{choice: rng.choice(WINGS if choice == "wing" else ROOMS)})
                elif kind == "restore":
                    changes = sorted({t.change for t in palace.trash_list()})
                    if changes:
                        palace.restore_change(rng.choice(changes))
                elif kind == "undo":
                    palace.undo()
                elif kind == "move":
                    palace.move_drawers(rng.sample(palace.drawer_ids(), k=min(3, palace.count())) or ["x"],
                                        wing=rng.choice(WINGS), room=rng.choice(ROOMS))
                elif kind == "rename":
                    palace.rename_room(rng.choice(list(palace.list_rooms()) or ["x"]), rng.choice(ROOMS) + "-2")
                else:
                    write_backup(palace, backups / f"{stamp_name()}-{rng.randrange(10**6)}")
            except MempalaceError:
                pass  # nothing to undo, a blocked undo, a change already restored: refused cleanly
            print(kind, flush=True)


def check(palace_dir: Path, home: Path, backups: Path, ids: list[str]) -> list[str]:
    from mempalace.archive.backup import verify_backup
    from mempalace.config import load_settings
    from mempalace.palace.palace import Palace

    problems = []
    with Palace.open(palace_dir, settings=load_settings(home), private=True) as palace:
        live = set(palace.drawer_ids())
        stored = {r.id for page in palace.all_records() for r in page}
        trashed = [t.drawer.id for t in palace.trash_list()]
    if live != stored:
        problems.append(f"catalog and Chroma disagree on {len(live ^ stored)} drawers")
    for drawer_id in ids:
        where = (drawer_id in live) + trashed.count(drawer_id)
        if where != 1:
            problems.append(f"{drawer_id} is live {drawer_id in live} and in the trash {trashed.count(drawer_id)} times")
    for folder in backups.iterdir():
        if not folder.name.startswith(".") and verify_backup(folder).problems:
            problems.append(f"backup {folder.name} does not verify")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--drawers", type=int, default=200)
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("MEMPALACE_EMBEDDER", "hash")
    if args.worker:
        worker(Path(args.worker[0]), Path(args.worker[1]), Path(args.worker[2]), int(args.worker[3]))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        palace_dir, home, backups = Path(tmp) / "palace", Path(tmp) / "home", Path(tmp) / "backups"
        backups.mkdir()
        ids = seed(palace_dir, home, args.drawers)
        rng, end, kills, done, problems = random.Random(7), time.time() + args.seconds, 0, {}, []
        while time.time() < end and not problems:
            child = subprocess.Popen([sys.executable, __file__, "--worker", str(palace_dir), str(home), str(backups),
                                      str(rng.randrange(10**9))], stdout=subprocess.PIPE, text=True)
            time.sleep(rng.uniform(0.05, 2.0))
            child.send_signal(signal.SIGKILL)
            for line in child.communicate()[0].split():
                done[line] = done.get(line, 0) + 1
            kills += 1
            problems = check(palace_dir, home, backups, ids)
        backups_made = sum(1 for f in backups.iterdir() if not f.name.startswith("."))
        print(f"{kills} kills; operations finished: {dict(sorted(done.items()))}; {backups_made} backups, all verified")
        for problem in problems[:20]:
            print("VIOLATION:", problem)
        return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
