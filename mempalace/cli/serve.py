"""`mempalace serve`: share one palace between processes by running a Chroma server on its directory.

The server process holds the palace's lock for as long as it runs, so no program opens the directory
as an embedded palace meanwhile; they connect with `--url` (or MEMPALACE_URL) instead.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import click

from ..config import load_settings
from ..errors import MempalaceError
from ..locking import PalaceLock
from ..palace import Palace
from ..store import CHROMA_FILE


@click.command("serve")
@click.option("--palace", "palace_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Palace directory (default: the global --palace, else $MEMPALACE_HOME/palace).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=8000, show_default=True)
@click.pass_context
def serve_command(ctx: click.Context, palace_dir: Path | None, host: str, port: int) -> None:
    """Run a Chroma server on the palace so the dashboard, agents and the CLI can share it."""
    settings = load_settings()
    where = Path(palace_dir or ctx.obj["palace"] or settings.default_palace).expanduser().resolve()
    url = f"http://{host}:{port}"
    lock = PalaceLock(where, settings.lock_timeout_seconds)
    try:
        if not (where / CHROMA_FILE).exists():
            Palace.open(where, settings=settings).close()  # a new palace, in MemPalace's format
        lock.acquire(served_at=url)
    except MempalaceError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)
    try:
        click.echo(f"Serving the palace at {where} on {url}. Connect with `mempalace --url {url} …` "
                   f"or MEMPALACE_URL={url}; Ctrl-C stops.", err=True)
        sys.exit(_run_chroma(where, host, port))
    finally:
        lock.release()


def _run_chroma(where: Path, host: str, port: int) -> int:
    """`chroma run` on the directory until it exits or we are told to stop; returns its exit code."""
    chroma = shutil.which("chroma", path=str(Path(sys.executable).parent)) or shutil.which("chroma")
    if chroma is None:
        raise click.ClickException("The `chroma` command was not found; it comes with the chromadb package.")
    process = subprocess.Popen([chroma, "run", "--path", str(where), "--host", host, "--port", str(port)])
    stopping = []

    def stop(*_: Any) -> None:
        stopping.append(True)
        process.terminate()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        code = process.wait()
    except KeyboardInterrupt:
        stop()
        code = process.wait()
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0 if stopping else code
