"""The wing a conversation files into when the command names none, and why (the preview says it).

Each format module says what its files are (`DEFAULT_WING`): the export of one service
(`service`: ChatGPT, Claude.ai → that service's wing), of one workspace (`workspace`: Slack →
`slack_<workspace>`), a coding tool's session (`project`: its project, a worktree or sub-agent of
a project being the project) or any text (`file`). A file's name is the last resort: only plain
text is named after it, and never after a name a tool gives every file (`conversations.json`); a
synced source's plain text goes to the source's wing instead, unless the source asks for a wing per file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..errors import MempalaceError
from ..formats.base import Conversation, Source
from ..formats.registry import FORMATS
from ..text.names import wing_name

CHOSEN = "chosen for this ingest"
EARLIER = "where this conversation's earlier drawers are"
TEXT_WING = "the source's wing for plain text"
_GENERIC_NAME = re.compile(r"^(conversations?|session[-_].*|rollout-.*|export|chats?|transcript|upload|untitled|state|events|"
                           r"\.aider\.chat\.history|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",
                           re.IGNORECASE)


@dataclass(frozen=True)
class WingChoice:
    """A default wing and, in a few words, where it came from."""

    wing: str
    reason: str


def default_wing(conversation: Conversation, src: Source, fmt: str, text_wing: str | None = None) -> WingChoice:
    """The wing for `conversation` of `src` (format `fmt`) when none is given; `text_wing` (a synced
    source's) takes the place of the file's name for plain text that names no project."""
    module = FORMATS.get(fmt)
    kind = getattr(module, "DEFAULT_WING", "file")
    label = getattr(module, "LABEL", fmt)
    place = conversation.place
    if kind == "service":
        return WingChoice(wing_name(fmt), label)
    if kind == "workspace":
        named = _wing(f"{fmt}_{place}") if place else None
        return WingChoice(named, f"workspace {place}") if named else WingChoice(wing_name(fmt), label)
    if place and (named := _wing(place)):
        return WingChoice(named, f"project folder {place}")
    if kind == "file" and text_wing:
        return WingChoice(text_wing, TEXT_WING)
    stem = PurePosixPath(src.name).stem if not src.is_dir else src.name
    if kind == "file" and not _GENERIC_NAME.match(stem) and (named := _wing(stem)):
        return WingChoice(named, "file name")
    return WingChoice(wing_name(fmt), f"{label}, no project folder recorded" if kind == "project" else label)


def _wing(name: str) -> str | None:
    try:
        return wing_name(name)
    except MempalaceError:
        return None
