"""One Chroma server per shared palace folder: found through a file in the folder, started on demand.

The first process that needs a palace's Chroma starts `python -m mempalace.cli.host` for it, which holds
the palace's lock, runs Chroma's server on a loopback socket it holds and writes `mempalace.server.json`.
Later processes read that file and connect once the server proved it is the palace's own
(`mempalace.store.server_identity`). Each process using the palace keeps a lease file fresh
in `mempalace.clients/`; the host stops once no lease has been touched for `server_idle_seconds`.
Nothing here imports chromadb: finding the server must stay cheap for short commands.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable
from pathlib import Path

from ..errors import PalaceBusyError, PalaceUnavailableError
from ..files.privacy import NEUTRAL_FOLDER, OWNER_ONLY_UMASK, open_own, owner_dir, owner_file, read_own, refuse_links, write_own
from ..store.server_identity import who_answers

SERVER_FILE = "mempalace.server.json"
START_LOCK = "mempalace.start.lock"
CLIENTS_DIR = "mempalace.clients"
HOST_LOG = "mempalace-server.log"
START_SECONDS = 60.0
LEASE_REFRESH_SECONDS = 5.0
LOG_KEPT_BYTES = 5 * 1024 * 1024  # a longer server log is set aside as .old when a server starts


@dataclass(frozen=True)
class ServerInfo:
    """What `mempalace.server.json` (its owner's alone) says: where the palace's server listens, who
    runs it, and the secret every request to it must carry."""

    url: str
    pid: int
    machine: str
    token: str = ""

    @classmethod
    def read(cls, palace_dir: Path) -> "ServerInfo | None":
        """The file's word, None if there is none; a link or another user's file there is refused."""
        try:
            data = json.loads(read_own(palace_dir / SERVER_FILE))
            return cls(str(data["url"]), int(data["pid"]), str(data["machine"]), str(data.get("token", "")))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def write(self, palace_dir: Path) -> None:
        """Replace the file in one step (0600 from birth), so a reader never sees half of it."""
        write_own(palace_dir / SERVER_FILE,
                  json.dumps({"url": self.url, "pid": self.pid, "machine": self.machine, "token": self.token}))


def machine() -> str:
    return socket.gethostname()


def shared_server(palace_dir: Path, idle_seconds: float) -> str:
    """The URL of the palace's running server, starting one if none answers."""
    url = _host(palace_dir, idle_seconds, None)
    assert url is not None  # (only a wait with `enough` ends without a URL)
    return url


def host_started(palace_dir: Path, idle_seconds: float, enough: Callable[[], bool]) -> None:
    """Make sure the folder's host runs (starting one if none does), and wait until its server
    answers or, sooner, until `enough()` (its catalog build done: Chroma's server starts after it)."""
    _host(palace_dir, idle_seconds, enough)


def _host(palace_dir: Path, idle_seconds: float, enough: Callable[[], bool] | None) -> str | None:
    running = _running(palace_dir)
    if running:
        return running
    check_writable(palace_dir)
    from ..files.locks import LockTimeout, OwnLock

    lock = OwnLock(palace_dir / START_LOCK)
    try:
        while True:
            try:
                lock.acquire(timeout=START_SECONDS)
                break
            except LockTimeout:
                if not (_building(palace_dir) or _starting_host(palace_dir)):  # a large palace's host is
                    raise  # building its catalog or loading Chroma's index for another process: wait on
        try:
            return _running(palace_dir) or _start(palace_dir, idle_seconds, enough)
        finally:
            lock.release()
    except LockTimeout:
        raise PalaceUnavailableError(
            f"Another process has been starting the server of the palace at {palace_dir} for over "
            f"{START_SECONDS:.0f} s; see {palace_dir / HOST_LOG}."
        ) from None


def _running(palace_dir: Path) -> str | None:
    """The URL of this folder's live server: the host named in the server file must still run and
    serve this folder (a port is reused once a host is gone: a stale file must never lead to another
    palace's server); a host that is alive but slow to answer is waited for."""
    info = ServerInfo.read(palace_dir)
    if info is None:
        return None
    if info.machine != machine():  # its pid cannot be checked from here, so the file counts as live
        if who_answers(info.url, info.token) == "ours":
            return info.url
        raise PalaceUnavailableError(
            f"The palace at {palace_dir} is served by another machine ({info.machine}, pid {info.pid}), "
            "so this folder is on a shared or network file system. Open it on that machine, or have it run "
            f"`mempalace serve` and connect with --url. If that machine is gone, delete {palace_dir / SERVER_FILE}."
        )
    deadline = time.monotonic() + START_SECONDS
    while _hosts(info.pid, palace_dir):
        if _proven(palace_dir, info) == "ours":
            return info.url
        if time.monotonic() > deadline:
            raise PalaceUnavailableError(
                f"The server of the palace at {palace_dir} (pid {info.pid}) has not answered for "
                f"{START_SECONDS:.0f} s. The end of its log ({palace_dir / HOST_LOG}):\n{log_tail(palace_dir / HOST_LOG)}"
            )
        time.sleep(0.1)
    return None


def serving(palace_dir: Path, url: str) -> bool:
    """Whether `url` is still the folder's server: named in its server file, its host alive (a server
    whose host was killed may answer a little longer while it shuts down), and answering."""
    info = ServerInfo.read(palace_dir)
    if info is None or info.url != url:
        return False
    if info.machine != machine():
        return who_answers(url, info.token) == "ours"
    return _hosts(info.pid, palace_dir) and _proven(palace_dir, info) == "ours"


def _proven(palace_dir: Path, info: ServerInfo) -> str:
    """"ours" once the server at `info.url` proved it knows the palace's token (see `store.server_identity`), "silent"
    while nothing answers; something else answering is refused, and is sent nothing but a challenge."""
    answer = who_answers(info.url, info.token)
    if answer == "impostor":
        raise PalaceUnavailableError(
            f"What answers at {info.url}, where {palace_dir / SERVER_FILE} says the palace's server is, is not "
            "the palace's own server (it cannot prove it knows the palace's secret, or its socket is another "
            "user's), so MemPalace sent it nothing. If a MemPalace from before this check still serves the "
            f"palace, stop it (`kill {info.pid}`); otherwise delete {palace_dir / SERVER_FILE} and try again.")
    return answer


def _hosts(pid: int, palace_dir: Path) -> bool:
    """Whether process `pid` is alive, this user's, and is the host of `palace_dir` (read from /proc on
    Linux: another user's process may have been given a dead host's pid, and named itself alike)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if os.stat(f"/proc/{pid}").st_uid != os.geteuid():
            return False
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True  # no /proc here: a live pid is the best evidence there is
    return b"mempalace.cli.host" in command and os.fsencode(str(palace_dir)) in command


def _owner_words(palace_dir: Path) -> list[str]:
    """What the lock's holder announced: its pid, its server's address, "shared" (see `PalaceLock.announce`)."""
    from ..files.locks import owner_text

    return owner_text(palace_dir).split()


def _private_holder(palace_dir: Path) -> int | None:
    """The pid of the process holding the folder as a private palace, if one holds its lock now."""
    words = _owner_words(palace_dir)
    if not words or not words[0].isdigit() or words[-1] == "shared":
        return None
    if _lock_held(palace_dir):
        return int(words[0])
    return None


def check_writable(palace_dir: Path) -> None:
    """A shared palace writes its lock, server and lease files beside the data."""
    if not os.access(palace_dir, os.W_OK):
        raise PalaceUnavailableError(
            f"The palace at {palace_dir} is in a folder this user cannot write to. MemPalace writes its "
            "lock, catalog and server files beside the data, so copy the palace to a writable folder "
            "and open the copy."
        )


def _start(palace_dir: Path, idle_seconds: float, enough: Callable[[], bool] | None) -> str | None:
    """Start the host process (unless one is already starting) and wait until it has written the
    server file (or `enough()`)."""
    import subprocess  # only a process that starts the server needs it

    starting = _starting_host(palace_dir)
    if starting is not None:  # started by a process that gave up waiting: a large palace starts slowly
        return _served_by(palace_dir, starting, lambda: _hosts(starting, palace_dir), lambda: None, enough)
    holder = _private_holder(palace_dir)
    if holder is not None:
        raise PalaceBusyError(
            f"The palace at {palace_dir} is open as a private palace by process {holder}, so it cannot "
            "be shared now. Close that program, or open the palace there without MEMPALACE_SHARED=0 / "
            "private=True so that both share it."
        )

    log = palace_dir / HOST_LOG
    refuse_links(log)
    if log.exists() and log.stat().st_size > LOG_KEPT_BYTES:
        os.replace(log, log.with_name(log.name + ".old"))
    with os.fdopen(open_own(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab") as out:
        owner_file(log)
        host = subprocess.Popen(  # -P and a neutral folder: nothing in the palace folder is ever imported
            [sys.executable, "-P", "-m", "mempalace.cli.host", str(palace_dir.resolve()), "--idle-seconds",
             str(idle_seconds)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            cwd=NEUTRAL_FOLDER, umask=OWNER_ONLY_UMASK,
        )
    threading.Thread(target=host.wait, daemon=True).start()  # reaped whenever it stops: no zombie
    return _served_by(palace_dir, host.pid, lambda: host.poll() is None, host.terminate, enough)


def _served_by(palace_dir: Path, pid: int, alive: Callable[[], bool], give_up: Callable[[], None],
               enough: Callable[[], bool] | None = None) -> str | None:
    """The URL host `pid` serves the folder at, once its server answers (waited for START_SECONDS,
    and as long as it tells how far its catalog build got); None once `enough()`, if sooner."""
    log = palace_dir / HOST_LOG
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if _building(palace_dir, pid):  # after its build the host still starts Chroma: wait as long again
            deadline = time.monotonic() + START_SECONDS
        elif enough is not None and enough():  # (not asked while it builds: a reader slows the writer)
            return None
        info = ServerInfo.read(palace_dir)
        if info and info.pid == pid and _proven(palace_dir, info) == "ours":
            return info.url
        if not alive():
            raise PalaceUnavailableError(
                f"The server for the palace at {palace_dir} did not start. The end of its log ({log}):\n"
                f"{log_tail(log)}")
        time.sleep(0.02)
    give_up()
    raise PalaceUnavailableError(
        f"The server for the palace at {palace_dir} did not answer within {START_SECONDS:.0f} s. "
        f"The end of its log ({log}):\n{log_tail(log)}"
    )


def host_pid(palace_dir: Path) -> int | None:
    """The pid of the folder's host: serving, or still starting (its server file not written yet)."""
    info = ServerInfo.read(palace_dir)
    return info.pid if info is not None and info.machine == machine() else _starting_host(palace_dir)


def host_alive(palace_dir: Path, pid: int | None = None) -> bool:
    """Whether this machine runs the folder's host (serving, or still starting); with `pid`, whether
    that process is it."""
    found = host_pid(palace_dir)
    return found is not None and pid in (None, found) and _hosts(found, palace_dir)


def _starting_host(palace_dir: Path) -> int | None:
    """The pid of a host that holds the folder's lock and has not written its server's address yet."""
    words = _owner_words(palace_dir)
    if len(words) == 2 and words[0].isdigit() and words[1] == "shared" and _hosts(int(words[0]), palace_dir) \
            and _lock_held(palace_dir):  # (a reused pid holds no lock)
        return int(words[0])
    return None


def _lock_held(palace_dir: Path) -> bool:
    """Whether some process holds the folder's palace lock now."""
    from ..files.locks import LOCK_FILE, LockTimeout, OwnLock

    probe = OwnLock(palace_dir / LOCK_FILE, timeout=0)
    try:
        probe.acquire()
    except LockTimeout:
        return True
    probe.release()
    return False


def _building(palace_dir: Path, pid: int | None = None) -> bool:
    """Whether a host (`pid`, or any) is building the palace's missing catalog and told how far it got
    within the last START_SECONDS: a first open of a large palace is waited for as long as it goes on."""
    from ..catalog.build_progress import read_progress
    from ..catalog.catalog import CATALOG_FILE

    found = read_progress(palace_dir / CATALOG_FILE)
    return found is not None and (pid is None or found.pid == pid) and time.time() - found.at < START_SECONDS


def log_tail(log: Path, lines: int = 12) -> str:
    try:
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class Lease:
    """This process's claim on a shared palace: a file whose age tells the host when it was last used."""

    def __init__(self, palace_dir: Path):
        self._path = palace_dir / CLIENTS_DIR / f"{machine()}-{os.getpid()}-{id(self):x}"
        self._touched = float("-inf")
        self._released = False
        self._guard = threading.Lock()
        self.touch()

    def touch(self) -> None:
        """Mark the palace as in use now (at most every few seconds: it is one small file write)."""
        if time.monotonic() - self._touched >= LEASE_REFRESH_SECONDS:
            self.renew()

    def renew(self) -> None:
        """Mark the palace as in use now, however recently it was; nothing once released (a renewal
        racing the release must not leave a lease behind that keeps the host up). The lease is never
        written through a link."""
        with self._guard:
            if self._released:
                return
            try:
                owner_dir(self._path.parent)
                folder = _clients_folder(self._path.parent)
                try:
                    descriptor = os.open(self._path.name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600, dir_fd=folder)
                    os.utime(descriptor)
                    os.close(descriptor)
                finally:
                    os.close(folder)
                self._touched = time.monotonic()
            except OSError:
                pass  # a lease only keeps the server up; a read-only folder was refused earlier

    def release(self) -> None:
        with self._guard:
            self._released = True
            self._path.unlink(missing_ok=True)


def _clients_folder(path: Path) -> int:
    """A descriptor of the leases' folder: refused if a link was planted in its place (the host removes
    old files from it)."""
    return open_own(path, os.O_RDONLY | os.O_DIRECTORY)


def newest_lease(palace_dir: Path, forget_after: float) -> float:
    """The wall-clock time the palace was last used by any process (0 if never); leases untouched for
    `forget_after` seconds (of processes that were killed) are removed."""
    newest = 0.0
    try:
        folder = _clients_folder(palace_dir / CLIENTS_DIR)
    except (OSError, PalaceUnavailableError):
        return newest
    try:
        entries = list(os.scandir(folder))
        for entry in entries:
            try:
                touched = entry.stat(follow_symlinks=False).st_mtime
                if time.time() - touched > forget_after:
                    os.unlink(entry.name, dir_fd=folder)
                newest = max(newest, touched)
            except OSError:
                continue
    finally:
        os.close(folder)
    return newest
