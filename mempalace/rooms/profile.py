"""What room choice knows of one room: its drawers' meaning and words, the wings it spans and what its
conversations say (for naming it)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..language.scripts import script_shares
from .model_names import SAMPLE_CHARS, SAMPLE_LINES
from .naming import PhraseTally
from .part_phrases import read_part


Texts = Sequence[str] | Callable[[], Sequence[str]]  # a conversation's texts, or what reads them when needed


class TextsOnce:
    """Texts, or what reads them, read at most once (called when they are needed)."""

    __slots__ = ("_texts",)

    def __init__(self, texts: Texts):
        self._texts = texts if callable(texts) else list(texts)

    def __call__(self) -> list[str]:
        if callable(self._texts):
            self._texts = list(self._texts())
        return self._texts


class Signed:
    """The word signatures of texts read at most once (computed when a room's words are needed)."""

    __slots__ = ("_sign", "_texts")

    def __init__(self, sign: Callable[[list[str]], list[Counter[str]]], texts: TextsOnce):
        self._sign, self._texts = sign, texts

    def __call__(self) -> list[Counter[str]]:
        return self._sign(self._texts())


@dataclass
class RoomProfile:
    """What a room holds: the sum of its drawers' centred unit vectors and of their word signatures
    (stored texts are read for words only when the room is among a part's nearest: most never are)."""

    meaning: np.ndarray
    counted: Counter[str] = field(default_factory=Counter)
    wings: Counter[str] = field(default_factory=Counter)  # drawers per wing
    unread: list[Callable[[], list[Counter[str]]]] = field(default_factory=list)  # stored texts' words, per conversation
    raw: np.ndarray | None = None  # the sum of its drawers' unit vectors, as embedded
    said: PhraseTally = field(default_factory=PhraseTally)  # what its conversations say, for naming it
    unnamed: list[tuple[str, Callable[[], list[str]]]] = field(default_factory=list)  # stored (wing, texts) not named from
    named_at: int = 0  # how many parts it held when its name was chosen

    lines: list[str] = field(default_factory=list)  # the first drawer of its first parts filed here (for a model)
    norm: float | None = None  # of `words`, kept until they change
    scripts: dict[str, float] = field(default_factory=dict)  # `words`' share per script, kept with `norm`

    def add(self, meaning: np.ndarray, words: Counter[str], wing: str, drawers: int) -> None:
        self.meaning = self.meaning + meaning
        self.counted.update(words)
        self.wings[wing] += drawers
        self.norm = None

    @property
    def words(self) -> Counter[str]:
        while self.unread:
            for signature in self.unread.pop(0)():
                self.counted.update(signature)
            self.norm = None
        return self.counted

    def sample(self, text: str) -> None:
        if len(self.lines) < SAMPLE_LINES:
            self.lines.append(text[: 4 * SAMPLE_CHARS])  # cut again when sent, after its spaces are folded

    def add_raw(self, vectors: np.ndarray) -> None:
        total = np.asarray(vectors, np.float32).sum(axis=0)
        self.raw = total if self.raw is None else self.raw + total

    def all_said(self) -> PhraseTally:
        """What every part known to be in the room says, stored samples read now."""
        while self.unnamed:
            wing, texts = self.unnamed.pop(0)
            self.said.add(read_part(texts(), wing=wing))
        return self.said

    def word_likeness(self, words: Counter[str], norm: float) -> float:
        """Cosine between a part's word signature (of length `norm`) and the room's."""
        mine = self.words
        if self.norm is None:
            self.norm = math.sqrt(sum(v * v for v in mine.values()))
            self.scripts = script_shares(mine)
        if not norm or not self.norm:
            return 0.0
        return sum(v * mine.get(k, 0.0) for k, v in words.items()) / (norm * self.norm)
