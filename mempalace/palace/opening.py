"""How a palace is opened: a shared folder (the default), a private embedded one, or a server's."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from ..catalog.build_progress import catalog_built
from ..catalog.catalog import CATALOG_FILE, Catalog
from ..catalog.sync import MOVING
from ..config import Settings
from ..embedding.embedders import EMBEDDERS
from ..errors import ConfigError, InvalidInputError, NotAPalaceError, PalaceNotFoundError, PalaceUnavailableError
from ..files.locks import WriteGate
from ..files.paths import checked_path
from ..files.privacy import owner_dir, refuse_untrusted
from ..server.shared_store import SharedStore
from ..server.starting import Lease, check_writable, host_started, shared_server
from ..store.chroma import CHROMA_FILE, ChromaStore

SERVER_SCHEMES = ("http", "https")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


@dataclass(frozen=True)
class Target:
    """What a palace path or server URL typed by a person points at (see `describe_target`):
    a Chroma server (`url`), a palace folder (`path`, resolved) or a folder with no palace yet."""

    kind: Literal["server", "palace", "missing"]
    path: Path | None = None
    url: str | None = None
    default: bool = False  # the default palace, which may be created on first use


def describe_target(text: str, settings: Settings) -> Target:
    """Where `text` points, looked at without creating anything.

    Empty text is the default palace. Only http:// and https:// are Chroma servers; any other
    `scheme://` is refused. A path expands `~`, and a relative one is taken from the home folder,
    never the working directory. A file, or a folder holding other things, is not a palace
    (`NotAPalaceError`)."""
    text = text.strip()
    scheme = _SCHEME.match(text)
    if scheme:
        if scheme.group(1).lower() not in SERVER_SCHEMES:
            raise InvalidInputError(
                f"{scheme.group(1)}:// is not a way to reach a palace: give a palace folder, or a Chroma "
                "server's address starting with http:// or https://.")
        return Target("server", url=text)
    default = settings.default_palace.expanduser().resolve()
    path = resolve_palace_path(text) if text else default
    return Target("palace" if palace_exists(path) else "missing", path=path, default=path == default)


def resolve_palace_path(text: str) -> Path:
    """A typed palace folder as an absolute path: `~` expanded, relative to the home folder."""
    try:
        where = Path(text.strip()).expanduser()
        return (where if where.is_absolute() else Path.home() / where).resolve()
    except (RuntimeError, ValueError, OSError) as exc:  # ~nobody, a NUL byte, a loop of links
        raise InvalidInputError(f"{text.strip()!r} is not a folder path MemPalace can use ({exc}).") from None


def palace_exists(path: Path) -> bool:
    """Whether a palace is at `path`; False where one could be made (nothing there, an empty folder).
    Raises `NotAPalaceError` for a file or a folder of other files."""
    try:
        check_palace_dir(path, create=False)
    except PalaceNotFoundError:
        return False
    except OSError as exc:  # a folder we may not list, a name too long
        raise PalaceUnavailableError(f"MemPalace cannot look at {path}: {exc.strerror or exc}.") from None
    return True


def palace_parts(path: str | os.PathLike[str] | None, url: str | None, settings: Settings, create: bool,
                 private: bool | None) -> tuple[Any, ...]:
    """(store, catalog, settings, lock, lease) for `Palace`, opened as `Palace.open` documents."""
    if path is None and url is None:
        url = os.environ.get("MEMPALACE_URL") or None
    where = checked_path(Path(path).expanduser() if path else settings.default_palace)
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
    from ..store.embedding_function import PalaceEmbeddingFunction

    return PalaceEmbeddingFunction(embedder_name=settings.embedder)


def _recorded_settings(recorded: str | None, settings: Settings) -> Settings:
    """The settings a palace is opened with: the configured embedder chooses only a new palace's; one
    that recorded its embedder keeps it (`mempalace embedder --to` moves it to another)."""
    if recorded and not recorded.startswith(MOVING):
        if recorded not in EMBEDDERS:
            raise ConfigError(f"This palace was built with the {recorded!r} embedder, which this MemPalace does "
                              f"not have (it has {', '.join(EMBEDDERS)}): upgrade MemPalace to open it.")
        return dataclasses.replace(settings, embedder=recorded)
    return settings


def _with_catalog(store: ChromaStore, settings: Settings, catalog: Callable[[], Catalog],
                  lock: Any = None) -> tuple[Any, ...]:
    """What `Palace` is made of, once the store's embedder is checked (nothing is written before)."""
    try:
        settings = _recorded_settings(store.recorded_embedder(), settings)
        opened = catalog()
        if (opened.get_state("embedder") or "").startswith(MOVING):  # a move killed right after its switch
            opened.set_state("embedder", settings.embedder)
        return store, opened, settings, lock, None
    except BaseException:
        store.close()
        if lock:
            lock.release()
        raise


def _open_shared(where: Path, settings: Settings, create: bool) -> tuple[Any, ...]:
    """The shared catalog in the folder and a store that finds (or starts) the folder's server when
    Chroma is first needed; the embedder is checked against the catalog's record, else Chroma's."""
    refuse_untrusted(where)
    check_palace_dir(where, create)
    if create:
        owner_dir(where)
    check_writable(where)
    catalog = Catalog(where / CATALOG_FILE)
    store = SharedStore(str(where), lambda: shared_server(where, settings.server_idle_seconds),
                        lambda: chroma_embedding_function(settings), create, catalog.get_state("collection") or None)
    try:
        if catalog.get_state("collection") is None and (where / CHROMA_FILE).exists():
            host_started(where, settings.server_idle_seconds, lambda: catalog_built(where / CATALOG_FILE))
            store.learn_collection(catalog.get_state("collection") or None)  # (its host built the catalog first)
        recorded = catalog.get_state("embedder")  # "": the host found none recorded (another tool's palace)
        if recorded is None or recorded.startswith(MOVING) or (recorded == "" and create and catalog.count() == 0):
            with WriteGate(catalog.path).passing():  # (a move's switch is not half seen)
                recorded = store.recorded_embedder()  # records ours on connecting
                if recorded:
                    catalog.set_state("embedder", recorded)
        settings = _recorded_settings(recorded or None, settings)
    except BaseException:
        catalog.close()
        store.close()
        raise
    return store, catalog, settings, None, Lease(where)


def _open_embedded(where: Path, ef: Any, settings: Settings,
                   create: bool) -> tuple[ChromaStore, Any]:
    """Lock the palace directory first, then let Chroma open it."""
    refuse_untrusted(where)
    check_palace_dir(where, create)
    from ..files.locks import PalaceLock  # only a private palace takes the lock itself

    lock = PalaceLock(where, settings.lock_timeout_seconds)
    try:
        owner_dir(where)
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


def check_palace_dir(path: Path, create: bool) -> None:
    """Raise unless `path` is a palace, or (with `create`) a place where one can be made."""
    if path.is_file():
        raise NotAPalaceError(f"{path} is a file, not a palace directory.")
    if not path.exists():
        if not create:
            raise PalaceNotFoundError(f"No palace at {path}. Create one with `mempalace init --palace {path}`.")
        return
    others = [p for p in path.iterdir() if not p.name.startswith("mempalace")]  # our lock and catalog
    if others and not (path / CHROMA_FILE).exists():
        raise NotAPalaceError(f"{path} is a directory with other files in it, not a palace.")
    if not (path / CHROMA_FILE).exists() and not create:
        raise PalaceNotFoundError(f"No palace at {path}. Create one with `mempalace init --palace {path}`.")
