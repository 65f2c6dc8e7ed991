"""Transcript formats: one module each, tried in order by `detect` (most specific first, plain text last).

A format module has `NAME`, `LABEL`, `READS` (what it reads, for `ingest --help` and the Ingest page),
`accept(source) -> bool` (cheap: looks at the name and the first bytes only) and
`parse(source) -> list[Conversation]` (strict: malformed input raises `MalformedSourceError` naming the
file and line). A format of binary files (a SQLite store) sets `BINARY = True`: it is asked before
a file with NUL bytes is refused as binary. `DEFAULT_WING` says what its files are, for the wing
they file into when none is given (see `mempalace.ingest.wings`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePosixPath
from types import ModuleType

from ..errors import SourceRefusedError, UnsupportedFormatError
from . import (aider, chatgpt, claude_ai, claude_code, codex_cli, continue_dev, copilot_cli, cursor, gemini_cli,
               plain_text, slack)
from .base import HEAD_BYTES, Conversation, Message, Source, decode_text, load_json

FORMATS: dict[str, ModuleType] = {
    module.NAME: module for module in (claude_code, codex_cli, copilot_cli, gemini_cli, continue_dev, claude_ai, chatgpt,
                                       slack, cursor, aider, plain_text)
}

_SURROGATE = re.compile("[\ud800-\udfff]")

__all__ = ["FORMATS", "Conversation", "Message", "Source", "detect", "parse"]


def detect(source: Source) -> ModuleType:
    """The first format in `FORMATS` that accepts `source`; otherwise a clear error naming them all."""
    binary = [m for m in FORMATS.values() if getattr(m, "BINARY", False)]
    for module in binary:
        if module.accept(source):
            return module
    if not source.is_dir and not source.is_zip and b"\x00" in source.head(8192):
        raise SourceRefusedError(f"{source.name} looks like a binary file, not a transcript.")
    for module in FORMATS.values():
        if module not in binary and module.accept(source):
            return module
    if not source.is_dir and not source.is_zip:
        head = source.head()
        decode_text(head if len(head) < HEAD_BYTES else head[:-4], source.name)  # names a non-UTF-8 line
        if source.suffix == ".json":
            load_json(source.read_text(), source.name)  # broken JSON names its line, whatever its size
    tried = ", ".join(m.LABEL for m in FORMATS.values())
    hint = " A zip is read as a Slack export, or as a Claude.ai or ChatGPT export holding conversations.json." \
        if source.is_zip else ""
    raise UnsupportedFormatError(f"{source.name}: not a transcript format MemPalace knows (tried {tried}).{hint}")


def parse(source: Source, format_name: str | None = None) -> tuple[str, list[Conversation]]:
    """(format name, conversations) of `source`, detected or as named by the caller.

    A Claude.ai or ChatGPT export can be given as the zip it was downloaded as; lone UTF-16
    surrogates (a cut emoji in JSON) become U+FFFD, the one character that cannot be kept as it is.
    """
    if source.is_zip and not slack.accept(source):
        source = _export_inside(source) or source
    if format_name:
        try:
            module = FORMATS[format_name]
        except KeyError:
            raise UnsupportedFormatError(
                f"Unknown format {format_name!r}: use one of {', '.join(FORMATS)}."
            ) from None
    else:
        module = detect(source)
    if source.is_dir and module is not slack:
        raise UnsupportedFormatError(f"{source.name} is a folder: only a Slack export is read as one folder.")
    return module.NAME, [_without_surrogates(c) for c in module.parse(source)]


def _export_inside(source: Source) -> Source | None:
    """The conversations.json of a downloaded Claude.ai or ChatGPT export zip, if it holds one."""
    members = source.members()
    found = sorted((n for n in members if PurePosixPath(n).name == "conversations.json" and n.count("/") <= 1),
                   key=lambda n: n.count("/"))
    if not found:
        return None
    return Source.from_bytes(members[found[0]](), f"{source.name}: {found[0]}", max_bytes=source.max_bytes,
                             max_unzipped_bytes=source.max_unzipped_bytes)


def _without_surrogates(conversation: Conversation) -> Conversation:
    if not any(_SURROGATE.search(m.text) for m in conversation.messages) and not _SURROGATE.search(
            f"{conversation.title or ''}{conversation.id or ''}"):
        return conversation
    fix = (lambda text: _SURROGATE.sub("\ufffd", text) if isinstance(text, str) else text)
    return replace(conversation, title=fix(conversation.title), id=fix(conversation.id),
                   messages=tuple(replace(m, text=fix(m.text), speaker=fix(m.speaker)) for m in conversation.messages))
