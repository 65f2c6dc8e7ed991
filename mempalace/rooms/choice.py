"""Rooms by meaning: a conversation is cut where its topic changes, and each part joins the room
whose drawers it is most like, in any wing, or opens a room of its own named from its words.

Likeness blends two views of a part and of a room. Meaning: the drawers' embedding vectors, each
with a share of its wing's mean vector taken off, so that what every chat of a wing has in common
(its people, its style, its project) does not make unrelated topics look alike. Words: the specific
words they use, weighted by how rare the words are in English. A part joins the best room when the
blend reaches `JOIN_SIMILARITY`; rooms already filed only ever gain drawers.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from ..embedding.embedders import LikenessScale
from ..errors import InvalidInputError
from ..language.scripts import script_overlap, script_shares
from .meanings import RoomMeanings
from .model_names import CANDIDATES, Propose
from .naming import GENERAL, Meaning, PhraseTally, RoomChooser
from .part_phrases import read_part
from .profile import RoomProfile, Signed, Texts, TextsOnce
from .words import WORD, text_signatures, words_in

SEGMENT_PENALTY = 0.55  # the cost of one more topic in a conversation, against how far drawers stray from it
LONGEST_SEGMENT = 12  # drawers: a long chat is looked at in parts at least this small
SHORT_CHAT = 4  # drawers: `topic_segments` cuts parts of two drawers or more, so never a shorter chat
STRAY_LIKENESS = 0.1  # a part's first or last drawer this little like the rest (less its wing's style, × spread) is a topic of its own
WING_SHRINK = 10.0  # what a wing's chats share is estimated from n drawers as if this many more were the palace's
JOIN_SIMILARITY = 0.22  # the blended likeness at which a part joins an existing room
WORD_SHARE = 0.3  # the words' share of the blend (the meaning's is the rest)
PALACE_SHRINK = 50.0  # and the palace's mean from m drawers as m / (m + this) of it: a few chats say little
CENTRE_SHARE = 0.9  # how much of what the other chats share is taken off
CROWDING = 2.5  # a room holding share s of a wing of n drawers needs JOIN_SIMILARITY + CROWDING × s × n / (n + CROWD_SIZE)
CROWD_SIZE = 100.0
WORDLESS_SHARE = 0.5  # a part without topic words joins a room only this much as alike as others need
HOLDER_SHARE = 0.8  # a part whose own best name is a room's joins it this nearly as alike as joining needs
WORD_CANDIDATES = 20  # rooms, nearest by meaning, whose words are compared too
RENAME_GAIN = 1.25  # a room ingest named is renamed when a name scores this much better than its own
GROWN = 2  # or any better when it holds this many times the parts it had when named
SMALL_PALACE = 100.0  # drawers: word rarity in a palace of n drawers counts n / (n + this) against English's


def topic_segments(vectors: np.ndarray, penalty: float | None = None,
                   longest: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each topic of consecutive unit vectors: the cut that minimises how far the
    vectors stray from their part's mean direction, plus `penalty` per part (exact, by dynamic
    programming). Parts have two drawers or more, unless the conversation has one."""
    penalty = SEGMENT_PENALTY if penalty is None else penalty
    longest = int(LONGEST_SEGMENT if longest is None else longest)
    count = len(vectors)
    if count <= 2:
        return [(0, count)] if count else []
    sums = np.vstack([np.zeros((1, vectors.shape[1]), np.float64), np.cumsum(vectors, axis=0, dtype=np.float64)])
    best = [0.0] + [math.inf] * count
    back = [0] * (count + 1)
    for end in range(2, count + 1):
        for start in range(max(0, end - longest), end - 1):
            if best[start] == math.inf:
                continue
            cost = best[start] + (end - start) - float(np.linalg.norm(sums[end] - sums[start])) + penalty
            if cost < best[end] - 1e-12:
                best[end], back[end] = cost, start
    cuts, end = [], count
    while end > 0:
        cuts.append((back[end], end))
        end = back[end]
    return cuts[::-1]


def strays_apart(vectors: np.ndarray, segments: list[tuple[int, int]], bar: float) -> list[tuple[int, int]]:
    """`segments` with a part's first or last drawer made a part of its own when its cosine with the
    mean of the part's other drawers is below `bar`: a chat too short for `topic_segments` to cut that
    moves to another topic in its last drawer is not filed as one topic."""
    parts: list[tuple[int, int]] = []
    for start, end in segments:
        if end - start >= 2:
            if _stray(vectors[start], vectors[start + 1:end], bar):
                parts.append((start, start + 1))
                start += 1
            if end - start >= 2 and _stray(vectors[end - 1], vectors[start:end - 1], bar):
                parts += [(start, end - 1), (end - 1, end)]
                continue
        parts.append((start, end))
    return parts


def _stray(vector: np.ndarray, others: np.ndarray, bar: float) -> bool:
    mean = others.sum(axis=0)
    return float(vector @ mean) < bar * float(np.linalg.norm(vector) * np.linalg.norm(mean))


class TopicRooms:
    """Hands out rooms for the drawers of one ingest (or a re-rooming), remembering what it filed."""

    def __init__(self, namer: RoomChooser, wing_vectors: dict[str, np.ndarray] | None = None,
                 embed: Callable[[list[str]], np.ndarray] | None = None, wing_sizes: dict[str, int] | None = None,
                 signatures: Callable[[list[str]], list[Counter[str]]] = text_signatures,
                 scale: LikenessScale = LikenessScale()):
        """`wing_vectors`: a sample of each wing's drawer vectors and `wing_sizes` how many drawers
        each holds (stored rooms are taught with `remember`); `embed`: the palace's embedder, to pick
        the candidate name nearest a new room's meaning; `signatures`: how a stored conversation's
        texts become word signatures (`text_signatures`, or a cache of what it gave); `scale`: where
        the embedder's cosines sit against MiniLM's, on which the thresholds here are set."""
        self._scale = scale
        self._namer = namer
        self._embed = embed
        self._signatures = signatures
        self._profiles: dict[str, RoomProfile] = {}
        self._meanings = RoomMeanings()
        self._wings: dict[str | None, tuple[np.ndarray, int]] = {}
        self._sizes: Counter[str] = Counter(wing_sizes or {})
        self._recent: dict[str, str] = {}  # wing -> the room it was last given
        self._opened_as: dict[str, str] = {}  # the key of the name a room's first part would have taken -> the room
        self.aliases: dict[str, tuple[str, ...]] = {}  # room -> its names in its parts' other languages
        self._born: set[str] = set()  # rooms opened since the last `settle_names`
        self._grown: set[str] = set()  # stored rooms given parts since then
        self._new_words: Counter[str] = Counter()  # drawers holding each word, among those not stored yet
        self._new_drawers = 0
        self._stored_words: Callable[[Sequence[str]], tuple[int, dict[str, int]]] | None = None
        self._replaying = False
        self.propose_names: Propose | None = None  # a model's names for new rooms (set for each ingest)
        if namer.specificity is None:
            namer.specificity = self.specificity
        namer.add_wings(wing_sizes or {})
        for wing, vectors in sorted((wing_vectors or {}).items()):
            self.observe(wing, vectors, counted=wing_sizes is not None)

    def count_words_with(self, stored_words: Callable[[Sequence[str]], tuple[int, dict[str, int]]],
                         replaying: bool = False) -> None:
        """`stored_words(words)` says (drawers stored, how many hold each word): word rarity for names;
        `replaying`: the drawers to assign are stored already (a re-rooming), so they count once."""
        self._stored_words = stored_words
        self._replaying = replaying

    def specificity(self, words: Sequence[str]) -> dict[str, float]:
        """How rare each word is among the palace's drawers, stored and new (1 for the rarest), trusted
        less while the palace is small."""
        stored, held = self._stored_words(words) if self._stored_words else (0, {})
        total = stored + self._new_drawers
        if total < 2:
            return {}
        trust = total / (total + SMALL_PALACE)
        top = math.log(total + 1)
        return {w: 1.0 - trust * (1.0 - math.log((total + 1) / (held.get(w, 0) + self._new_words[w] + 1)) / top)
                for w in words}

    def observe(self, wing: str, vectors: np.ndarray, counted: bool = False) -> None:
        """Count more of a wing's drawers into its mean and the palace's (before they get rooms);
        `counted`: they are already in the wing's size."""
        if not len(vectors):
            return
        if not counted:
            self._sizes[wing] += len(vectors)
        self._namer.add_wings([wing])
        for key in (wing, None):
            total, count = self._wings.get(key, (np.zeros(vectors.shape[1], np.float64), 0))
            self._wings[key] = (total + vectors.sum(axis=0), count + len(vectors))

    def set_room_size(self, room: str, wing: str, drawers: int) -> None:
        """How many drawers a stored room holds in a wing (profiles learn from a sample of them)."""
        if room in self._profiles:
            self._profiles[room].wings[wing] = drawers

    def remember(self, room: str, wing: str, vectors: np.ndarray, texts: Texts) -> None:
        """Count drawers already filed in `room` from one conversation into what the room holds,
        seen as `assign` saw them."""
        self.remember_many(room, [(wing, vectors, texts)])

    def remember_many(self, room: str, groups: Sequence[tuple[str, np.ndarray, Texts]]) -> None:
        """`remember` for several conversations of one room, given as (wing, vectors, texts): each
        wing's conversations centred at once (a stored room's samples, thousands of rooms per ingest).
        Texts may be a callable that gives them, called only if the room's words or name are needed."""
        groups = [(wing, np.asarray(vectors, np.float32), texts) for wing, vectors, texts in groups if len(vectors)]
        if room == GENERAL or not groups:
            return
        meanings: list[np.ndarray] = [np.zeros(0)] * len(groups)
        for wing in dict.fromkeys(wing for wing, _, _ in groups):
            at = [i for i, (w, _, _) in enumerate(groups) if w == wing]
            for i, meaning in zip(at, self._centred_sums(wing, [groups[i][1] for i in at])):
                meanings[i] = meaning
        profile = self._profiles.get(room) or self._profiles.setdefault(room, RoomProfile(np.zeros_like(meanings[0])))
        for (wing, vectors, texts), meaning in zip(groups, meanings):
            profile.add(meaning, Counter(), wing, len(vectors))
            profile.add_raw(vectors)
            later = TextsOnce(texts)
            profile.unread.append(Signed(self._signatures, later))
            profile.unnamed.append((wing, later))
            profile.named_at += 1
        self._meanings.changed(room)

    def _centred_sums(self, wing: str, groups: list[np.ndarray]) -> list[np.ndarray]:
        """The sum of each group's `centred(wing, group, observed=True)`, computed for all at once when
        every group leaves others in its wing (else one by one)."""
        (total, count), (everything, everyone) = self._wings.get(wing, (None, 0)), self._wings.get(None, (None, 0))
        sizes = np.array([len(g) for g in groups])
        if len(groups) < 2 or count - sizes.max() <= 0 or everyone - sizes.max() <= 0:
            return [self.centred(wing, g, observed=True).sum(axis=0) for g in groups]
        sums = np.stack([g.sum(axis=0) for g in groups])
        n, rest = (count - sizes)[:, None], (everyone - sizes)[:, None]
        own, palace = (total - sums) / n, (everything - sums) / rest
        shared = _shared_mean(own, n, palace, rest)
        rows = np.concatenate(groups) - CENTRE_SHARE * np.repeat(shared, sizes, axis=0)
        rows = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
        ends = np.cumsum(sizes).tolist()
        return [rows[end - size : end].sum(axis=0) for end, size in zip(ends, sizes.tolist())]  # as `centred`'s

    def centred(self, wing: str, vectors: np.ndarray, observed: bool = False) -> np.ndarray:
        """Unit vectors less what the other chats share: the mean of the wing's other drawers, shrunk
        towards the palace's mean while the wing is small, itself shrunk while the palace is small
        (`observed`: these vectors are already counted and are left out of both means)."""
        means = []
        for key in (wing, None):
            total, count = self._wings.get(key, (None, 0))
            if observed and count:
                total, count = total - vectors.sum(axis=0), count - len(vectors)
            means.append((total / count, count) if count > 0 else (None, 0))
        (own, n), (palace, everyone) = means
        if palace is not None:
            vectors = vectors - CENTRE_SHARE * _shared_mean(own, n, palace, everyone)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)

    def assign(self, wing: str, vectors: np.ndarray, texts: Sequence[str], title: str | None = None,
               names: Iterable[str] = (), named: Sequence[str] | None = None) -> list[str]:
        """A room for each drawer of one conversation (its vectors and people's words, in order; `named`:
        the words that may name rooms, without bots' posts, when they differ)."""
        names = tuple(names)
        named = texts if named is None else named
        if len(named) != len(texts):
            raise InvalidInputError("assign needs the words that name rooms for every drawer, or none.")
        if not self._replaying:
            for text in texts:
                self._new_words.update({w.lower() for w in words_in(text, WORD) if w})
            self._new_drawers += len(texts)
        centred = self.centred(wing, np.asarray(vectors, np.float32), observed=True)
        words = text_signatures(texts, names)
        rooms: list[str] = []
        segments = topic_segments(np.asarray(vectors, np.float32), SEGMENT_PENALTY * self._scale.spread)
        if len(texts) < SHORT_CHAT:
            segments = strays_apart(centred, segments, STRAY_LIKENESS * self._scale.spread)
        for start, end in segments:
            meaning = centred[start:end].sum(axis=0)
            signature: Counter[str] = Counter()
            for w in words[start:end]:
                signature.update(w)
            part = read_part(list(named[start:end]), title, names, wing)
            room = self._nearest(wing, meaning, signature)
            first = self._namer.first_choice(part) if room is None else None
            if first:
                room = self._holder_if_near(first, wing, meaning, signature)
            if room is None:
                room = self._namer.choose_for(part)  # `settle_names` ranks names by meaning
                self._born.add(room)
                if first and room != GENERAL and self._namer.holder(first) not in self._profiles:
                    self._opened_as.setdefault(first, room)
            elif room not in self._born:
                self._grown.add(room)
            if room == GENERAL:
                room = self._room_without_words(wing, meaning, signature, rooms)
            if room != GENERAL:
                profile = self._profiles.setdefault(room, RoomProfile(np.zeros_like(meaning)))
                profile.add(meaning, signature, wing, end - start)
                self._meanings.changed(room)
                profile.add_raw(vectors[start:end])
                profile.said.add(part)
                if self.propose_names:
                    profile.sample(named[start])
            rooms += [room] * (end - start)
        later = next((r for r in reversed(rooms) if r != GENERAL), GENERAL)
        if later != GENERAL:
            self._recent[wing] = later
        return [later if r == GENERAL else r for r in rooms]

    def _holder_if_near(self, key: str, wing: str, meaning: np.ndarray, words: Counter[str]) -> str | None:
        """The room named, or first wanting to be named, as a new part would be, when the part is
        HOLDER_SHARE as alike to it as joining needs: the part's next-best name would be a fragment of
        that room's concept (`sailor` beside `traveling-sailor`), one concept in two rooms."""
        held = self._namer.holder(key)
        holder = held if held in self._profiles else self._opened_as.get(key)
        return self._nearest(wing, meaning, words, HOLDER_SHARE, only=holder) if holder in self._profiles else None

    def _room_without_words(self, wing: str, meaning: np.ndarray, words: Counter[str], earlier: list[str]) -> str:
        """For a part with no topic words (a link, "ok, thanks"): its conversation's other part, a room
        of its wing it is a bit like (never another wing's: no words, no tunnel), or the room its wing
        was given last (a link posted in a channel)."""
        return (next((r for r in earlier if r != GENERAL), None)
                or self._nearest(wing, meaning, words, WORDLESS_SHARE, own_wing=True) or self._recent.get(wing) or GENERAL)

    def _ranker(self, vectors: np.ndarray) -> Meaning | None:
        """The part's or room's mean vector, for ranking names by meaning (KeyBERT's idea, on our embedder)."""
        if self._embed is None:
            return None
        return Meaning(self._embed, np.asarray(vectors, np.float32).sum(axis=0))

    def settle_names(self, locked: Callable[[str], bool] | None = None, prior: Mapping[str, str] | None = None
                     ) -> dict[str, str]:
        """Name the rooms opened or grown since the last call from all of their parts: {old: new} for
        each one renamed. A room opened meanwhile takes its best name, or the name its drawers held
        before (`prior`, in a re-rooming) unless a name scores RENAME_GAIN times that; a stored room
        whose name ingest chose (`locked(room)` is False) is renamed only when a name scores
        RENAME_GAIN times its own, or better than it once the room holds GROWN times the parts it
        had when named (so names settle as rooms grow, and never flicker)."""
        renamed: dict[str, str] = {}
        propose = self.propose_names
        size = {r: sum(self._profiles[r].wings.values()) if r in self._profiles else 0 for r in self._born | self._grown}
        for room in sorted(size, key=lambda r: (-size[r], r)):  # the biggest room's claim on a name first
            profile = self._profiles.get(room)
            if profile is None or room == GENERAL:
                continue
            said = profile.all_said()
            rank = self._ranker(profile.raw[None, :]) if profile.raw is not None else None
            held = (prior or {}).get(room) if room in self._born else None
            if held in self._profiles or (locked and held and locked(held)):
                held = None
            name, score, own = self._namer.best(said, rank, current=held or room)
            if held and name != held and (name == GENERAL or score < RENAME_GAIN * own):
                name = held
            if propose and room not in self._born:
                continue  # with a model, a room's name is settled when it opens
            if propose:
                name = self._asked(propose, room, name, profile, said, rank) or name
            grown = said.parts >= GROWN * max(profile.named_at, 1) and score >= own  # `=`: a better spelling
            if room in self._born:
                profile.named_at = said.parts
            if name in (room, GENERAL) or name in self._profiles:
                continue
            if room not in self._born and (said.parts < 2 or (locked and locked(room))
                                           or not (score >= RENAME_GAIN * own or grown)):
                continue
            profile.named_at = said.parts
            self._rename(room, name)
            renamed[room] = name
        self._name_aliases({renamed.get(r, r) for r in self._born | self._grown})
        self._born, self._grown = set(), set()
        return renamed  # in order: a name one room gave up may be taken by a room renamed after it

    def _asked(self, propose: Propose, room: str, offline: str, profile: RoomProfile, said: PhraseTally,
               rank: Meaning | None) -> str | None:
        """The name a model proposes for a new room from its best candidates (the offline name first)
        and a few of its lines, when no other room holds it."""
        ranked = [name for name, _ in self._namer.ranked(said, rank, current=room, limit=CANDIDATES)[0]]
        name = propose([c for c in dict.fromkeys([offline, *ranked]) if c != GENERAL][:CANDIDATES], profile.lines)
        return name if name and (name == room or name not in self._profiles) and self._namer.is_free(name, room) else None

    def _name_aliases(self, rooms: Iterable[str]) -> None:
        """Each room's names in the other languages its parts are in (`aliases`), ranked as names are."""
        for room in sorted(set(rooms) & self._profiles.keys() - {GENERAL}):
            profile = self._profiles[room]
            rank = self._ranker(profile.raw[None, :]) if profile.raw is not None else None
            taken = {a for other, given in self.aliases.items() if other != room for a in given}
            self.aliases[room] = tuple(a for a in self._namer.aliases(profile.all_said(), room, rank) if a not in taken)

    def _rename(self, old: str, new: str) -> None:
        self._profiles[new] = self._profiles.pop(old)
        self._meanings = RoomMeanings()
        self._namer.release(old)
        self._namer.take(new)
        self._recent = {wing: new if room == old else room for wing, room in self._recent.items()}
        self._opened_as = {key: new if room == old else room for key, room in self._opened_as.items()}

    def _nearest(self, wing: str, meaning: np.ndarray, words: Counter[str], bar: float = 1.0,
                 own_wing: bool = False, only: str | None = None) -> str | None:
        """The room (`own_wing`: of this wing; `only`: that room) most like this part if the likeness
        reaches `bar` × what the room needs; ties go to the first name."""
        if not self._profiles:
            return None
        wing_size = max(self._sizes[wing], 1)
        names, sums, norms = self._meanings.of(self._profiles)
        # numpy's own loop, not BLAS: waking BLAS's threads beside the model took 5-6 ms a part at 2,859 rooms
        dense = self._scale.join * np.einsum("ij,j->i", sums, meaning) / np.maximum(norms * np.linalg.norm(meaning), 1e-9)
        if own_wing:
            dense = np.where([self._profiles[n].wings[wing] > 0 for n in names], dense, -np.inf)
        nearest = [names.index(only)] if only else np.argsort(-dense, kind="stable")[:WORD_CANDIDATES]
        best, best_margin = None, 0.0
        norm, scripts = math.sqrt(sum(v * v for v in words.values())), script_shares(words)
        for i in sorted(int(i) for i in nearest):  # in name order, so the first name wins a tie
            profile = self._profiles[names[i]]
            by_words = profile.word_likeness(words, norm)
            share = WORD_SHARE * script_overlap(scripts, profile.scripts)  # words in other scripts cannot agree
            likeness = (1 - share) * float(dense[i]) + share * by_words
            margin = likeness - bar * (JOIN_SIMILARITY + CROWDING * profile.wings[wing] / (wing_size + CROWD_SIZE))
            if margin >= 0.0 and (best is None or margin > best_margin):
                best, best_margin = names[i], margin
        return best


def _shared_mean(own: np.ndarray | None, n: float | np.ndarray, palace: np.ndarray,
                 everyone: float | np.ndarray) -> np.ndarray:
    """What a wing's other chats share: their mean (of `n` drawers; none: `own` is None) shrunk towards
    the palace's mean (of `everyone` drawers), itself shrunk while the palace is small. Works on one
    wing's means or on a stack of them with counts as columns."""
    palace = palace * everyone / (everyone + PALACE_SHRINK)
    return palace if own is None or not np.all(n) else (own * n + palace * WING_SHRINK) / (n + WING_SHRINK)
