"""`Palace`, the one object front ends hold, and its parts: opening, search, likeness, views of places,
re-rooming, moving to another embedder, the trash and undo, wake-up and the demo's drawers."""

from .._faces import lazy_names

__all__ = ["Palace"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["Palace"], "palace"),
}, former="palace")
