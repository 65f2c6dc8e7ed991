"""Keyword search and its highlights in Chinese, Japanese and mixed text: a word found inside a run
of characters written without spaces."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from _apptest import closed_cards, start
from dashboard.render import highlight, query_terms
from mempalace import Palace
from mempalace.catalog.catalog import CATALOG_FILE, Catalog, Row
from mempalace.text.cjk import CJK_CLASS, index_text, index_words
from mempalace.catalog.vocabulary import TOKENIZER

GREYHOUND = "我们领养了一只灰狗，它很怕冷"
SHIBA = "私たちは先月柴犬を飼い始めました。"
MIGRATION = "下个月要把数仓从CDH迁移到MaxCompute，双跑两周"


@pytest.fixture
def cjk(palace):
    for text, room in [(GREYHOUND, "pets"), ("我们家的猫不喜欢洗澡", "pets"), (SHIBA, "inu"),
                       (MIGRATION, "migration"), ("MaxCompute 的账单比预期高", "billing"),
                       ("The greyhound migration of the old cluster", "english")]:
        palace.add_drawer(text, "wing_lin", room)
    return palace


def keyword(palace: Palace, query: str) -> list[str]:
    """The contents keyword search alone finds for `query`, best first."""
    rows = palace._catalog.rows([i for i, _ in palace._catalog.lexical(query, {}, 10)])
    return [rows[i].content for i, _ in palace._catalog.lexical(query, {}, 10)]


def test_a_chinese_word_inside_a_longer_run_is_found_by_keyword(cjk):
    assert keyword(cjk, "灰狗") == [GREYHOUND]
    assert keyword(cjk, "领养灰狗")[0] == GREYHOUND  # both words, though not side by side
    assert keyword(cjk, "狗") == [GREYHOUND]  # a single character, even at the end of its run


def test_a_japanese_word_inside_a_run_is_found_by_keyword(cjk):
    assert keyword(cjk, "柴犬") == [SHIBA]
    assert keyword(cjk, "柴犬を飼う")[0] == SHIBA


def test_a_mixed_query_finds_the_drawer_with_both_words_first(cjk):
    found = keyword(cjk, "MaxCompute 迁移")
    assert found[0] == MIGRATION and "MaxCompute 的账单比预期高" in found
    assert keyword(cjk, "CDH") == [MIGRATION]  # a Latin word written against Chinese characters


def test_a_korean_word_with_its_particle_attached_is_found(palace):
    palace.add_drawer("내일회의를 준비했다", "wing_lin", "work")
    assert keyword(palace, "회의") == ["내일회의를 준비했다"]


def test_a_bulk_load_indexes_cjk_text_as_row_by_row_writes_do(tmp_path: Path) -> None:
    """A first open's bulk load, and its whole rebuild when a row repeats across pages."""
    made = [Row(f"d{i}", text, "wing_lin", "pets", "", "f.txt", i, "p", "2026-01-01", i, None)
            for i, text in enumerate([GREYHOUND, SHIBA, "English only"])]
    for pages in ([made], [made[:2], made[1:]]):
        catalog = Catalog(tmp_path / f"c{len(pages)}.sqlite3")
        catalog.load(pages)
        assert sorted(i for i, _ in catalog.lexical("灰狗 柴犬", {}, 5)) == ["d0", "d1"]
        catalog.close()


def test_english_keyword_search_still_stems(cjk):
    assert keyword(cjk, "migrations greyhounds") == ["The greyhound migration of the old cluster"]


def test_hybrid_search_scores_the_chinese_keyword_match(cjk):
    hits = cjk.search("灰狗", limit=3)
    assert hits[0].content == GREYHOUND and hits[0].lexical > 0


def test_word_counts_read_chinese_words_as_the_index_does(cjk):
    counts = cjk._catalog.documents(["灰狗", "狗", "我们", "一只灰狗", "猫", "柴犬"])
    assert counts == {"灰狗": 1, "狗": 1, "我们": 2, "一只灰狗": 1, "猫": 1, "柴犬": 1}


def test_a_catalog_of_the_older_schema_is_rebuilt_on_open(palace_path: Path, settings) -> None:
    with Palace.open(palace_path, settings=settings) as palace:
        palace.add_drawer(GREYHOUND, "wing_lin", "pets")
    db = sqlite3.connect(palace_path / CATALOG_FILE)  # as the previous schema left it: whole runs indexed
    db.executescript("UPDATE state SET value = '6' WHERE key = 'schema';"
                     "INSERT INTO drawers_fts(drawers_fts) VALUES ('delete-all');"
                     "INSERT INTO drawers_fts(rowid, content, place) SELECT rowid, content, place FROM drawers;"
                     "UPDATE drawers SET terms = NULL;")
    db.close()
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.count() == 1  # a read: the catalog is made afresh from Chroma
        assert keyword(palace, "灰狗") == [GREYHOUND]


def test_the_dashboard_highlights_chinese_and_japanese_words_inside_runs():
    shown = highlight(GREYHOUND, query_terms("领养 灰狗"))
    assert shown == "我们<mark>领养</mark>了一只<mark>灰狗</mark>，它很怕冷"
    assert highlight(SHIBA, query_terms("柴犬")) == "私たちは先月<mark>柴犬</mark>を飼い始めました。"
    assert highlight("把数仓从CDH迁移到MaxCompute", query_terms("maxcompute 迁移")) == \
        "把数仓从CDH<mark>迁移</mark>到<mark>MaxCompute</mark>"
    english = highlight("We migrated <b>it</b>", query_terms("migrate"))
    assert english == "We <mark>migrated</mark> &lt;b&gt;it&lt;/b&gt;"


def test_the_search_page_lists_a_chinese_match_with_its_word_marked(settings):
    with Palace.open(settings=settings) as palace:
        for text in (GREYHOUND, "我们家的猫不喜欢洗澡", "The greyhound sleeps all day"):
            palace.add_drawer(text, "wing_lin", "pets")
    at = start(q="灰狗")
    at.switch_page("app_pages/search.py").run()
    assert not at.exception, at.exception
    cards = closed_cards(at.main, "hit")
    assert cards and "我们领养了一只<mark>灰狗</mark>，它很怕冷" in cards[0]
    assert at.caption[0].value.startswith("1 close match")


def test_the_index_text_keeps_every_cjk_character_a_token_character():
    """Each character the CJK runs take must be one the tokenizer keeps inside a token, else a pair
    would be split again."""
    db = sqlite3.connect(":memory:")
    db.executescript(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZER}');"
                     "CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');")
    chars = [chr(c) for lo, hi in _ranges(CJK_CLASS) for c in range(lo, hi + 1, max(1, (hi - lo) // 300))]
    db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", [(i, f"a{c}a") for i, c in enumerate(chars, 1)])
    split = [chars[doc - 1] for doc, n in db.execute("SELECT doc, count(*) FROM v GROUP BY doc") if n != 1]
    assert split == [] and len(chars) > 1000
    assert index_text("no CJK here") == "" and index_words("灰狗 dogs") == ["灰狗", "dogs"]


def _ranges(cls: str) -> list[tuple[int, int]]:
    found, i = [], 0
    while i < len(cls):
        if i + 2 < len(cls) and cls[i + 1] == "-":
            found.append((ord(cls[i]), ord(cls[i + 2])))
            i += 3
        else:
            found.append((ord(cls[i]), ord(cls[i])))
            i += 1
    return found
