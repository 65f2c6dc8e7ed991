"""Room names on a labelled set, for rooms.py: which concepts are named acceptably, could be, or are one
click away (their room's name or one of the other names `rooms --names` offers)."""

from __future__ import annotations

import collections
import itertools
import re
from pathlib import Path


def other_names(palace) -> dict[str, tuple[str, ...]]:
    """Every room's other names, as `mempalace rooms --names` lists them."""
    from mempalace.ingest.room_alternatives import name_alternatives

    return {room: name_alternatives(palace, room) for room in palace.list_rooms()}


def tokens(slug: str) -> list[str]:
    return [t for t in re.split(r"[-_]", slug.lower()) if t]


def plain(slug: str) -> str:
    """A name as names.tsv judges it: lower case, a final plural `s` off each longer word (`pools` → `pool`)."""
    return "-".join(t[:-1] if len(t) > 3 and t.endswith("s") and not t.endswith("ss") else t for t in tokens(slug))


def name_scores(items: list[dict], folder: Path, candidates: dict[str, set[str]] | None = None,
                others: dict[str, tuple[str, ...]] | None = None) -> dict | None:
    """Per concept: its room (the commonest room of its items, tie to the first), whether names.tsv
    accepts that name, whether any phrase the room could have been named accepts (`reachable`: the
    best a perfect pick among the room's own phrases could do), and whether the name or one of the
    room's other names (`others`, as `rooms --names` lists them) does (`one_click`). None when the
    set has no names.tsv."""
    from mempalace.language.languages import written  # Chinese words run together, as names are written

    path = folder / "names.tsv"
    if not path.is_file():
        return None
    rows = [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
    accepted = {concept: {plain(n) for n in names.split()} for concept, names in rows}
    named = {}
    for concept in sorted(accepted):
        rooms = [i["room"] for i in items if i["concept"] == concept and i["room"]]
        counts = collections.Counter(rooms)
        room = next((r for r in rooms if counts[r] == max(counts.values())), None)
        phrases = (candidates or {}).get(room or "", set()) | ({room} if room else set())
        named[concept] = {"room": room, "ok": room is not None and plain(room) in accepted[concept],
                          "reachable": any(plain(written(p).replace(" ", "-")) in accepted[concept] for p in phrases),
                          "one_click": any(plain(n) in accepted[concept]
                                           for n in ((room,) + (others or {}).get(room, ()) if room else ()))}
    share = sum(v["ok"] for v in named.values()) / len(named) if named else 0.0
    reachable = sum(v["reachable"] for v in named.values()) / len(named) if named else 0.0
    return {"share": round(share, 4), "reachable": round(reachable, 4), "concepts": named}


def split_suggestions(items: list[dict], suggested: set[frozenset]) -> dict:
    """The pairs of rooms one concept's items are split across, and how many `--suggest-merges` lists."""
    pairs = set()
    for concept in {i["concept"] for i in items}:
        rooms = sorted({i["room"] for i in items if i["concept"] == concept and i["room"]})
        pairs |= {frozenset(p) for p in itertools.combinations(rooms, 2)}
    return {"pairs": sorted(sorted(p) for p in pairs), "found": sum(p in suggested for p in pairs)}


def print_names(names: dict | None) -> None:
    """The names' figures, when the set has names.tsv."""
    if not names:
        return
    print(f"  names acceptable: {sum(v['ok'] for v in names['concepts'].values())} of {len(names['concepts'])}"
          f" ({100 * names['share']:.0f} %): " + ", ".join(f"{c} {v['room']}{'' if v['ok'] else ' (x)'}"
                                                        for c, v in names["concepts"].items()))
    print(f"  an acceptable name among the rooms' own phrases (a perfect pick): "
          f"{sum(v['reachable'] for v in names['concepts'].values())} of {len(names['concepts'])}"
          f" ({100 * names['reachable']:.0f} %)")
    from mempalace.ingest.room_alternatives import SHOWN

    one_click = sum(v["one_click"] for v in names["concepts"].values())
    print(f"  an acceptable name one click away (the name or one of `rooms --names`' {SHOWN}): "
          f"{one_click} of {len(names['concepts'])} ({100 * one_click / len(names['concepts']):.0f} %)")
