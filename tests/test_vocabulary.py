"""Word counts from the keyword index: exact stems, names, filters, wings."""

import pytest

from mempalace.catalog.shared_file import SCHEMA as _SCHEMA
from mempalace.errors import InvalidInputError
from mempalace.text.names import wing_name
from mempalace.catalog.vocabulary import MAX_QUERY_WORDS, TOKENIZER, content_words


def tags(key: str, n: int) -> str:
    """Words unique to one drawer, so the hash embedder never sees near-duplicates."""
    return " ".join(f"{key}{n}x{i}" for i in range(6))


@pytest.fixture
def names(palace):
    """Wings of 25 drawers, each naming its owner in every drawer, the others in none."""
    for owner in ("Emily", "José", "Kai"):
        for n in range(25):
            palace.add_drawer(f"{owner} said the kiln run {n} went fine: {tags(owner, n)}", wing_name(owner), "kiln")
    palace.add_drawer("The therapy session moved to Tuesday.", "wing_other", "therapy")
    assert palace.count() == 76
    return palace


def test_the_stemmer_uses_the_index_tokenizer():
    assert f"tokenize='{TOKENIZER}'" in _SCHEMA


def test_counts_are_exact_for_words_whose_stem_is_not_a_prefix(names):
    counts = names._catalog.documents(["therapy", "theory", "emily", "josé", "jose", "kiln", "kai", "zebra"])
    assert counts == {"therapy": 1, "theory": 0, "emily": 25, "josé": 25, "jose": 25, "kiln": 75, "kai": 25,
                      "zebra": 0}


def test_each_owner_is_common_in_their_own_wing(names):
    catalog = names._catalog
    for owner in ("Emily", "José", "Kai"):
        found = catalog.common_words(content_words([owner, "kiln", "therapy"]), {"wing": wing_name(owner)}, 0.5, 20)
        assert found == {owner.lower(), "kiln"}
    assert catalog.common_words(["therapy", "theory", "emily"], {}, 0.5, 20) == frozenset()


def test_words_past_the_cap_are_searched_but_never_judged(names, monkeypatch):
    embedded = []
    embed = names._embed
    monkeypatch.setattr(names, "_embed", lambda texts: embedded.extend(texts) or embed(texts))
    filler = " ".join(f"word{i}" for i in range(MAX_QUERY_WORDS))
    names.search(f"{filler} Emily", wing="Emily", limit=1)
    assert embedded[-1].endswith("Emily")  # beyond the cap: kept, not judged
    names.search("How did Emily's kiln firing go?", wing="Emily", limit=1)
    assert embedded[-1] == "firing go"  # and the cap left no wrong verdict behind


def test_words_left_uncounted_get_no_verdict_to_remember(palace, monkeypatch):
    shared = "alpha bravo charlie delta echo foxtrot golf hotel india juliet"
    for n in range(25):
        palace.add_drawer(f"Emily: {shared} kiln {tags('e', n)} {tags('f', n)} {tags('g', n)}", "wing_emily", "r")
        palace.add_drawer(f"Other: {shared} kiln {tags('o', n)} {tags('p', n)} {tags('q', n)}", "wing_other", "r")
    assert palace.count() == 50
    embedded = []
    embed = palace._embed
    monkeypatch.setattr(palace, "_embed", lambda texts: embedded.extend(texts) or embed(texts))
    palace.search(f"{shared} Emily", wing="wing_emily", limit=1)  # more common words than are counted per call
    palace.search("Emily kiln zebra", wing="wing_emily", limit=1)
    assert embedded[-1] == "zebra"


def test_a_split_word_is_counted_as_a_phrase(names):
    names.add_drawer("The team did the work on their own.", "wing_other", "r")
    assert names._catalog.documents(["team_work", "kiln_run"]) == {"team_work": 0, "kiln_run": 75}


def test_widespread_words_ignore_non_text_and_check_the_share(names):
    assert names.widespread_words(["kiln", 3, None]) == {"kiln"}
    with pytest.raises(InvalidInputError):
        names.widespread_words(["kiln"], share=1.5)


def test_widespread_verdicts_last_until_the_palace_grows_by_a_tenth(names, monkeypatch):
    calls = []
    count = names._catalog.widespread_verdicts
    monkeypatch.setattr(names._catalog, "widespread_verdicts", lambda words, *a: calls.append(list(words)) or count(words, *a))
    assert names.widespread_words(["kiln"]) == {"kiln"}
    names.add_drawer("A lone note about glazes and nothing else.", "wing_other", "notes")  # 77 drawers: same verdicts
    assert names.widespread_words(["kiln", "said"]) == {"kiln", "said"} and calls == [["kiln"], ["said"]]
    for n in range(8):
        names.add_drawer(f"Another note {tags('z', n)}", "wing_other", "notes")  # now over a tenth more
    names.widespread_words(["kiln"])
    assert calls[-1] == ["kiln"]
