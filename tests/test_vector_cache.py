"""The vector cache: what an ingest dry run embedded, a later run (another process) reuses as it is;
bounded, shared by two processes, and never an error when it is damaged, busy or unusable. Also:
Preview on the Ingest page reports progress while it embeds."""

from __future__ import annotations

import re
import sqlite3
import threading
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from dashboard import uploads
from mempalace import Palace
from mempalace.config import Settings
from mempalace.embedding.embedders import MODEL_SHA256, HashEmbedder
from mempalace.ingest import ingest
from mempalace.ingest import vector_cache
from mempalace.ingest.vector_cache import VECTORS_FILE, VectorCache, embed_cached

TOPICS = ("the gpu pricing cache", "the auth migration to OIDC", "the nightly backup of the ledger",
          "the flaky deploy pipeline", "the onboarding checklist", "the search index rebuild")
TRANSCRIPT = "\n".join(
    f"{'User' if n % 2 == 0 else 'Assistant'}: About {topic}, message {n}: we looked at {topic} again and "
    f"agreed that step {n} of {topic} needs another careful pass before Friday, with notes for the team."
    for n, topic in enumerate(TOPICS * 4)
)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every text the (hash) embedder is asked to embed, counted."""
    seen: Counter[str] = Counter()
    original = HashEmbedder.embed

    def embed(self: HashEmbedder, texts: list[str]) -> np.ndarray:
        seen.update(texts)
        return original(self, texts)

    monkeypatch.setattr(HashEmbedder, "embed", embed)
    return seen


def test_a_dry_run_then_real_runs_embed_each_drawer_once_and_file_the_same_vectors(
        tmp_path: Path, settings: Settings, counted: Counter[str], monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "standup.txt"
    source.write_text(TRANSCRIPT, encoding="utf-8")
    filed: list[tuple[str, np.ndarray]] = []
    original = Palace.file_drawers

    def file_drawers(self: Palace, drafts, vectors=None):
        filed.extend(zip((d.content for d in drafts), np.asarray(vectors)))
        return original(self, drafts, vectors)

    monkeypatch.setattr(Palace, "file_drawers", file_drawers)
    steps: list[tuple[int, int]] = []
    with Palace.open(tmp_path / "a", settings=settings) as palace:  # each palace stands for a process
        preview = ingest(palace, source, dry_run=True, progress=lambda done, total: steps.append((done, total)))
    texts = [d.content for d in preview.drawers]
    assert len(texts) >= 3 and all(counted[t] == 1 for t in texts)
    assert steps[-1] == (len(texts), len(texts))  # a dry run reports its embedding
    steps.clear()
    with Palace.open(tmp_path / "b", settings=settings) as palace:  # another process: a dry run, then the real one
        assert ingest(palace, source, dry_run=True, progress=lambda d, t: steps.append((d, t))).new == len(texts)
        assert ingest(palace, source).added == len(texts)  # (cache hits never reach Palace.embed's memory)
    assert all(counted[t] == 1 for t in texts)  # neither the second dry run nor the real run embedded them
    assert steps == [(len(texts), len(texts))]  # all found in the cache: done at once
    assert sorted(t for t, _ in filed) == sorted(texts)
    assert all(np.array_equal(vector, HashEmbedder().embed([text])[0]) for text, vector in filed)


def test_the_bound_is_kept_and_the_least_recently_used_go_first(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path, "hash", max_rows=4)
    vectors = HashEmbedder().embed(list("abcde"))
    cache.store(["a", "b"], vectors[:2])
    cache.store(["c"], vectors[2:3])
    assert set(cache.lookup(["a"])) == {0}  # a is used again, so b is now the oldest
    cache.store(["d", "e"], vectors[3:])
    assert cache.count() == 4
    found = cache.lookup(list("abcde"))
    assert sorted(found) == [0, 2, 3, 4]
    assert all(np.array_equal(found[i], vectors[i]) for i in found)


def test_another_model_misses_and_its_identity_names_the_model_file(tmp_path: Path) -> None:
    texts = ["the same text", "another text"]
    VectorCache(tmp_path, "hash").store(texts, HashEmbedder().embed(texts))
    model = VectorCache(tmp_path, "minilm-int8")
    assert model.lookup(texts) == {}
    assert MODEL_SHA256 in model.identity and "onnxruntime" in model.identity
    assert set(VectorCache(tmp_path, "hash").lookup(texts)) == {0, 1}


def test_a_corrupt_cache_file_is_ignored_then_made_again(tmp_path: Path) -> None:
    (tmp_path / VECTORS_FILE).write_bytes(b"not a database at all " * 100)
    cache = VectorCache(tmp_path, "hash")
    assert cache.lookup(["text"]) == {}
    cache.store(["text"], HashEmbedder().embed(["text"]))
    assert set(VectorCache(tmp_path, "hash").lookup(["text"])) == {0}


def test_an_unusable_or_busy_cache_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "blocked" / VECTORS_FILE).mkdir(parents=True)  # a folder where the file should be
    fake = SimpleNamespace(embed=HashEmbedder().embed, derived=lambda key, make: blocked)
    blocked = VectorCache(tmp_path / "blocked", "hash")
    assert np.array_equal(embed_cached(fake, ["one", "two"], 8, remember=True), HashEmbedder().embed(["one", "two"]))
    assert blocked.lookup(["one"]) == {}
    monkeypatch.setattr(vector_cache, "BUSY_SECONDS", 0.05)
    cache = VectorCache(tmp_path, "hash")
    cache.store(["kept"], HashEmbedder().embed(["kept"]))
    cache.close()
    holder = sqlite3.connect(str(tmp_path / VECTORS_FILE), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing for longer than the busy timeout
    try:
        cache.store(["skipped"], HashEmbedder().embed(["skipped"]))  # waits a moment, then gives up
        assert set(cache.lookup(["kept"])) == {0}  # reading never waits for a writer (WAL)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert set(cache.lookup(["kept", "skipped"])) == {0}


def lost_by_two_writers(folder: Path, stores: int) -> int:
    """How many of their vectors two writers storing `stores` times 5 at once (each with a connection of
    its own, as another process has) find missing afterwards."""
    def write(prefix: str) -> None:
        cache = VectorCache(folder, "hash")
        for n in range(stores):
            texts = [f"{prefix} {n} {k}" for k in range(5)]
            cache.store(texts, HashEmbedder().embed(texts))
        cache.close()

    threads = [threading.Thread(target=write, args=(name,)) for name in ("left", "right")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    texts = [f"{prefix} {n} {k}" for prefix in ("left", "right") for n in range(stores) for k in range(5)]
    return len(texts) - len(VectorCache(folder, "hash").lookup(texts))


def test_two_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    assert lost_by_two_writers(tmp_path, 20) == 0


class _Bar:
    def __init__(self) -> None:
        self.steps: list[tuple[float, str]] = []
        self.emptied = False

    def progress(self, value: float, text: str = "") -> None:
        self.steps.append((value, text))

    def empty(self) -> None:
        self.emptied = True


def test_preview_moves_a_progress_bar_over_files_and_drawers(palace: Palace, monkeypatch: pytest.MonkeyPatch) -> None:
    bar = _Bar()
    monkeypatch.setattr(uploads.st, "progress", lambda value, text="": bar)
    files = [SimpleNamespace(name=name, getvalue=lambda name=name: f"{TRANSCRIPT}\nUser: and {name}?\n".encode())
             for name in ("one.txt", "two*.txt")]  # two conversations: the same one twice is counted once
    reports = uploads.preview(palace, files, "wing_kai", None)
    assert [r.dry_run and r.new > 0 for r in reports] == [True, True] and palace.count() == 0
    texts = [t for _, t in bar.steps]
    assert any(re.fullmatch(r"\d+ of \d+ drawers? embedded", t) for t in texts)
    assert "1 of 2 files done, reading the others…" in texts and texts[-1] == "2 of 2 files done"
    assert [v for v, _ in bar.steps] == sorted(v for v, _ in bar.steps) and bar.steps[-1][0] == 1.0
    assert bar.emptied


def test_two_first_opens_racing_to_set_the_file_up_lose_no_store(tmp_path: Path) -> None:
    """The race behind an intermittent loss: both writers open a new file at once; the one whose WAL
    set-up meets the other's lock retries on a fresh connection instead of skipping its store."""
    assert sum(lost_by_two_writers(tmp_path / str(trial), 1) for trial in range(30)) == 0


SAMPLES = ["Kai moved the login to OIDC with PKCE last spring, and Carmen Ortiz kept the refresh tokens.",
           "The refresh tokens stay valid for one rotation; café owners in Lisbon asked about it too.",
           "Priya compared spot GPU prices across three clouds: 0.37 per hour, then 1.2e-3 per token."]


def test_word_signatures_come_back_from_the_cache_exactly_and_only_for_the_same_texts_and_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.rooms.words import signature_rules, text_signatures

    palace = SimpleNamespace(settings=SimpleNamespace(cache_dir=tmp_path, embedder="hash"), derived=lambda k, make: make())
    cached = vector_cache.signatures_cached(palace)
    computed = text_signatures(SAMPLES)
    assert cached(SAMPLES) == computed  # a miss: computed and stored
    monkeypatch.setattr(vector_cache, "text_signatures", lambda texts: pytest.fail("computed again"))
    again = vector_cache.signatures_cached(palace)(SAMPLES)
    assert again == computed and all(list(a.items()) == list(b.items()) for a, b in zip(again, computed))
    assert all(type(v) is float for s in again for v in s.values())  # the same floats, bit for bit
    cache = VectorCache(tmp_path, "hash")
    assert cache.lookup_signatures(signature_rules(), SAMPLES[:2]) is None  # other texts
    assert cache.lookup_signatures("other rules", SAMPLES) is None  # the word code or lists changed
    assert cache.lookup_signatures(signature_rules(), SAMPLES) == computed


def test_the_signatures_kept_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_cache, "MAX_SIGNATURES", 3)
    cache = VectorCache(tmp_path, "hash")
    for n in range(5):
        cache.store_signatures("rules", [f"text {n}"], [Counter({f"word{n}": 1.5})])
    assert [cache.lookup_signatures("rules", [f"text {n}"]) is not None for n in range(5)] == [False, False, True, True, True]


@pytest.mark.parametrize("cached_size", [None, "same", "other"], ids=["nothing-cached", "some-cached", "cached-of-another-size"])
def test_each_vector_is_heard_once_embedded_batches_as_they_come_and_the_cached_at_the_end(
        tmp_path: Path, cached_size: str | None) -> None:
    texts = [f"text number {n} " * (n + 1) for n in range(5)]
    cache = VectorCache(tmp_path, "hash")
    fake = SimpleNamespace(embed=HashEmbedder().embed, derived=lambda key, make: cache)
    if cached_size:  # two texts already cached, as a dry run leaves them (or by a model of another size)
        kept = HashEmbedder().embed(texts[1:3])
        cache.store(texts[1:3], kept if cached_size == "same" else np.hstack([kept, kept]))
    heard: list[list[int]] = []
    vectors = embed_cached(fake, texts, 2, remember=False, on_part=lambda rows, part: heard.append(list(rows)))
    assert np.array_equal(vectors, HashEmbedder().embed(texts))
    assert sorted(r for rows in heard for r in rows) == list(range(5))  # each row once
    if cached_size == "same":
        assert heard[-1] == [1, 2]  # the cached ones last, once the model's size is known to match
