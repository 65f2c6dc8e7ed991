"""Planning an ingest: which drawers a source makes, which are new, and where each new one goes."""

from __future__ import annotations

import bisect
import functools
import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..catalog.placements import PERSON
from ..embedding.embedders import likeness_scale
from ..formats.base import Conversation, Source, conversation_key
from ..halls.classifier import HallClassifier
from ..models import DrawerDraft
from ..palace.demo_drawers import demo_places
from ..palace.palace import Palace
from ..rooms.choice import TopicRooms
from ..rooms.model_names import ModelNamer, model_names_for
from ..rooms.naming import GENERAL, RoomChooser
from ..rooms.words import people_words
from ..text import blobs
from ..text.drawer_chunks import MESSAGE_GAP, Chunk, chunk_conversation, prose, read_through, without_cut_labels
from .report import PlannedDrawer
from .vector_cache import PartHeard, embed_cached, remembering_embed, signatures_cached
from .wings import CHOSEN, EARLIER, WingChoice, default_wing

Progress = Callable[[int, int], None]
EMBED_BATCH = 256
SEGMENT_CHUNKS = 8  # a grown conversation's new drawers keep its stored room up to this many past it
ROOM_STATE = "topic_rooms"  # what an ingest leaves on the palace for the next one
PROFILE_DRAWERS = 20  # drawers per existing room read to learn what it holds
WING_SAMPLE = 500  # drawers per wing read for what its chats share


@dataclass
class Plan:
    """What one source would file: every drawer (new or present), the new ones as drafts."""

    source: str
    format: str
    conversations: int
    drawers: list[PlannedDrawer] = field(default_factory=list)
    drafts: list[DrawerDraft] = field(default_factory=list)
    replaces: list[str] = field(default_factory=list)
    parents: set[str] = field(default_factory=set)
    vectors: np.ndarray | None = None
    pending: list["Pending"] = field(default_factory=list)


@dataclass
class Pending:
    """Drafts of one conversation in one wing whose room is chosen once they are embedded."""

    wing: str
    title: str | None
    names: tuple[str, ...]
    ids: list[str] = field(default_factory=list)  # of drafts in Plan.drafts (a repeat may drop some)
    texts: list[str] = field(default_factory=list)  # the people's words of each
    named: list[str] = field(default_factory=list)  # and without bots' posts: what names rooms


@dataclass
class Run:
    """State shared by the sources of one ingest: forced places, the wing for plain text that names no
    project, the rooms handed out and the stored rooms renamed (in order)."""

    wing: str | None = None
    room: str | None = None
    rooms: TopicRooms | None = None
    date: str | None = None  # the day the conversations happened, where their source does not say
    text_wing: str | None = None
    renames: list[tuple[str, str]] = field(default_factory=list)
    embedded_with: str = ""  # the embedder that made the vectors of the group being filed
    names_model: ModelNamer | None | bool = False  # False until the settings are read: one namer per ingest


def drawer_id(content: str) -> str:
    """Ingested drawers are named by their text, so the same text is never filed twice."""
    return "drawer_" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:24]


def plan_source(palace: Palace, src: Source, fmt: str, conversations: list[Conversation], run: Run) -> Plan:
    """The drawers of a parsed source, each marked new or present; new ones get a wing and room."""
    plan = Plan(src.name, fmt, len(conversations))
    conversations = [_dated(c, run.date) for c in conversations]
    settings = palace.settings
    chunked = [chunk_conversation(c, settings.ingest_drawer_chars, settings.max_content_chars) for c in conversations]
    ids = [[drawer_id(chunk.content) for chunk in chunks] for chunks in chunked]
    present = palace.find_drawers([i for group in ids for i in group])
    names = {n for c in conversations for n in (*c.speakers, c.place or "")} | {"continued"}
    for number, (conversation, chunks, conversation_ids) in enumerate(zip(conversations, chunked, ids)):
        parent = conversation_key(fmt, conversation)
        plan.parents.add(parent)
        if all(i in present for i in conversation_ids):  # filed; an older version may still be left
            plan.replaces += _versions(palace, parent, conversation, chunks, set(conversation_ids))[0]
            _add_present(plan, number, conversation, chunks, conversation_ids, present)
            continue
        replaces, older, stored = _versions(palace, parent, conversation, chunks, set(conversation_ids))
        plan.replaces += replaces
        present.update(older)
        if all(i in present for i in conversation_ids):  # an older copy of a stored conversation
            _add_present(plan, number, conversation, chunks, conversation_ids, present)
            continue
        # Only a version shown to be this conversation (it replaces, repeats or shares drawers) lends
        # its places: conversations without an id are keyed by their first message, which can collide.
        same = bool(replaces or older or set(conversation_ids) & {d.id for d in stored})
        new = [i for i, identity in enumerate(conversation_ids) if identity not in present]
        earlier = _earlier_places(stored, len(chunks)) if same else {}
        places = _places(run, new, earlier, default_wing(conversation, src, fmt, run.text_wing))
        choosers = palace.room_choosers([earlier[i][2] for i in new if i in earlier]) if earlier and not run.room else {}
        halls = _persons_halls(palace, stored, replaces)
        waiting: dict[str, Pending] = {}
        for index, (chunk, identity) in enumerate(zip(chunks, conversation_ids)):
            if identity in present:
                _add_present(plan, number, conversation, [chunk], [identity], present, index)
                continue
            wing, room, wing_from = places[index]
            if room is None:
                part = waiting.setdefault(wing, Pending(wing, _text(conversation.title), tuple(sorted(names))))
                part.ids.append(identity)
                part.texts.append(blobs.removed(prose(chunk, conversation)))
                part.named.append(blobs.removed(prose(chunk, conversation, machines=False)))
            plan.drawers.append(PlannedDrawer(wing=wing, room=room or GENERAL, hall="", status="new", wing_from=wing_from,
                                              **_where(identity, chunk, number, index, conversation)))
            chooser = "person" if run.room else choosers.get(earlier[index][2], "ingest") if room else "ingest"
            draft = _draft(src, fmt, conversation, chunk, identity, wing, room or GENERAL, index, parent, chooser)
            plan.drafts.append(replace(draft, hall=halls[index], hall_by=PERSON) if index in halls else draft)
        plan.pending += waiting.values()
    return plan


def _dated(conversation: Conversation, day: str | None) -> Conversation:
    """`conversation`, started on `day` when its source does not say when it started."""
    if not day or conversation.started or not conversation.messages:
        return conversation
    first, *rest = conversation.messages
    return replace(conversation, messages=(replace(first, timestamp=day), *rest))


def _where(identity: str, chunk: Chunk, number: int, index: int, conversation: Conversation) -> dict:
    return dict(id=identity, content=chunk.content, conversation=number, chunk_index=index,
                conversation_id=_text(conversation.id), title=_text(conversation.title), date=conversation.dated)


def _add_present(plan: Plan, number: int, conversation: Conversation, chunks: list[Chunk], ids: list[str],
                 present: dict, first_index: int = 0) -> None:
    for index, (chunk, identity) in enumerate(zip(chunks, ids), start=first_index):
        stored = present[identity]
        plan.drawers.append(PlannedDrawer(wing=stored.wing, room=stored.room, hall=stored.hall or "", status="present",
                                          **_where(identity, chunk, number, index, conversation)))


def _versions(palace: Palace, parent: str, conversation: Conversation, chunks: list[Chunk],
              keep: set[str]) -> tuple[list[str], dict, list]:
    """Against the stored version of this conversation: the stored drawers the new (grown) one
    replaces, the new drawers an older copy of it would only repeat (id -> stored drawer), and all
    of the stored drawers."""
    everything = palace.drawers_of(parent)
    stored = [d for d in everything if d.id not in keep]
    if not stored:
        return [], {}, everything
    speakers = list(conversation.speakers)
    new_text = read_through(chunks, conversation)
    replaces = [d.id for d in stored if without_cut_labels(d.content, speakers) in new_text]
    old_text = without_cut_labels(MESSAGE_GAP.join(d.content for d in stored if d.id not in replaces), speakers)
    older = {drawer_id(c.content): stored[0] for c in chunks
             if old_text and without_cut_labels(c.content, speakers) in old_text}
    return replaces, older, everything


def _persons_halls(palace: Palace, stored: list, replaces: list[str]) -> dict[int, str | None]:
    """Chunk index -> the hall (or no hall) a person gave the stored drawer this grown conversation
    replaces there: the longer drawer keeps it, as it keeps the room."""
    if not replaces:
        return {}
    choosers = palace.hall_choosers(replaces)
    return {d.chunk_index: d.hall for d in stored if choosers.get(d.id) == PERSON}


def _earlier_places(stored: list, count: int) -> dict[int, tuple[str, str | None, str]]:
    """Drawer index → (wing, room, stored drawer id) that a grown conversation keeps from its stored
    version, wherever it was filed or moved: those of the nearest stored drawer at or before the
    index. Past one segment beyond the last stored drawer only the wing is kept (room None: chosen
    by meaning)."""
    places = sorted((d.chunk_index, d.wing, d.room, d.id) for d in stored)
    if not places:
        return {}
    starts = [p[0] for p in places]
    earlier = {}
    for index in range(count):
        _, wing, room, identity = places[max(bisect.bisect_right(starts, index) - 1, 0)]
        earlier[index] = (wing, room if index <= starts[-1] + SEGMENT_CHUNKS else None, identity)
    return earlier


def _places(run: Run, new: list[int], earlier: dict[int, tuple[str, str | None, str]],
            default: WingChoice) -> dict[int, tuple[str, str | None, str]]:
    """(wing, room, where the wing came from) for each new drawer: what the command forces, else what
    the stored version of the conversation has, else the default wing and room None: chosen by
    meaning once embedded."""
    places = {}
    for index in new:
        wing, room, _ = earlier.get(index, (None, None, ""))
        reason = CHOSEN if run.wing else EARLIER if wing else default.reason
        places[index] = (run.wing or wing or default.wing, run.room or room, reason)
    return places


def assign_rooms(palace: Palace, plans: list[Plan], run: Run) -> dict[str, str]:
    """Give the embedded drafts waiting for a room their rooms, conversation by conversation, then
    name the rooms they opened or grew from all they hold; returns the stored rooms to rename."""
    parts = [(plan, part, rows) for plan in plans for part, rows in _pending_rows(plan)]
    if not parts:
        return {}
    if run.rooms is None:
        run.rooms = room_choice(palace)
    if run.names_model is False:
        run.names_model = model_names_for(palace.settings)
    run.rooms.propose_names = run.names_model or None
    for plan, part, rows in parts:
        run.rooms.observe(part.wing, plan.vectors[rows])
    chosen: dict[str, str] = {}
    for plan in plans:
        for owner, part, rows in parts:
            if owner is plan:
                text_of, named_of = dict(zip(part.ids, part.texts)), dict(zip(part.ids, part.named))
                texts = [text_of[plan.drafts[r].id] for r in rows]
                rooms = run.rooms.assign(part.wing, plan.vectors[rows], texts, part.title, part.names,
                                         [named_of[plan.drafts[r].id] for r in rows])
                chosen.update(zip((plan.drafts[r].id for r in rows), rooms))
    stored = set(palace.list_rooms())
    renamed = run.rooms.settle_names(lambda room: palace.room_named_by_person(room))
    chosen = {i: renamed.get(room, room) for i, room in chosen.items()}
    for plan in plans:
        plan.drafts = [replace(d, room=chosen[d.id], room_aliases=run.rooms.aliases.get(chosen[d.id], ()))
                       if d.id in chosen else d for d in plan.drafts]
        plan.drawers = [replace(d, room=chosen[d.id]) if d.status == "new" and d.id in chosen else d
                        for d in plan.drawers]
        plan.pending = []
    return {old: new for old, new in renamed.items() if old in stored}


def needs_room_choice(plans: list[Plan], run: Run) -> bool:
    """Whether `assign_rooms` will need the palace's room choice and does not have it yet."""
    return run.rooms is None and any(_pending_rows(plan) for plan in plans)


def room_choice(palace: Palace) -> TopicRooms:
    """The last ingest's room choice, if nothing changed the palace since, else one made afresh."""
    return palace.take(ROOM_STATE) or topic_rooms(palace)


def _pending_rows(plan: Plan) -> list[tuple[Pending, list[int]]]:
    """Each waiting part with the rows of its drafts still in the plan (a repeat filed by an
    earlier file of the group is dropped from this one)."""
    row_of = {d.id: i for i, d in enumerate(plan.drafts)}
    found = [(part, [row_of[i] for i in part.ids if i in row_of]) for part in plan.pending]
    return [(part, rows) for part, rows in found if rows]


def keep_rooms(palace: Palace, run: Run, dry_run: bool) -> None:
    """Leave this ingest's room choice on the palace for the next ingest (not after a dry run,
    whose rooms were never filed)."""
    if run.rooms is not None and not dry_run:
        palace.park(ROOM_STATE, run.rooms)


def topic_rooms(palace: Palace) -> TopicRooms:
    """Room choice that knows the palace's rooms (from a sample of each one's drawers) and wings. The
    demo's rooms are no candidates (their names stay taken, so no room of real chats is a tunnel to
    the demo) and its wings do not count into what the palace's chats share."""
    demo, demo_wings = demo_places(palace)  # the demo's drawers read once
    wing_vectors = {w: v for w, v in palace.wing_vectors(WING_SAMPLE).items() if w not in demo_wings}
    rooms = TopicRooms(RoomChooser(palace.list_rooms(), palace.widespread_words),
                       wing_vectors=wing_vectors, embed=remembering_embed(palace) if palace.embeds_meaning else None,
                       wing_sizes=palace.list_wings(), signatures=signatures_cached(palace),
                       scale=likeness_scale(palace.settings.embedder))
    rooms.count_words_with(palace.word_documents)
    for room, samples in sorted(palace.room_samples(PROFILE_DRAWERS).items()):
        if room not in demo:
            remember_room(rooms, room, samples)
    held: Counter[tuple[str, str]] = Counter()
    for wing, room, _, drawers in palace.places():
        held[(wing, room)] += drawers
    for (wing, room), drawers in sorted(held.items()):
        rooms.set_room_size(room, wing, drawers)
    return rooms


def remember_room(rooms: TopicRooms, room: str, samples: list[tuple[str, str, str, np.ndarray]]) -> None:
    """Teach `rooms` what a stored room holds from (wing, conversation, text, vector) samples."""
    groups: dict[tuple[str, str], list[tuple[str, np.ndarray]]] = {}
    for wing, parent, content, vector in samples:
        groups.setdefault((wing, parent), []).append((content, vector))
    rooms.remember_many(room, [(wing, np.stack([v for _, v in members]), functools.partial(said_in, [c for c, _ in members]))
                               for (wing, _), members in sorted(groups.items())])


def said_in(contents: list[str], speakers: Sequence[str] = (), machines: Sequence[str] = ()) -> list[str]:
    """What people said in stored drawers (blobs out, `speakers`' labels and `machines`' posts out), as
    room choice reads texts."""
    return [people_words(blobs.removed(c), speakers, machines) for c in contents]


def _draft(src: Source, fmt: str, conversation: Conversation, chunk: Chunk, identity: str, wing: str, room: str,
           index: int, parent: str, room_by: str) -> DrawerDraft:
    extra = {
        "format": fmt, "conversation_id": _text(conversation.id), "conversation_title": _text(conversation.title),
        "speakers": ", ".join(conversation.speakers) or None, "conversation_date": conversation.dated,
        "machines": ", ".join(conversation.machines) or None,
        "content_hash": hashlib.sha256(chunk.content.encode("utf-8")).hexdigest(), "added_by": "mempalace-ingest",
        "mentions": conversation.mentions(chunk.content),  # names for the ids its text mentions (Slack)
    }
    return DrawerDraft(id=identity, content=chunk.content, wing=wing, room=room, source_file=src.name,
                       chunk_index=index, parent_id=parent, extra={k: v for k, v in extra.items() if v}, room_by=room_by,
                       hall_by="ingest")


def _text(value: object) -> str | None:
    return None if value is None or value == "" else str(value)


def classify(palace: Palace, plans: list[Plan], progress: Progress | None, remember: bool = False,
             on_part: PartHeard | None = None) -> None:
    """Embed the new drawers of `plans` together (the slow part, reported to `progress`), shortest
    first so batches pad little, and give each its hall. Vectors a dry run computed are reused from
    the palace's vector cache; `remember` (a dry run) stores those computed here for the real run.
    `on_part` hears each embedded part's places among the drafts and their vectors as soon as the model
    gives them (vectors from the cache at the end)."""
    drafts = [d for plan in plans for d in plan.drafts]
    if not drafts:
        for plan in plans:
            plan.vectors = np.zeros((0, 0), np.float32)
        return
    texts = [blobs.readable(d.content) for d in drafts]  # a blob is read as its description
    vectors = embed_cached(palace, texts, EMBED_BATCH, remember, progress, on_part)
    name = palace.settings.embedder
    classifier = palace.kept(("halls", name), lambda: HallClassifier(palace.embed, palace.settings.cache_dir, name))
    halls = classifier.classify(texts, vectors)
    start = 0
    for plan in plans:
        count = len(plan.drafts)
        plan.vectors = vectors[start : start + count]
        plan.drafts = [d if d.hall_by == PERSON else replace(d, hall=h)
                       for d, h in zip(plan.drafts, halls[start : start + count])]
        by_id = {d.id: d.hall for d in plan.drafts}
        plan.drawers = [replace(d, hall=by_id[d.id] or "") if d.status == "new" else d for d in plan.drawers]  # "" = no hall
        start += count


def drop_repeats(plans: list[Plan]) -> None:
    """A drawer text filed earlier in the group (by an earlier file, or earlier in the same one: a chat
    that repeats itself) is filed once, by the first; the repeats count as present."""
    seen: set[str] = set()
    for plan in plans:
        earlier, drafts = set(seen), []
        for draft in plan.drafts:
            if draft.id not in seen:
                drafts.append(draft)
                seen.add(draft.id)
        if len(drafts) == len(plan.drafts):
            continue
        new, first, drawers = {d.id for d in plan.drafts}, set(), []
        for drawer in plan.drawers:
            if drawer.id in new and (drawer.id in earlier or drawer.id in first):
                drawer = replace(drawer, status="present")
            elif drawer.id in new:
                first.add(drawer.id)
            drawers.append(drawer)
        plan.drafts, plan.drawers = drafts, drawers
