"""Keeping sources in sync: file what is new or grown in each registered source, exactly once.

One sync runs per palace at a time (a lock file next to the sources book): the host's minute
timer, `sources watch`, a tool's hook and "Sync now" take turns. A file is recorded as filed only
after its drawers are written, so a sync killed part-way files the rest next time, and drawer ids
are content hashes, so nothing is filed twice. A JSONL file is filed up to its last complete line
(a line still being written waits for the next sync); any other file that changes while it is
read is left for the next sync.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator


from ..catalog.source_book import Seen, SourceBook, SourceEntry, sources_path, stat_file
from ..errors import (InvalidInputError, MalformedSourceError, MempalaceError, NotRegularFileError, PalaceBusyError,
                     SourceRefusedError, UnsupportedFormatError)
from ..files.locks import LockTimeout, OwnLock
from ..files.paths import checked_path
from ..formats import registry as formats
from ..formats.base import Source
from ..formats.confined import open_regular, read_file
from ..ingest import IngestReport, ingest, ingest_paths
from ..palace.palace import Palace
from ..text.counts import counted

SYNC_LOCK_SUFFIX = ".sync.lock"
WAIT_SECONDS = 600.0  # how long a person's sync waits for one already running
HOOK_WAIT_SECONDS = 10.0  # filing one transcript now waits less than a sync (a hook files in the background)
CHANGED_WHILE_READ = "changed while it was read: it is read again at the next sync"
NOT_A_TRANSCRIPT = "not a transcript: passed over"
SOURCE_GONE = "the source's folder or file is gone (its drawers stay)"
TAIL_BYTES = 1 << 20  # a JSONL line longer than this without its newline waits for it
GROUP_FILES = 200  # whole files filed together, each recorded once its group is written


@dataclass(frozen=True)
class SyncReport:
    """What one sync of one source did (`busy`: another process was syncing, nothing was done)."""

    source: str
    files_seen: int = 0
    files_changed: int = 0
    files_gone: int = 0
    added: int = 0
    new_conversations: int = 0
    errors: tuple[tuple[str, str], ...] = ()
    busy: bool = False

    def summary(self) -> str:
        if self.busy:
            return f"{self.source}: another process is syncing the palace; nothing done."
        parts = [f"{self.source}: {counted(self.files_seen, 'file')}, {self.files_changed} new or changed",
                 f"{counted(self.added, 'drawer')} added from {counted(self.new_conversations, 'conversation')}"]
        if self.files_gone:
            parts.append(f"{self.files_gone} gone (their drawers stay)")
        if self.errors:
            parts.append(f"{len(self.errors)} failed")
        return ", ".join(parts) + "."


def book_of(palace: Palace) -> SourceBook:
    return SourceBook(sources_path(palace.catalog_path))


@contextmanager
def sync_turn(palace: Palace, wait_seconds: float) -> Iterator[bool]:
    """Hold the palace's sync lock for the block; yields False when another process holds it and
    did not let go within `wait_seconds`."""
    lock = OwnLock(str(sources_path(palace.catalog_path)) + SYNC_LOCK_SUFFIX)
    try:
        lock.acquire(timeout=wait_seconds)
    except LockTimeout:
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


def sync_sources(palace: Palace, names: Sequence[str] = (), wait: bool = False) -> list[SyncReport]:
    """Sync the named sources (all when none): file new and grown files, note the gone ones."""
    book = book_of(palace)
    entries = [book.entry(name) for name in names] if names else book.entries()
    with sync_turn(palace, WAIT_SECONDS if wait else 0) as mine:
        if not mine:
            return [SyncReport(entry.name, busy=True) for entry in entries]
        with book.held():
            return [_sync_one(palace, book, entry) for entry in entries]


def file_transcript(palace: Palace, path: str | os.PathLike[str], format_name: str | None = None,
                    wait_seconds: float = HOOK_WAIT_SECONDS, copy: bytes | None = None,
                    copied: tuple[int, int, int] | None = None) -> IngestReport:
    """File one transcript now (a tool's hook: its session ended), in turn with any sync, and record
    it in the source that holds it so the next sync does not read it again. While another process
    syncs, a file in a source is left to the next sync; any other waits `wait_seconds`, then fails.

    `copy`: the transcript's bytes as a hook copied them (the file may be rewritten or gone since), filed
    under the file's name and never left to a sync; `copied`: the file's (size, mtime_ns, ctime_ns) then."""
    book = book_of(palace)
    owner, where = _owner(book.entries(), Path(os.path.abspath(checked_path(Path(path).expanduser()))))
    with sync_turn(palace, wait_seconds) as mine:
        if not mine and owner is not None and copy is None:
            return IngestReport(source=where.name, skipped=True,
                                notes=(f"another process is syncing the palace: the next sync of {owner.name} files it",))
        if not mine:
            later = "" if copy is not None else ": file it with `mempalace ingest` later"
            raise PalaceBusyError(f"Another process has been syncing the palace for over {wait_seconds:.0f} s; "
                                  f"{where} was not filed{later}.")
        place = _place_of(owner, format_name)
        if copy is None:
            seen, whole = stat_file(where), _complete(where)
            report = _file_one(palace, where, place)
        else:
            seen = Seen(str(where), *copied) if copied else None
            report, whole = _file_copy(palace, where.name, copy, place)
        if owner is not None and report.ok and whole and seen is not None and not _changed_since(where, seen):
            book.record_file(owner.name, seen, report.parents)
        return report


def _file_copy(palace: Palace, name: str, data: bytes,
               place: tuple[str | None, str | None, str | None]) -> tuple[IngestReport, bool]:
    """Ingest a file's copy under the file's name (a JSONL file up to its last complete line), and
    whether the copy was filed whole."""
    wing, format_name, text_wing = place
    if not name.lower().endswith(".jsonl"):
        return ingest(palace, data, filename=name, wing=wing, format_name=format_name, text_wing=text_wing), True
    complete = _complete_part(data)
    if not complete.strip():
        return IngestReport(source=name, skipped=True, notes=("no complete line yet",)), False
    return (ingest(palace, complete, filename=name, wing=wing, format_name=format_name, text_wing=text_wing),
            complete == data)


def _owner(entries: list[SourceEntry], given: Path) -> tuple[SourceEntry | None, Path]:
    """The source holding a file and the file's path as that source's scan lists it (as given, or with
    its links resolved when only that lies in the source); no source: the file, resolved."""
    resolved = given.resolve()
    for candidate in (given, resolved):
        for entry in entries:
            root = Path(entry.path)
            if candidate == root or root in candidate.parents:
                return entry, candidate
    return None, resolved


class _Tally:
    """What a sync of one source filed and which files failed."""

    def __init__(self) -> None:
        self.added = self.conversations = 0
        self.errors: list[tuple[str, str]] = []

    def count(self, book: SourceBook, entry: SourceEntry, item: Seen | None, report: IngestReport) -> None:
        """Record a file once filed (or failed: tried again when it changes); a file that changed while
        it was read is left for the next sync, and so is one the palace or the model failed to file."""
        self.added += report.added
        self.conversations += report.new_conversations
        if item is None or CHANGED_WHILE_READ in report.notes or _changed_since(Path(item.path), item):
            return  # read again at the next sync; an error it met may be the change's
        error = "" if report.ok or report.skipped else report.errors[0]
        if error:
            self.errors.append((item.path, error))
        if not report.transient:
            book.record_file(entry.name, item, report.parents, error)


def _sync_one(palace: Palace, book: SourceBook, entry: SourceEntry) -> SyncReport:
    if not Path(entry.path).exists():
        book.mark_gone(entry.name, [path for path, state in book.files(entry.name).items() if state[2] is None])
        book.record_sync(entry.name, 0, 0, error=SOURCE_GONE)
        return SyncReport(entry.name, files_gone=book.entry(entry.name).files_gone, errors=((entry.path, SOURCE_GONE),))
    changes = book.changes(entry)
    book.mark_gone(entry.name, changes.gone)
    tally = _Tally()
    whole = [item for item in changes.changed if _complete(Path(item.path))]
    complete = set(whole)
    try:
        for item in changes.changed:
            if item not in complete:  # a JSONL file still being written: up to its last complete line
                tally.count(book, entry, item, _file_alone(palace, Path(item.path), entry))
        for start in range(0, len(whole), GROUP_FILES):
            _file_group(palace, book, entry, whole[start : start + GROUP_FILES], tally)
    except (MempalaceError, OSError) as exc:  # the palace (or the disk) failed: stop, try again next time
        tally.errors.append((entry.path, str(exc)))
    book.record_sync(entry.name, tally.added, tally.conversations)
    final = next((e for e in book.entries() if e.name == entry.name), entry)  # removed meanwhile: as it was
    return SyncReport(entry.name, final.files_seen, len(changes.changed), final.files_gone, tally.added,
                      tally.conversations, tuple(tally.errors))


def _file_group(palace: Palace, book: SourceBook, entry: SourceEntry, items: list[Seen], tally: _Tally) -> None:
    """File whole files together (embedded in shared batches, as `ingest_paths` does), each recorded
    as soon as its drawers are written; files that are no transcripts are passed over, unreadable
    ones reported."""
    root = Path(entry.path)
    kept = []
    for item in items:
        path = Path(item.path)
        problem = _unreadable(path)
        if problem:
            tally.count(book, entry, item, IngestReport(source=path.name, errors=(problem,)))
        elif entry.format is None and path != root and not _transcript(Source.from_path(path, **_caps(palace))):
            tally.count(book, entry, item, IngestReport(source=path.name, skipped=True, notes=(NOT_A_TRANSCRIPT,)))
        else:
            kept.append(item)
    order = iter(kept)  # ingest_paths reports each path given, in order
    ingest_paths(palace, [Path(item.path) for item in kept], wing=entry.wing, format_name=entry.format,
                 roots=_roots(root), on_report=lambda report: tally.count(book, entry, next(order, None), report),
                 text_wing=entry.text_wing)


def _file_alone(palace: Palace, path: Path, entry: SourceEntry) -> IngestReport:
    try:
        return _file_one(palace, path, _place_of(entry), Path(entry.path))
    except FileNotFoundError:
        return IngestReport(source=path.name, notes=(CHANGED_WHILE_READ,))  # removed since the scan
    except InvalidInputError as exc:  # this file: refused or unreadable
        return IngestReport(source=path.name, errors=(str(exc),))


def _unreadable(path: Path) -> str:
    """Why a source file cannot be read (its permissions; a FIFO, device or socket is never opened to
    read), or "" when it can."""
    try:
        if path.is_dir():
            os.listdir(path)
        else:
            os.close(open_regular(path))
    except NotRegularFileError as exc:
        return str(exc)
    except OSError as exc:
        return f"{path.name} cannot be read ({exc.strerror or exc}); it is tried again once that changes."
    return ""


def _complete(path: Path) -> bool:
    """Whether a file can be read whole: anything but a JSONL file whose last line is still being
    written (no newline yet, and not a whole JSON value: some writers end the file without one)."""
    if path.suffix.lower() != ".jsonl" or not path.is_file():
        return True
    try:
        with os.fdopen(open_regular(path), "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            if size == 0:
                return False
            handle.seek(max(size - TAIL_BYTES, 0))
            tail = handle.read()
    except (OSError, NotRegularFileError):
        return True  # ingest reports it
    if tail.endswith(b"\n"):
        return True
    return (b"\n" in tail or size <= TAIL_BYTES) and _whole_line(tail[tail.rfind(b"\n") + 1 :])


def _whole_line(line: bytes) -> bool:
    """Whether a JSONL file's last line, without its newline, is a whole JSON value already."""
    try:
        json.loads(line)
    except ValueError:
        return False
    return bool(line.strip())


def _complete_part(data: bytes) -> bytes:
    """The part of a JSONL file's bytes that is written whole: up to its last newline, and the last
    line too when it is a whole JSON value."""
    cut = data.rfind(b"\n") + 1
    return data if cut < len(data) and _whole_line(data[cut:]) else data[:cut]


def _changed_since(path: Path, seen: Seen) -> bool:
    try:
        return stat_file(path) != seen
    except OSError:
        return True


def _roots(root: Path) -> tuple[Path, ...]:
    return (root,) if root.is_dir() else (root.parent,)


def _place_of(entry: SourceEntry | None, format_name: str | None = None) -> tuple[str | None, str | None, str | None]:
    """(wing, format, wing for plain text) a source's files are filed with; no source: as ingest chooses."""
    if entry is None:
        return None, format_name, None
    return entry.wing, entry.format or format_name, entry.text_wing


def _file_one(palace: Palace, path: Path, place: tuple[str | None, str | None, str | None],
              root: Path | None = None) -> IngestReport:
    """Ingest one file now: a JSONL file up to its last complete line."""
    wing, format_name, text_wing = place
    roots = () if root is None else _roots(root)
    if path.is_file() and path.suffix.lower() == ".jsonl":
        complete = _complete_part(read_file(path, roots, max_bytes=palace.settings.max_ingest_bytes))
        if not complete.strip():
            return IngestReport(source=path.name, skipped=True, notes=("no complete line yet",))
        if format_name is None and root is not None and not _transcript(Source.from_bytes(complete, path.name,
                                                                                           **_caps(palace))):
            return IngestReport(source=path.name, skipped=True, notes=(NOT_A_TRANSCRIPT,))
        return ingest(palace, complete, filename=path.name, wing=wing, format_name=format_name, text_wing=text_wing)
    if format_name is None and root is not None and root != path and not _transcript(Source.from_path(path,
                                                                                                    **_caps(palace))):
        return IngestReport(source=path.name, skipped=True, notes=(NOT_A_TRANSCRIPT,))
    [report] = ingest_paths(palace, [path], wing=wing, format_name=format_name, roots=roots, text_wing=text_wing) or [
        IngestReport(source=path.name, skipped=True)]
    return report


def _caps(palace: Palace) -> dict[str, int]:
    """The palace's size caps, for every Source a sync reads."""
    return {"max_bytes": palace.settings.max_ingest_bytes, "max_unzipped_bytes": palace.settings.max_unzipped_bytes}


def _transcript(source: Source) -> bool:
    """Whether a file found in a source's folder is a transcript at all (a tool's settings or log
    file beside its sessions is passed over, not reported as failing)."""
    try:
        formats.detect(source)
    except (UnsupportedFormatError, SourceRefusedError):
        return False
    except MalformedSourceError:
        return True  # one of ours, broken: ingest says where
    return True
