"""A palace is opened only where its files are this user's: a palace folder, a folder above it or a
server file of another user is refused with a message naming them, and a link planted where
MemPalace writes its own files (logs, locks, the server file, leases, the catalog's side files) is
never followed.

Cross-user tests make a second local user (they need root; CI runs as root)."""

from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.errors import PalaceUnavailableError
from mempalace.server.starting import SERVER_FILE, ServerInfo, machine

from test_sharing import _wait_gone, shared  # noqa: F401  (a fixture)


@pytest.fixture
def open_parent():
    """A folder outside pytest's (root-only) temporary root, that others may enter, as a home often is."""
    import shutil

    parent = Path(tempfile.mkdtemp(prefix="mempalace-trust-"))
    os.chmod(parent, 0o755)
    yield parent
    shutil.rmtree(parent, ignore_errors=True)


def _give(path: Path, user: str) -> None:
    import pwd

    os.chown(path, pwd.getpwnam(user).pw_uid, -1, follow_symlinks=False)


@pytest.mark.parametrize("private", [True, False])
def test_a_palace_folder_of_another_user_is_refused_naming_them(other_user: str, open_parent: Path, private: bool,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMPALACE_SHARED", "0" if private else "1")
    folder = open_parent / "palace"
    with Palace.open(folder, private=True) as palace:
        palace.add_drawer("Kai moved the login to OIDC.", "wing_kai", "auth-migration")
    _give(folder, other_user)
    with pytest.raises(PalaceUnavailableError, match=f"belongs to user {other_user}") as refused:
        Palace.open(folder, private=private)
    assert "mempalace serve" in str(refused.value)
    assert not (folder / SERVER_FILE).exists() and not (folder / "mempalace-server.log").exists()


def test_a_palace_inside_another_users_folder_is_refused(other_user: str, open_parent: Path) -> None:
    theirs = open_parent / "theirs"
    theirs.mkdir(mode=0o755)
    folder = theirs / "palace"
    Palace.open(folder, private=True).close()
    _give(theirs, other_user)  # they can rename our palace away and put one of theirs in its place
    with pytest.raises(PalaceUnavailableError, match=f"{theirs}, which belongs to user {other_user}"):
        Palace.open(folder, private=True)


def test_a_server_file_of_another_user_is_refused(other_user: str, shared: Path) -> None:
    with Palace.open(shared, private=True) as palace:
        palace.add_drawer("The staging vault unseal keys live in the blue binder.", "wing_ops", "vault")
    ServerInfo("http://127.0.0.1:9", os.getpid(), machine(), "planted").write(shared)
    _give(shared / SERVER_FILE, other_user)
    try:
        with pytest.raises(PalaceUnavailableError, match=f"{SERVER_FILE} belongs to user {other_user}"):
            with Palace.open(shared) as palace:
                palace.search("vault keys")
    finally:
        (shared / SERVER_FILE).unlink()


PLANTED = ["mempalace-server.log", "mempalace.start.lock", "mempalace.lock", "mempalace.owner", SERVER_FILE,
           "mempalace_catalog.sqlite3-wal", "mempalace_catalog.sqlite3.rebuild-lock", "mempalace.sync.json"]


def test_links_planted_where_a_palace_writes_its_own_files_are_never_followed(shared: Path, tmp_path: Path) -> None:
    with Palace.open(shared, private=True) as palace:
        palace.add_drawer("Kai moved the login to OIDC.", "wing_kai", "auth-migration")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    targets = {}
    for name in PLANTED:
        target = elsewhere / f"{name}.precious"
        target.write_text("precious\n")
        os.chmod(target, 0o644)
        (shared / name).unlink(missing_ok=True)  # (the private palace left its lock)
        (shared / name).symlink_to(target)
        targets[name] = target
    old = elsewhere / "old-notes.txt"  # a lease folder linked elsewhere must not have its old files removed
    old.write_text("notes\n")
    os.utime(old, (time.time() - 86_400 * 30,) * 2)
    (shared / "mempalace.clients").symlink_to(elsewhere, target_is_directory=True)
    refused = []
    for _ in range(len(PLANTED) + 3):
        try:
            for private in (True, False):
                with Palace.open(shared, private=private) as palace:
                    palace.add_drawer(f"Filed {'privately' if private else 'shared'}.", "wing_kai", "notes")
                    assert palace.search("OIDC", limit=1)
                host = ServerInfo.read(shared) if not private else None
                if host:
                    os.kill(host.pid, 15)
                    assert _wait_gone(host.pid)
            break
        except PalaceUnavailableError as exc:
            named = [name for name in [*PLANTED, "mempalace.clients"] if f"{shared / name} is a symbolic link" in str(exc)]
            assert named, str(exc)
            refused.append(named[0])
            (shared / named[0]).unlink()
    assert set(refused) == {"mempalace-server.log", "mempalace.start.lock", "mempalace.lock", SERVER_FILE,
                            "mempalace_catalog.sqlite3-wal", "mempalace.clients"}, refused  # (the owner file is replaced)
    for name, target in targets.items():
        assert target.read_text() == "precious\n", name
        assert stat.S_IMODE(target.stat().st_mode) == 0o644, name
    assert old.exists() and sorted(p.name for p in elsewhere.iterdir() if not p.name.endswith(".precious")) == \
        ["old-notes.txt"]


def test_the_audit_and_hook_queue_locks_never_open_a_planted_link(tmp_path: Path) -> None:
    from mempalace.access.audit_anchor import AnchorLock
    from mempalace.sources.hook_queue import filing_lock, hooks_folder

    precious = tmp_path / "precious.txt"
    precious.write_text("keep me", encoding="utf-8")
    home = tmp_path / "home"
    hooks = hooks_folder(home)
    hooks.mkdir(parents=True)
    (hooks / "filing.lock").symlink_to(precious)
    book = tmp_path / "mempalace_access.sqlite3"
    book.with_suffix(".anchor.lock").symlink_to(precious)
    with pytest.raises(PalaceUnavailableError, match="symbolic link"):
        filing_lock(home).acquire(timeout=0)
    with pytest.raises(PalaceUnavailableError, match="symbolic link"):
        with AnchorLock(book, timeout=1):
            pass
    assert precious.read_text(encoding="utf-8") == "keep me"  # filelock opened these with O_TRUNC
