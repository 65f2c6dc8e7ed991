"""MemPalace: a local-first memory palace for AI conversations."""

from .errors import MempalaceError
from .models import HALLS, AddResult, Drawer, DuplicateMatch, PalaceStatus, SearchHit
from .palace import Palace

__version__ = "0.1.0"
__all__ = ["HALLS", "AddResult", "Drawer", "DuplicateMatch", "MempalaceError", "Palace", "PalaceStatus",
           "SearchHit"]
