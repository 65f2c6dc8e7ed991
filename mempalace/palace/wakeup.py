"""Wake-up context: what an assistant should know at the start of a session, within a token budget.

Chosen by rules, so the same palace gives the same text:
1. The identity text the person wrote (`MEMPALACE_HOME/identity.md`), first (cut to half the budget).
2. The rooms most active in the chosen wings in the 30 days up to their newest drawer (not today's
   date: an old palace still has a story), busiest first, each with the other wings it is a tunnel to.
3. The newest drawers of the halls an assistant acts on: facts and decisions, preferences, advice,
   then open threads (recent events). One line each: its day, room, first words and drawer id, so the
   agent can open it. Lines are taken from these sections in turn (one fact, one preference, one
   piece of advice, one event, again) while the budget lasts.
Tokens are approximated: a Han, kana or Hangul character counts one, other text one per 4 characters.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, PlaceNotFoundError
from ..files.privacy import owner_dir, owner_file
from ..text.counts import counted
from ..text.names import wing_name

DEFAULT_TOKENS = 800
IDENTITY_FILE = "identity.md"
ACTIVE_DAYS = 30
ROOMS_SHOWN = 5
PER_HALL = 12
LINE_CHARS = 160
SECTIONS = (("hall_facts", "Facts and decisions"), ("hall_preferences", "Preferences"), ("hall_advice", "Advice"),
            ("hall_events", "Open threads"))
_WIDE = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_LABEL = re.compile(r"^(?:User|Assistant|Human|AI):\s+")


@dataclass(frozen=True)
class WakeUp:
    """A wake-up text, its approximate token count, the wings it covers and the drawers it points to."""

    text: str
    tokens: int
    wings: tuple[str, ...]
    drawer_ids: tuple[str, ...]


def approx_tokens(text: str) -> int:
    wide = len(_WIDE.findall(text))
    return wide + math.ceil((len(text) - wide) / 4)


def read_identity(home: Path) -> str:
    try:
        return (Path(home) / IDENTITY_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def write_identity(home: Path, text: str) -> None:
    """Keep the identity text (owner-only file); empty text removes it."""
    if not isinstance(text, str) or len(text) > 20_000:
        raise InvalidInputError("The identity text must be text of at most 20,000 characters.")
    path = Path(home) / IDENTITY_FILE
    if not text.strip():
        path.unlink(missing_ok=True)
        return
    owner_dir(path.parent)
    path.write_text(text.strip() + "\n", encoding="utf-8")
    owner_file(path)


def first_words(text: str, limit: int = LINE_CHARS) -> str:
    """A drawer's opening as one line: whitespace collapsed, a leading speaker label dropped, cut at a word."""
    line = _LABEL.sub("", " ".join(text.split()))
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0] if " " in line[:limit] else line[:limit]
    return cut.rstrip(",;:") + " …"


def compose(identity: str, wings: tuple[str, ...], newest: str, rooms: list[tuple[str, int, str, list[str]]],
            halls: dict[str, list[tuple[str, str, str, str, str]]], budget: int) -> WakeUp:
    """The wake-up text from what was read, within `budget` tokens (see the module's docstring)."""
    head = f"# Wake-up: {', '.join(wings) or 'no wing'}" + (f" (newest drawer {newest})" if newest else "")
    parts, spent, ids = [head], approx_tokens(head), []
    if identity:
        shown = _cut_to(identity, budget // 2)
        parts.append(shown)
        spent += approx_tokens(shown) + 1
    room_lines = [(f"- {room}: {counted(n, 'drawer')}, newest {day}"
                   + (f"; tunnel to {', '.join(others)}" if others else ""), "") for room, n, day, others in rooms]
    sections: list[tuple[str, list[tuple[str, str]]]] = []  # (title, [(line, the drawer it names, or "")])
    if room_lines:
        sections.append((f"## Active rooms (the {ACTIVE_DAYS} days to {newest})", room_lines))
    for hall, title in SECTIONS:
        lines = [(f"- {day or 'undated'} · {room} · {first_words(text)} [{drawer_id}]", drawer_id)
                 for drawer_id, _, room, day, text in halls.get(hall, [])]
        if lines:
            sections.append((f"## {title}", lines))
    taken: dict[str, list[tuple[str, str]]] = {}
    order = [(title, line) for title, lines in sections[:1] for line in lines] if room_lines else []
    rest = sections[1:] if room_lines else sections
    order += [(title, lines[i]) for i in range(max((len(ls) for _, ls in rest), default=0))
              for title, lines in rest if i < len(lines)]
    for title, (line, drawer_id) in order:
        cost = approx_tokens(line) + 1 + (approx_tokens(title) + 2 if title not in taken else 0)
        if spent + cost > budget:
            continue
        taken.setdefault(title, []).append((line, drawer_id))
        spent += cost
    for title, _ in sections:
        if title in taken:
            parts.append(title + "\n" + "\n".join(line for line, _ in taken[title]))
            ids += [drawer_id for _, drawer_id in taken[title] if drawer_id]
    text = "\n\n".join(parts) + "\n"
    return WakeUp(text, approx_tokens(text), wings, tuple(ids))


def _cut_to(text: str, tokens: int) -> str:
    if approx_tokens(text) <= tokens:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if approx_tokens(text[:middle]) + 1 <= tokens else (low, middle - 1)
    return text[:low].rstrip() + " …"


class WakingUp:
    """`wake_up` for a palace (a mixin of `Palace`): read from the catalog alone (no model, no Chroma),
    remembered until the palace or the identity text changes."""

    _catalog: Any
    _sync: Any
    settings: Any
    _wakeups: dict[Any, WakeUp]

    def wake_up(self, wing: str | None = None, tokens: int = DEFAULT_TOKENS) -> WakeUp:
        """What an assistant should know at the start of a session in `wing` (default: every wing)."""
        return self._wake_up(wing, tokens, None)

    def _wake_up(self, wing: str | None, tokens: int, visible: tuple[str, ...] | None) -> WakeUp:
        if not isinstance(tokens, int) or not 50 <= tokens <= 20_000:
            raise InvalidInputError("The wake-up budget must be between 50 and 20,000 tokens.")
        known = [w for w in self.list_wings() if visible is None or w in visible]  # type: ignore[attr-defined]
        if wing is not None and wing_name(wing) not in known:
            raise PlaceNotFoundError(f"No wing {wing!r} in this palace.")
        wings = tuple([wing_name(wing)] if wing else known)
        identity = read_identity(self.settings.home)
        key = (self.revision(), wings, tokens, visible, identity)  # type: ignore[attr-defined]
        cached = self._wakeups.get(key)
        if cached is None:
            cached = self._compose_wake_up(wings, tokens, identity, visible)
            if len(self._wakeups) > 32:
                self._wakeups.clear()
            self._wakeups[key] = cached
        return cached

    def _compose_wake_up(self, wings: tuple[str, ...], tokens: int, identity: str,
                         visible: tuple[str, ...] | None) -> WakeUp:
        with self._guard:  # type: ignore[attr-defined]
            self._sync.ensure_fresh()
            return read_wake_up(self._catalog, wings, tokens, identity, visible)


def read_wake_up(catalog: Any, wings: tuple[str, ...], tokens: int, identity: str,
                 visible: tuple[str, ...] | None = None) -> WakeUp:
    """The wake-up for `wings` read from a catalog (tunnels only to `visible` wings, when given)."""
    newest = catalog.newest_day(wings)
    since = (date.fromisoformat(newest) - timedelta(days=ACTIVE_DAYS)).isoformat() if newest else ""
    active = catalog.active_rooms(wings, since, ROOMS_SHOWN) if newest else []
    spread: dict[str, set[str]] = {}
    for w, room, _, _ in catalog.room_counts():
        if visible is None or w in visible:
            spread.setdefault(room, set()).add(w)
    rooms = [(room, n, day, sorted(spread.get(room, set()) - set(wings))) for room, n, day in active]
    halls = {hall: catalog.newest_in_hall(wings, hall, PER_HALL) for hall, _ in SECTIONS}
    return compose(identity, wings, newest, rooms, halls, tokens)


def session_context(palace_dir: Path, project_dir: str | None, home: Path, tokens: int = DEFAULT_TOKENS) -> str:
    """A coding session's wake-up, for its start hook: the project's wing when the palace has one,
    else every wing. Read from the palace's catalog file alone, so it needs no server, no Chroma and
    no model; "" when the palace has no catalog yet."""
    from ..catalog.catalog import CATALOG_FILE, Catalog
    from ..formats.base import project_name

    path = Path(palace_dir) / CATALOG_FILE
    if not path.is_file():
        return ""
    catalog = Catalog(path)
    try:
        known = sorted({w for w, _, _, _ in catalog.room_counts()})
        project = project_name(project_dir)
        wing = wing_name(project) if project and wing_name(project) in known else None
        return read_wake_up(catalog, (wing,) if wing else tuple(known), tokens, read_identity(home)).text
    finally:
        catalog.close()
