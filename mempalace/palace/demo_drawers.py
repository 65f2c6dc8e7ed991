"""The demo's conversations (`demo_conversations.txt`) and how its drawers are told from real ones.

A drawer is the demo's when it was filed from one of the demo's conversations: its parent id is that
conversation's key, which ingest derives from the conversation's first message. So it is known
wherever the drawer was moved, in palaces that loaded the demo before it was marked in any way, and
a real drawer never passes for one, even one filed into a room the demo uses. Ingest leaves the
demo's rooms out of its room choice; `remove_demo` deletes exactly these drawers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Protocol

from ..errors import MempalaceError
from ..formats import plain_text
from ..formats.base import Source, conversation_key
from ..models import Deletion, Drawer
from ..text.counts import counted


DEMO_WINGS = ("wing_kai", "wing_driftwood", "wing_priya")
DATA_FILE = "demo_conversations.txt"
_HEADER = re.compile(r"^=== (?P<filename>[\w.-]+\.txt) \| (?P<wing>wing_\w+) \| (?P<room>[a-z0-9-]+) ===$",
                     re.MULTILINE)
_TITLE_DAY = re.compile(r"\A# [^\n]*\((?P<day>\d{4}-\d{2}-\d{2})\)[ \t]*$", re.MULTILINE)



class DemoView(Protocol):
    """What the demo's drawers are found and removed through: a `Palace`, or a scoped view of one."""

    def drawers_of(self, parent_id: str) -> list[Drawer]: ...

    def list_wings(self) -> dict[str, int]: ...

    def places(self) -> tuple[tuple[str, str, str, int], ...]: ...

    def delete_where(self, *, ids: Sequence[str] = (), what: str | None = None) -> Deletion: ...

@dataclass(frozen=True)
class DemoConversation:
    """One demo transcript, the place it is filed in and the day its title says it happened."""

    filename: str
    wing: str
    room: str
    text: str
    day: str


@dataclass(frozen=True)
class DemoRemoval:
    """What removing the demo did: how many of its drawers went, and the drawers that are not the
    demo's but stay in rooms it used, as (wing, room, drawers)."""

    removed: int
    kept: tuple[tuple[str, str, int], ...] = ()
    change: str = ""  # the delete, which `restore_change` undoes while the trash keeps it

    def summary(self) -> str:
        """What was removed and what stayed, in a sentence or two."""
        if not self.removed:
            return "This palace holds no demo drawers: nothing was removed."
        said = f"Removed the demo: {counted(self.removed, 'drawer')}."
        if self.kept:
            stay = sum(n for _, _, n in self.kept)
            said += (f" {counted(stay, 'drawer')} of yours {'stays' if stay == 1 else 'stay'} in "
                     f"{'a room' if len(self.kept) == 1 else 'rooms'} the demo used: "
                     + ", ".join(f"{wing}/{room}" for wing, room, _ in self.kept) + ".")
        return said


@cache
def demo_conversations() -> tuple[DemoConversation, ...]:
    """The demo transcripts, in story order."""
    try:
        raw = resources.files(__package__).joinpath(DATA_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MempalaceError(f"The demo conversations could not be read ({exc}); reinstall MemPalace.") from None
    headers = list(_HEADER.finditer(raw))
    ends = [h.start() for h in headers[1:]] + [len(raw)]
    texts = [raw[h.end() : end].strip() + "\n" for h, end in zip(headers, ends)]
    days = [_TITLE_DAY.search(text) for text in texts]
    if not headers or any(h["wing"] not in DEMO_WINGS or t == "\n" or d is None
                          for h, t, d in zip(headers, texts, days)):
        raise MempalaceError(f"The demo conversations file {DATA_FILE} is damaged; reinstall MemPalace.")
    return tuple(DemoConversation(h["filename"], h["wing"], h["room"], text, day["day"])
                 for h, text, day in zip(headers, texts, days))


@cache
def demo_parents() -> frozenset[str]:
    """The parent ids of the demo's drawers: its conversations' keys, as ingest makes them."""
    return frozenset(conversation_key(plain_text.NAME, parsed)
                     for c in demo_conversations()
                     for parsed in plain_text.parse(Source.from_bytes(c.text.encode("utf-8"), c.filename)))


def demo_drawers(palace: DemoView) -> list[Drawer]:
    """The demo's drawers in `palace` (or a scoped view: the drawers it sees), wherever they are now."""
    return [d for parent in sorted(demo_parents()) for d in palace.drawers_of(parent)]


def demo_rooms(palace: DemoView) -> frozenset[str]:
    """The rooms holding a demo drawer: ingest never files into them, nor renames them."""
    return demo_places(palace)[0]


def demo_places(palace: DemoView) -> tuple[frozenset[str], frozenset[str]]:
    """The demo's rooms (see `demo_rooms`) and the wings that hold nothing but demo drawers, from one read."""
    found = demo_drawers(palace)
    held = Counter(d.wing for d in found)
    return (frozenset(d.room for d in found),
            frozenset(w for w, n in palace.list_wings().items() if held[w] == n))


def remove_demo(palace: DemoView) -> DemoRemoval:
    """Delete the demo's drawers, and no other, as one audited delete; says which drawers of the
    rooms it used stay."""
    found = demo_drawers(palace)
    done = palace.delete_where(ids=[d.id for d in found], what="the demo") if found else None
    rooms = {d.room for d in found}
    kept: Counter[tuple[str, str]] = Counter()
    for wing, room, _, drawers in palace.places():
        if room in rooms:
            kept[(wing, room)] += drawers
    return DemoRemoval(done.deleted if done else 0, tuple((wing, room, n) for (wing, room), n in sorted(kept.items())),
                       done.change if done and done.kept_days else "")
