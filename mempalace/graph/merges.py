"""Room names that probably mean the same concept, and merging them (metadata only).

By spelling: names that are one slug apart (`Auth Migration` / `auth_migration`) score 1.0, the
same words in another form or order (`migrating-auth` / `auth-migrations`) 0.95. Otherwise

    score = 0.8 · names + 0.2 · drawers

where names is the cosine similarity of the room names' own embeddings and drawers that of the rooms'
mean drawer vectors (names alone when a room has no vectors). On a labelled set of 140 hard pairs
(tests/data/room_merge_pairs.jsonl) this weighting kept fewer false merges than giving drawers or
raw spelling similarity (`gpu-pricing` / `cpu-pricing`) more weight. Only each room's nearest
neighbours by name and by drawers are scored, so large palaces stay fast.
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import InvalidInputError, PlaceNotFoundError
from ..ingest.rooms import room_key
from ..models import MergeResult, MergeSuggestion
from ..naming import room_slug
from ..palace import Palace
from .network import _closest, _index, _Room

DEFAULT_MIN_SCORE = 0.8
NEIGHBOURS = 8
SAMPLE_DRAWERS = 20
WEIGHTS = {"names": 0.8, "drawers": 0.2}
_WORDS = re.compile(r"[^\W_]+")


def suggest_room_merges(palace: Palace, min_score: float = DEFAULT_MIN_SCORE, limit: int = 50) -> list[MergeSuggestion]:
    """Pairs of rooms that are probably one concept, best first; merge each `source` into its `target`."""
    if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not 0 < min_score <= 1:
        raise InvalidInputError(f"min_score must be a number above 0 and at most 1, not {min_score!r}.")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1_000:
        raise InvalidInputError(f"The limit must be a whole number from 1 to 1000, not {limit!r}.")
    key = ("room-merges", float(min_score), limit, *palace.settings.graph_hidden_rooms)
    return list(palace.derived(key, lambda: tuple(_suggest(palace, float(min_score), limit))))


def _suggest(palace: Palace, min_score: float, limit: int) -> list[MergeSuggestion]:
    rooms = _index(palace).rooms
    names = list(rooms)
    if len(names) < 2:
        return []
    by_name = _unit(palace.embed([" ".join(_WORDS.findall(n)) or n for n in names]))
    samples = palace.room_vectors(SAMPLE_DRAWERS)
    dims = by_name.shape[1] if not samples else next(iter(samples.values())).shape[1]
    by_drawers = _unit(np.stack([samples[n].mean(axis=0) if n in samples else np.zeros(dims, np.float32)
                                 for n in names]))
    pairs = _neighbours(by_name) | _neighbours(by_drawers) | _same_key_pairs(names)
    found = []
    for i, j in sorted(pairs):
        score, reasons = _score(names[i], names[j], float(by_name[i] @ by_name[j]),
                                float(by_drawers[i] @ by_drawers[j]) if names[i] in samples and names[j] in samples
                                else None)
        if score >= min_score:
            found.append(_suggestion(names[i], rooms[names[i]], names[j], rooms[names[j]], score, reasons))
    found.sort(key=lambda s: (-s.score, -(s.source_count + s.target_count), s.source, s.target))
    return found[:limit]


def _unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


def _neighbours(unit: np.ndarray, block: int = 1_024) -> set[tuple[int, int]]:
    """(i, j), i < j, for each row's nearest rows by cosine similarity, in blocks to bound memory."""
    count, k = len(unit), min(NEIGHBOURS, len(unit) - 1)
    pairs: set[tuple[int, int]] = set()
    for start in range(0, count, block):
        sims = unit[start : start + block] @ unit.T
        for offset in range(len(sims)):
            sims[offset, start + offset] = -np.inf
        nearest = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        for offset, row in enumerate(nearest):
            i = start + offset
            pairs.update((min(i, int(j)), max(i, int(j))) for j in row if np.isfinite(sims[offset, j]))
    return pairs


def _same_key_pairs(names: list[str]) -> set[tuple[int, int]]:
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        groups.setdefault(room_key(_slug_or_self(name)), []).append(i)
    return {(a, b) for members in groups.values() for n, a in enumerate(members) for b in members[n + 1:]}


def _slug_or_self(name: str) -> str:
    try:
        return room_slug(name)
    except InvalidInputError:
        return name


def _score(a: str, b: str, names: float, drawers: float | None) -> tuple[float, tuple[str, ...]]:
    slug_a, slug_b = _slug_or_self(a), _slug_or_self(b)
    if slug_a == slug_b:
        return 1.0, ("the same name once normalised",)
    if room_key(slug_a) == room_key(slug_b):
        return 0.95, ("the same words in another form or order",)
    parts = {"names": names, **({"drawers": drawers} if drawers is not None else {})}
    total = sum(WEIGHTS[k] for k in parts)
    score = sum(WEIGHTS[k] * max(0.0, v) for k, v in parts.items()) / total
    reasons = tuple(f"{label} {parts[key]:.2f}" for key, label in
                    (("names", "names alike"), ("drawers", "drawers alike")) if key in parts)
    return round(score, 4), reasons


def _suggestion(a: str, info_a: _Room, b: str, info_b: _Room, score: float,
                reasons: tuple[str, ...]) -> MergeSuggestion:
    """Merge the smaller room into the larger; on a tie, into the one already named as a slug."""
    rank_a = (info_a.count, _slug_or_self(a) == a, -len(a), b)
    rank_b = (info_b.count, _slug_or_self(b) == b, -len(b), a)
    (source, s_info), (target, t_info) = ((a, info_a), (b, info_b)) if rank_a < rank_b else ((b, info_b), (a, info_a))
    return MergeSuggestion(source, target, score, reasons, s_info.count, t_info.count,
                           tuple(sorted(s_info.wings)), tuple(sorted(t_info.wings)))


def merge_rooms(palace: Palace, source: str, target: str) -> MergeResult:
    """Move every drawer of room `source` (in every wing) into room `target`: metadata only, so text,
    vectors and ids stay. Drawers filed under an unnormalised spelling of `target` join it too."""
    stored = set(palace.list_rooms())
    source_name = _stored_room(source, stored)
    target_slug = room_slug(target)
    names = [n for n in dict.fromkeys([source_name, target]) if n in stored and n != target_slug]
    if not names:
        raise InvalidInputError(f"Room {source_name!r} cannot be merged into itself.")
    ids = [i for name in names for i in palace.drawer_ids(room=name)]
    wings = tuple(sorted({wing for wing, room, _, _ in palace.places() if room in names}))
    moved = palace.move_drawers(ids, room=target_slug)
    return MergeResult(source_name, target_slug, moved, wings)


def _stored_room(name: str, stored: set[str]) -> str:
    """`name` as stored: exactly, or by its slug."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError("A room name is required.")
    if name in stored:
        return name
    slug = room_slug(name)
    if slug in stored:
        return slug
    raise PlaceNotFoundError(f"No room {name!r} in this palace.{_closest(slug, dict.fromkeys(stored))}")
