"""Backups: a consistent snapshot of a palace that may be in use, as a folder that is whole or absent.

A backup holds every drawer (id, text, metadata) in `drawers.jsonl` with its vector in `vectors.f32`
(float32 rows in the same order), the trash in `trash.jsonl` (vectors inline), copies of the audit
log and tokens, the sources book and the change log (SQLite's online backup, so each is consistent),
and `manifest.json`: counts, embedder, each file's size and sha256. It is written as a hidden
`.partial` folder and renamed into place last; the drawers are read again when a write landed while
they were read. The catalog is not kept: a restored palace builds it from its drawers.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ..embedding.embedders import file_sha256
from ..errors import InvalidInputError, PalaceBusyError
from ..files.privacy import owner_dir, owner_file
from ..store.chroma import Record
from ..text.counts import counted

FORMAT = "mempalace-backup"
VERSION = 1
MANIFEST = "manifest.json"
DRAWERS, VECTORS, TRASH = "drawers.jsonl", "vectors.f32", "trash.jsonl"
ATTEMPTS = 3  # reads of the drawers before a palace that never stops changing is reported busy
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class BackupReport:
    """A backup written or checked: where, how many drawers and trashed drawers, and the embedder."""

    path: str
    drawers: int
    trashed: int
    embedder: str
    created_at: str
    problems: tuple[str, ...] = ()


def side_files(catalog: Path) -> dict[str, Path]:
    """{name in a backup: path} of the palace's own state besides its drawers."""
    from ..access.audit_anchor import anchor_path
    from ..catalog.change_log import changes_path
    from ..catalog.source_book import sources_path
    from ..palace.drawer_records import access_path

    access = access_path(catalog)
    return {"access.sqlite3": access, "access.anchor": anchor_path(access), "sources.sqlite3": sources_path(catalog),
            "changes.sqlite3": changes_path(catalog)}


def write_backup(palace: Any, dest: Path, progress: Progress | None = None) -> BackupReport:
    """Snapshot `palace` into the new folder `dest` (refused if it exists)."""
    dest = Path(dest).expanduser().absolute()
    if dest.exists():
        raise InvalidInputError(f"{dest} exists already: name a new folder for the backup.")
    clear_stale(dest.parent, "partial")
    scratch = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    owner_dir(scratch)
    try:
        for _ in range(ATTEMPTS):
            before = palace.write_marker()
            drawers, wings = _write_drawers(palace, scratch, progress)
            trashed = _write_trash(palace, scratch)
            _copy_side_files(palace.catalog_path, scratch)
            if palace.write_marker() == before:
                break
        else:
            raise PalaceBusyError(f"The palace changed during each of {ATTEMPTS} reads of its drawers; try again when "
                                  "it is quieter (nothing was written to the backup's folder).")
        manifest = {"format": FORMAT, "version": VERSION, "created_at": datetime.now(timezone.utc).isoformat(),
                    "source": palace.location, "embedder": palace.settings.embedder, "drawers": drawers,
                    "trashed": trashed, "wings": wings, "files": _checksums(scratch)}
        (scratch / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
        owner_file(scratch / MANIFEST)
        _synced(scratch)
        os.replace(scratch, dest)
        _synced(dest.parent)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return BackupReport(str(dest), drawers, trashed, manifest["embedder"], manifest["created_at"])


def _synced(folder: Path) -> None:
    """Flush a folder's files and the folder itself to disk (a backup must survive a power cut whole)."""
    for path in [*(p for p in folder.iterdir() if p.is_file()), folder]:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def clear_stale(folder: Path, kind: str) -> None:
    """Remove hidden `.<name>.<kind>-<pid>` folders whose process is gone (a backup or restore killed)."""
    for path in Path(folder).glob(f".*.{kind}-*"):
        try:
            os.kill(int(path.name.rsplit("-", 1)[1]), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except (ValueError, PermissionError, OSError):
            continue  # not ours to judge: another user's process, or not a number


def _write_drawers(palace: Any, folder: Path, progress: Progress | None) -> tuple[int, dict[str, int]]:
    total, done, wings = palace.count(), 0, {}
    with (folder / DRAWERS).open("w", encoding="utf-8") as text, (folder / VECTORS).open("wb") as vectors:
        for page in palace.all_records():
            for record in page:
                text.write(json.dumps({"id": record.id, "document": record.document, "metadata": dict(record.metadata)},
                                      ensure_ascii=False) + "\n")
                wing = str(record.metadata.get("wing", ""))
                wings[wing] = wings.get(wing, 0) + 1
            vectors.write(np.asarray([r.embedding for r in page], dtype=np.float32).tobytes())
            done += len(page)
            if progress:
                progress(done, max(total, done))
    return done, dict(sorted(wings.items()))


def _write_trash(palace: Any, folder: Path) -> int:
    kept = 0
    with (folder / TRASH).open("w", encoding="utf-8") as text:
        for embedder, page in palace.trash_records():
            for r in page:
                text.write(json.dumps({"embedder": embedder, "id": r.id, "document": r.document,
                                       "metadata": dict(r.metadata), "vector": np.asarray(r.embedding).tolist()},
                                      ensure_ascii=False) + "\n")
                kept += 1
    return kept


def _copy_side_files(catalog: Path, folder: Path) -> list[str]:
    """SQLite files by SQLite's online backup (consistent while others write), others as they are; the
    audit log and its anchor under the log's append lock, so the two agree."""
    from ..access.audit_anchor import AnchorLock

    files = side_files(catalog)
    with AnchorLock(files["access.sqlite3"], timeout=30):
        return _copy_files(files, folder, online=True)


def _copy_files(files: dict[str, Path], folder: Path, online: bool = False) -> list[str]:
    """Copy the files that exist into `folder` under their names; `online`: SQLite files through
    SQLite's backup, into a single file (no write-ahead log beside it)."""
    copied = []
    for name, path in files.items():
        if not path.is_file():
            continue
        target = folder / name
        if online and path.suffix == ".sqlite3":
            source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
            copy = sqlite3.connect(str(target))
            try:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")
            finally:
                copy.close()
                source.close()
        else:
            shutil.copyfile(path, target)
        owner_file(target)
        copied.append(name)
    return copied


def _checksums(folder: Path) -> dict[str, dict[str, Any]]:
    return {p.name: {"bytes": p.stat().st_size, "sha256": file_sha256(p)}
            for p in sorted(folder.iterdir()) if p.is_file() and p.name != MANIFEST}


def read_manifest(folder: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"{folder} is not a MemPalace backup (no readable {MANIFEST}: {exc}).") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        said = manifest if isinstance(manifest, dict) else {}
        raise InvalidInputError(f"{folder} is not a backup this MemPalace reads (format {said.get('format')!r}, "
                                f"version {said.get('version')!r}).")
    missing = {"created_at", "embedder", "drawers", "trashed", "files"} - set(manifest)
    if missing or not isinstance(manifest["files"], dict):
        raise InvalidInputError(f"The manifest of {folder} is damaged (missing {', '.join(sorted(missing)) or 'files'}).")
    return manifest


def verify_backup(folder: Path) -> BackupReport:
    """Check every file against the manifest (size, sha256) and the drawers and vectors against its counts."""
    folder = Path(folder).expanduser().absolute()
    manifest = read_manifest(folder)
    problems = []
    for name, expected in manifest["files"].items():
        path = folder / name
        if not path.is_file():
            problems.append(f"{name} is missing")
        elif path.stat().st_size != expected["bytes"] or file_sha256(path) != expected["sha256"]:
            problems.append(f"{name} differs from what was written")
    if not problems:
        lines = sum(1 for _ in (folder / DRAWERS).open(encoding="utf-8"))
        rows = (folder / VECTORS).stat().st_size // 4
        if lines != manifest["drawers"] or (lines and rows % lines):
            problems.append(f"{DRAWERS} holds {counted(lines, 'drawer')} and {VECTORS} {counted(rows, 'number')}; "
                            f"the manifest says {counted(manifest['drawers'], 'drawer')}")
    return BackupReport(str(folder), manifest["drawers"], manifest["trashed"], manifest["embedder"],
                        manifest["created_at"], tuple(problems))


def backup_records(folder: Path, page: int = 2_000) -> Iterator[list[Record]]:
    """The backup's drawers with their vectors, a page at a time."""
    manifest = read_manifest(folder)
    count = manifest["drawers"]
    if not count:
        return
    vectors = np.fromfile(folder / VECTORS, dtype=np.float32).reshape(count, -1)
    batch: list[Record] = []
    with (folder / DRAWERS).open(encoding="utf-8") as lines:
        for n, line in enumerate(lines):
            row = json.loads(line)
            batch.append(Record(row["id"], row["document"], row["metadata"], vectors[n]))
            if len(batch) == page:
                yield batch
                batch = []
    if batch:
        yield batch


def trash_entries(folder: Path) -> Iterator[tuple[str, Record]]:
    path = Path(folder) / TRASH
    if path.is_file():
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                row = json.loads(line)
                yield row["embedder"], Record(row["id"], row["document"], row["metadata"],
                                              np.asarray(row["vector"], dtype=np.float32))


def stamp_name(moment: float | None = None) -> str:
    """A backup folder's name for `moment`: `mempalace-backup-20261205-203500`."""
    return "mempalace-backup-" + datetime.fromtimestamp(moment or time.time(), timezone.utc).strftime("%Y%m%d-%H%M%S")


def restore_backup(source: Path, target: Path, settings: Any, replace: bool = False,
                   progress: Progress | None = None) -> BackupReport:
    """Make a new private palace folder `target` from the backup `source` (verified first). A palace
    already at `target` is refused, or with `replace` moved aside to `<target>.before-restore-<time>`."""
    from dataclasses import replace as replaced

    from ..palace.palace import Palace

    source, target = Path(source).expanduser().absolute(), Path(target).expanduser().absolute()
    checked = verify_backup(source)
    if checked.problems:
        raise InvalidInputError(f"The backup at {source} does not verify: {'; '.join(checked.problems)}.")
    if target.exists() and any(target.iterdir()) and not replace:
        raise InvalidInputError(f"{target} holds a palace or other files already: restore into a new folder, "
                                "or ask to replace it (it is then moved aside, not deleted).")
    clear_stale(target.parent, "restoring")
    scratch = target.with_name(f".{target.name}.restoring-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    owner_dir(scratch)
    try:
        from ..catalog.catalog import CATALOG_FILE

        _copy_files({name: source / name for name in side_files(Path("x") / CATALOG_FILE)
                     if (source / name).is_file()}, scratch)
        for name, path in side_files(scratch / CATALOG_FILE).items():
            if (scratch / name).is_file():
                os.replace(scratch / name, path)
        chosen = replaced(settings, embedder=checked.embedder, embedder_chosen=True)
        with Palace.open(scratch, settings=chosen, private=True) as palace:
            done = 0
            for page in backup_records(source):
                palace.put_records([(checked.embedder, r) for r in page])
                done += len(page)
                if progress:
                    progress(done, checked.drawers)
            trashed: dict[str, list[Record]] = {}
            for embedder, record in trash_entries(source):
                trashed.setdefault(embedder, []).append(record)
            for embedder, records in trashed.items():
                palace.keep_in_trash(embedder, records)
        _swap_in(scratch, target)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return BackupReport(str(target), checked.drawers, checked.trashed, checked.embedder, checked.created_at)


def prune_daily(folder: Path, keep: int) -> list[Path]:
    """Remove all but the newest `keep` backups (by their dated names) in `folder`; `keep` 0 keeps all."""
    found = sorted(p for p in Path(folder).glob("mempalace-backup-*") if p.is_dir() and (p / MANIFEST).is_file())
    gone = found[:-keep] if keep > 0 else []
    for path in gone:
        shutil.rmtree(path, ignore_errors=True)
    return gone


def newest_backup_age(folder: Path) -> float | None:
    """Seconds since the newest complete backup in `folder` was made, or None when there is none."""
    found = sorted(p for p in Path(folder).glob("mempalace-backup-*") if (p / MANIFEST).is_file())
    return time.time() - (found[-1] / MANIFEST).stat().st_mtime if found else None


def _swap_in(built: Path, target: Path) -> None:
    """Put the built palace at `target`; a palace there is moved aside first, while nobody uses it
    (its lock held through both renames), to `<target>.before-restore-<time>`."""
    from ..files.locks import PalaceLock

    if not target.exists():
        os.replace(built, target)
        return
    if not any(target.iterdir()):
        target.rmdir()
        os.replace(built, target)
        return
    lock = PalaceLock(target, timeout=0)
    lock.acquire()  # PalaceBusyError, saying who holds it, while another process has it open
    try:
        os.replace(target, target.with_name(f"{target.name}.before-restore-{stamp_name()[len('mempalace-backup-'):]}"))
        os.replace(built, target)
    finally:
        lock.release()
