"""`ingest`: a transcript becomes verbatim drawers with a wing, a room and a hall, idempotently.

A drawer's id is the hash of its text, so what is already stored is found without embedding it:
re-ingesting a file, a renamed copy, or a later export that contains it only files what is new.
When a conversation has grown, its stored drawers whose text is inside a new, longer drawer are
replaced by it. A file is filed all or nothing: if writing fails part-way, what this run added is
removed again, and running it again completes it.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

import numpy as np

from .. import formats
from ..errors import MalformedSourceError, MempalaceError
from ..formats.base import Conversation, Source
from ..models import DrawerDraft
from ..naming import room_slug, wing_name
from ..palace import Palace
from .chunks import Chunk, chunk_conversation
from .halls import HallClassifier
from .report import IngestReport, PlannedDrawer
from .rooms import RoomChooser

Progress = Callable[[int, int], None]
EMBED_BATCH = 256
WRITE_BATCH = 2_000
_CLASSIFIERS: dict[str, HallClassifier] = {}  # by embedder name: the examples are embedded once
SEGMENT_CHUNKS = 8  # a conversation longer than 1.5 × this gets a room per segment of this many drawers
_GENERIC_NAME = re.compile(r"^(conversations?|session-.*|rollout-.*|export|chats?|transcript|upload|untitled)$",
                           re.IGNORECASE)
_WALKED = {".jsonl", ".json", ".txt", ".md", ".markdown", ".log", ".zip"}


@dataclass
class _Plan:
    source: str
    format: str
    conversations: int
    drawers: list[PlannedDrawer] = field(default_factory=list)
    drafts: list[DrawerDraft] = field(default_factory=list)
    replaces: list[str] = field(default_factory=list)


def ingest(palace: Palace, source: str | os.PathLike[str] | bytes, filename: str | None = None,
           wing: str | None = None, room: str | None = None, format: str | None = None,
           dry_run: bool = False, progress: Progress | None = None) -> IngestReport:
    """Ingest one file, folder (Slack export) or uploaded bytes; problems are reported, not raised."""
    wing, room = (wing_name(wing) if wing else None), (room_slug(room) if room else None)
    name = filename or (Path(source).name if not isinstance(source, bytes) else "upload")
    detected = None
    try:
        src = _source(palace, source, name)
        detected, conversations = _parse(src, format)
        plan = _plan(palace, src, detected, conversations, wing, room)
        vectors = _classify(palace, plan, progress)
    except MempalaceError as exc:
        return IngestReport(source=name, format=detected, errors=(str(exc),), dry_run=dry_run)
    if dry_run:
        return _report(plan, added=(), near=0, dry_run=True)
    return _file(palace, plan, vectors)


def ingest_paths(palace: Palace, paths: Iterable[str | os.PathLike[str]], **options: object) -> list[IngestReport]:
    """Ingest files and folders; folders are walked for transcript files (a Slack export is one)."""
    reports = []
    for source in expand_paths(paths):
        reports.append(ingest(palace, source, **options))  # type: ignore[arg-type]
    return reports


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The sources under `paths`: named files as given, folders walked for transcript-like files."""
    found: list[Path] = []
    for path in map(Path, paths):
        if not path.is_dir() or formats.slack.accept(Source.from_path(path)):
            found.append(path)
            continue
        for folder, dirs, files in os.walk(path):
            here = Path(folder)
            kept = []
            for sub in sorted(d for d in dirs if not d.startswith(".")):
                (found.append(here / sub) if formats.slack.accept(Source.from_path(here / sub)) else kept.append(sub))
            dirs[:] = kept
            found += [here / f for f in sorted(files) if not f.startswith(".") and Path(f).suffix.lower() in _WALKED]
    return found


def drawer_id(content: str) -> str:
    """Ingested drawers are named by their text, so the same text is never filed twice."""
    return "drawer_" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:24]


def _source(palace: Palace, source: str | os.PathLike[str] | bytes, name: str) -> Source:
    caps = {"max_bytes": palace.settings.max_ingest_bytes, "max_unzipped_bytes": palace.settings.max_unzipped_bytes}
    if isinstance(source, (bytes, bytearray)):
        return Source.from_bytes(bytes(source), name, **caps)
    found = Source.from_path(source, **caps)
    return Source(name=name, path=found.path, **caps)


def _parse(src: Source, format_name: str | None) -> tuple[str, list[Conversation]]:
    try:
        detected, conversations = formats.parse(src, format_name)
    except MempalaceError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise MalformedSourceError(f"{src.name} could not be read ({type(exc).__name__}: {exc}).") from None
    if not conversations:
        raise MalformedSourceError(f"{src.name}: no conversations with any text were found in it.")
    return detected, conversations


def _plan(palace: Palace, src: Source, fmt: str, conversations: list[Conversation], wing: str | None,
          room: str | None) -> _Plan:
    plan = _Plan(src.name, fmt, len(conversations))
    chunked = [chunk_conversation(c, palace.settings.ingest_drawer_chars) for c in conversations]
    ids = [[drawer_id(chunk.content) for chunk in chunks] for chunks in chunked]
    present = palace.find_drawers([i for group in ids for i in group])
    chooser: RoomChooser | None = None
    seen: set[str] = set()
    names = {n for c in conversations for n in (*c.speakers, c.place or "")} | {"continued"}
    for number, (conversation, chunks, conversation_ids) in enumerate(zip(conversations, chunked, ids)):
        new = [i for i, d in enumerate(conversation_ids) if d not in present and d not in seen]
        if new and room is None and chooser is None:
            chooser = RoomChooser(palace.list_rooms())
        rooms = _rooms(chooser, conversation, chunks, room, names) if new else {}
        place = wing or _default_wing(conversation, src, fmt)
        parent = _conversation_key(fmt, conversation)
        for index, (chunk, identity) in enumerate(zip(chunks, conversation_ids)):
            stored = present.get(identity)
            base = dict(id=identity, content=chunk.content, conversation=number, chunk_index=index,
                        conversation_id=conversation.id, title=conversation.title, date=conversation.started)
            if stored or identity in seen:
                where = (stored.wing, stored.room, stored.hall or "") if stored else (place, rooms[index], "")
                plan.drawers.append(PlannedDrawer(wing=where[0], room=where[1], hall=where[2], status="present", **base))
                continue
            seen.add(identity)
            plan.drawers.append(PlannedDrawer(wing=place, room=rooms[index], hall="", status="new", **base))
            plan.drafts.append(_draft(src, fmt, conversation, chunk, identity, place, rooms[index], index, parent))
        if new:
            plan.replaces += _superseded(palace, parent, set(conversation_ids), [chunks[i].content for i in new])
    return plan


def _rooms(chooser: RoomChooser | None, conversation: Conversation, chunks: list[Chunk], forced: str | None,
           names: set[str]) -> dict[int, str]:
    """A room per drawer index: one per conversation, or one per segment of a long conversation."""
    if forced or chooser is None:
        return {i: forced or "general" for i in range(len(chunks))}
    size = len(chunks) if len(chunks) <= SEGMENT_CHUNKS * 3 // 2 else SEGMENT_CHUNKS
    rooms: dict[int, str] = {}
    for start in range(0, len(chunks), size):
        segment = chunks[start : start + size]
        chosen = chooser.choose([c.content for c in segment], conversation.title, names)
        rooms.update({start + i: chosen for i in range(len(segment))})
    return rooms


def _draft(src: Source, fmt: str, conversation: Conversation, chunk: Chunk, identity: str, wing: str, room: str,
           index: int, parent: str) -> DrawerDraft:
    extra = {
        "format": fmt, "conversation_id": conversation.id, "conversation_title": conversation.title,
        "speakers": ", ".join(conversation.speakers) or None, "conversation_date": conversation.started,
        "content_hash": hashlib.sha256(chunk.content.encode("utf-8")).hexdigest(), "added_by": "mempalace-ingest",
    }
    return DrawerDraft(id=identity, content=chunk.content, wing=wing, room=room, source_file=src.name,
                       chunk_index=index, parent_id=parent, extra={k: v for k, v in extra.items() if v})


def _default_wing(conversation: Conversation, src: Source, fmt: str) -> str:
    """Project folder (Claude Code, Codex) or channel (Slack) when known, else the file's name."""
    stem = PurePosixPath(src.name).stem if not src.is_dir else src.name
    for candidate in (conversation.place, None if _GENERIC_NAME.match(stem) else stem, fmt):
        if candidate:
            try:
                return wing_name(candidate)
            except MempalaceError:
                continue
    return wing_name(fmt)


def _conversation_key(fmt: str, conversation: Conversation) -> str:
    """Stable across re-exports: the source's conversation id, else the first message's text."""
    first = conversation.messages[0] if conversation.messages else None
    basis = conversation.id or (f"{first.speaker}\0{first.text}" if first else "")
    return "conv_" + hashlib.sha256(f"{fmt}\0{basis}".encode("utf-8")).hexdigest()[:24]


def _superseded(palace: Palace, parent: str, keep: set[str], new_texts: Sequence[str]) -> list[str]:
    """Stored drawers of this conversation whose whole text now sits inside a new, longer drawer."""
    return [d.id for d in palace.drawers_of(parent)
            if d.id not in keep and any(d.content in text for text in new_texts)]


def _classify(palace: Palace, plan: _Plan, progress: Progress | None) -> np.ndarray:
    """Embed the new drawers (the slow part, reported to `progress`) and give each its hall."""
    texts = [d.content for d in plan.drafts]
    parts = []
    for start in range(0, len(texts), EMBED_BATCH):
        parts.append(palace.embed(texts[start : start + EMBED_BATCH]))
        if progress:
            progress(min(start + EMBED_BATCH, len(texts)), len(texts))
    vectors = np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)
    name = palace.settings.embedder
    if name not in _CLASSIFIERS:
        _CLASSIFIERS[name] = HallClassifier(palace.embed)
    halls = _CLASSIFIERS[name].classify(texts, vectors) if texts else []
    plan.drafts = [replace(d, hall=h) for d, h in zip(plan.drafts, halls)]
    by_id = {d.id: d.hall for d in plan.drafts}
    plan.drawers = [replace(d, hall=by_id[d.id]) if d.status == "new" else d for d in plan.drawers]
    return vectors


def _file(palace: Palace, plan: _Plan, vectors: np.ndarray) -> IngestReport:
    added: list[str] = []
    near = 0
    threshold = palace.settings.duplicate_threshold
    total = len(plan.drafts)
    try:
        for start in range(0, total, WRITE_BATCH):
            batch = plan.drafts[start : start + WRITE_BATCH]
            batch_vectors = vectors[start : start + WRITE_BATCH]
            matches = palace.nearest_existing(batch_vectors, exclude=[*added, *plan.replaces])
            near += sum(1 for m in matches if m and m[1] >= threshold)
            last = start + WRITE_BATCH >= total
            palace.file_drawers(batch, batch_vectors, replaces=plan.replaces if last else ())
            added += [d.id for d in batch]
    except MempalaceError as exc:
        undone = _undo(palace, added)
        return IngestReport(source=plan.source, format=plan.format, conversations=plan.conversations,
                            errors=(f"{plan.source}: filing failed part-way ({exc}); {undone}",))
    return _report(plan, added=tuple(added), near=near, dry_run=False)


def _undo(palace: Palace, added: list[str]) -> str:
    try:
        palace.delete_drawers(added)
    except MempalaceError:
        return "some drawers may remain: running the ingest again completes it without duplicates."
    return "nothing from this file was kept; run it again to retry."


def _report(plan: _Plan, added: tuple[str, ...], near: int, dry_run: bool) -> IngestReport:
    new = [d for d in plan.drawers if d.status == "new"]
    return IngestReport(
        source=plan.source, format=plan.format, conversations=plan.conversations, planned=len(plan.drawers),
        added=len(added), already_present=len(plan.drawers) - len(new), replaced=0 if dry_run else len(plan.replaces),
        near_duplicates=near, dry_run=dry_run, wings=tuple(sorted({d.wing for d in new})),
        rooms=tuple(sorted({d.room for d in new})), drawer_ids=added,
        drawers=tuple(plan.drawers) if dry_run else (),
    )
