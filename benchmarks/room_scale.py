"""Room choice and naming in a palace that already holds many rooms (the issue's "fast with 1,000 rooms").

    python benchmarks/room_scale.py                 # 0 and 1,000 rooms, LoCoMo's first conversation
    python benchmarks/room_scale.py --rooms 0 300 1000 3000

For each size, a new palace gets that many ingest-named rooms (3 drawers each, LoCoMo turns of other
conversations, embedded with the real model), then one LoCoMo conversation is ingested as a new wing.
Printed: the ingest's wall time, room choice (`assign_rooms`) and naming (`settle_names`) within it
(after an uncounted first run that loads the model and word lists).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from _room_timer import RoomTimer

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = ROOT.parent / "shared" / "data" / "locomo10.json"
PER_ROOM = 3


def turns(samples: list[dict]) -> list[str]:
    """Every turn's text of the given LoCoMo conversations, in order."""
    found = []
    for sample in samples:
        for key, session in sorted(sample["conversation"].items()):
            if key.startswith("session_") and isinstance(session, list):
                found += [str(t.get("text") or "") for t in session if t.get("text")]
    return found


def fill(palace, rooms: int, texts: list[str]) -> None:
    """`rooms` rooms ingest could have named, PER_ROOM drawers each, one wing per 100 rooms."""
    from mempalace.models import DrawerDraft

    drafts = [DrawerDraft(id=f"filler-{n}-{k}", content=f"{texts[(n * PER_ROOM + k) % len(texts)]} ({n}.{k})",
                          wing=f"wing_filler_{n // 100}", room=f"filler-topic-{n}", room_by="ingest")
              for n in range(rooms) for k in range(PER_ROOM)]
    for start in range(0, len(drafts), 2_000):
        palace.file_drawers(drafts[start : start + 2_000])


def measure(rooms: int, samples: list[dict], texts: list[str]) -> dict:
    from mempalace.config import load_settings
    from mempalace.palace.palace import Palace
    from mempalace.ingest.pipeline import ingest_paths

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import locomo

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with Palace.open(work / "palace", settings=load_settings(work / "home")) as palace:
            fill(palace, rooms, texts)
            files = locomo.write_sessions(samples[0], work / "t")
            with RoomTimer() as choice, RoomTimer(["mempalace.rooms.choice:TopicRooms.settle_names"]) as naming:
                start = time.perf_counter()
                reports = ingest_paths(palace, files, wing=samples[0]["sample_id"])
                wall = time.perf_counter() - start
            added = sum(r.added for r in reports)
            total_rooms = len(palace.list_rooms())
    return {"rooms_before": rooms, "rooms_after": total_rooms, "drawers_added": added, "ingest_s": round(wall, 2),
            "room_choice_s": round(choice.seconds, 3), "naming_s": round(naming.seconds, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, nargs="+", default=[0, 1000])
    parser.add_argument("--locomo-path", type=Path, default=LOCOMO)
    args = parser.parse_args()
    samples = json.loads(args.locomo_path.read_text(encoding="utf-8"))
    texts = turns(samples[1:])
    measure(0, samples, texts)  # a first run loads the model and word lists: not counted
    for rooms in args.rooms:
        found = measure(rooms, samples, texts)
        print(f"{found['rooms_before']:5d} rooms before: ingest {found['ingest_s']:.2f} s for {found['drawers_added']}"
              f" drawers; room choice {found['room_choice_s']:.3f} s, naming {found['naming_s']:.3f} s of it;"
              f" {found['rooms_after']} rooms after")


if __name__ == "__main__":
    main()
