"""Helpers for tests that start real servers: a free loopback port, an HTTP probe, a clean stop."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers(url: str) -> bool:
    """True if `url` answers 200 within a second."""
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


def stop(process: subprocess.Popen, timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL if it has not exited after `timeout` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def chroma_run(folder: Path, log_path: Path, startup_seconds: float = 30) -> Iterator[int]:
    """Chroma's own server (`chroma run`) on `folder` at a free loopback port, until the block ends;
    the test fails with the server's log if it exits or does not answer in time."""
    chroma = Path(sys.executable).parent / "chroma"
    port = free_port()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(chroma), "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + startup_seconds
        while not answers(f"http://127.0.0.1:{port}/api/v2/heartbeat"):
            if process.poll() is not None:
                pytest.fail(f"chroma run exited with {process.returncode}:\n{log_path.read_text(errors='replace')}")
            if time.monotonic() > deadline:
                pytest.fail(f"chroma run did not answer within {startup_seconds} s:\n"
                            f"{log_path.read_text(errors='replace')}")
            time.sleep(0.2)
        yield port
    finally:
        stop(process)


def eventually(check, seconds: float = 30.0) -> bool:
    """Whether `check()` comes true within `seconds` (asked every 0.2 s)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False
