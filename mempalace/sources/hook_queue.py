"""Filing a hook's session in the background: the hook copies the transcript it names into
`$MEMPALACE_HOME/hooks/queue/` and returns at once; one background process at a time files the queue,
oldest first, so creating the palace, starting its server or loading the model never holds the tool up.

A copy goes only once it is filed: a filing killed part-way, or a palace that is busy or cannot be
reached, leaves it for the next background run (each hook starts one), and drawer ids are content
hashes, so filing it again adds nothing twice. A copy that cannot be filed (not a transcript, or tried
MAX_ATTEMPTS times) is set aside in `hooks/failed/`; each outcome is a line in `hooks/filing.log`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal


from ..catalog.source_book import stat_file
from ..errors import InvalidInputError, MempalaceError, SourceRefusedError
from ..files.locks import LockTimeout, OwnLock
from ..files.privacy import NEUTRAL_FOLDER, OWNER_ONLY_UMASK, owner_dir, owner_file
from ..formats.confined import open_regular, refuse_over

HOOKS_DIR = "hooks"
QUEUE_DIR = "queue"
FAILED_DIR = "failed"
LOG_FILE = "filing.log"
LOCK_FILE = "filing.lock"
JOB_FILE = "job.json"
STAGING_PREFIX = ".new-"
MAX_ATTEMPTS = 5  # a copy the palace failed to file this many times is set aside with the failed ones
LOCK_WAIT_SECONDS = 2.0  # a background run that finds another one filing leaves the queue to it
STALE_STAGING_SECONDS = 3600.0  # a copy this old and still not whole was left by a hook killed while copying
LOG_KEPT_BYTES = 1_000_000


@dataclass(frozen=True)
class QueuedSession:
    """A hook's session in the queue: its folder (the job and the transcript's copy, under the
    transcript's own name) and the palace it goes to."""

    folder: Path
    tool: str
    format_name: str
    transcript: str  # the path the tool's hook named
    palace: str | None  # a palace folder, resolved when the hook ran ...
    url: str | None  # ... or a Chroma server
    copied: tuple[int, int, int] | None = None  # the transcript's (size, mtime_ns, ctime_ns), if unchanged while copied
    attempts: int = 0

    @property
    def copy(self) -> Path:
        return self.folder / Path(self.transcript).name


@dataclass(frozen=True)
class FilingOutcome:
    """What became of a queued session: filed, waiting to be tried again, or set aside as failed."""

    session: QueuedSession
    status: Literal["filed", "waiting", "failed"]
    detail: str


@dataclass(frozen=True)
class QueueState:
    """How many sessions wait or failed, whether a background filing runs now, and where to look."""

    waiting: int
    failed: int
    running: bool
    log: str
    failed_folder: str


def hooks_folder(home: str | os.PathLike[str]) -> Path:
    return Path(home) / HOOKS_DIR


def log_path(home: str | os.PathLike[str]) -> Path:
    return hooks_folder(home) / LOG_FILE


def filing_lock(home: str | os.PathLike[str]) -> OwnLock:
    """The lock a background filing holds: one files the queue at a time."""
    return OwnLock(owner_dir(hooks_folder(home)) / LOCK_FILE)


def enqueue(home: str | os.PathLike[str], tool: str, format_name: str, transcript: Path,
            palace: str | None, url: str | None, max_bytes: int | None = None) -> QueuedSession:
    """Copy the transcript into the queue with where it goes; the copy appears whole or not at all. A
    transcript over `max_bytes` (the palace could not file it) is refused before anything is copied."""
    queue = owner_dir(hooks_folder(home) / QUEUE_DIR)
    staging = Path(tempfile.mkdtemp(dir=queue, prefix=STAGING_PREFIX))
    try:
        before = stat_file(transcript)
        with os.fdopen(open_regular(transcript), "rb") as source, open(staging / transcript.name, "wb") as copy:
            if max_bytes is not None:
                refuse_over(transcript.name, os.fstat(source.fileno()).st_size, max_bytes)
            shutil.copyfileobj(source, copy)  # a FIFO put in the transcript's place is refused, never waited on
        owner_file(staging / transcript.name)
        copied = (before.size, before.mtime_ns, before.ctime_ns) if stat_file(transcript) == before else None
        session = QueuedSession(queue / f"{time.time_ns():020d}-{os.getpid()}", tool, format_name, str(transcript),
                                palace, url, copied)
        _write_job(staging, session)
        os.rename(staging, session.folder)
    except (OSError, SourceRefusedError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        why = getattr(exc, "strerror", None) or exc
        raise InvalidInputError(f"{transcript} could not be queued for filing ({why}); "
                                f"file it with `mempalace ingest`.") from None
    return session


def start_filing(home: str | os.PathLike[str]) -> None:
    """Start a background process that files the queue and stops: it outlives the hook (a session of its
    own, its output in the log rather than in the tool's pipes, which the tool reads to the end)."""
    home = Path(home).resolve()
    owner_dir(hooks_folder(home))
    log = log_path(home)
    if log.exists() and log.stat().st_size > LOG_KEPT_BYTES:
        os.replace(log, log.with_name(log.name + ".old"))
    if os.name == "posix":
        detached: dict[str, Any] = {"start_new_session": True, "umask": OWNER_ONLY_UMASK}
    else:
        detached = {"creationflags": getattr(subprocess, "DETACHED_PROCESS", 0)
                    | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    with open(log, "ab") as out:
        owner_file(log)
        process = subprocess.Popen(  # -P and a neutral folder: nothing in the tool's folder is imported
            [sys.executable, "-P", "-m", "mempalace.cli.hook_worker", str(home)], stdin=subprocess.DEVNULL,
            stdout=out, stderr=subprocess.STDOUT, cwd=NEUTRAL_FOLDER, env={**os.environ, "MEMPALACE_HOME": str(home)},
            **detached)
    threading.Thread(target=process.wait, daemon=True).start()  # reaped if this process lives on: no zombie


def file_queue(home: str | os.PathLike[str],
               on_outcome: Callable[[FilingOutcome], None] = lambda outcome: None) -> list[FilingOutcome]:
    """File every queued session, oldest first, then those queued meanwhile (each tried once); nothing
    when another process is filing the queue: it files what this one would have."""
    _drop_stale_staging(hooks_folder(home) / QUEUE_DIR)
    lock = filing_lock(home)
    outcomes: list[FilingOutcome] = []
    tried: set[str] = set()
    while _untried(home, tried):
        try:
            lock.acquire(timeout=LOCK_WAIT_SECONDS)
        except LockTimeout:
            break
        try:
            with ExitStack() as palaces_open:
                palaces: dict[tuple[str | None, str | None], Any] = {}
                while todo := _untried(home, tried):
                    tried.add(todo[0].folder.name)
                    outcome = _file(todo[0], todo[1:], palaces, palaces_open)
                    outcomes.append(outcome)
                    on_outcome(outcome)
        finally:
            lock.release()
    return outcomes


def queue_state(home: str | os.PathLike[str]) -> QueueState:
    folder = hooks_folder(home)
    return QueueState(len(_sessions(folder / QUEUE_DIR)), len(_sessions(folder / FAILED_DIR)), _running(folder),
                      str(folder / LOG_FILE), str(folder / FAILED_DIR))


def _file(session: QueuedSession, later: list[QueuedSession], palaces: dict[tuple[str | None, str | None], Any],
          palaces_open: ExitStack) -> FilingOutcome:
    """File one queued session into its palace (opened once per run) and settle its copy."""
    from .sync import WAIT_SECONDS, file_transcript

    try:
        data = session.copy.read_bytes()
        if any(_holds(other, session, data) for other in later):
            return _settle(session, "filed", "a later copy holds all of it")
        report = file_transcript(_palace(session, palaces, palaces_open), session.transcript, session.format_name,
                                 WAIT_SECONDS, copy=data, copied=session.copied)
    except InvalidInputError as exc:
        return _settle(session, "failed", str(exc))
    except Exception as exc:  # noqa: BLE001 (the palace, the disk or a bug: tried again at the next run)
        return _settle(session, "waiting", str(exc) if isinstance(exc, MempalaceError) else f"{type(exc).__name__}: {exc}")
    if report.ok:
        return _settle(session, "filed", report.summary())
    return _settle(session, "waiting" if report.transient else "failed", " ".join(report.errors))


def _palace(session: QueuedSession, palaces: dict[tuple[str | None, str | None], Any], palaces_open: ExitStack) -> Any:
    """The session's palace, opened (or failed to open) once per run."""
    from ..palace.palace import Palace

    where = (session.palace, session.url)
    if where not in palaces:
        try:
            palaces[where] = palaces_open.enter_context(Palace.open(session.palace, session.url, create=True))
        except MempalaceError as exc:
            palaces[where] = exc
    if isinstance(palaces[where], Exception):
        raise palaces[where]
    return palaces[where]


def _settle(session: QueuedSession, status: Literal["filed", "waiting", "failed"], detail: str) -> FilingOutcome:
    """Remove a filed copy, count an attempt for a waiting one, set a failed one aside."""
    detail = " ".join(detail.split())
    if status == "filed":
        shutil.rmtree(session.folder, ignore_errors=True)
        return FilingOutcome(session, status, detail)
    tried = replace(session, attempts=session.attempts + 1)
    if status == "waiting" and tried.attempts < MAX_ATTEMPTS:
        _write_job(session.folder, tried)
        return FilingOutcome(tried, status, detail)
    failed = owner_dir(session.folder.parent.parent / FAILED_DIR)
    for older in _sessions(failed):  # the newest failed copy of a transcript is kept, not one per turn
        if (older.transcript, older.palace, older.url) == (session.transcript, session.palace, session.url):
            shutil.rmtree(older.folder, ignore_errors=True)
    aside = failed / session.folder.name
    _write_job(session.folder, tried)
    os.replace(session.folder, aside)
    return FilingOutcome(replace(tried, folder=aside), "failed", detail)


def _holds(other: QueuedSession, session: QueuedSession, data: bytes) -> bool:
    """Whether a later copy of the same transcript, for the same palace, begins with all of this one."""
    if (other.transcript, other.palace, other.url) != (session.transcript, session.palace, session.url):
        return False
    try:
        with open(other.copy, "rb") as later:
            return later.read(len(data)) == data
    except OSError:
        return False


def _untried(home: str | os.PathLike[str], tried: set[str]) -> list[QueuedSession]:
    return [s for s in _sessions(hooks_folder(home) / QUEUE_DIR) if s.folder.name not in tried]


def _sessions(folder: Path) -> list[QueuedSession]:
    """The sessions in a queue folder, oldest first (a folder whose job cannot be read is passed over)."""
    found = []
    for entry in sorted(folder.iterdir()) if folder.is_dir() else ():
        if entry.name.startswith(".") or not entry.is_dir():
            continue
        try:
            job = json.loads((entry / JOB_FILE).read_text(encoding="utf-8"))
            copied = tuple(job["copied"]) if job.get("copied") else None
            found.append(QueuedSession(entry, job["tool"], job["format_name"], job["transcript"], job.get("palace"),
                                       job.get("url"), copied, int(job.get("attempts", 0))))  # type: ignore[arg-type]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def _write_job(folder: Path, session: QueuedSession) -> None:
    job = {key: value for key, value in asdict(session).items() if key != "folder"}
    temporary = folder / (JOB_FILE + ".tmp")
    temporary.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
    owner_file(temporary)
    os.replace(temporary, folder / JOB_FILE)


def _running(folder: Path) -> bool:
    """Whether a background filing holds the lock now (probed without making anything)."""
    if not (folder / LOCK_FILE).exists():
        return False
    probe = OwnLock(folder / LOCK_FILE)
    try:
        probe.acquire(timeout=0)
    except LockTimeout:
        return True
    probe.release()
    return False


def _drop_stale_staging(queue: Path) -> None:
    """Remove half-made copies a hook killed while copying left behind (never queued, so never filed)."""
    for entry in queue.glob(STAGING_PREFIX + "*") if queue.is_dir() else ():
        try:
            if time.time() - entry.stat().st_mtime > STALE_STAGING_SECONDS:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue
