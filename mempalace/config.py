"""Every setting in one place: defaults, then `$MEMPALACE_HOME/config.toml`, then environment.

`MEMPALACE_HOME` (default `~/.mempalace`) holds all state: the default palace, caches of server
palaces and the config file. Tests point it at a temporary directory.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .access.rules import is_loopback
from .errors import ConfigError, InvalidInputError
from .text.names import room_slug


DEFAULT_EMBEDDER = "minilm-int8"


@dataclass(frozen=True)
class Settings:
    """What a palace needs to know besides where it is."""

    home: Path
    embedder: str = DEFAULT_EMBEDDER
    embedder_chosen: bool = False  # set by config or environment: a new palace never picks one by its languages
    shared: bool = True  # a palace folder is served to every process at once; false: private, embedded
    server_idle_seconds: float = 600.0  # a shared palace's server stops after this long unused
    duplicate_threshold: float = 0.9
    trash_days: float = 30.0  # a deleted drawer is kept this long in the trash (0: deleted for good at once)
    backups_keep: int = 0  # above 0: a shared palace's host backs it up daily, keeping this many backups
    backups_dir: str = ""  # where `mempalace backup` writes (default: MEMPALACE_HOME/backups)
    max_content_chars: int = 100_000
    drawer_chars: int = 1_000
    max_query_chars: int = 4_000
    max_limit: int = 1_000
    foreign_check_seconds: float = 10.0
    lock_timeout_seconds: float = 0.5
    ingest_drawer_chars: int = 800
    max_ingest_bytes: int = 200 * 1024 * 1024
    max_unzipped_bytes: int = 1024 * 1024 * 1024
    sources_sync_seconds: float = 60.0  # how often registered sources are synced while the palace is in use
    sources_sync_limit_seconds: float = 600.0  # a sync the host started that runs longer is stopped
    source_dirs: tuple[str, ...] = ()  # folders under which a signed-in admin may add sources (none: no one may)
    server_token: str = ""  # sent as a bearer token to a Chroma server behind a token-checking proxy
    access: tuple[Any, ...] = ()  # the [[access]] rules: who may read or change which wings (mempalace.access)
    trust_unverified_email: bool = False  # true: a sign-in whose provider sends no email_verified counts
    names_endpoint: str = ""  # an OpenAI-compatible base URL (Ollama: http://localhost:11434/v1) that names new rooms
    names_model: str = ""  # the model there that names them
    names_api_key: str = ""  # sent as a bearer token, when the endpoint wants one
    names_seconds: float = 30.0  # the most one ingest waits for the model's names in all
    names_allow_remote: bool = False  # true: names_endpoint may be on another machine (room samples go there)
    graph_hidden_rooms: tuple[str, ...] = ("general",)
    tunnel_stop_rooms: tuple[str, ...] = (
        "misc", "miscellaneous", "other", "random", "general-discussion", "discussion", "chat", "notes",
        "untitled", "uncategorized", "unsorted", "stuff", "questions", "help",
    )

    @property
    def default_palace(self) -> Path:
        return self.home / "palace"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def backups_folder(self) -> Path:
        return Path(self.backups_dir).expanduser() if self.backups_dir else self.home / "backups"


_ENV = {
    "embedder": "MEMPALACE_EMBEDDER",
    "shared": "MEMPALACE_SHARED",
    "duplicate_threshold": "MEMPALACE_DUPLICATE_THRESHOLD",
    "server_token": "MEMPALACE_SERVER_TOKEN",
    "names_api_key": "MEMPALACE_NAMES_API_KEY",
}


def load_settings(home: str | os.PathLike[str] | None = None, **overrides: Any) -> Settings:
    """Settings for `home` (or `$MEMPALACE_HOME`, or `~/.mempalace`), with explicit overrides last."""
    root = Path(home or os.environ.get("MEMPALACE_HOME") or Path.home() / ".mempalace").expanduser()
    values: dict[str, Any] = {}
    config_file = root / "config.toml"
    if config_file.is_file():
        try:
            values.update(tomllib.loads(config_file.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{config_file} is not valid TOML: {exc}") from exc
    for key, variable in _ENV.items():
        if os.environ.get(variable):
            values[key] = os.environ[variable]
    values.update({k: v for k, v in overrides.items() if v is not None})
    if "embedder" in values:
        values.setdefault("embedder_chosen", True)
    return _typed(Settings(home=root), values, config_file)


def _typed(base: Settings, values: dict[str, Any], source: Path) -> Settings:
    known = {f.name: f for f in fields(Settings) if f.name != "home"}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ConfigError(f"Unknown setting(s) {', '.join(unknown)} (from {source} or the environment).")
    typed: dict[str, Any] = {}
    for key, value in values.items():
        kind = type(getattr(base, key))
        if key == "access":
            from .access.rules import parse_rules  # the rules' own module checks them

            typed[key] = parse_rules(value)
            continue
        if key == "source_dirs":
            typed[key] = _folder_list(key, value)
            continue
        if kind is tuple:
            typed[key] = _room_list(key, value)
            continue
        if kind is bool:
            typed[key] = _flag(key, value)
            continue
        try:
            if isinstance(value, bool) or (kind is int and isinstance(value, float)):
                raise TypeError
            typed[key] = kind(value)
        except (TypeError, ValueError):
            raise ConfigError(f"Setting {key} must be a {kind.__name__}, got {value!r}.") from None
    settings = replace(base, **typed)
    for key, (low, high) in _RANGES.items():
        if not low <= getattr(settings, key) <= high:
            raise ConfigError(f"Setting {key} must be between {low} and {high}, got {getattr(settings, key)!r}.")
    if not settings.duplicate_threshold > 0:
        raise ConfigError("Setting duplicate_threshold must be above 0.")
    check_names_endpoint(settings)
    return settings


def check_names_endpoint(settings: Settings) -> None:
    """A names_endpoint must be an http(s) base URL with a model named, on this machine unless
    names_allow_remote (then https): the lines sent are the person's conversations."""
    url = settings.names_endpoint
    if not url:
        return
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ConfigError(f"Setting names_endpoint must be an http(s) base URL such as http://localhost:11434/v1, "
                          f"got {url!r}.")
    if not settings.names_model:
        raise ConfigError("Setting names_endpoint is set but names_model is not: say which model names rooms.")
    if not is_loopback(parts.hostname):
        if not settings.names_allow_remote:
            raise ConfigError(f"Setting names_endpoint {url!r} is not on this machine; set names_allow_remote = true "
                              "to send room samples to it.")
        if parts.scheme != "https":
            raise ConfigError(f"Setting names_endpoint {url!r} is on another machine: it must be https.")


def _flag(key: str, value: Any) -> bool:
    """A yes/no setting: a TOML boolean, or 1/0, true/false, yes/no, on/off from the environment."""
    if isinstance(value, bool):
        return value
    words = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise ConfigError(f"Setting {key} must be true or false, got {value!r}.")


def _folder_list(key: str, value: Any) -> tuple[str, ...]:
    """A list setting of folders (a TOML list, or paths separated by os.pathsep), made absolute."""
    items = value.split(os.pathsep) if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
        raise ConfigError(f"Setting {key} must be a list of folders, got {value!r}.")
    return tuple(str(Path(i.strip()).expanduser().resolve()) for i in items if i.strip())


def _room_list(key: str, value: Any) -> tuple[str, ...]:
    """A list setting of room names (a TOML list; comma-separated text is accepted too), slugged."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
        raise ConfigError(f"Setting {key} must be a list of room names, got {value!r}.")
    try:
        return tuple(room_slug(i) for i in items if i.strip())
    except InvalidInputError as exc:
        raise ConfigError(f"Setting {key}: {exc}") from None


_RANGES: dict[str, tuple[float, float]] = {
    "duplicate_threshold": (0.0, 1.0),
    "max_content_chars": (1, 10_000_000),
    "drawer_chars": (100, 100_000),
    "max_query_chars": (1, 100_000),
    "max_limit": (1, 100_000),
    "foreign_check_seconds": (0.0, 86_400.0),
    "lock_timeout_seconds": (0.0, 3_600.0),
    "server_idle_seconds": (1.0, 7 * 86_400.0),
    "sources_sync_seconds": (1.0, 86_400.0),
    "sources_sync_limit_seconds": (1.0, 7 * 86_400.0),
    "ingest_drawer_chars": (200, 50_000),
    "max_ingest_bytes": (1, 1 << 40),
    "max_unzipped_bytes": (1, 1 << 40),
    "names_seconds": (0.0, 3_600.0),
    "trash_days": (0.0, 3_650.0),
    "backups_keep": (0, 10_000),
}
