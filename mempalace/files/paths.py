"""Paths people give: one the system cannot even look up (too long, a loop of links, a folder that may
not be searched) is refused in one clear line naming it, cut short, instead of the system's error."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from ..errors import InvalidInputError

SHOWN_CHARS = 80  # a longer path is shown cut in the middle, with its length
_REASONS = {errno.ENAMETOOLONG: "is too long for the file system",
            errno.ELOOP: "goes round a loop of symbolic links"}
PATH_ERRNOS = frozenset(_REASONS)  # errors that are the path's own fault, whatever the command


def shown_path(path: str | os.PathLike[str]) -> str:
    """`path` as a message shows it: whole when short, else its start and end with its length."""
    text = str(path)
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[:SHOWN_CHARS // 2]}…{text[-SHOWN_CHARS // 4:]} ({len(text):,} characters)"


def path_error(exc: OSError, path: str | os.PathLike[str]) -> InvalidInputError:
    """The user's message for `exc`, met while looking up or opening `path`."""
    reason = _REASONS.get(exc.errno or 0) or f"cannot be read ({exc.strerror or exc})"
    return InvalidInputError(f"The path {shown_path(path)} {reason}.")


def checked_path(path: str | os.PathLike[str]) -> Path:
    """`path` as a Path, refused with a clear error when it cannot be looked up at all; one that does
    not exist (yet) passes, for the caller to judge."""
    where = Path(path)
    try:
        where.stat()
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:
        raise path_error(exc, where) from None
    except ValueError:
        raise InvalidInputError(f"The path {shown_path(repr(str(where)))} holds a NUL character.") from None
    return where
