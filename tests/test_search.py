import pytest

from mempalace.errors import InvalidInputError, PlaceNotFoundError
from mempalace.palace.search import LEXICAL_WEIGHT, MATCHED_SHARE_POWER, semantic_text
from mempalace.store.chroma import SEQ_KEY
from mempalace.catalog.sync import new_stamp


@pytest.fixture
def filled(palace):
    palace.add_drawer("We migrated auth to OAuth with PKCE last sprint", "wing_kai", "auth-migration", hall="events",
                      source_file="kai.txt")
    palace.add_drawer("Token refresh failed because the clock skew was ignored", "wing_kai", "auth-migration",
                      hall="discoveries", source_file="kai.txt")
    palace.add_drawer("GPU spot prices dropped sharply in March", "wing_priya", "gpu-pricing", hall="facts",
                      source_file="priya.txt")
    palace.add_drawer("Priya likes terse code reviews", "wing_priya", "reviews", hall="preferences")
    palace.add_drawer("The zxqv-7 error code means the vault sealed itself", "wing_driftwood", "vault",
                      hall="discoveries")
    return palace


def test_hits_carry_text_place_and_score_parts(filled):
    hits = filled.search("auth oauth pkce migrated")
    top = hits[0]
    assert top.content == "We migrated auth to OAuth with PKCE last sprint"
    assert (top.rank, top.wing, top.room, top.hall, top.source_file) == (1, "wing_kai", "auth-migration",
                                                                          "hall_events", "kai.txt")
    assert top.score == pytest.approx(top.semantic + top.lexical, abs=1e-5)
    assert top.semantic == pytest.approx((1 - LEXICAL_WEIGHT) * top.similarity, abs=1e-5)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))


def test_keyword_only_match_is_found_by_hybrid(filled):
    hits = filled.search("zxqv", limit=1)
    assert hits[0].room == "vault" and hits[0].lexical > 0


def test_vector_mode_has_no_lexical_part(filled):
    hits = filled.search("GPU spot prices", mode="vector")
    assert hits[0].room == "gpu-pricing"
    assert all(h.lexical == 0 and h.score == pytest.approx(h.similarity, abs=1e-5) for h in hits)


def test_filters_combine_with_and(filled):
    assert {h.wing for h in filled.search("auth", wing="Wing Kai")} == {"wing_kai"}
    hits = filled.search("auth", wing="wing_kai", hall="discoveries")
    assert [h.content for h in hits] == ["Token refresh failed because the clock skew was ignored"]
    assert filled.search("auth", wing="wing_priya", room="auth-migration") == []
    assert {h.source_file for h in filled.search("prices", source_file="priya.txt")} == {"priya.txt"}
    assert {h.room for h in filled.search("anything", room="Auth Migration")} == {"auth-migration"}


def test_limit_caps_results(filled):
    assert len(filled.search("the", limit=2)) == 2
    assert len(filled.search("the", limit=100)) == 5


def test_results_follow_writes_immediately(filled):
    drawer_id = filled.search("zxqv")[0].drawer_id
    filled.update_drawer(drawer_id, wing="wing_kai")
    assert filled.search("zxqv", wing="wing_kai")[0].drawer_id == drawer_id
    with pytest.raises(PlaceNotFoundError, match="No wing 'wing_driftwood'"):  # its only drawer left it
        filled.search("zxqv", wing="wing_driftwood")
    filled.delete_drawer(drawer_id)
    assert all(h.drawer_id != drawer_id for h in filled.search("zxqv"))


def test_empty_palace_returns_nothing(palace):
    assert palace.search("anything") == []
    with pytest.raises(PlaceNotFoundError, match="No wing 'wing_a' in this palace.$"):
        palace.search("anything", wing="wing_a")


def test_a_mistyped_filter_is_an_error_naming_the_nearest_places(filled):
    with pytest.raises(PlaceNotFoundError, match="No wing 'wing_kia' in this palace. Did you mean wing_kai?"):
        filled.search("zxqv", wing="wing_kia")
    with pytest.raises(PlaceNotFoundError, match="No room 'auth migrashun' in this palace. Did you mean auth-migration"):
        filled.search("zxqv", room="auth migrashun")
    with pytest.raises(PlaceNotFoundError, match="No source file"):
        filled.search("zxqv", source_file="/nowhere/chat.txt")
    with pytest.raises(PlaceNotFoundError, match="Did you mean wing_kai"):
        filled.list_rooms("wing_kia")
    assert filled.search("zxqv", wing="kai") == filled.search("zxqv", wing="wing_kai")  # the prefix folds


@pytest.mark.parametrize("kwargs", [
    {"query": ""}, {"query": "   "}, {"query": "x" * 10_000}, {"query": 5},
    {"query": "ok", "limit": 0}, {"query": "ok", "limit": 10**9}, {"query": "ok", "limit": True},
    {"query": "ok", "mode": "fuzzy"}, {"query": "ok", "hall": "hall_rumours"}, {"query": "ok", "wing": "!!"},
])
def test_bad_queries_get_clear_errors(filled, kwargs):
    with pytest.raises(InvalidInputError):
        filled.search(**kwargs)
    assert filled.count() == 5


def test_query_punctuation_cannot_break_the_keyword_index(filled):
    for query in ['"unbalanced', "AND OR NOT", "col:umn*", "(((", "NEAR(a b)", "-vault"]:
        filled.search(query)


@pytest.mark.parametrize(("query", "embedded"), [
    ("What does Melanie do to destress?", "Melanie to destress"),
    ("How do I reset the Postgres password?", "I reset the Postgres password"),
    ("who's on call this week", "on call this week"),
    ("When WAS the outage?", "the outage"),
])
def test_question_framing_is_not_embedded(query, embedded):
    assert semantic_text(query) == embedded


@pytest.mark.parametrize("query", [
    "KeyError in foo.bar() after the upgrade",  # no framing: left exactly as typed
    "whatever happened to the dosage schedule",  # framing words inside other words stay
    "is-a versus has-a relation",
    "what?", "Who is", "?",  # nothing but framing: the query itself is embedded
])
def test_queries_without_framing_or_with_nothing_else_are_unchanged(query):
    assert semantic_text(query) == query


def test_the_embedding_gets_the_query_without_framing_and_keyword_search_gets_it_whole(filled, monkeypatch):
    embedded, searched = [], []
    embed, lexical = filled._embed, filled._catalog.lexical
    monkeypatch.setattr(filled, "_embed", lambda texts: embedded.extend(texts) or embed(texts))
    monkeypatch.setattr(filled._catalog, "lexical", lambda query, *a: searched.append(query) or lexical(query, *a))
    hits = filled.search("What was the zxqv-7 error code?", limit=1)
    assert embedded == ["the zxqv-7 error code"] and searched == ["What was the zxqv-7 error code?"]
    assert hits[0].room == "vault" and hits[0].lexical > 0


@pytest.mark.parametrize(("query", "common", "embedded"), [
    ("What is Caroline's identity?", {"caroline"}, "identity"),
    ("Where has Melanie camped with Caroline?", {"caroline", "melanie"}, "has camped with"),
    ("What does Melanie do to destress?", {"caroline"}, "Melanie to destress"),  # not common: kept
    ("caroline-style notes", {"caroline"}, "caroline-style notes"),  # only whole words go
    ("What did Caroline's mentor say?", {"mentor"}, "Caroline's say"),
    ("Caroline?", {"caroline"}, "Caroline"),  # nothing else left: the query without its framing
])
def test_words_common_in_the_searched_drawers_are_not_embedded(query, common, embedded):
    assert semantic_text(query, frozenset(common)) == embedded


@pytest.fixture
def kai_wing(palace):
    """25 drawers in wing_kai that all mention Kai, and 25 elsewhere that do not."""
    tags = [f"tag{n}a tag{n}b tag{n}c tag{n}d" for n in range(25)]  # keeps the hash embedder from seeing duplicates
    for n in range(25):
        palace.add_drawer(f"Kai noted {tags[n]}: the build took {n + 3} minutes", "wing_kai", "builds")
        palace.add_drawer(f"Priya logged invoice {tags[n]} for {n * 7} dollars", "wing_priya", "invoices")
    assert palace.count() == 50
    return palace


def test_common_words_are_counted_within_the_filters(kai_wing):
    catalog = kai_wing._catalog
    words = ["Kai", "build", "the", "invoice", "zebra"]
    assert catalog.common_words(words, {"wing": "wing_kai"}, 0.5, 20) == {"kai", "build"}
    assert catalog.common_words(words, {"wing": "wing_priya"}, 0.5, 20) == {"invoice"}
    assert catalog.common_words(words, {}, 0.5, 20) == frozenset()  # half of the palace is not more than half
    assert catalog.common_words(words, {"wing": "wing_kai"}, 0.5, 26) == frozenset()  # too few drawers to tell


def test_the_embedding_leaves_out_words_common_in_the_searched_wing(kai_wing, monkeypatch):
    embedded, searched = [], []
    embed, lexical = kai_wing._embed, kai_wing._catalog.lexical
    monkeypatch.setattr(kai_wing, "_embed", lambda texts: embedded.extend(texts) or embed(texts))
    monkeypatch.setattr(kai_wing._catalog, "lexical", lambda query, *a: searched.append(query) or lexical(query, *a))
    kai_wing.search("How long did Kai's build 7 take?", wing="wing_kai", limit=1)
    kai_wing.search("How long did Kai's build 7 take?", limit=1)  # in the whole palace Kai is not common
    assert embedded == ["long 7 take", "long Kai's build 7 take"]
    assert searched == ["How long did Kai's build 7 take?"] * 2
    for n in range(30):  # the wing changes: Kai is no longer in most of its drawers
        kai_wing.add_drawer(f"Priya reviewed invoice tag{n}x tag{n}y tag{n}z", "wing_kai", "builds")
    embedded.clear()
    kai_wing.search("How long did Kai's build 7 take?", wing="wing_kai", limit=1)
    assert embedded == ["long Kai's build 7 take"]


@pytest.mark.parametrize("scan_max", [50_000, 0], ids=["scanned-from-the-catalog", "filtered-by-chroma"])
def test_hall_none_searches_only_the_drawers_in_no_hall(filled, monkeypatch, scan_max):
    import mempalace.palace.search as search

    monkeypatch.setattr(search, "VECTOR_SCAN_MAX", scan_max)
    monkeypatch.setattr(search, "OVERFETCH_MAX", 0)  # Chroma's own filter, not an overfetch, when not scanned
    filled.add_drawer("Vault sealing notes with no kind yet", "wing_driftwood", "vault")
    text = "More vault notes, filed by another tool in its own hall"
    filled._store.add(["other-tool"], [text], [{"wing": "wing_driftwood", "room": "vault", "hall": "hall_custom",
                                                 SEQ_KEY: new_stamp()}], filled.embed([text]))
    filled._store.bump_marker()
    for mode in ("hybrid", "semantic"):
        hits = filled.search("vault sealed notes", hall="none", mode=mode)
        assert [h.content for h in hits] == ["Vault sealing notes with no kind yet"], mode
    assert "hall_custom" in {h.hall for h in filled.search("vault sealed notes")}
    assert len(filled.search("vault", hall="")) == len(filled.search("vault"))  # "" is any hall, as before


def test_hall_filter_names_any_none_or_one_of_the_five():
    from mempalace.text.names import hall_filter

    assert (hall_filter(None), hall_filter(""), hall_filter("none"), hall_filter(" None ")) == (None, None, "", "")
    assert hall_filter("facts") == hall_filter("hall_facts") == "hall_facts"
    with pytest.raises(InvalidInputError, match="Unknown hall"):
        hall_filter("nonsense")


def test_a_keyword_match_counts_by_the_share_of_the_query_it_holds(palace, monkeypatch):
    """A question in one language, its answer in another: keyword search finds only a drawer sharing
    one word of the question, which must not outrank the answer that is near in meaning."""
    import numpy as np

    concepts = {"greyhound": 0, "灰狗": 0, "冬天": 1, "taxes": 2, "个税": 2}

    def embed(texts):  # a fake embedder that knows the concepts in both languages
        out = np.full((len(texts), 384), 0.01, dtype=np.float32)
        for row, text in enumerate(texts):
            for word, axis in concepts.items():
                out[row, axis] += text.count(word)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    monkeypatch.setattr(palace, "_embed", embed)
    palace.add_drawer("Our greyhound shivers when it snows, so she wears a fleece coat", "wing_home", "dogs")
    palace.add_drawer("冬天的个税要在三月前申报", "wing_home", "taxes")
    assert palace._searcher.share_power == 0.0  # the fake embedder, like MiniLM, is English-only
    assert palace.search("灰狗冬天怕冷吗", limit=2)[0].lexical == LEXICAL_WEIGHT  # its only way across scripts
    palace._searcher.share_power = MATCHED_SHARE_POWER  # as with an embedder that crosses languages
    hits = palace.search("灰狗冬天怕冷吗", limit=2)
    assert [h.room for h in hits] == ["dogs", "taxes"]
    assert hits[1].lexical < LEXICAL_WEIGHT / 2  # one pair of several in common


def test_only_an_embedder_that_crosses_languages_discounts_partial_keyword_matches() -> None:
    from mempalace.embedding.embedders import crosses_languages

    assert crosses_languages("use-m3") and not crosses_languages("minilm-int8") and not crosses_languages("hash")
