"""MemPalace: a local-first memory palace for AI conversations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _moved
from ._faces import lazy_names

__version__ = "0.1.0"
__all__ = ["HALLS", "AddResult", "Drawer", "DuplicateMatch", "MempalaceError", "Palace", "PalaceStatus",
           "SearchHit"]
__getattr__ = lazy_names(__name__, {"Palace": "palace.palace", "MempalaceError": "errors", **dict.fromkeys(
    ["HALLS", "AddResult", "Drawer", "DuplicateMatch", "PalaceStatus", "SearchHit"], "models")})

_moved.install()  # the old flat paths still import for one release, with a warning

if TYPE_CHECKING:
    from .errors import MempalaceError
    from .models import HALLS, AddResult, Drawer, DuplicateMatch, PalaceStatus, SearchHit
    from .palace.palace import Palace

