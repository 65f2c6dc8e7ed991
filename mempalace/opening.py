"""How a palace is opened: a shared folder (the default), a private embedded one, or a server's."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Callable

from .catalog import Catalog
from .config import Settings
from .errors import ConfigError, PalaceUnavailableError
from .sharing import Lease, check_writable, shared_server
from .store import ChromaStore, check_palace_dir
from .store.shared import SharedStore

CATALOG_FILE = "mempalace_catalog.sqlite3"


def palace_parts(path: str | os.PathLike[str] | None, url: str | None, settings: Settings, create: bool,
                 private: bool | None) -> tuple[Any, ...]:
    """(store, catalog, settings, lock, lease) for `Palace`, opened as `Palace.open` documents."""
    if path is None and url is None:
        url = os.environ.get("MEMPALACE_URL") or None
    where = Path(path).expanduser() if path else settings.default_palace
    private = not settings.shared if private is None else private
    if url:
        store = ChromaStore.remote(url, chroma_embedding_function(settings), create, settings.server_token)
        key = hashlib.sha256(f"{url}|{store.collection_id}".encode()).hexdigest()[:24]
        return _with_catalog(store, settings, lambda: Catalog(settings.cache_dir / f"{key}.sqlite3"))
    if private:
        store, lock = _open_embedded(where, chroma_embedding_function(settings), settings, create)
        return _with_catalog(store, settings, lambda: Catalog(where / CATALOG_FILE), lock)
    return _open_shared(where.resolve(), settings, create)


def chroma_embedding_function(settings: Settings) -> Any:
    """Chroma's view of the configured embedder (importing it loads chromadb)."""
    from .store.embedding_function import PalaceEmbeddingFunction

    return PalaceEmbeddingFunction(embedder_name=settings.embedder)


def _check_embedder(recorded: str | None, settings: Settings) -> None:
    """Refuse to open a palace built with another embedder than the configured one."""
    if recorded and recorded != settings.embedder:
        raise ConfigError(
            f"This palace was built with the {recorded!r} embedder but {settings.embedder!r} is "
            f"configured; set embedder = \"{recorded}\" in {settings.home / 'config.toml'}."
        )


def _with_catalog(store: ChromaStore, settings: Settings, catalog: Callable[[], Catalog],
                  lock: Any = None) -> tuple[Any, ...]:
    """What `Palace` is made of, once the store's embedder is checked (nothing is written before)."""
    try:
        _check_embedder(store.recorded_embedder(), settings)
        return store, catalog(), settings, lock, None
    except BaseException:
        store.close()
        if lock:
            lock.release()
        raise


def _open_shared(where: Path, settings: Settings, create: bool) -> tuple[Any, ...]:
    """The shared catalog in the folder and a store that finds (or starts) the folder's server when
    Chroma is first needed; the embedder is checked against the catalog's record, else Chroma's."""
    check_palace_dir(where, create)
    if create:
        where.mkdir(parents=True, exist_ok=True)
    check_writable(where)
    catalog = Catalog(where / CATALOG_FILE)
    store = SharedStore(str(where), lambda: shared_server(where, settings.server_idle_seconds),
                        lambda: chroma_embedding_function(settings), create, catalog.get_state("collection"))
    try:
        recorded = catalog.get_state("embedder") or store.recorded_embedder()
        _check_embedder(recorded, settings)
        if recorded and catalog.get_state("embedder") != recorded:
            catalog.set_state("embedder", recorded)
    except BaseException:
        catalog.close()
        store.close()
        raise
    return store, catalog, settings, None, Lease(where)


def _open_embedded(where: Path, ef: Any, settings: Settings,
                   create: bool) -> tuple[ChromaStore, Any]:
    """Lock the palace directory first, then let Chroma open it."""
    check_palace_dir(where, create)
    from .locking import PalaceLock  # filelock: only a private palace takes the lock itself

    lock = PalaceLock(where, settings.lock_timeout_seconds)
    try:
        where.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except OSError as exc:  # a read-only folder: the lock file cannot be made
        raise PalaceUnavailableError(
            f"The palace at {where} cannot be opened: MemPalace cannot write its lock there ({exc.strerror}). "
            "Copy the palace to a writable folder and open the copy."
        ) from None
    try:
        return ChromaStore.embedded(where, ef, create), lock
    except BaseException:
        lock.release()
        raise


