"""Room names that probably mean the same concept, and merging them (metadata only).

By spelling: names that differ only in case, spaces, hyphens or underscores (`Auth Migration` /
`auth_migration`) score 1.0; the same words in another form or order (`migrating-auth` /
`auth-migrations`) 0.95. Otherwise

    score = 0.8 · names + 0.2 · drawers

where names is the cosine similarity of the room names' own embeddings and drawers that of the rooms'
mean drawer vectors (names alone when a room has no vectors). On a labelled set of 140 hard pairs
(tests/data/room_merge_pairs.jsonl) this weighting kept fewer false merges than giving drawers or
raw spelling similarity (`gpu-pricing` / `cpu-pricing`) more weight. Only each room's ten nearest
rooms by name are scored, a block of rows at a time, so memory stays bounded with many rooms.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..errors import InvalidInputError, PlaceNotFoundError
from ..models import MergeResult, MergeSuggestion
from ..palace.palace import Palace
from ..rooms.words import stem
from ..text.names import room_slug
from .network import RoomInfo, closest_names, room_index

DEFAULT_MIN_SCORE = 0.8
SUGGEST_SCORE = 0.6  # "did you mean" (a question, not a merge): on the 140 hard pairs P 0.71, R 0.93
NEIGHBOURS = 10
SAMPLE_DRAWERS = 20
NAMES, DRAWERS = 0.8, 0.2
SAME_NAME, SAME_WORDS = 1.0, 0.95
_SEPARATORS = re.compile(r"[\s_-]+")
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
    rooms = room_index(palace).rooms
    names = list(rooms)
    if len(names) < 2:
        return []
    by_name = _unit(palace.embed([" ".join(_WORDS.findall(n)) or n for n in names]))
    centroids = palace.room_centroids(SAMPLE_DRAWERS)
    has_drawers = np.array([n in centroids for n in names])
    dims = by_name.shape[1] if not centroids else len(next(iter(centroids.values())))
    by_drawers = _unit(np.stack([centroids.get(n, np.zeros(dims, np.float32)) for n in names]))
    scored = {**_formula_pairs(by_name, by_drawers, has_drawers, min_score), **_spelling_pairs(names)}
    found = [_suggestion(names[i], rooms[names[i]], names[j], rooms[names[j]], score, reasons)
             for (i, j), (score, reasons) in scored.items() if score >= min_score]
    found.sort(key=lambda s: (-s.score, -(s.source_count + s.target_count), s.source, s.target))
    return found[:limit]


def _unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


Scored = dict[tuple[int, int], tuple[float, tuple[str, ...]]]


def same_concept_room(palace: Palace, name: str) -> str | None:
    """The existing room that `name`, a room the palace does not have, probably means: the same
    words in another form or order, or a room whose name (or earlier name) and drawers score
    SUGGEST_SCORE by the merge formula. None when `name` is a room (or an alias) already, or
    nothing is that near."""
    rooms = set(palace.list_rooms())
    if palace.resolve_room(name) in rooms or not rooms:
        return None
    known = {**{a: r for a, r in palace.room_aliases().items() if r in rooms}, **{r: r for r in rooms}}
    for rule in (_loose, _word_key):
        same = sorted(room for label, room in known.items() if rule(label) == rule(name))
        if same:
            return same[0]
    labels = sorted(known)
    vectors = _unit(palace.embed([" ".join(_WORDS.findall(n)) or n for n in [name, *labels]]))
    by_label = vectors[1:] @ vectors[0]
    centroids = palace.room_centroids(SAMPLE_DRAWERS)
    score: dict[str, float] = {}
    for label, alike in zip(labels, by_label):
        room = known[label]
        held = centroids.get(room)
        drawers = float(_unit(held[None, :])[0] @ vectors[0]) if held is not None else float(alike)
        score[room] = max(score.get(room, -1.0), NAMES * float(alike) + DRAWERS * drawers)
    best = max(sorted(score), key=lambda r: score[r])
    return best if score[best] >= SUGGEST_SCORE else None


def _formula_pairs(by_name: np.ndarray, by_drawers: np.ndarray, has_drawers: np.ndarray, min_score: float) -> Scored:
    """Pairs among each room's nearest rooms by name that reach `min_score` by the formula."""
    count = len(by_name)
    floor = (min_score - DRAWERS) / NAMES  # names must be at least this alike for the pair to get there
    block = max(1, (1 << 24) // count)  # about 64 MB of similarities at a time
    scored: Scored = {}
    for start in range(0, count, block):
        rows = np.arange(start, min(start + block, count))
        sims = by_name[rows] @ by_name.T
        sims[np.arange(len(rows)), rows] = -np.inf
        left, right = np.nonzero(sims >= floor)
        alike = sims[left, right]
        order = np.lexsort((-alike, left))  # by row, most alike first; keep each row's nearest few
        left, right, alike = left[order], right[order], alike[order]
        keep = np.arange(len(left)) - np.searchsorted(left, left) < NEIGHBOURS
        left, right, alike = rows[left[keep]], right[keep], alike[keep]
        both = has_drawers[left] & has_drawers[right]
        drawers = np.einsum("ij,ij->i", by_drawers[left], by_drawers[right])
        score = np.where(both, NAMES * np.maximum(alike, 0) + DRAWERS * np.maximum(drawers, 0), alike)
        for i in np.nonzero(score >= min_score)[0]:
            pair = (int(min(left[i], right[i])), int(max(left[i], right[i])))
            reasons = (f"names alike {alike[i]:.2f}",) + ((f"drawers alike {drawers[i]:.2f}",) if both[i] else ())
            scored[pair] = (round(float(score[i]), 4), reasons)
    return scored


def _spelling_pairs(names: list[str]) -> Scored:
    """Pairs whose names are the same words, by loose spelling (1.0) or by stems in any order (0.95)."""
    scored: Scored = {}
    for rule, score, reason in ((_loose, SAME_NAME, "the same name once normalised"),
                                (_word_key, SAME_WORDS, "the same words in another form or order")):
        groups: dict[str, list[int]] = {}
        for i, name in enumerate(names):
            groups.setdefault(rule(name), []).append(i)
        for members in groups.values():
            for n, a in enumerate(members):
                for b in members[n + 1:]:
                    scored.setdefault((a, b), (score, (reason,)))
    return scored


def _loose(name: str) -> str:
    """Case and separators folded, nothing else dropped: `C#` and `C++` stay apart."""
    return _SEPARATORS.sub("-", name.casefold()).strip("-")


def _word_key(name: str) -> str:
    return "-".join(sorted(stem(word) for word in _loose(name).split("-") if word))


def _slug_or_none(name: str) -> str | None:
    try:
        return room_slug(name)
    except InvalidInputError:
        return None


def _suggestion(a: str, info_a: RoomInfo, b: str, info_b: RoomInfo, score: float,
                reasons: tuple[str, ...]) -> MergeSuggestion:
    """Merge into the room already named as a slug (or that can be), then into the larger one."""
    def rank(name: str, info: RoomInfo, other: str) -> tuple[bool, bool, int, int, str]:
        slug = _slug_or_none(name)
        return slug is not None, slug == name, info.count, -len(name), other

    if rank(a, info_a, b) < rank(b, info_b, a):
        (source, s_info), (target, t_info) = (a, info_a), (b, info_b)
    else:
        (source, s_info), (target, t_info) = (b, info_b), (a, info_a)
    return MergeSuggestion(source, target, score, reasons, s_info.count, t_info.count,
                           tuple(sorted(s_info.wings)), tuple(sorted(t_info.wings)))


def merge_rooms(palace: Palace, source: str, target: str) -> MergeResult:
    """Move every drawer of room `source` (in every wing) into room `target`: metadata only, so text,
    vectors and ids stay. Drawers filed under an unnormalised spelling of `target` join it too."""
    stored = set(palace.list_rooms())
    source_name = _stored_room(source, stored, palace.resolve_room)
    if not isinstance(target, str):
        raise InvalidInputError(f"A room name must be text, not {type(target).__name__}.")
    target_slug = palace.resolve_room(room_slug(target))
    names = tuple(n for n in dict.fromkeys([source_name, target]) if n in stored and n != target_slug)
    if not names or target == source_name:
        raise InvalidInputError(f"Room {source_name!r} cannot be merged into itself.")
    moved, wings = palace.move_rooms(names, target_slug)
    return MergeResult(source_name, target_slug, moved, wings, names)


def _stored_room(name: str, stored: set[str], resolve: Callable[[str], str]) -> str:
    """`name` as stored: exactly, by its slug, or as an earlier name of a room."""
    if not isinstance(name, str):
        raise InvalidInputError(f"A room name must be text, not {type(name).__name__}.")
    if not name.strip():
        raise InvalidInputError("A room name is required.")
    if name in stored:
        return name
    slug = room_slug(name)
    if slug in stored:
        return slug
    if resolve(slug) in stored:
        return resolve(slug)
    raise PlaceNotFoundError(f"No room {name!r} in this palace.{closest_names(slug, dict.fromkeys(stored))}")
