"""Reading files only inside allowed folders, checked on the file actually opened: a link planted while a
folder is walked, or a `-wal` sibling that points elsewhere, is refused at the moment it is opened
(an MCP server's `--allow-dir`). No roots means anywhere (the CLI and the dashboard read what their user names).
Only regular files are read: a FIFO, device or socket is refused before it is opened, and the open itself never
waits (a FIFO put in the file's place meanwhile would block until a writer came) and is checked again."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import NotRegularFileError, SourceRefusedError

Roots = tuple[Path, ...]
_NO_WAIT = getattr(os, "O_NONBLOCK", 0)
_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def read_file(path: Path, roots: Roots = (), limit: int | None = None, max_bytes: int | None = None) -> bytes:
    """The bytes of `path` (at most `limit`), refused when it is no regular file, when the file opened
    is outside every root, or when it is larger than `max_bytes` (judged on the file opened, before
    reading, and never read past it)."""
    fd = open_regular(path, roots)
    try:
        if max_bytes is not None:
            refuse_over(path.name, os.fstat(fd).st_size, max_bytes)
            limit = max_bytes + 1
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read() if limit is None else handle.read(limit)
    finally:
        os.close(fd)
    if max_bytes is not None and len(data) > max_bytes:
        raise SourceRefusedError(f"{path.name} grew past the {_amount(max_bytes, 0)} limit while it was read "
                                 "(setting max_ingest_bytes).")
    return data


def refuse_over(name: str, size: int, max_bytes: int) -> None:
    """Refuse a file of `size` bytes over the ingest cap, naming the setting that raises it."""
    if size > max_bytes:
        raise SourceRefusedError(f"{name} is {_amount(size, 1)}; the limit is {_amount(max_bytes, 0)} "
                                 "(setting max_ingest_bytes).")


def _amount(size: int, decimals: int) -> str:
    return f"{size / 1e6:,.{decimals}f} MB" if size >= 1_000_000 else f"{size:,} bytes"


def open_regular(path: Path, roots: Roots = ()) -> int:
    """A descriptor open to read `path`, refused (NotRegularFileError) unless it is a regular file: checked
    before opening (a device is never opened) and on the file opened, which was opened without waiting."""
    refuse_unless_regular(path, os.stat(path).st_mode)
    try:
        fd = os.open(path, os.O_RDONLY | _NO_WAIT | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket put in its place
            refuse_unless_regular(path, os.stat(path).st_mode)
        raise
    try:
        refuse_unless_regular(path, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        if roots:
            check_opened(fd, path, roots)
    except BaseException:
        os.close(fd)
        raise
    return fd


def refuse_unless_regular(path: Path, mode: int) -> None:
    """Refuse a FIFO, device, socket or folder with a note that says which it is."""
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a plain file")
        raise NotRegularFileError(f"{path.name}: {kind}, not a regular file: skipped, it is never read.")


def check_opened(fd: int, path: Path, roots: Roots) -> None:
    """Refuse the open file `fd` (opened as `path`) unless its real location is inside `roots`."""
    real = _opened_path(fd, path)
    if real is None or not inside(real, roots):
        allowed = ", ".join(str(r) for r in roots)
        raise SourceRefusedError(f"{path} leads to {real or 'a file'} outside the directories this server may read "
                                 f"({allowed}); it was not read.")


def inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def _opened_path(fd: int, path: Path) -> Path | None:
    """Where the open file really is: the kernel's name for the descriptor (Linux, macOS), else the
    resolved path when it is still the same file."""
    proc = Path(f"/proc/self/fd/{fd}")
    if proc.is_symlink():
        return Path(os.readlink(proc))
    if sys.platform == "darwin":
        import fcntl

        return Path(fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024)).rstrip(b"\0").decode())  # type: ignore[attr-defined]
    real = Path(os.path.realpath(path))
    opened, now = os.fstat(fd), os.stat(real)
    return real if (opened.st_dev, opened.st_ino) == (now.st_dev, now.st_ino) else None
