"""The Search page's Source file filter in a palace of very many source files: the largest are listed,
any other is typed, and one chosen by a link stays listed."""

from __future__ import annotations

import pytest

from mempalace import Palace
from test_app import open_page


@pytest.fixture
def sources(settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three source files of 3, 2 and 1 drawers, and a list cut at the two largest."""
    monkeypatch.setattr("dashboard.search_form.SOURCE_CHOICES", 2)
    with Palace.open(settings=settings) as palace:
        for source, count in (("big.jsonl", 3), ("mid.jsonl", 2), ("small.jsonl", 1)):
            for n in range(count):
                palace.add_drawer(f"{source} holds tide note number {n} about harbour {source[:3]} {n * 7}.",
                                  "wing_kai", "tides", source_file=source)


def test_only_the_largest_sources_are_listed_and_another_is_typed(sources) -> None:
    at = open_page("search", q="tide note")
    box = at.main.selectbox(key="search_source")
    assert box.options == ["(any)", "big.jsonl", "mid.jsonl"] and "2 largest of 3" in box.help
    assert box.proto.accept_new_options  # another file's name can be typed


def test_a_linked_source_outside_the_list_is_offered_and_kept(sources) -> None:
    at = open_page("search", q="tide note", source="small.jsonl")
    box = at.main.selectbox(key="search_source")
    assert box.value == "small.jsonl" and box.options[-1] == "small.jsonl"
    assert not at.main.warning
