"""Package faces that load on first use: a package names its public parts and the module each lives in,
so a short command imports only what it needs."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any


def lazy_names(package: str, homes: dict[str, str], former: str | None = None) -> Callable[[str], Any]:
    """A package's `__getattr__`. A public name loads from its home module. With `former` (the module that
    now holds what the package's old single module held), any other name of it still resolves, with a
    DeprecationWarning naming its new home."""

    def __getattr__(name: str) -> Any:
        if name in homes:
            return getattr(importlib.import_module(f".{homes[name]}", package), name)
        if former and not name.startswith("__"):
            module = importlib.import_module(f".{former}", package)
            if not isinstance(getattr(module, name, module), ModuleType):  # a submodule imports as itself
                warnings.warn(f"{package}.{name} is now {package}.{former}.{name}; the old path goes in the next "
                              "release", DeprecationWarning, stacklevel=2)
                return getattr(module, name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
