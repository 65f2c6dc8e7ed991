"""Room choice through the real pipeline and model: consistency on labelled sets, hygiene on real data.

    python benchmarks/rooms.py                        # rooms_dev, the shared real samples and LoCoMo-10
    python benchmarks/rooms.py --set benchmarks/data/rooms_check --no-locomo --json out.json

Each labelled set (`--set`, default ../shared/data/rooms_dev) is ingested into a new palace, one wing
per folder, and scored by its README's metric: pairwise precision, recall and F1 of item rooms across
wings, plus person and generic rooms. `--samples` (../shared/data/transcripts, default wings) and
`--locomo` (one wing per conversation, as locomo.py) report rooms per wing, the largest room's share
and person-name or generic rooms. Room-choice time is summed over the first of TIMED that exists.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from _room_names import name_scores, other_names, print_names, split_suggestions, tokens
from _room_timer import CandidateLog, RoomTimer

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
TRANSCRIPTS = SHARED / "transcripts"
SAMPLES = ("claude_code", "slack_export/hfaran_testarchive", "codex_cli", "gemini_cli", "plain_text")
GENERIC_WORDS = frozenset("""
update list install assist issue problem question help general misc other chat conversation discussion
thread thanks sync meeting notes topic thing stuff plan idea work project team today week follow up new
unknown untitled default""".split())  # rooms_dev README, "Metric" 5
SAMPLE_GENERIC = GENERIC_WORDS | frozenset(
    "general misc assist uploaded long title mixed text huge standard place".split())
SHARE_FLAG = 0.25  # a largest room above this share of its wing is flagged
_CUT_LABEL = re.compile(r"^[^\n:]{1,60} \(continued\): ")
_LABEL = re.compile(r"^[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}: ")
_SPEAKER = re.compile(r"^([A-Z][A-Za-z]*): ", re.MULTILINE)
_NAMES = re.compile(r"name of a person or speaker in this set:\s*([^;]+);")


@contextlib.contextmanager
def fresh_palace(keep: Path | None, name: str):
    """A new palace with the default model and settings from an empty home (as locomo.py opens it)."""
    from mempalace.config import load_settings
    from mempalace.palace.palace import Palace

    with tempfile.TemporaryDirectory() as tmp:
        work = (keep / name) if keep else Path(tmp)
        if keep and work.exists():
            sys.exit(f"{work} exists: --keep needs a folder without {name}/")
        work.mkdir(parents=True, exist_ok=True)
        with Palace.open(work / "palace", settings=load_settings(work / "home")) as palace:
            yield palace, work


def timed_ingest(palace, batches: list[tuple[list[Path], str | None]]) -> dict:
    """Ingest each (paths, wing) in order; wall time, room-choice time and its share."""
    from mempalace.ingest.pipeline import ingest_paths

    added, errors = 0, []
    with RoomTimer() as timer:
        start = time.perf_counter()
        for paths, wing in batches:
            reports = ingest_paths(palace, paths, wing=wing)
            added += sum(r.added for r in reports)
            errors += [e for r in reports for e in r.errors]
        wall = time.perf_counter() - start
    if errors:
        print(f"  ingest errors ({len(errors)}): {errors[:3]}")
    return {"added": added, "errors": len(errors), "ingest_s": round(wall, 3), "timed": timer.target,
            "room_calls": timer.calls, "room_s": round(timer.seconds, 3),
            "room_share": round(timer.seconds / wall, 4) if wall else 0.0}


def all_drawers(palace) -> list:
    """Every drawer, wing by wing, paged through `Palace.browse`."""
    drawers = []
    for wing in sorted(palace.list_wings()):
        offset, total = 0, 1
        while offset < total:
            total, page = palace.browse(wing=wing, offset=offset, limit=1000)
            if not page:
                break
            drawers += page
            offset += len(page)
    return drawers


def is_generic(slug: str, wings: list[str], generic: frozenset[str] = GENERIC_WORDS) -> bool:
    """Every token is a generic word or a token of some wing's own name (`orion`, `family`)."""
    own = {t for w in wings for t in tokens(w.removeprefix("wing_"))}
    return all(t in generic or t in own for t in tokens(slug))


def is_person(slug: str, names: set[str]) -> bool:
    return any(t in names for t in tokens(slug))


def read_set(folder: Path) -> dict:
    """Labels, file texts, wing folders and the person/speaker names of one labelled set."""
    with (folder / "labels.tsv").open(encoding="utf-8") as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle if line.strip()]
    labels = [(w, f, c, int(s)) for w, f, c, s in rows[1:]]
    wings = sorted(p.name for p in folder.iterdir() if p.is_dir())
    texts = {(w, p.name): p.read_text(encoding="utf-8") for w in wings for p in sorted((folder / w).glob("*.txt"))}
    readme = (folder / "README.md").read_text(encoding="utf-8") if (folder / "README.md").is_file() else ""
    metric = readme.split("## Metric", 1)[1].split("\n## ", 1)[0] if "## Metric" in readme else ""
    found = _NAMES.search(" ".join(metric.split()))
    if found:
        names = {n.strip().lower() for n in found[1].split(",") if n.strip()}
    else:
        names = {m.lower() for t in texts.values() for m in _SPEAKER.findall(t)} | {"user", "assistant"}
    return {"labels": labels, "texts": texts, "wings": wings, "names": names}


def locate(content: str, text: str, cursor: int) -> int | None:
    """Where a drawer starts in its file: its text, else its first line without a cut label, else any line."""
    cut = _CUT_LABEL.match(content)
    rest = content[cut.end():] if cut else content
    lines = [line for line in rest.splitlines() if line.strip()] or [rest]
    bare = _LABEL.sub("", lines[0], count=1)
    others = sorted((_LABEL.sub("", line, count=1) for line in lines), key=len, reverse=True)  # longest first
    for needle in (content, rest, lines[0], bare, *others):
        if not needle.strip():
            continue
        for start in (cursor, 0):
            found = text.find(needle, start)
            if found >= 0:
                return found
    return None


def drawer_starts(drawers: list, data: dict) -> tuple[list[tuple[str, str, int, str]], int]:
    """(wing folder, file, start_char, room) for each drawer of the set's files; and how many were not found."""
    from mempalace.text.names import wing_name

    folder_of = {wing_name(w): w for w in data["wings"]}
    by_file = collections.defaultdict(list)
    for d in drawers:
        by_file[(folder_of.get(d.wing, d.wing), Path(d.source_file or "").name)].append(d)
    rows, lost = [], 0
    for key, group in sorted(by_file.items()):
        text, cursor = data["texts"].get(key), 0
        for d in sorted(group, key=lambda d: d.chunk_index):
            start = locate(d.content, text, cursor) if text is not None else None
            if start is None:
                lost += 1
                continue
            cursor = start + 1
            rows.append((*key, start, d.room))
    return rows, lost


def item_rooms(labels: list[tuple], rows: list[tuple]) -> list[dict]:
    """The README's item rooms: majority room of the drawers starting in the segment, tie to the earliest."""
    segments = collections.defaultdict(list)
    for wing, file, concept, start in labels:
        segments[(wing, file)].append((start, concept))
    votes = collections.defaultdict(list)
    for wing, file, start, room in rows:
        inside = [c for s, c in sorted(segments.get((wing, file), [])) if s <= start]
        if inside:
            votes[(wing, file, inside[-1])].append((start, room))
    items = []
    for wing, file, concept, start in labels:
        ballot = sorted(votes.get((wing, file, concept), []))
        counts = collections.Counter(room for _, room in ballot)
        top = max(counts.values(), default=0)
        room = next((r for _, r in ballot if counts[r] == top), None)
        items.append({"wing": wing, "file": file, "concept": concept, "room": room, "drawers": len(ballot)})
    return items


def pair_scores(items: list[dict]) -> dict:
    """Pairwise TP/FP/FN over items of different wings; an item without a room matches nothing."""
    tp = fp = fn = 0
    for a, b in itertools.combinations(items, 2):
        if a["wing"] == b["wing"]:
            continue
        same_room = a["room"] is not None and a["room"] == b["room"]
        if a["concept"] == b["concept"]:
            tp, fn = tp + same_room, fn + (not same_room)
        else:
            fp += same_room
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / (p + r) if p + r else 0.0, 4),
            "tp": tp, "fp": fp, "fn": fn}


def rebuild_share(palace) -> dict:
    """What `rooms --rebuild --dry-run` proposes right after ingest: moves over drawers ingest filed."""
    from mempalace.ingest.reroom import reroom

    report = reroom(palace, dry_run=True)
    share = len(report.moves) / report.considered if report.considered else 0.0
    print(f"  rebuild right after ingest would move {len(report.moves)} of {report.considered} drawers"
          f" ({100 * share:.1f} %)" + "".join(f"\n    {w}: {a} -> {b} ({n})" for w, a, b, n in report.summary()[:8]))
    return {"moves": len(report.moves), "considered": report.considered, "share": round(share, 4)}


def print_grid(items: list[dict], wings: list[str]) -> None:
    """The room of each item as a concept × wing table (a cell holds every item of that pair)."""
    concepts = sorted({i["concept"] for i in items})
    cell = {(c, w): ", ".join(i["room"] or "(none)" for i in items if i["concept"] == c and i["wing"] == w)
            for c in concepts for w in wings}
    width = {w: max([len(w)] + [len(cell[(c, w)]) for c in concepts]) for w in wings}
    first = max(len(c) for c in concepts)
    print("  " + " " * first + " | " + " | ".join(f"{w:<{width[w]}}" for w in wings))
    for c in concepts:
        print(f"  {c:<{first}} | " + " | ".join(f"{cell[(c, w)]:<{width[w]}}" for w in wings))


def run_set(folder: Path, keep: Path | None, name: str) -> dict:
    """Ingest one labelled set into a new palace and score its rooms."""
    data = read_set(folder)
    with fresh_palace(keep, name) as (palace, _):
        batches = [(sorted((folder / w).glob("*.txt")), w) for w in data["wings"]]
        with CandidateLog() as log:
            timing = timed_ingest(palace, batches)
        drawers = all_drawers(palace)
        rebuild = rebuild_share(palace)
        from mempalace.graph import suggest_room_merges

        suggested = {frozenset((m.source, m.target)) for m in suggest_room_merges(palace)}
        others = other_names(palace)
    rows, lost = drawer_starts(drawers, data)
    items = item_rooms(data["labels"], rows)
    scores = pair_scores(items)
    names = name_scores(items, folder, log.candidates, others)
    splits = split_suggestions(items, suggested)
    by_room = collections.defaultdict(list)
    for i in items:
        by_room[i["room"] or "(none)"].append(f"{i['wing']}/{i['file']}:{i['concept']}")
    person = sorted(r for r in by_room if is_person(r, data["names"]))
    generic = sorted(r for r in by_room if is_generic(r, data["wings"]))
    print(f"\n== set {folder} ({len(items)} items, {len(data['texts'])} files)")
    print(f"  P {scores['precision']:.3f}  R {scores['recall']:.3f}  F1 {scores['f1']:.3f}"
          f"   TP {scores['tp']}  FP {scores['fp']}  FN {scores['fn']}")
    print_grid(items, data["wings"])
    print(f"  splits (a concept's rooms): {len(splits['pairs'])} room pairs, {splits['found']} of them in"
          f" --suggest-merges; {len(suggested) - splits['found']} other suggestions")
    print_names(names)
    print(f"  distinct rooms of the items: {len(by_room)}")
    for room, its in sorted(by_room.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"    {room} ({len(its)}): {', '.join(its)}")
    print(f"  hygiene: person rooms {person or 'none'}; generic rooms {generic or 'none'}")
    for room in person + generic:
        print(f"    {room}: {', '.join(by_room[room])}")
    rooms = {d.room for d in drawers}
    print(f"  palace: {len(drawers)} drawers, {len(rooms)} rooms, {tunnels(drawers)} tunnels;"
          f" {lost} drawers not located in their file")
    print_timing(timing)
    return {"set": str(folder), **scores, "items": items, "rooms": {r: v for r, v in by_room.items()},
            "person_rooms": person, "generic_rooms": generic, "palace_rooms": len(rooms), "tunnels": tunnels(drawers),
            "drawers": len(drawers), "unlocated_drawers": lost, "names": names, "rebuild": rebuild,
            "splits": splits, **timing}


def print_timing(t: dict) -> None:
    print(f"  ingest {t['ingest_s']:.2f} s wall, {t['added']} drawers added; room choice ({t['timed']}, "
          f"{t['room_calls']} calls) {t['room_s']:.3f} s = {100 * t['room_share']:.1f} % of ingest")


def wing_profiles(drawers: list, names_of, generic: frozenset[str]) -> dict:
    """Per wing: drawers, rooms with counts, the largest room's share, person and generic rooms."""
    by_wing = collections.defaultdict(list)
    for d in drawers:
        by_wing[d.wing].append(d)
    out = {}
    for wing, group in sorted(by_wing.items()):
        rooms = collections.Counter(d.room for d in group)
        largest, count = max(rooms.items(), key=lambda kv: (kv[1], kv[0]))
        names = names_of(wing, group)
        out[wing] = {"drawers": len(group), "rooms": dict(rooms.most_common()), "largest": largest,
                     "largest_share": round(count / len(group), 4), "flagged": count / len(group) > SHARE_FLAG,
                     "person_rooms": sorted(r for r in rooms if is_person(r, names)),
                     "generic_rooms": sorted(r for r in rooms if is_generic(r, [wing], generic))}
    return out


def print_profiles(profiles: dict, show_rooms: bool) -> None:
    for wing, p in profiles.items():
        print(f"  {wing}: {p['drawers']} drawers, {len(p['rooms'])} rooms; largest {p['largest']}"
              f" {100 * p['largest_share']:.0f} %{' (!)' if p['flagged'] else ''}; person {p['person_rooms'] or '-'};"
              f" generic {p['generic_rooms'] or '-'}")
        if show_rooms:
            print("    " + ", ".join(f"{r}: {n}" for r, n in p["rooms"].items()))


def tunnels(drawers: list) -> int:
    """Rooms in two wings or more, but those the graph hides by default (`general`: no topic)."""
    from mempalace.config import Settings

    hidden = set(Settings.graph_hidden_rooms)  # the default
    spans = collections.Counter(room for room, _ in {(d.room, d.wing) for d in drawers} if room not in hidden)
    return sum(n >= 2 for n in spans.values())


def slack_names(folder: Path) -> set[str]:
    """Lowercased parts of every Slack user's name and real name."""
    users = json.loads((folder / "users.json").read_text(encoding="utf-8"))
    values = [v for u in users for v in (u.get("name"), u.get("real_name"), (u.get("profile") or {}).get("real_name"))]
    return {part for v in values for part in re.findall(r"[a-z]+", (v or "").lower())}


def run_samples(root: Path, keep: Path | None) -> dict:
    """The shared real transcripts in one palace with default wings."""
    paths = [root / s for s in SAMPLES if (root / s).exists()]
    slack = set().union(*(slack_names(p) for p in paths if (p / "users.json").is_file()))

    def names_of(wing: str, group: list) -> set[str]:
        from_slack = any(d.extra.get("format") == "slack" for d in group)
        speakers = {p for d in group for p in re.findall(r"[a-z]+", str(d.extra.get("speakers") or "").lower())}
        return speakers | (slack if from_slack else set())

    with fresh_palace(keep, "samples") as (palace, _):
        timing = timed_ingest(palace, [(paths, None)])
        drawers = all_drawers(palace)
        rebuild = rebuild_share(palace)
    profiles = wing_profiles(drawers, names_of, SAMPLE_GENERIC)
    print(f"\n== shared samples ({', '.join(p.name for p in paths)}): {len(drawers)} drawers,"
          f" {len({d.room for d in drawers})} rooms, {tunnels(drawers)} tunnels")
    print_profiles(profiles, show_rooms=True)
    print_timing(timing)
    return {"wings": profiles, "drawers": len(drawers), "tunnels": tunnels(drawers), "rebuild": rebuild, **timing}


def run_locomo(path: Path, keep: Path | None) -> dict:
    """Every LoCoMo session written as locomo.py writes it, one wing per conversation."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import locomo
    from mempalace.text.names import wing_name

    samples = json.loads(path.read_text(encoding="utf-8"))
    speakers = {wing_name(s["sample_id"]): {str(s["conversation"].get(k, "")).split(" ")[0].lower()
                                            for k in ("speaker_a", "speaker_b")} - {""} for s in samples}
    with fresh_palace(keep, "locomo") as (palace, work):
        batches = [(locomo.write_sessions(s, work / "transcripts" / s["sample_id"]), s["sample_id"]) for s in samples]
        timing = timed_ingest(palace, batches)
        drawers = all_drawers(palace)
        rebuild = rebuild_share(palace)
    profiles = wing_profiles(drawers, lambda wing, _: speakers.get(wing, set()), SAMPLE_GENERIC)
    top = max((p["largest_share"] for p in profiles.values()), default=0.0)
    print(f"\n== LoCoMo ({len(samples)} conversations): {len(drawers)} drawers,"
          f" {len({d.room for d in drawers})} rooms, {tunnels(drawers)} tunnels; max largest-room share"
          f" {100 * top:.0f} %")
    print_profiles(profiles, show_rooms=False)
    print_timing(timing)
    return {"wings": profiles, "drawers": len(drawers), "tunnels": tunnels(drawers), "max_share": top, "rebuild": rebuild, **timing}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", dest="sets", type=Path, action="append", default=None,
                        help="labelled set folder (repeatable; default ../shared/data/rooms_dev)")
    parser.add_argument("--samples", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--samples-dir", type=Path, default=TRANSCRIPTS)
    parser.add_argument("--locomo", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--locomo-path", type=Path, default=SHARED / "locomo10.json")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    parser.add_argument("--keep", type=Path, default=None, help="keep the palaces in this folder")
    args = parser.parse_args()
    sets = args.sets or [SHARED / "rooms_dev"]
    figures: dict = {"sets": []}
    for n, folder in enumerate(sets):
        if not (folder / "labels.tsv").is_file():
            sys.exit(f"{folder} has no labels.tsv: pass --set PATH")
        figures["sets"].append(run_set(folder, args.keep, f"set{n}-{folder.name}"))
    if args.samples:
        figures["samples"] = run_samples(args.samples_dir, args.keep)
    if args.locomo:
        if not args.locomo_path.is_file():
            sys.exit(f"{args.locomo_path} not found: pass --locomo-path PATH or --no-locomo")
        figures["locomo"] = run_locomo(args.locomo_path, args.keep)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
        print(f"\nfigures: {args.json}")


if __name__ == "__main__":
    main()
