"""Transcript formats: one module each, tried in order by `detect` (most specific first, plain text last).

A format module has `NAME`, `LABEL`, `accept(source) -> bool` (cheap: looks at the name and the
first bytes only) and `parse(source) -> list[Conversation]` (strict: malformed input raises
`MalformedSourceError` naming the file and line).
"""

from __future__ import annotations

from types import ModuleType

from ..errors import SourceRefusedError, UnsupportedFormatError
from . import chatgpt, claude_ai, claude_code, codex_cli, gemini_cli, plain_text, slack
from .base import HEAD_BYTES, Conversation, Message, Source, decode_text

FORMATS: dict[str, ModuleType] = {
    module.NAME: module for module in (claude_code, codex_cli, gemini_cli, claude_ai, chatgpt, slack, plain_text)
}

__all__ = ["FORMATS", "Conversation", "Message", "Source", "detect", "parse"]


def detect(source: Source) -> ModuleType:
    """The first format in `FORMATS` that accepts `source`; otherwise a clear error naming them all."""
    if not source.is_dir and not source.is_zip and b"\x00" in source.head(8192):
        raise SourceRefusedError(f"{source.name} looks like a binary file, not a transcript.")
    for module in FORMATS.values():
        if module.accept(source):
            return module
    if not source.is_dir and not source.is_zip:
        head = source.head()
        decode_text(head if len(head) < HEAD_BYTES else head[:-4], source.name)  # names a non-UTF-8 line
    tried = ", ".join(m.LABEL for m in FORMATS.values())
    raise UnsupportedFormatError(f"{source.name}: not a transcript format MemPalace knows (tried {tried}).")


def parse(source: Source, format_name: str | None = None) -> tuple[str, list[Conversation]]:
    """(format name, conversations) of `source`, detected or as named by the caller."""
    if format_name:
        try:
            module = FORMATS[format_name]
        except KeyError:
            raise UnsupportedFormatError(
                f"Unknown format {format_name!r}: use one of {', '.join(FORMATS)}."
            ) from None
    else:
        module = detect(source)
    return module.NAME, module.parse(source)
