"""Where the coding tools on this machine keep their conversations, for `sources suggest` and the
Sources panel: each known place that exists, with how many transcript files a sync would look at."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..formats import aider
from ..formats.walking import walk

MAX_AIDER_DEPTH = 4  # folders below a named folder searched for Aider histories


@dataclass(frozen=True)
class Suggestion:
    """A place a tool keeps conversations: the source it would make and its file count today."""

    tool: str
    name: str  # the source name it would get
    path: str
    files: int


def _cursor_user() -> str:
    if sys.platform == "darwin":
        return "~/Library/Application Support/Cursor/User"
    if os.name == "nt":
        return os.path.join(os.environ.get("APPDATA", "~"), "Cursor", "User")
    return "~/.config/Cursor/User"


def known_places() -> tuple[tuple[str, str, str], ...]:
    """(tool, source name, folder) for each tool whose session files MemPalace reads."""
    cursor = _cursor_user()
    return (
        ("Claude Code", "claude-code", "~/.claude/projects"),
        ("Codex CLI", "codex", "~/.codex/sessions"),
        ("Gemini CLI", "gemini-cli", "~/.gemini/tmp"),
        ("GitHub Copilot CLI", "copilot-cli", "~/.copilot/session-state"),
        ("Cursor (chats of all workspaces)", "cursor-workspaces", os.path.join(cursor, "workspaceStorage")),
        ("Cursor (composer chats)", "cursor", os.path.join(cursor, "globalStorage", "state.vscdb")),
        ("Continue", "continue", "~/.continue/sessions"),
    )


def suggest(home: Path | None = None, aider_folders: Sequence[str | os.PathLike[str]] = ()) -> list[Suggestion]:
    """The known places that exist under `home` (default: the user's), and each Aider history under
    `aider_folders` (Aider writes one per repository, so only folders a person names are searched)."""
    found = []
    for tool, name, folder in known_places():
        path = _expand(folder, home)
        if path.exists():
            path = path.resolve()  # as a source records it, so an added one is recognised
            found.append(Suggestion(tool, name, str(path), _count(walk([path]))))
    for history in _aider_histories(aider_folders):
        found.append(Suggestion("Aider", f"aider-{history.parent.name}", str(history), 1))
    return found


def _expand(folder: str, home: Path | None) -> Path:
    if home is not None and folder.startswith("~"):
        return home / folder[2:]
    return Path(folder).expanduser()


def _count(paths: Iterable[tuple[Path, bool]]) -> int:
    return sum(1 for _ in paths)


def _aider_histories(folders: Sequence[str | os.PathLike[str]]) -> list[Path]:
    found = []
    for folder in map(lambda f: Path(f).expanduser(), folders):
        base = len(folder.parts)
        for here, dirs, files in os.walk(folder):
            depth = len(Path(here).parts) - base
            dirs[:] = [] if depth >= MAX_AIDER_DEPTH else sorted(d for d in dirs if not d.startswith(".")
                                                                  and d not in ("node_modules", "venv", ".venv"))
            if aider.HISTORY_NAME in files:
                found.append((Path(here) / aider.HISTORY_NAME).resolve())
    return found
