"""benchmarks/: the LoCoMo scorer's rules, a whole run on a tiny LoCoMo-shaped file, and the README."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from mempalace.formats import plain_text
from mempalace.formats.base import Source

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


locomo = _load("locomo")


def test_evidence_ids_map_to_sessions_and_malformed_ones_count_by_their_first_session():
    assert locomo.evidence_sessions(["D1:3", "D1:9", "D12:4"]) == {"session_1", "session_12"}
    assert locomo.evidence_sessions(["D8:6; D9:17"]) == {"session_8"}
    assert locomo.evidence_sessions(["D"]) == set()


def test_recall_is_the_share_of_evidence_sessions_found_and_one_without_evidence():
    assert locomo.recall({"session_1", "session_2"}, ["session_2", "session_5"]) == 0.5
    assert locomo.recall(set(), ["session_3"]) == 1.0


def test_sessions_are_taken_in_order_of_first_appearance_and_other_wings_are_misses():
    hits = [SimpleNamespace(source_file=f, wing=w) for f, w in [
        ("session_4.txt", "conv_1"), ("session_4.txt", "conv_1"), ("session_4.txt", "conv_2"),
        ("session_2.txt", "conv_1"), ("session_9.txt", "conv_1")]]
    assert locomo.sessions_of(hits, "conv_1", top=3) == ["session_4", "conv_2/session_4", "session_2"]


def test_a_session_is_written_as_a_dated_transcript_the_plain_text_parser_reads_verbatim():
    conversation = {"session_3_date_time": "1:56 pm on 8 May, 2023", "session_3": [
        {"speaker": "Ana", "dia_id": "D3:1", "text": "I took up  pottery."},
        {"speaker": "Ben", "dia_id": "D3:2", "text": "Look!", "blip_caption": "a photo of a bowl"},
    ]}
    text = locomo.session_transcript(conversation, 3)
    assert text == ("Date: 1:56 pm on 8 May, 2023\n\nAna: I took up  pottery.\n"
                    "Ben: Look! [shares a photo: a photo of a bowl]\n")
    [parsed] = plain_text.parse(Source.from_bytes(text.encode(), "session_3.txt"))
    assert [(m.speaker, m.text) for m in parsed.messages] == [
        ("", "Date: 1:56 pm on 8 May, 2023"), ("Ana", "I took up  pottery."),
        ("Ben", "Look! [shares a photo: a photo of a bowl]")]
    assert parsed.started == "2023-05-08T13:56:00Z" and parsed.speakers == ("Ana", "Ben")


def _sample(sample_id: str, topics: list[str]) -> dict:
    conversation = {"speaker_a": "Ana", "speaker_b": "Ben"}
    qa = []
    for n, topic in enumerate(topics, start=1):
        conversation[f"session_{n}_date_time"] = f"10:00 am on {n} May, 2023"
        conversation[f"session_{n}"] = [
            {"speaker": "Ana", "dia_id": f"D{n}:1", "text": f"We talked about {topic} all afternoon."},
            {"speaker": "Ben", "dia_id": f"D{n}:2", "text": f"Yes, {topic} is my favourite subject."},
        ]
        qa.append({"question": f"What did Ana say about {topic}?", "answer": topic, "evidence": [f"D{n}:1"],
                   "category": n % 5 + 1})
    qa.append({"question": "Anything at all?", "answer": "", "evidence": [], "category": 5})
    return {"sample_id": sample_id, "conversation": conversation, "qa": qa}


def test_a_whole_run_writes_results_in_the_baseline_shape_and_compares_with_them(tmp_path, monkeypatch, capsys):
    samples = [_sample("conv-26", ["zebras", "quartz", "violins"]), _sample("conv-77", ["glaciers", "saffron"])]
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps(samples), encoding="utf-8")
    baselines = tmp_path / "baselines"
    baselines.mkdir()
    theirs = [{"sample_id": s["sample_id"], "question": q["question"], "category": q["category"],
               "evidence": q["evidence"], "retrieved_ids": [], "recall": 0.0 if q["evidence"] else 1.0}
              for s in samples for q in s["qa"]]
    (baselines / "upstream.json").write_text(json.dumps(theirs), encoding="utf-8")
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["locomo.py", "--locomo", str(data), "--baselines", str(baselines),
                                      "--out", str(out), "--limit", "20"])
    locomo.main()
    printed = capsys.readouterr().out
    assert "held-out" in printed and "random 10 sessions" in printed and "we win 5, lose 0" in printed
    results = json.loads((out / "results_wing.json").read_text(encoding="utf-8"))
    assert len(results) == 7
    assert set(results[0]) >= {"sample_id", "question", "category", "evidence", "retrieved_ids", "recall"}
    assert all(r["recall"] == 1.0 for r in results), results  # each topic word is in one session only
    assert results[0]["retrieved_ids"][0] == "session_1"
    scoped = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    assert scoped["baselines"]["upstream.json"]["wins"] == 5
    assert (out / "results_no-wing-filter.json").is_file()


@pytest.mark.parametrize("script", sorted(p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_")))  # _x.py: a helper
def test_every_benchmark_is_listed_in_the_benchmarks_readme_with_its_command(script):
    readme = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    assert f"python benchmarks/{script}" in readme
