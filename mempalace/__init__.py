"""MemPalace: a local-first memory palace for AI conversations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _moved

__version__ = "0.1.0"
__all__ = ["HALLS", "AddResult", "Drawer", "DuplicateMatch", "MempalaceError", "Palace", "PalaceStatus",
           "SearchHit"]
_HOMES = {"Palace": "palace.palace", "MempalaceError": "errors", **dict.fromkeys(
    ["HALLS", "AddResult", "Drawer", "DuplicateMatch", "PalaceStatus", "SearchHit"], "models")}

_moved.install()  # the old flat paths still import for one release, with a warning

if TYPE_CHECKING:
    from .errors import MempalaceError
    from .models import HALLS, AddResult, Drawer, DuplicateMatch, PalaceStatus, SearchHit
    from .palace.palace import Palace


def __getattr__(name: str) -> Any:
    """The public names, imported on first use: a short command loads only the modules it needs."""
    if name not in _HOMES:
        raise AttributeError(f"module 'mempalace' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
