"""`python -m mempalace.cli.host PALACE`: the background process that serves one shared palace.

It holds the palace's lock (so nothing opens the folder as a private palace meanwhile), runs Chroma's
own server as a child process on a loopback socket it made itself and holds until it stops (so no
other process can take the port meanwhile), with a fresh token every request must carry, announces
both in `mempalace.server.json` (its owner's alone), and stops, taking the server with it, once no
process has used the palace for a while or the server dies.
Clients start it (see `mempalace.server.starting`); a person never needs to.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import MempalaceError
from ..files.locks import PalaceLock
from ..files.privacy import NEUTRAL_FOLDER, OWNER_ONLY_UMASK, owner_dir, refuse_links, refuse_untrusted
from ..server.starting import CLIENTS_DIR, SERVER_FILE, ServerInfo, machine, newest_lease
from ..store.server_identity import who_answers
from .backup_timer import BackupTimer
from .serve import die_with_parent, reap
from .sync_timer import SyncTimer

LOOPBACK = "127.0.0.1"
BACKLOG = 2048  # uvicorn's own
UP_SECONDS = 20.0
POLL_SECONDS = 0.5
HANDOVER_SECONDS = 20.0
SERVER_APP = "mempalace.store.server_app:app"
SERVER_API = "mempalace.store.server_app.PalaceServerAPI"
TOKEN_AUTH = "chromadb.auth.token_authn.TokenAuthenticationServerProvider"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mempalace.cli.host")
    parser.add_argument("palace", type=Path)
    parser.add_argument("--idle-seconds", type=float, default=600.0)
    args = parser.parse_args(argv)
    where = args.palace.resolve()
    try:
        refuse_untrusted(where)
    except MempalaceError as exc:
        print(f"Not serving {where}: {exc}", flush=True)
        return 3
    lock = PalaceLock(where, timeout=0)
    deadline = time.monotonic() + HANDOVER_SECONDS
    while True:
        try:
            lock.acquire()
            lock.announce(None, shared=True)  # a host starting: clients wait for it, none starts another
            break
        except MempalaceError as exc:
            if not (lock.held_by_shared_server() and time.monotonic() < deadline):
                print(f"Not serving {where}: {exc}", flush=True)
                return 3
            time.sleep(0.1)  # a previous host whose server died is still on its way out
    try:
        return _serve(where, lock, args.idle_seconds)
    finally:
        lock.release()


def _serve(where: Path, lock: PalaceLock, idle_seconds: float) -> int:
    _build_missing_catalog(where)
    token = secrets.token_urlsafe(32)
    with _listening_socket() as listening:  # held until the host stops: the port is never free meanwhile
        server, url = _start_chroma(where, token, listening)
        if server is None:
            return 4
        return _watch(where, lock, idle_seconds, server, ServerInfo(url, os.getpid(), machine(), token), listening)


def _watch(where: Path, lock: PalaceLock, idle_seconds: float, server: subprocess.Popen[Any], info: ServerInfo,
           listening: socket.socket) -> int:
    """Announce the answering server and keep it while the palace is used; stop it after (a server that
    died is forgotten and its socket closed first, so clients are refused at once, not queued)."""
    stopping: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda number, _frame: stopping.append(number))
    started = time.time()
    timer = SyncTimer(where, _sync_seconds())
    backups = _backup_timer(where)
    try:
        refuse_links(where / CLIENTS_DIR)
        owner_dir(where / CLIENTS_DIR)
        info.write(where)  # before the lock's note: until it is there, clients see a host starting (and wait)
        lock.announce(info.url, shared=True)
        print(f"Serving {where} on {info.url} for every MemPalace process on this machine.", flush=True)
        while not stopping and server.poll() is None:
            timer.tick()
            backups.tick()
            if ServerInfo.read(where) != info:
                print("The server file was removed or replaced (the palace moved or was deleted): stopping.",
                      flush=True)
                break
            last_used = time.time() if timer.busy or backups.busy else max(started, newest_lease(where, forget_after=idle_seconds))
            if time.time() - last_used > idle_seconds:
                print(f"Unused for {idle_seconds:.0f} s: stopping.", flush=True)
                break
            time.sleep(POLL_SECONDS)
        if server.poll() is not None:
            print(f"Chroma's server exited by itself (code {server.returncode}).", flush=True)
    finally:
        if server.poll() is not None:
            _forget(where, info.url)
            listening.close()
        timer.stop()
        _forget(where, info.url)
        reap(server)
    return 0


def _build_missing_catalog(where: Path) -> None:
    """An existing palace without a catalog gets it here, from Chroma's files, before the server
    starts (clients wait, and may show how far it got); if that fails, the first client builds it
    through the server as before."""
    try:
        from ..catalog.catalog import CATALOG_FILE
        from ..catalog.build import build_before_serving
        from ..config import load_settings
        from ..palace.opening import chroma_embedding_function

        started = time.perf_counter()
        if build_before_serving(where, CATALOG_FILE, chroma_embedding_function(load_settings())):
            print(f"Built the palace's catalog from Chroma's files in {time.perf_counter() - started:.1f} s.", flush=True)
    except Exception as exc:  # noqa: BLE001 (the server must start all the same)
        print(f"Building the catalog before serving failed ({type(exc).__name__}: {exc}); "
              "the first client builds it through the server.", flush=True)


def _backup_timer(where: Path) -> BackupTimer:
    """Daily backups when the settings ask for them (none when they cannot be read)."""
    from ..config import load_settings

    try:
        settings = load_settings()
    except MempalaceError:
        return BackupTimer(where, 0, where)
    return BackupTimer(where, settings.backups_keep, settings.backups_folder)


def _sync_seconds() -> float:
    """How often the sources are synced: the setting, or its default when the settings cannot be read."""
    from ..config import Settings, load_settings

    try:
        return load_settings().sources_sync_seconds
    except MempalaceError as exc:
        print(f"Settings unreadable ({exc}); syncing sources at the default interval.", flush=True)
        return Settings(home=Path.home()).sources_sync_seconds


def _start_chroma(where: Path, token: str, listening: socket.socket) -> tuple[subprocess.Popen[Any] | None, str]:
    """Chroma's server on the `listening` socket (handed over as a file descriptor, so the port is never
    free between its choice and the server's start), once it proves it knows `token`. It is Chroma's
    own server with its token authentication, so a request without `token` (another local user, a web
    page that reached the port) gets 403 and no data."""
    url = f"http://{LOOPBACK}:{listening.getsockname()[1]}"
    server = subprocess.Popen(
        [sys.executable, "-P", "-m", "uvicorn", SERVER_APP, "--fd", str(listening.fileno()),
         "--workers", "1", "--log-level", "warning", "--timeout-keep-alive", "30"],
        stdin=subprocess.DEVNULL, stdout=sys.stdout, stderr=subprocess.STDOUT, pass_fds=(listening.fileno(),),
        preexec_fn=_die_at_once_with_host, cwd=NEUTRAL_FOLDER, umask=OWNER_ONLY_UMASK, env=_server_env(where, token),
    )
    deadline = time.monotonic() + UP_SECONDS
    while server.poll() is None and time.monotonic() < deadline:
        if who_answers(url, token, timeout=0.5) == "ours":
            return server, url
        time.sleep(0.02)
    reap(server)
    print(f"Chroma's server did not come up on {url}.", flush=True)
    return None, ""


def _die_at_once_with_host() -> None:
    """A server whose host was killed stops at once (uvicorn would otherwise finish requests for a
    while, and a client could keep writing to a palace nobody hosts any more)."""
    die_with_parent(signal.SIGKILL)


def _server_env(where: Path, token: str) -> dict[str, str]:
    """Chroma's settings for the palace's server: persistent in the folder, no telemetry, every request
    authenticated by the bearer token (kept out of argv, which other users can read)."""
    return {**os.environ, "IS_PERSISTENT": "TRUE", "PERSIST_DIRECTORY": str(where), "ANONYMIZED_TELEMETRY": "FALSE",
            "CHROMA_API_IMPL": SERVER_API, "CHROMA_SERVER_AUTHN_PROVIDER": TOKEN_AUTH,
            "CHROMA_SERVER_AUTHN_CREDENTIALS": token, "CHROMA_AUTH_TOKEN_TRANSPORT_HEADER": "Authorization"}


def _listening_socket() -> socket.socket:
    """A loopback socket on a port the system picks, listening already (connections wait in its queue
    until the server accepts them). Its connections inherit TCP_NODELAY: uvicorn takes a socket it is
    handed for a Unix one and would leave Nagle's delay on (40 ms a request)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((LOOPBACK, 0))
    sock.listen(BACKLOG)
    return sock


def _forget(where: Path, url: str) -> None:
    """Remove the server file if it still names this server."""
    try:
        info = ServerInfo.read(where)
    except MempalaceError:  # a link or another user's file in its place: not ours to remove
        return
    if info is not None and info.url == url and info.pid == os.getpid():
        (where / SERVER_FILE).unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
