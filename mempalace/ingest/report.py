"""What an ingest planned and did: typed values the CLI prints and the dashboard shows."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..wording import counted


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
    drawers: tuple[PlannedDrawer, ...] = field(default=(), repr=False)
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

    def by_conversation(self) -> list[str]:
        """One line per conversation for people: where its new drawers would go (wing and why, rooms,
        halls) and how many are already in the palace."""
        groups: dict[int, list[PlannedDrawer]] = {}
        for drawer in self.drawers:
            groups.setdefault(drawer.conversation, []).append(drawer)
        return [_conversation_line(drawers) for _, drawers in sorted(groups.items())]

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


def _conversation_line(drawers: list[PlannedDrawer]) -> str:
    first = drawers[0]
    name = (first.title or first.conversation_id or f"conversation {first.conversation + 1}").replace("\n", " ")
    line = f"{name[:60]!r}" + (f" ({first.date[:10]})" if first.date else "") + ": "
    new = [d for d in drawers if d.status == "new"]
    parts = []
    if new:
        wings = dict.fromkeys(f"{d.wing} ({d.wing_from})" if d.wing_from else d.wing for d in new)
        halls = Counter(d.hall.removeprefix("hall_") or "none" for d in new)
        parts.append(f"{counted(len(new), 'new drawer')} → wing {', '.join(wings)}, "
                     f"{'rooms' if len({d.room for d in new}) > 1 else 'room'} {', '.join(dict.fromkeys(d.room for d in new))}, "
                     f"halls {', '.join(f'{hall} {count}' for hall, count in halls.most_common())}")
    if len(new) < len(drawers):
        parts.append(f"{len(drawers) - len(new)} already in the palace")
    return line + "; ".join(parts)
