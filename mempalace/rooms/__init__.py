"""Rooms from the data: which room a conversation part joins (`choice`, by meaning and words) and
what a room is called (`naming`, from its conversations' phrases); `choice` uses `naming`, never the reverse."""

from .._faces import lazy_names

__all__ = ["ModelNamer", "RoomChooser", "RoomProfile", "TopicRooms", "room_key", "topic_segments"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["TopicRooms", "topic_segments"], "choice"),
    **dict.fromkeys(["RoomChooser", "room_key"], "naming"),
    **dict.fromkeys(["RoomProfile"], "profile"),
    **dict.fromkeys(["ModelNamer"], "model_names"),
})
