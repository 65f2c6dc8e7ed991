"""`mempalace serve`: share one palace between processes by running a Chroma server on its directory.

The server process holds the palace's lock for as long as it runs, so no program opens the directory
as an embedded palace meanwhile; they connect with `--url` (or MEMPALACE_URL) instead.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import click

from ..config import load_settings
from ..files.locks import PalaceLock
from ..files.paths import checked_path
from ..files.privacy import NEUTRAL_FOLDER, OWNER_ONLY_UMASK, open_own, owner_file, refuse_links, refuse_untrusted
from ..palace.palace import Palace
from ..store.chroma import CHROMA_FILE
from .support import is_loopback, user_errors

LOG_FILE = "mempalace-serve.log"  # in the palace directory: files named mempalace* are ours
STARTUP_SECONDS = 60
PR_SET_PDEATHSIG = 1  # prctl option (Linux)


@click.command("serve")
@click.option("--palace", "palace_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Palace directory (default: the global --palace, else $MEMPALACE_HOME/palace).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--trusted-network", is_flag=True,
              help="Listen on a non-loopback --host although Chroma's server checks no credentials: only "
                   "behind a reverse proxy that checks a token, or on a network you trust.")
@click.pass_context
def serve_command(ctx: click.Context, palace_dir: Path | None, host: str, port: int, trusted_network: bool) -> None:
    """Run a Chroma server on the palace so the dashboard, agents and the CLI can share it."""
    if not is_loopback(host) and not trusted_network:
        raise click.UsageError(
            f"Refusing to serve on {host}: Chroma's server has no working authentication, so anyone who can "
            "reach the port could read and change every drawer. Keep the default --host 127.0.0.1, or put "
            "the server behind a reverse proxy that checks a token and add --trusted-network.")
    settings = load_settings()
    url = client_url(host, port)
    with user_errors():
        where = checked_path(Path(palace_dir or ctx.obj["palace"] or settings.default_palace).expanduser()).resolve()
        lock = PalaceLock(where, settings.lock_timeout_seconds)
        refuse_untrusted(where)
        refuse_links(where / LOG_FILE)
        if not (where / CHROMA_FILE).exists():
            Palace.open(where, settings=settings, private=True).close()  # a new palace, in our format
        lock.acquire(served_at=url)
    try:
        sys.exit(_run_chroma(where, host, port, url))
    finally:
        lock.release()


def client_url(host: str, port: int) -> str:
    """The URL programs on this machine use: a wildcard address is reached as loopback."""
    name = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
    return f"http://[{name}]:{port}" if ":" in name else f"http://{name}:{port}"


def _run_chroma(where: Path, host: str, port: int, url: str) -> int:
    """`chroma run` on the directory (its log in LOG_FILE there) until it exits or we are told to stop;
    returns the exit code for `serve`. The server never outlives this process, so never the lock."""
    chroma = shutil.which("chroma", path=str(Path(sys.executable).parent)) or shutil.which("chroma")
    if chroma is None:
        raise click.ClickException("The `chroma` command was not found; it comes with the chromadb package.")
    if not _port_free(host, port):
        raise click.ClickException(f"{host}:{port} is already in use: pick another port with --port.")
    log_path = where / LOG_FILE
    with os.fdopen(open_own(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab") as log:
        owner_file(log_path)
        process = subprocess.Popen([chroma, "run", "--path", str(where), "--host", host, "--port", str(port)],
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   preexec_fn=die_with_parent, cwd=NEUTRAL_FOLDER, umask=OWNER_ONLY_UMASK)
    stopping: list[bool] = []

    def stop(*_: Any) -> None:
        stopping.append(True)
        process.terminate()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    try:
        if _wait_until_up(process, url):
            click.echo(f"Serving the palace at {where} on {url} (Chroma's log: {log_path}).\n"
                       f"Connect with `mempalace --url {url} …` or MEMPALACE_URL={url}; Ctrl-C stops.", err=True)
        elif process.poll() is None:
            click.echo(f"The Chroma server has not answered yet; see {log_path}.", err=True)
        code = process.wait()
    finally:
        reap(process)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if stopping:
        return 0
    tail = log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
    click.echo(f"Error: the Chroma server stopped by itself (exit code {code}). The end of its log:", err=True)
    click.echo("\n".join(tail), err=True)
    return code or 1


def reap(process: subprocess.Popen) -> None:
    """Make sure the server has exited before the lock is released."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """In the child, on Linux: be sent `sig` if its parent (`serve`, a palace's host) dies without
    cleaning up (SIGKILL, OOM)."""
    try:
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, sig)
    except (OSError, AttributeError):
        pass


def _port_free(host: str, port: int) -> bool:
    """Whether a server could listen on host:port now (with SO_REUSEADDR, as Chroma's server does)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _wait_until_up(process: subprocess.Popen, url: str) -> bool:
    """True once the server answers its heartbeat; False if it exits first or takes over a minute."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while process.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
                return True
        except OSError:
            time.sleep(0.2)
    return False
