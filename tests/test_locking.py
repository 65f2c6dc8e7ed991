"""An embedded palace belongs to one process: others get a clear "busy" error, never a corrupt palace."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from mempalace import Palace
from mempalace.errors import PalaceBusyError

HOLD = textwrap.dedent("""
    import sys, time
    from mempalace import Palace
    palace = Palace.open(sys.argv[1])
    palace.add_drawer("held by the other process", "wing_other", "lock")
    print("ready", flush=True)
    time.sleep(60)
""")
TRY_OPEN = textwrap.dedent("""
    import sys
    from mempalace import Palace, MempalaceError
    try:
        with Palace.open(sys.argv[1]) as palace:
            print("opened", palace.count())
    except MempalaceError as exc:
        print(type(exc).__name__, exc)
""")


def _run(code, *args):
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=os.environ.copy())


@pytest.fixture
def holder(palace_path):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(palace_path)], stdout=subprocess.PIPE, text=True,
                            env=os.environ.copy())
    assert proc.stdout.readline().strip() == "ready"
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def test_a_second_process_gets_a_busy_error(holder, palace_path):
    result = _run(TRY_OPEN, palace_path)
    assert result.stdout.startswith("PalaceBusyError"), result.stdout + result.stderr
    assert f"pid {holder.pid}" in result.stdout and "mempalace serve --palace" in result.stdout


def test_the_lock_dies_with_its_process(holder, palace_path):
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    result = _run(TRY_OPEN, palace_path)
    assert result.stdout.strip() == "opened 1", result.stdout + result.stderr


def test_a_second_open_in_the_same_process_is_busy_until_closed(palace, palace_path, settings):
    with pytest.raises(PalaceBusyError, match="in use"):
        Palace.open(palace_path, settings=settings)
    palace.close()
    with Palace.open(palace_path, settings=settings) as again:
        assert again.count() == 0


def test_busy_open_changes_nothing(holder, palace_path):
    before = sorted(p.name for p in palace_path.iterdir())
    for _ in range(3):
        _run(TRY_OPEN, palace_path)
    time.sleep(0.1)
    assert sorted(p.name for p in palace_path.iterdir()) == before


def test_a_file_system_without_locks_is_a_clear_error_and_leaks_no_descriptor(tmp_path, monkeypatch) -> None:
    import fcntl
    import errno as errnos

    from mempalace.errors import PalaceUnavailableError
    from mempalace.files.locks import OwnLock

    def no_locks(fd, operation):
        raise OSError(errnos.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    with pytest.raises(PalaceUnavailableError, match="cannot be locked .No locks available.: keep the palace"):
        OwnLock(tmp_path / "mempalace.lock", timeout=1).acquire()
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) == before
