"""A coding tool's settings file, read and written as `hooks` needs: never through a link planted in
its place (a link to an existing file, such as dotfiles kept in a repository, is written through), never
waiting on a FIFO, never read past a size no settings file has, and replaced in one step."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from ..errors import ConfigError

MAX_SETTINGS_BYTES = 10_000_000  # a tool's settings file is a few kilobytes; it is refused unread past this
BACKUP_SUFFIX = ".mempalace-backup"
NEW_FILE_MODE = 0o644  # a tool's settings file as the tool itself would create it
NO_WAIT, NO_FOLLOW = getattr(os, "O_NONBLOCK", 0), getattr(os, "O_NOFOLLOW", 0)  # a FIFO must not hang `hooks`


def target_file(path: Path) -> Path:
    """The file to write: a symlinked settings file (dotfiles) is written through, never replaced; a link
    leading nowhere is refused (one planted in a cloned project would have install create a file anywhere)."""
    real = path.resolve() if path.is_symlink() else path
    if real is not path and not real.exists():
        raise ConfigError(f"{path} is a symbolic link to {real}, which does not exist; nothing was changed. "
                          "Create that file (or remove the link) and try again.")
    return real


def read_plain(path: Path, follow: bool) -> bytes | None:
    """A regular file's bytes, None when there is none. A FIFO, device or socket is refused before it is
    opened (and the open never waits); without `follow` so is a symbolic link in its place; a file over
    MAX_SETTINGS_BYTES is refused before it is read."""
    try:
        refuse_odd(path, os.stat(path, follow_symlinks=follow).st_mode)
    except FileNotFoundError:
        return None
    with os.fdopen(os.open(path, os.O_RDONLY | NO_WAIT | (0 if follow else NO_FOLLOW)), "rb") as handle:
        opened = os.fstat(handle.fileno())
        refuse_odd(path, opened.st_mode)
        data = b"" if opened.st_size > MAX_SETTINGS_BYTES else handle.read(MAX_SETTINGS_BYTES + 1)
    if max(opened.st_size, len(data)) > MAX_SETTINGS_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_SETTINGS_BYTES // 1_000_000} MB: it is no settings file; "
                          "nothing was changed.")
    return data


def refuse_odd(path: Path, mode: int) -> None:
    """Refuse a symbolic link where none is followed, and a FIFO, device, socket or folder."""
    if not stat.S_ISREG(mode):
        what = ("a symbolic link, not a file MemPalace made (a cloned project may hold one)" if stat.S_ISLNK(mode)
                else "not a regular file (a FIFO, device, socket or folder)")
        raise ConfigError(f"{path} is {what}; nothing was changed: remove it and try again.")


def keep_backup(target: Path) -> None:
    """Copy the settings file as it is to a backup created exclusively, with its permissions, never through a
    link (one in the backup's place is refused); an older backup holding MemPalace's hook is replaced."""
    backup, data = target.with_name(target.name + BACKUP_SUFFIX), read_plain(target, follow=False) or b""
    if os.path.lexists(backup):
        refuse_odd(backup, os.lstat(backup).st_mode)
        backup.unlink()
    descriptor = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        os.fchmod(descriptor, target.stat().st_mode & 0o777)
        out.write(data)


def write_atomically(target: Path, text: str) -> None:
    """Write through a temporary file and a rename, keeping the file's permissions."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else NEW_FILE_MODE
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_file(path: Path, follow: bool = True) -> None:
    """Remove a file MemPalace alone wrote (a settings file, or, not `follow`ing a link, the backup install kept)."""
    try:
        (target_file(path) if follow else path).unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise ConfigError(f"Cannot remove {path}: {exc}") from None
