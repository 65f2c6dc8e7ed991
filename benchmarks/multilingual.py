"""Multilingual search and rooms through the real pipeline, with a chosen embedder.

    python benchmarks/multilingual.py                                   # ../shared/data/multilingual_dev
    python benchmarks/multilingual.py --embedder use-m3 --set benchmarks/data/multilingual_blind

The set (wings of `conv_NN.txt`, `labels.tsv`, `questions.tsv`) is ingested into a new palace, one
wing per folder, with `--embedder`; each question of `questions.tsv` is asked through
`Palace.search`, hybrid and semantic. A hit is a drawer of the question's wing and file that
contains the evidence or overlaps its character span (the sets' README). Printed: R@1, R@5 and MRR
(over the first 10) for same-language and cross-language questions, and the rooms' pairwise F1
(benchmarks/rooms.py's scorer). A question is same-language when its language is one the answering
conversation is written in (each line's language, told by its script or its commonest short words),
unless `questions.tsv` has a `cross` column saying so.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
from pathlib import Path

from rooms import (SHARED, all_drawers, drawer_starts, fresh_palace, item_rooms, locate, pair_scores, read_set,
                   timed_ingest)

DEPTH = 10  # results read per question (MRR counts a first hit up to here)
MODES = ("hybrid", "semantic")
_LABEL = re.compile(r"^[A-Z][A-Za-z]*: ")
_FUNCTION_WORDS = {  # a Latin-script line's language: the one whose short words it uses most (two at least)
    "en": "the and is are was to of in it that you for with have this what we not".split(),
    "es": "el la los las y es que de en un una por para con no se lo del al".split(),
    "de": "der die das und ist nicht ich zu mit den ein eine auf für wir es sie".split(),
    "fr": "le la les et est que de des un une pour pas je nous vous il avec du".split(),
}


def line_language(line: str, has_kana: bool) -> str | None:
    """The language of one line of a conversation, or None when it cannot be told."""
    if re.search(r"[\u3040-\u30ff]", line):
        return "ja"
    if re.search(r"[\u4e00-\u9fff]", line):
        return "ja" if has_kana else "zh"
    if re.search(r"[\uac00-\ud7af]", line):
        return "ko"
    if re.search(r"[\u0400-\u04ff]", line):
        return "ru"
    words = re.findall(r"[a-zà-ÿ]+", line.lower())
    counts = {lang: sum(w in common for w in words) for lang, common in _FUNCTION_WORDS.items()}
    best = max(counts, key=counts.get)
    return best if counts[best] >= 2 else None


def text_languages(text: str) -> set[str]:
    has_kana = bool(re.search(r"[\u3040-\u30ff]", text))
    found = {line_language(_LABEL.sub("", line), has_kana) for line in text.splitlines() if line.strip()}
    return found - {None}


def read_questions(folder: Path, texts: dict) -> list[dict]:
    """The questions, each with whether it crosses languages."""
    with (folder / "questions.tsv").open(encoding="utf-8") as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle if line.strip()]
    header, questions = rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]
    languages = {key: text_languages(text) for key, text in texts.items()}
    for q in questions:
        if "cross" in header:
            q["cross"] = q["cross"].strip().lower() in ("1", "true", "yes", "cross")
        else:
            q["cross"] = q["lang"] not in languages.get((q["wing"], q["file"]), set())
    return questions


def drawer_spans(drawers: list, data: dict) -> dict[str, tuple[int, int]]:
    """Each located drawer's (start, end) in its file's text, found as rooms.py finds its start."""
    from mempalace.text.names import wing_name

    folder_of = {wing_name(w): w for w in data["wings"]}
    by_file = collections.defaultdict(list)
    for d in drawers:
        by_file[(folder_of.get(d.wing, d.wing), Path(d.source_file or "").name)].append(d)
    spans = {}
    for key, group in by_file.items():
        text, cursor = data["texts"].get(key), 0
        for d in sorted(group, key=lambda d: d.chunk_index):
            start = locate(d.content, text, cursor) if text is not None else None
            if start is not None:
                cursor = start + 1
                spans[d.id] = (start, start + len(d.content))
    return spans


def is_hit(hit, q: dict, spans: dict, folder_of: dict) -> bool:
    wing = folder_of.get(hit.wing, hit.wing)
    if wing != q["wing"] or Path(hit.source_file or "").name != q["file"]:
        return False
    if q["evidence"] in hit.content:
        return True
    span = spans.get(hit.drawer_id)
    return bool(span) and span[0] < q["span"][1] and q["span"][0] < span[1]


def score(ranks: list[int | None]) -> dict:
    n = len(ranks) or 1
    return {"n": len(ranks), "r1": round(sum(r == 1 for r in ranks) / n, 3),
            "r5": round(sum(r is not None and r <= 5 for r in ranks) / n, 3),
            "mrr": round(sum(1 / r for r in ranks if r) / n, 3)}


def ask_all(palace, questions: list[dict], spans: dict, folder_of: dict) -> dict:
    """Per mode: the first hit's rank (or None) of every question, scored by group."""
    figures = {}
    for mode in MODES:
        for q in questions:
            hits = palace.search(q["question"], limit=DEPTH, mode=mode)
            q[mode] = next((h.rank for h in hits if is_hit(h, q, spans, folder_of)), None)
        groups = {"same": [q[mode] for q in questions if not q["cross"]],
                  "cross": [q[mode] for q in questions if q["cross"]], "all": [q[mode] for q in questions]}
        figures[mode] = {g: score(ranks) for g, ranks in groups.items()}
    return figures


def run(folder: Path, embedder: str, keep: Path | None) -> dict:
    os.environ["MEMPALACE_EMBEDDER"] = embedder
    from mempalace.text.names import wing_name

    data = read_set(folder)
    questions = read_questions(folder, data["texts"])
    for q in questions:
        start = data["texts"][(q["wing"], q["file"])].find(q["evidence"])
        q["span"] = (start, start + len(q["evidence"]))
    with fresh_palace(keep, f"{folder.name}-{embedder}") as (palace, _):
        timing = timed_ingest(palace, [(sorted((folder / w).glob("*.txt")), w) for w in data["wings"]])
        drawers = all_drawers(palace)
        spans = drawer_spans(drawers, data)
        figures = ask_all(palace, questions, spans, {wing_name(w): w for w in data["wings"]})
    rows, lost = drawer_starts(drawers, data)
    rooms = pair_scores(item_rooms(data["labels"], rows))
    return {"set": str(folder), "embedder": embedder, "drawers": len(drawers), "unlocated": lost,
            "ingest_s": timing["ingest_s"], "search": figures, "rooms": rooms,
            "questions": [{k: q[k] for k in ("id", "lang", "cross", *MODES)} for q in questions]}


def report(result: dict) -> None:
    print(f"== {result['set']} with {result['embedder']}: {result['drawers']} drawers"
          f" ({result['unlocated']} not located), ingest {result['ingest_s']:.1f} s")
    for mode, groups in result["search"].items():
        print(f"  {mode:8} " + "   ".join(f"{g} ({v['n']}) R@1 {v['r1']:.3f} R@5 {v['r5']:.3f} MRR {v['mrr']:.3f}"
                                          for g, v in groups.items()))
    r = result["rooms"]
    print(f"  rooms    pairwise P {r['precision']:.3f} R {r['recall']:.3f} F1 {r['f1']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=SHARED / "multilingual_dev", help="the set's folder")
    parser.add_argument("--embedder", default="minilm-int8", help="minilm-int8 (default), use-m3 or hash")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    parser.add_argument("--keep", type=Path, default=None, help="keep the palace in this folder")
    args = parser.parse_args()
    if not (args.set / "questions.tsv").is_file():
        sys.exit(f"{args.set} has no questions.tsv: pass --set PATH")
    result = run(args.set, args.embedder, args.keep)
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
