"""The palace as one person or token may see and change it: `ScopedPalace` and its parts, and the one
list of what a scoped view exposes (`exposure`)."""

from .._faces import lazy_names

__all__ = ["ScopedPalace"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["ScopedPalace"], "palace"),
}, former="palace")
