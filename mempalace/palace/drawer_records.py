"""Between stored records and the frozen values the core hands out: metadata in, `Drawer` out."""

from __future__ import annotations

import hashlib
from typing import Any

from ..access.audit import ACCESS_FILE
from ..catalog.catalog import Row
from ..catalog.catalog import CATALOG_FILE
from ..catalog.dates import first_day
from ..catalog.sync import GENERAL_ROOM, UNSORTED_WING
from ..errors import InvalidInputError
from ..models import HALL_BY, ROOM_ALIASES, ROOM_BY, Drawer, DrawerDraft, DuplicateMatch
from ..store.chroma import SEQ_KEY, Record
from ..text.names import hall_name, room_slug, wing_name

FILED_N = "filed_n"  # a drawer's place among those filed with it: ingest's order, which re-rooming replays
RESERVED_KEYS = {"wing", "room", "hall", "source_file", "chunk_index", "chunk_count", "parent_id",
                 "filed_at", FILED_N, "added_by", ROOM_BY, HALL_BY, ROOM_ALIASES, SEQ_KEY}


def extra_metadata(meta: dict[str, Any]) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    for key, value in meta.items():
        if key in RESERVED_KEYS - {"added_by"}:
            raise InvalidInputError(f"{key!r} is set by MemPalace and cannot be given as extra metadata.")
        if value is None:
            continue
        if not isinstance(value, (str, int, float, bool)):
            raise InvalidInputError(f"Metadata {key!r} must be text, a number or true/false.")
        extra[key] = value
    return extra


def match(row: Row, similarity: float) -> DuplicateMatch:
    return DuplicateMatch(row.id, round(float(similarity), 6), row.wing, row.room, row.content[:160])


def best_first(matches: list[DuplicateMatch]) -> list[DuplicateMatch]:
    return sorted({m.drawer_id: m for m in matches}.values(), key=lambda m: (-m.similarity, m.drawer_id))


def draft_metadata(draft: DrawerDraft, filed_at: str, stamp: int, position: int = 0) -> dict[str, Any]:
    extra = extra_metadata(draft.extra)
    hall = hall_name(draft.hall)
    return {
        "wing": wing_name(draft.wing), "room": room_slug(draft.room), **({"hall": hall} if hall else {}),
        **({"source_file": draft.source_file} if draft.source_file else {}), "chunk_index": draft.chunk_index,
        **({"parent_id": draft.parent_id} if draft.parent_id else {}), "filed_at": filed_at, FILED_N: position,
        "added_by": str(extra.pop("added_by", "mempalace")), SEQ_KEY: stamp, **extra, ROOM_BY: draft.room_by,
        HALL_BY: draft.hall_by, **({ROOM_ALIASES: " ".join(draft.room_aliases)} if draft.room_aliases else {}),
    }


def drawer_from_row(row: Row) -> Drawer:
    return Drawer(id=row.id, content=row.content, wing=row.wing, room=row.room, hall=row.hall or None,
                  source_file=row.source_file or None, chunk_index=row.chunk_index, parent_id=row.parent_id or None,
                  filed_at=row.filed_at or None, conversation_date=row.said or None, title=row.title or None)


def drawer_from_record(record: Record) -> Drawer:
    meta = dict(record.metadata)
    known = {k: meta.pop(k, None) for k in RESERVED_KEYS}
    return Drawer(
        id=record.id, content=record.document, wing=str(known["wing"] or UNSORTED_WING),
        room=str(known["room"] or GENERAL_ROOM), hall=known["hall"], source_file=known["source_file"],
        chunk_index=int(known["chunk_index"] or 0), parent_id=known["parent_id"],
        filed_at=known["filed_at"], added_by=known["added_by"], extra=meta, room_by=known[ROOM_BY],
        conversation_date=first_day(meta.get("conversation_date"), meta.get("date")) or None,
        title=str(meta["conversation_title"]) if meta.get("conversation_title") else None,
    )


def check_content(content: object, max_chars: int) -> None:
    """Refuse drawer content that is not non-empty, valid Unicode text within `max_chars`."""
    if not isinstance(content, str):
        raise InvalidInputError(f"Drawer content must be text, not {type(content).__name__}.")
    if not content.strip():
        raise InvalidInputError("Drawer content is empty.")
    try:
        content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"Drawer content is not valid Unicode text (a lone surrogate at character {exc.start})."
        ) from None
    if len(content) > max_chars:
        raise InvalidInputError(f"The content is {len(content):,} characters; the limit is {max_chars:,}.")


def id_list(values: object) -> list[str]:
    """A list or tuple of names or ids, refused clearly when it is anything else (one bare string too)."""
    if not isinstance(values, (list, tuple, set, frozenset)) or not all(isinstance(v, str) for v in values):
        raise InvalidInputError("Give a list of text values (drawer ids or room names).")
    return list(values)


def in_wings(within: tuple[str, ...] | None) -> dict[str, Any] | None:
    """Chroma's `where` for "in these wings" (None: anywhere)."""
    return None if within is None else {"wing": {"$in": list(within)}}


def access_path(catalog: Any) -> Any:
    """The access book sits next to the catalog: in the palace folder, or in the cache for a server."""
    return catalog.with_name(ACCESS_FILE) if catalog.name == CATALOG_FILE else catalog.with_suffix(".access.sqlite3")


def drawer_id_of(parent: str, index: int) -> str:
    """The id of a parent's `index`th drawer: from the content, so the same text gets the same ids."""
    return "drawer_" + hashlib.sha256(f"{parent}:{index}".encode()).hexdigest()[:24]
