"""Halls and cues for drawers not written in English (Chinese, Japanese, Spanish, Russian, German,
French): read in their own words, and given a hall only when those words name it (precision first).
The held-out set tests/data/halls_multilingual_heldout.jsonl was written and labelled before any rule
was tuned; its floors are what was measured on it once (benchmarks/halls_multilingual.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mempalace.embedding.embedders import MiniLMInt8
from mempalace.halls.text import focus
from mempalace.halls.classifier import HallClassifier, classify_hall

DATA = Path(__file__).parent / "data"
CLEAR = [
    ("建议你每周至少备份一次照片，最好存两份在不同的地方。", "hall_advice"),
    ("Resulta que la lentitud venía de un índice que faltaba en la tabla de pedidos.", "hall_discoveries"),
    ("Мы решили перейти на новую систему учёта с первого числа.", "hall_facts"),
    ("J'adore les randonnées en montagne, c'est mon passe-temps préféré.", "hall_preferences"),
]
UNCLEAR = ["好的，我看看再说。", "Bueno, ya veremos qué pasa.", "Hmm, schwer zu sagen."]


def test_a_chinese_drawer_is_read_in_words_not_as_one_token() -> None:
    seen = focus("User: 我们决定下个季度把日志系统换成 Loki，运维组已经同意了。")
    assert seen.local and seen.says >= 10 and "决定" in seen.prose


def test_local_greetings_and_thanks_are_chatter_not_cues() -> None:
    seen = focus("Ana: ¡Muchas gracias! Hasta mañana.\nLin: 谢谢，辛苦了！")
    assert seen.local and seen.chatter >= 3 and "mañana" not in seen.prose


@pytest.mark.parametrize("text, hall", CLEAR)
def test_cues_alone_name_the_hall_in_each_language(text: str, hall: str) -> None:
    assert classify_hall(text) == hall


@pytest.mark.parametrize("text", UNCLEAR)
def test_a_local_drawer_without_a_cue_gets_no_hall_rather_than_a_fact(text: str) -> None:
    assert classify_hall(text) is None


@pytest.mark.model
def test_chinese_and_spanish_drawers_get_their_hall_and_unclear_ones_none_on_the_real_model() -> None:
    model = MiniLMInt8()
    texts = [t for t, _ in CLEAR[:2]] + UNCLEAR
    predicted = HallClassifier(model.embed, model=model.name).classify(texts, model.embed(texts))
    assert predicted == ["hall_advice", "hall_discoveries", None, None, None]


@pytest.mark.model
def test_the_held_out_set_keeps_its_measured_precision_on_the_real_model() -> None:
    """Measured once (benchmarks/halls_multilingual.py --held-out): 31 of 32 halls given right, 32 of 60
    drawers given one; the floors leave room for one more wrong hall, not for a guess on every drawer."""
    rows = [json.loads(line) for line in (DATA / "halls_multilingual_heldout.jsonl").read_text("utf-8").splitlines()]
    model = MiniLMInt8()
    texts = [r["text"] for r in rows]
    predicted = HallClassifier(model.embed, model=model.name).classify(texts, model.embed(texts))
    given = [(p, r["hall"]) for p, r in zip(predicted, rows) if p is not None]
    assert len(rows) == 60 and len(given) >= 27 and sum(p == h for p, h in given) / len(given) >= 0.93, given


def test_english_cues_never_read_a_run_of_han_or_kana(monkeypatch) -> None:
    """Their `\\w+` patterns backtrack through a long unpunctuated run (ingest of a 200k-character run
    took minutes): they see the text with such runs blanked, the local cues see it whole."""
    from mempalace.text.cjk import CJK_RUN
    from mempalace.halls import classifier as halls

    read: list[str] = []
    for cues in halls._COMPILED.values():
        for cue, _ in cues:
            monkeypatch.setattr(cue, "found", lambda text, cue=cue: read.append(text) or cue.regex.search(text) is not None)
    scores = halls.hall_scores("数据库升级之前一定要先做全量备份然后在测试环境演练" * 50 + " we decided", local=True)
    assert read and not any(CJK_RUN.search(text) for text in read)
    assert "we decided" in read[0] and sum(scores.values()) > 0
