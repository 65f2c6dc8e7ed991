"""Text as every layer reads it, knowing nothing of palaces: verbatim chunking, clean names (room
slugs, wing and hall names), blobs, CJK character pairs and counts as people write them."""

from .._faces import lazy_names

__all__ = ["counted", "fold", "hall_name", "plural", "room_slug", "split_verbatim", "wing_name"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["room_slug", "wing_name", "hall_name", "fold"], "names"),
    **dict.fromkeys(["split_verbatim"], "chunking"),
    **dict.fromkeys(["counted", "plural"], "counts"),
})
