"""`mempalace delete` on a terminal shows the drawer and asks before deleting it (`--yes` skips the
question); without a terminal (scripts, pipes) it deletes as it always did. The terminal is a real
pseudo-terminal around a `mempalace` process."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mempalace import Palace

ROOT = Path(__file__).resolve().parents[1]
TEXT = "Kai wrote the auth migration runbook, rollback steps included."


@pytest.fixture
def drawer(palace_path: Path, settings) -> str:
    with Palace.open(palace_path, settings=settings) as palace:
        return palace.add_drawer(TEXT, "wing_kai", "auth-migration").drawer_ids[0]


def on_terminal(palace_path: Path, *args: str, answer: str | None = None) -> tuple[int, str]:
    """Run `mempalace --palace P ARGS` with a pseudo-terminal as stdin, stdout and stderr; type
    `answer` once it asks. (exit code, everything it showed)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "mempalace", "--palace", str(palace_path), *args],
                               stdin=follower, stdout=follower, stderr=follower, cwd=ROOT,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    os.close(follower)
    shown, answered, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        if select.select([leader], [], [], 0.2)[0]:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the process ended and closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        if answer is not None and not answered and b"[y/N]" in shown:
            os.write(leader, answer.encode() + b"\n")
            answered = True
        if process.poll() is not None and not select.select([leader], [], [], 0.2)[0]:
            break
    os.close(leader)
    return process.wait(timeout=30), shown.decode("utf-8", "replace").replace("\r\n", "\n")


def still_there(palace_path: Path, settings, drawer_id: str) -> bool:
    with Palace.open(palace_path, settings=settings) as palace:
        return bool(palace.get_drawers([drawer_id]))


def test_on_a_terminal_it_shows_the_drawer_and_a_no_keeps_it(palace_path, settings, drawer):
    code, shown = on_terminal(palace_path, "delete", drawer, answer="n")
    assert drawer in shown and "wing_kai / auth-migration" in shown and TEXT in shown, shown
    assert shown.index(TEXT) < shown.index("[y/N]")  # shown before the question
    assert "Nothing deleted." in shown and code == 1
    assert still_there(palace_path, settings, drawer)


def test_on_a_terminal_a_yes_deletes_it(palace_path, settings, drawer):
    code, shown = on_terminal(palace_path, "delete", drawer, answer="y")
    assert code == 0 and f"Deleted {drawer} from wing_kai/auth-migration." in shown, shown
    assert not still_there(palace_path, settings, drawer)


def test_yes_deletes_without_asking_even_on_a_terminal(palace_path, settings, drawer):
    code, shown = on_terminal(palace_path, "delete", drawer, "--yes")
    assert code == 0 and "[y/N]" not in shown and f"Deleted {drawer}" in shown, shown
    assert not still_there(palace_path, settings, drawer)


def test_without_a_terminal_it_deletes_as_before(palace_path, settings, drawer):
    done = subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(palace_path), "delete", drawer],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0 and done.stdout == (
        f"Deleted {drawer} from wing_kai/auth-migration. It is in the trash for 30 days: "
        f"`mempalace trash restore {drawer}` puts it back.\n"), done
    assert done.stderr == "" and not still_there(palace_path, settings, drawer)
