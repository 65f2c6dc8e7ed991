"""Search on a multilingual question set: keyword-only and hybrid hit@1, R@5 and MRR.

    python benchmarks/multilingual_search.py                       # ../shared/data/multilingual_dev
    python benchmarks/multilingual_search.py --set benchmarks/data/multilingual_blind --json out.json
    python benchmarks/multilingual_search.py --segmenter jieba     # CJK indexed as rjieba's words instead

Each set (wing folders, `questions.tsv`: id, lang, question, wing, file, evidence) is ingested into
a new palace with the default model, one wing per folder. A hit is right when it comes from the
question's wing and file and its text holds the evidence or overlaps its place in the file.
Keyword-only ranks by the catalog's BM25 alone; hybrid is `Palace.search`. Scores are given for
questions asked in a language of the answer (same) and in another (cross). `--segmenter jieba`
(needs `rjieba` importable) indexes and looks up CJK text as a dictionary segmenter's words, for
comparison with the character pairs the catalog uses.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from rooms import fresh_palace

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "multilingual_dev"
TOP = 10


def use_jieba() -> None:
    """Index and query CJK runs as rjieba's words (a comparison, not what the catalog does)."""
    import rjieba

    from mempalace.catalog import catalog, keyword_search as lexical, vocabulary
    from mempalace.text import cjk

    def words_of(run: str) -> list[str]:
        return [w for w in rjieba.cut(run) if w.strip()]

    def index_text(text: str) -> str:
        found = cjk.CJK_RUN.search(text)
        return cjk.CJK_RUN.sub(lambda m: " " + " ".join(words_of(m.group(0))) + " ", text) if found else ""

    def index_words(text: str) -> list[str]:
        return [w for word in cjk.WORD.findall(text) for w in (words_of(word) if cjk.is_cjk(word) else [word])]

    def match_of(word: str) -> str:
        return '"' + (" ".join(words_of(word)) if cjk.is_cjk(word) else word).replace('"', '""') + '"'

    def query_form(word: str) -> str:
        return " ".join(words_of(word)) if cjk.is_cjk(word) else word

    catalog.index_text = index_text
    vocabulary.index_words, vocabulary.match_of, vocabulary.query_form = index_words, match_of, query_form
    vocabulary.single_cjk = lambda word: False
    lexical.match_of = match_of


def read_questions(folder: Path) -> list[dict]:
    with (folder / "questions.tsv").open(encoding="utf-8") as handle:
        head, *rows = [line.rstrip("\n").split("\t") for line in handle if line.strip()]
    return [dict(zip(head, row)) for row in rows]


def right(hit, question: dict, texts: dict[tuple[str, str], str]) -> bool:
    """Whether a hit (wing, source_file, content) answers the question."""
    wing = hit.wing if hit.wing.startswith("wing_") else f"wing_{hit.wing}"
    if wing != question["wing"] or Path(hit.source_file or "").name != question["file"]:
        return False
    if question["evidence"] in hit.content:
        return True
    text = texts[(question["wing"], question["file"])]
    start, found = text.find(question["evidence"]), text.find(hit.content)
    return found >= 0 and start < found + len(hit.content) and found < start + len(question["evidence"])


def scores(ranks: list[int | None]) -> dict:
    n = len(ranks) or 1
    return {"n": len(ranks), "hit@1": round(sum(r == 1 for r in ranks) / n, 3),
            "R@5": round(sum(r is not None and r <= 5 for r in ranks) / n, 3),
            "MRR": round(sum(1 / r for r in ranks if r) / n, 3)}


def run(folder: Path) -> dict:
    from mempalace.ingest.pipeline import ingest_paths

    questions = read_questions(folder)
    wings = sorted(p for p in folder.iterdir() if p.is_dir() and p.name.startswith("wing_"))
    texts = {(w.name, f.name): f.read_text(encoding="utf-8") for w in wings for f in w.glob("*.txt")}
    ranked: dict[str, dict[str, list]] = {"keyword": {"same": [], "cross": []}, "hybrid": {"same": [], "cross": []}}
    each: dict[str, dict[str, int | None]] = {"keyword": {}, "hybrid": {}}
    with fresh_palace(None, folder.name) as (palace, _):
        for wing in wings:
            ingest_paths(palace, sorted(wing.glob("*.txt")), wing=wing.name)
        palace.count()
        for q in questions:
            kind = "cross" if _cross(q) else "same"
            rows = palace._catalog.rows([i for i, _ in palace._catalog.lexical(q["question"], {}, TOP)])
            keyword = [rows[i] for i, _ in palace._catalog.lexical(q["question"], {}, TOP) if i in rows]
            hybrid = palace.search(q["question"], limit=TOP)
            for mode, hits in (("keyword", keyword), ("hybrid", hybrid)):
                rank = next((n for n, h in enumerate(hits, 1) if right(h, q, texts)), None)
                ranked[mode][kind].append(rank)
                each[mode][q["id"]] = rank
    found: dict = {mode: {kind: scores(r) for kind, r in (("all", by["same"] + by["cross"]), *by.items())}
                   for mode, by in ranked.items()}
    return found | {"ranks": each}


def _cross(question: dict) -> bool:
    """Whether the question is asked in another script than its evidence is written in (CJK, Cyrillic,
    Latin): the set's cross-language questions."""
    return _script(question["question"]) != _script(question["evidence"])


def _script(text: str) -> str:
    if re.search("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", text):
        return "cjk"
    return "cyrillic" if re.search("[\u0400-\u04ff]", text) else "latin"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", action="append", type=Path, help=f"a question set folder (default {DEV})")
    parser.add_argument("--segmenter", choices=("pairs", "jieba"), default="pairs")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.segmenter == "jieba":
        use_jieba()
    found = {}
    for folder in args.set or [DEV]:
        start = time.perf_counter()
        found[folder.name] = run(folder)
        print(f"{folder.name} ({args.segmenter}, {time.perf_counter() - start:.0f} s)")
        for mode, by in ((m, b) for m, b in found[folder.name].items() if m != "ranks"):
            print(f"  {mode:8}" + "  ".join(f"{k} n={v['n']} hit@1 {v['hit@1']:.3f} R@5 {v['R@5']:.3f} "
                                             f"MRR {v['MRR']:.3f}" for k, v in by.items()))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1), encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
