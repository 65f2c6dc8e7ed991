"""A room's best other names, ranked as ingest ranks names (from a sample of its conversations, in the
palace as it is now): so a person can rename a room to one in a click."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..catalog.placements import names_in
from ..errors import PlaceNotFoundError
from ..rooms.choice import TopicRooms
from ..rooms.naming import GENERAL, Meaning, PhraseTally, RoomChooser, room_key
from ..rooms.part_phrases import read_part
from .planning import said_in
from .vector_cache import remembering_embed

SAMPLED_DRAWERS = 40  # drawers read, spread over the room, to name it
SHOWN = 5
EXTRA = 5  # more ranked than shown, as some may be held by rooms out of sight or be earlier names


def name_alternatives(palace: Any, room: str, count: int = SHOWN) -> tuple[str, ...]:
    """Up to `count` names for `room` other than its own, best first; never a name another room holds.
    `palace` is a Palace or a scoped view (which sees the room's drawers in its wings only)."""
    stored = palace.stored_room(room)
    ids = palace.drawer_ids(room=stored)
    if not ids:
        raise PlaceNotFoundError(f"No room named {room!r} here.")
    taken = min(len(ids), SAMPLED_DRAWERS)
    drawers = list(palace.get_drawers([ids[n * len(ids) // taken] for n in range(taken)]).values())
    conversations: dict[tuple[str, str], list[Any]] = {}
    for drawer in sorted(drawers, key=lambda d: (d.parent_id or d.id, d.chunk_index)):
        conversations.setdefault((drawer.wing, drawer.parent_id or drawer.id), []).append(drawer)
    chooser = RoomChooser([r for r in palace.list_rooms() if r != stored], palace.widespread_words,
                          wings=palace.list_wings())
    TopicRooms(chooser).count_words_with(palace.word_documents)  # word rarity in the palace, for the scores
    tally = PhraseTally(read_part(said_in([d.content for d in found], _named(found, "speakers"), _named(found, "machines")),
                                  found[0].title, _named(found, "speakers"), wing)
                        for (wing, _), found in sorted(conversations.items()))
    rank = None
    if palace.embeds_meaning:
        centre = np.asarray(palace.embed([d.content for d in drawers]), np.float32).sum(axis=0)
        rank = Meaning(remembering_embed(palace), centre)
    names, _ = chooser.ranked(tally, rank, stored, limit=count + 1 + EXTRA)
    return tuple(name for name, _ in names if name != GENERAL and room_key(name) != room_key(stored)
                 and palace.room_name_free(name))[:count]


def _named(drawers: list[Any], key: str) -> tuple[str, ...]:
    """The speakers (or the machines: bots' names) of a conversation's drawers, from their metadata."""
    return tuple(dict.fromkeys(name for d in drawers for name in names_in(d.extra, key)))
