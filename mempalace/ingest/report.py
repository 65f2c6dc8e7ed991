"""What an ingest planned and did: typed values the CLI prints and the dashboard shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from ..text.counts import counted


@dataclass(frozen=True)
class PlannedDrawer:
    """One drawer an ingest would file (`new`) or found already stored (`present`, with its place)."""

    id: str
    content: str
    wing: str
    room: str
    hall: str
    status: Literal["new", "present"]
    conversation: int
    chunk_index: int
    conversation_id: str | None = None
    title: str | None = None
    date: str | None = None
    wing_from: str = ""  # why a new drawer goes to its wing ("project folder spotter", "ChatGPT export")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ConversationPlace:
    """Where one conversation of a source went (or would go): its new drawers' wings (each with why),
    rooms and halls (hall, count), and how many of its drawers were in the palace already."""

    name: str
    date: str | None
    new: int
    present: int
    wings: tuple[str, ...] = ()
    wings_from: tuple[str, ...] = ()
    rooms: tuple[str, ...] = ()
    halls: tuple[tuple[str, int], ...] = ()

    def line(self) -> str:
        """`'title' (2026-01-01): 2 new drawers → wing spotter (project folder spotter), room x, halls advice 2`."""
        line = f"{self.name[:60]!r}" + (f" ({self.date[:10]})" if self.date else "") + ": "
        parts = []
        if self.new:
            wings = dict.fromkeys(f"{w} ({why})" if why else w for w, why in zip(self.wings, self.wings_from))
            parts.append(f"{counted(self.new, 'new drawer')} → wing {', '.join(wings)}, "
                         f"{'rooms' if len(self.rooms) > 1 else 'room'} {', '.join(self.rooms)}, "
                         f"halls {', '.join(f'{hall} {count}' for hall, count in self.halls)}")
        if self.present:
            parts.append(f"{self.present} already in the palace")
        return line + "; ".join(parts)


def places_of(drawers: Sequence[PlannedDrawer]) -> tuple[ConversationPlace, ...]:
    """Each conversation's place, from the drawers an ingest planned (in conversation order)."""
    groups: dict[int, list[PlannedDrawer]] = {}
    for drawer in drawers:
        groups.setdefault(drawer.conversation, []).append(drawer)
    return tuple(_place(members) for _, members in sorted(groups.items()))


def _place(drawers: list[PlannedDrawer]) -> ConversationPlace:
    first = drawers[0]
    new = [d for d in drawers if d.status == "new"]
    pairs = dict.fromkeys((d.wing, d.wing_from) for d in new)
    halls = Counter(d.hall.removeprefix("hall_") or "none" for d in new)
    return ConversationPlace(
        name=(first.title or first.conversation_id or f"conversation {first.conversation + 1}").replace("\n", " "),
        date=first.date, new=len(new), present=len(drawers) - len(new), wings=tuple(w for w, _ in pairs),
        wings_from=tuple(why for _, why in pairs), rooms=tuple(dict.fromkeys(d.room for d in new)),
        halls=tuple(halls.most_common()))


def renamed(place: ConversationPlace, renames: Sequence[tuple[str, str]]) -> ConversationPlace:
    """The place once the rooms renamed after it was filed (in order) carry their new names."""
    return replace(place, rooms=tuple(dict.fromkeys(rename_all(room, renames) for room in place.rooms)))


def rename_all(room: str, renames: Sequence[tuple[str, str]]) -> str:
    """Where a room's drawers are after the renames, applied in order (a freed name may be taken next)."""
    for old, new in renames:
        room = new if room == old else room
    return room


@dataclass(frozen=True)
class IngestReport:
    """The outcome for one source file (or Slack export).

    `added` counts drawers written; `already_present` those whose exact text was stored before;
    `replaced` stored drawers of a conversation that has since grown, superseded by the longer
    version; `near_duplicates` new drawers at least 0.9 similar to a stored one (kept, not dropped).
    """

    source: str
    format: str | None = None
    conversations: int = 0
    planned: int = 0
    added: int = 0
    already_present: int = 0
    replaced: int = 0
    near_duplicates: int = 0
    errors: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    skipped: bool = False
    dry_run: bool = False
    wings: tuple[str, ...] = ()
    rooms: tuple[str, ...] = ()
    drawer_ids: tuple[str, ...] = ()
    drawers: tuple[PlannedDrawer, ...] = field(default=(), repr=False)  # a dry run's, text included
    places: tuple[ConversationPlace, ...] = ()  # each conversation's wing, rooms and halls (dry run or not)
    parents: tuple[str, ...] = ()  # the conversations of the source, as the palace keys them (parent ids)
    new_conversations: int = 0  # conversations with at least one new drawer
    transient: bool = False  # the palace or the model failed, not the file: filing it again may work

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def new(self) -> int:
        return self.planned - self.already_present

    def to_dict(self, with_drawers: bool = True) -> dict[str, Any]:
        data = asdict(self)
        if not with_drawers:
            data.pop("drawers")
        data["new"] = self.new
        return data

    def renamed_since(self, since_read: Sequence[tuple[str, str]], since_filed: Sequence[tuple[str, str]]
                      ) -> IngestReport:
        """The report once the rooms renamed after its drawers were found (`since_read`: they were
        then where they are) or filed (`since_filed`) carry their new names, renames in order."""
        if not since_read:
            return self
        drawers = tuple(replace(d, room=rename_all(d.room, since_filed if d.status == "new" else since_read))
                        for d in self.drawers)
        return replace(self, drawers=drawers, places=tuple(renamed(p, since_filed) for p in self.places),
                       rooms=tuple(sorted({rename_all(room, since_filed) for room in self.rooms})))

    def by_conversation(self) -> list[str]:
        """One line per conversation for people: where its new drawers went (or would go: wing and why,
        rooms, halls) and how many were in the palace already."""
        return [place.line() for place in self.places]

    def summary(self) -> str:
        """One line for people: what was found and what happened."""
        if self.errors or self.skipped:
            message = (self.errors or self.notes)[0]
            return message if self.source in message else f"{self.source}: {message}"
        verb = "would add" if self.dry_run else "added"
        count = self.new if self.dry_run else self.added
        parts = [f"{self.source} ({self.format}): {counted(self.conversations, 'conversation')}, "
                 f"{counted(self.planned, 'drawer')}",
                 f"{verb} {count}", f"{self.already_present} already in the palace"]
        if self.replaced:
            parts.append(f"{self.replaced} {'would be ' if self.dry_run else ''}replaced by a longer version")
        if self.near_duplicates:
            parts.append(f"{counted(self.near_duplicates, 'near-duplicate')} kept")
        return ", ".join(parts) + "".join(f"; {note}" for note in self.notes)

