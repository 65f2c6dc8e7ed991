import random
import re

import pytest

from mempalace.text.chunking import split_verbatim

SAMPLE = (
    "First paragraph about the auth migration.\n\n"
    "    def login(user):\n        return token  # indented code\n\n\n"
    "Third paragraph — with unicode ✓ and a long sentence that keeps going. Another sentence here!\n"
    "A line\r\nwith CRLF\r\n\ttabbed line\n" * 6
)


@pytest.mark.parametrize("size", [40, 80, 200, 1000])
def test_pieces_join_back_to_the_exact_text(size):
    pieces = split_verbatim(SAMPLE, size)
    assert "".join(pieces) == SAMPLE
    assert all(p.strip() for p in pieces)


def test_short_text_is_one_piece():
    assert split_verbatim("hello  \n", 100) == ["hello  \n"]


@pytest.mark.parametrize("seed", range(5))
def test_never_cuts_inside_a_word(seed):
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefgh") for _ in range(rng.randint(1, 12))) for _ in range(800)]
    text = "".join(w + rng.choice([" ", " ", "\n", ". ", "\n\n"]) for w in words)
    pieces = split_verbatim(text, 150)
    assert "".join(pieces) == text
    for left, right in zip(pieces, pieces[1:]):
        assert not (re.search(r"\w\Z", left) and re.match(r"\w", right)), (left[-20:], right[:20])
    assert max(len(p) for p in pieces) <= 150


def test_prefers_paragraph_boundaries():
    text = ("alpha " * 20 + "\n\n") * 4
    pieces = split_verbatim(text, 300)
    assert all(p.endswith("\n\n") for p in pieces[:-1])


def test_an_overlong_word_is_kept_whole():
    blob = "x" * 500
    pieces = split_verbatim(f"start {blob} end", 100)
    assert "".join(pieces) == f"start {blob} end"
    assert any(blob in p for p in pieces)


def test_long_leading_whitespace_never_makes_an_empty_piece():
    text = " " * 300 + "first words here. " * 20 + "\n" * 250 + "last words"
    pieces = split_verbatim(text, 100)
    assert "".join(pieces) == text
    assert all(p.strip() for p in pieces)



def test_a_piece_never_ends_with_the_fence_that_opens_the_next_pieces_code():
    prose = "".join(f"line {i} of the explanation before the code\n" for i in range(18))  # 764 characters
    code = "".join(f"    value_{i} = compute({i})  # a line of the code block\n" for i in range(30))
    text = prose + "```python\n" + code + "```\nAfter the code.\n"
    pieces = split_verbatim(text, 800)
    assert "".join(pieces) == text
    assert not pieces[0].rstrip("\n").endswith("```python")
    assert pieces[1].startswith("```python\n    value_0")


def _fenced_text(rng: random.Random) -> tuple[str, set[int]]:
    """Prose and fenced code blocks (some after blank lines, the last maybe unclosed), and where each opening fence line starts."""
    parts, openings, length = [], set(), 0
    for _ in range(60):
        if rng.random() < 0.3:
            openings.add(length)
            fence = rng.choice(["```", "~~~", "````"])
            block = fence + rng.choice(["python", "", " js"]) + "\n" + "\n" * rng.randint(0, 2)
            block += "".join(f"  code({i}) + more\n" for i in range(rng.randint(0, 6))) + fence + "\n"
        else:
            block = " ".join("word" * rng.randint(1, 3) for _ in range(rng.randint(1, 12))) + "\n" * rng.randint(1, 2)
        parts.append(block)
        length += len(block)
    return "".join(parts), openings


@pytest.mark.parametrize("seed", range(8))
def test_no_piece_ends_on_an_opening_fence_and_pieces_still_join_back(seed):
    rng = random.Random(seed)
    text, openings = _fenced_text(rng)
    if rng.random() < 0.5:
        openings.add(len(text))
        text += "```python\n" + "unclosed(code)\n" * 20
    pieces = split_verbatim(text, rng.choice([60, 120, 250]))
    assert "".join(pieces) == text
    cut = 0
    for piece in pieces[:-1]:
        cut += len(piece)
        last_line = text[:cut].rstrip("\n")
        assert last_line.rfind("\n") + 1 not in openings, piece[-60:]
