"""A palace of a realistic shape at any size, for `scale.py` (10k, 100k, 1M drawers).

Shape: 50 wings of Zipf-like sizes (the largest about a fifth of the palace, the smallest under 1 %);
conversations of 1 to ~60 drawers, each in one wing and mostly one room, dated over five years; rooms
that grow with the palace (about 350 at 100k or less, about 2,900 at 1M: each of the real palace's
353 topics in up to 16 variants), each wing using a few of them, so that rooms shared by wings (tunnels)
are common but not universal; the five halls and drawers with none.

Vectors: embedding a million texts here takes hours, so each drawer takes the real MiniLM vector of
a drawer of the same topic in `benchmarks/out/palace-100000` (built by `scale.py`'s real-model
builder) plus Gaussian noise (cosine about 0.97 to it), normalised. The model's distribution is
kept topic by topic; what it may change: ten drawers that share a source vector sit closer together
than real drawers would, which makes the nearest-neighbour graph's job (and recall) harder, not
easier; and texts are generated for the topic, so search *quality* here means nothing, only cost.
"""

from __future__ import annotations

import math
import os
import random
import sqlite3
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

WINGS = 50
BASE_ROOMS_PER_VARIANT = 125_000  # drawers per room variant: 1M drawers -> 8, doubled past that: 16
VARIANTS = ["", "eu", "mobile", "legacy", "v2", "platform", "partners", "internal",
            "apac", "web", "beta", "enterprise", "ios", "android", "ops", "research"]
HALLS = ["hall_facts", "hall_events", "hall_discoveries", "hall_preferences", "hall_advice", ""]
HALL_WEIGHTS = [0.25, 0.2, 0.12, 0.08, 0.1, 0.25]
NOISE = 0.25  # |noise| relative to a unit vector: cosine ~ 1 / sqrt(1 + 0.25^2) = 0.97
FIRST_DAY = datetime(2021, 12, 1, tzinfo=timezone.utc)
DAYS = 5 * 365
NAMES = ["Kai", "Priya", "Sam", "Ana", "Jon", "Mei", "Ola", "Ravi", "Lena", "Tom"]
VERBS = ["decided", "found", "noticed", "agreed", "measured", "proposed", "learned", "fixed", "shipped", "asked"]
WORDS = ["latency", "budget", "rollout", "schema", "tokens", "cache", "pricing", "alerts", "backups", "queue",
         "index", "vendor", "contract", "deadline", "oncall", "dashboard", "quota", "region", "retries", "tests"]


def base_vectors(source: Path) -> tuple[np.ndarray, list[str]]:
    """The real-model palace's vectors and rooms (read from its catalog)."""
    db = sqlite3.connect(f"file:{source / 'mempalace_catalog.sqlite3'}?mode=ro", uri=True)
    rows = db.execute("SELECT vector, room FROM drawers ORDER BY rowid").fetchall()
    db.close()
    vectors = np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    return vectors, [r[1] for r in rows]


def wing_plan(rng: random.Random, topics: list[str], variants: int) -> list[dict]:
    """Each wing's share of the drawers (Zipf, s=1), its topics and its room variants."""
    weights = [1 / (k + 1) for k in range(WINGS)]
    total = sum(weights)
    wings = []
    for k, weight in enumerate(weights):
        share = weight / total
        focus = rng.sample(topics, min(len(topics), 10 + int(190 * weight)))
        own = rng.sample(range(variants), min(variants, 1 + rng.randrange(3 if variants < 16 else 5)))
        wings.append({"name": f"wing_{k:02d}", "share": share, "topics": focus, "variants": own})
    return wings


def text_of(rng: random.Random, room: str, n: int, wing: str) -> str:
    """A drawer's varied text about its room."""
    words = rng.sample(WORDS, 5)
    topic = room.replace("-", " ")
    return (f"User: {rng.choice(NAMES)} asked how the {topic} work is going for {wing.removeprefix('wing_')}.\n\n"
            f"Assistant: {rng.choice(NAMES)} {rng.choice(VERBS)} that the {topic} needs {words[0]} and "
            f"{words[1]} work; item {n} lists {', '.join(words[2:])}, discussed at length with the team.")


def conversations(drawers: int, seed: int, source: Path):
    """Yield (ids, texts, metadatas, vectors) one conversation at a time until `drawers` are made."""
    rng = random.Random(seed)
    noise = np.random.default_rng(seed)
    vectors, rooms = base_vectors(source)
    by_topic: dict[str, list[int]] = defaultdict(list)
    for row, room in enumerate(rooms):
        by_topic[room].append(row)
    topics = sorted(by_topic)
    variants = round(drawers / BASE_ROOMS_PER_VARIANT)  # 1 up to 100k, 16 at 1M (about 3,000 rooms)
    variants = 1 if variants <= 1 else min(len(VARIANTS), 2 * variants)
    wings = wing_plan(rng, topics, variants)
    shares = [w["share"] for w in wings]
    made = conversation = 0
    while made < drawers:
        wing = rng.choices(wings, shares)[0]
        length = min(drawers - made, 1 + int(rng.expovariate(1 / 14)) % 60)
        day = FIRST_DAY + timedelta(days=rng.randrange(DAYS), minutes=rng.randrange(1440))
        parent = f"conv_bench_{conversation:07d}"
        topic = rng.choice(wing["topics"])
        ids, texts, metas, picks = [], [], [], []
        for index in range(length):
            if rng.random() < 0.15:  # a conversation drifts to another topic now and then
                topic = rng.choice(wing["topics"])
            variant = VARIANTS[rng.choice(wing["variants"])]
            room = f"{topic}-{variant}" if variant else topic
            n = made + index
            ids.append(f"drawer_scale_{n:08d}")
            texts.append(text_of(rng, room, n, wing["name"]))
            picks.append(rng.choice(by_topic[topic]))
            stamp = day + timedelta(minutes=2 * index)
            metas.append({"wing": wing["name"], "room": room, "hall": rng.choices(HALLS, HALL_WEIGHTS)[0],
                          "source_file": f"session_{conversation:07d}.jsonl", "chunk_index": index,
                          "chunk_count": length, "parent_id": parent, "added_by": "mempalace-ingest",
                          "filed_at": stamp.isoformat(), "conversation_date": day.isoformat(),
                          "room_by": "ingest", "hall_by": "ingest"})
        base = vectors[picks]
        moved = base + noise.standard_normal(base.shape).astype(np.float32) * (NOISE / math.sqrt(base.shape[1]))
        moved /= np.linalg.norm(moved, axis=1, keepdims=True)
        made += length
        conversation += 1
        yield ids, texts, metas, moved.astype(np.float32)


def build(path: Path, drawers: int, source: Path, seed: int = 11) -> float:
    """Write the palace straight into Chroma as another client would (stamped rows); returns seconds."""
    from mempalace.embedding.embedders import MiniLMInt8
    from mempalace.store.chroma import SEQ_KEY, ChromaStore
    from mempalace.store.embedding_function import PalaceEmbeddingFunction

    store = ChromaStore.embedded(path, PalaceEmbeddingFunction(MiniLMInt8()), create=True)
    started = time.perf_counter()
    batch: list = [[], [], [], []]
    written = 0

    def flush() -> None:
        nonlocal written
        ids, texts, metas, vectors = batch
        for offset, meta in enumerate(metas):
            meta[SEQ_KEY] = 1_000_000 + written + offset
        store.add(ids, texts, metas, np.concatenate(vectors))
        written += len(ids)
        for part in batch:
            part.clear()
        if written // 100_000 != (written - len(ids)) // 100_000:
            print(f"  {written:,} drawers written ({time.perf_counter() - started:.0f} s)", flush=True)

    for ids, texts, metas, vectors in conversations(drawers, seed, source):
        batch[0] += ids
        batch[1] += texts
        batch[2] += metas
        batch[3].append(vectors)
        if len(batch[0]) >= 5_000:
            flush()
    if batch[0]:
        flush()
    store.close()
    for folder, _, files in os.walk(path):  # a palace is its owner's alone (MemPalace warns otherwise)
        os.chmod(folder, 0o700)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o600)
    return time.perf_counter() - started
