"""Language data shipped inside registry packages (word lists, dictionaries, frequencies), each file
checked by sha256 before use, so a changed list cannot silently change every room name."""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path

from ..errors import ConfigError


def checked_file(package: str, relative: str, sha256: str) -> Path:
    """A data file inside an installed package, refused unless it is the one naming was tuned on."""
    try:
        path = Path(str(importlib.metadata.distribution(package).locate_file(relative)))
    except importlib.metadata.PackageNotFoundError as exc:
        raise ConfigError(f"The package {package!r} is not installed; run `pip install -e .` to get it.") from exc
    found = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
    if found != sha256:
        raise ConfigError(f"{path} has sha256 {found}, expected {sha256}. "
                          f"Reinstall it with `pip install --force-reinstall {package}`.")
    return path
