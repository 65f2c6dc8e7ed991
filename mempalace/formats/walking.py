"""Which files under a folder ingest tries: transcript-like files, a Slack export folder as one source,
hidden folders and files skipped (Aider's `.aider.chat.history.md` excepted). Cheap: names and the
Slack check only, nothing is read, so a sync can walk a large folder every minute."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..files.paths import checked_path
from . import aider, slack
from .base import Source

WALKED = {".jsonl", ".json", ".txt", ".text", ".md", ".markdown", ".log", ".zip", ".vscdb"}  # files a walk tries


def walk(paths: Iterable[str | os.PathLike[str]]) -> Iterator[tuple[Path, bool]]:
    """(source, found by walking a folder) for each path, in order; a path that cannot be looked up
    at all is refused before any is walked."""
    for path in [checked_path(path) for path in paths]:
        if not path.is_dir() or slack.accept(Source.from_path(path)):
            yield path, False
            continue
        for folder, dirs, files in os.walk(path):
            here = Path(folder)
            kept = []
            for sub in sorted(d for d in dirs if not d.startswith(".")):
                if slack.accept(Source.from_path(here / sub)):
                    yield here / sub, True
                else:
                    kept.append(sub)
            dirs[:] = kept
            for file in sorted(files):
                hidden = file.startswith(".") and file != aider.HISTORY_NAME  # aider's history is a dot file
                if not hidden and Path(file).suffix.lower() in WALKED:
                    yield here / file, True
