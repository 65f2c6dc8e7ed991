"""A palace is its owner's alone: nothing planted in its folder runs in its server, what MemPalace
creates is 0700/0600, a folder others can write to is refused, and status warns about an open one.

Real processes: the shared palace's host and Chroma's server are started for the folder."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.errors import PalaceUnavailableError
from mempalace.server.starting import SERVER_FILE, ServerInfo

from test_sharing import _kill, _wait_gone, shared  # noqa: F401  (a fixture)

PLANTED = """
import pathlib
pathlib.Path({marker!r}).write_text("imported from the palace folder")
"""


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def shared_folder(shared: Path) -> Path:
    """A palace folder opened the shared way, its server stopped afterwards (test_sharing's fixture)."""
    return shared


def test_modules_planted_in_a_palace_folder_never_run_in_its_server(shared_folder: Path, tmp_path: Path) -> None:
    with Palace.open(shared_folder, private=True) as palace:
        palace.add_drawer("Kai moved the login to OIDC.", "wing_kai", "auth-migration")
    marker = tmp_path / "planted-code-ran"
    (shared_folder / "chromadb_rust_bindings.py").write_text(PLANTED.format(marker=str(marker)))
    (shared_folder / "mempalace").mkdir()
    (shared_folder / "mempalace" / "__init__.py").write_text(PLANTED.format(marker=str(marker)))
    with Palace.open(shared_folder) as palace:  # starts the folder's host and Chroma's server
        assert palace.mode == "shared" and palace.count() == 1
        host = ServerInfo.read(shared_folder)
        assert host is not None
        assert Path(f"/proc/{host.pid}/cwd").resolve() != shared_folder.resolve()
    assert not marker.exists(), "code planted in the palace folder ran in its server"


@pytest.mark.model
def test_what_a_palace_creates_is_its_owners_alone(shared_folder: Path, home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "minilm-int8")  # the real model caches in the home folder
    with Palace.open(shared_folder) as palace:
        palace.add_drawer("Priya compared spot GPU prices.", "wing_priya", "gpu-pricing")
        palace.search("GPU prices", limit=1)
        assert palace.access.entries()  # the add was audited, so the access book exists
        assert palace.status().warnings == ()
    assert _mode(shared_folder) == 0o700
    assert _mode(home) == 0o700
    made = [p for p in shared_folder.rglob("*") if p.is_file()] + [p for p in home.rglob("*") if p.is_file()]
    names = {p.name for p in made}
    assert {"chroma.sqlite3", "mempalace_catalog.sqlite3", "mempalace_access.sqlite3"} <= names, names
    loose = [f"{p} {oct(_mode(p))}" for p in made if _mode(p) & 0o077]
    assert not loose, loose
    folders = [p for p in [*shared_folder.rglob("*"), *home.rglob("*")] if p.is_dir()]
    assert all(_mode(p) & 0o077 == 0 for p in folders), [f"{p} {oct(_mode(p))}" for p in folders if _mode(p) & 0o077]


def test_a_palace_folder_others_can_write_to_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "palace"
    Palace.open(folder, private=True).close()
    os.chmod(folder, 0o777)
    for private in (True, False):
        with pytest.raises(PalaceUnavailableError, match="chmod go-w"):
            Palace.open(folder, private=private)
    assert not (folder / SERVER_FILE).exists()  # no server was started for it
    os.chmod(folder, 0o700)
    Palace.open(folder, private=True).close()


def test_status_warns_when_a_palace_or_the_home_is_open_to_others(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "palace"
    Palace.open(folder, private=True).close()
    os.chmod(folder, 0o755)
    home.mkdir(mode=0o750)  # a home made before MemPalace made its folders its owner's alone
    env = {**os.environ, "MEMPALACE_SHARED": "0"}
    shown = subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(folder), "status"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert f"The palace at {folder} is open to other users" in shown.stdout
    assert f"chmod -R go-rwx '{home}'" in shown.stdout
    data = json.loads(subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(folder), "status",
                                      "--json"], capture_output=True, text=True, env=env, timeout=120).stdout)
    assert len(data["warnings"]) == 2
    os.chmod(folder, 0o700)
    os.chmod(home, 0o700)
    with Palace.open(folder, private=True) as palace:
        assert palace.status().warnings == ()


def test_another_local_user_can_neither_read_nor_plant_files_in_a_palace(other_user: str, monkeypatch) -> None:
    import tempfile

    parent = Path(tempfile.mkdtemp(prefix="mempalace-home-"))  # a folder others may enter, as a home often is
    os.chmod(parent, 0o755)
    try:
        monkeypatch.setenv("MEMPALACE_HOME", str(parent / "home"))
        folder = parent / "palace"
        with Palace.open(folder, private=True) as palace:
            palace.add_drawer("The staging vault unseal keys live in the blue binder.", "wing_ops", "vault")
        probe = textwrap.dedent(f"""
            import pathlib
            found = []
            for path in {[str(folder / "mempalace_catalog.sqlite3"), str(folder / "chroma.sqlite3"),
                          str(folder / "mempalace_access.sqlite3")]!r}:
                try:
                    found.append("read " + str(len(pathlib.Path(path).read_bytes())))
                except PermissionError:
                    found.append("denied")
            try:
                pathlib.Path({str(folder / "chromadb_rust_bindings.py")!r}).write_text("planted")
                found.append("planted")
            except PermissionError:
                found.append("denied")
            print(" ".join(found))
        """)
        system_python = "/usr/bin/python3"  # the tests' own interpreter may be in a folder only root can enter
        if not os.access(system_python, os.X_OK):
            pytest.skip(f"{system_python} is needed to run a probe as the second user")
        seen = subprocess.run([system_python, "-I", "-c", probe], user=other_user, capture_output=True, text=True,
                              timeout=60, cwd="/")
        assert seen.returncode == 0, seen.stderr
        assert seen.stdout.split() == ["denied"] * 4, seen.stdout
    finally:
        import shutil

        shutil.rmtree(parent, ignore_errors=True)


def test_the_shared_server_answers_only_requests_that_carry_its_secret(shared_folder: Path) -> None:
    import http.client
    from urllib.parse import urlsplit

    with Palace.open(shared_folder) as palace:
        palace.add_drawer("The staging vault unseal keys live in the blue binder.", "wing_ops", "vault")
        info = ServerInfo.read(shared_folder)
        assert info is not None and len(info.token) >= 32
        assert _mode(shared_folder / SERVER_FILE) == 0o600
        child = Path(f"/proc/{info.pid}/task/{info.pid}/children").read_text().split()[0]
        assert info.token.encode() not in Path(f"/proc/{child}/cmdline").read_bytes()  # argv is public
        where = urlsplit(info.url)
        listing = "/api/v2/tenants/default_tenant/databases/default_database/collections"
        for headers in ({}, {"Authorization": "Bearer not-the-secret"}, {"X-Chroma-Token": "guess"}):
            connection = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
            connection.request("GET", listing, headers=headers)
            answer = connection.getresponse()
            body = answer.read()
            connection.close()
            assert answer.status in (401, 403) and b"mempalace" not in body and b"vault" not in body, (headers, body)
        assert palace.search("vault keys", limit=1)[0].content.startswith("The staging vault")  # its own clients do


def test_another_local_user_cannot_use_a_shared_palaces_server(other_user: str, monkeypatch) -> None:
    import shutil
    import tempfile

    system_python = "/usr/bin/python3"
    if not os.access(system_python, os.X_OK):
        pytest.skip(f"{system_python} is needed to run a probe as the second user")
    parent = Path(tempfile.mkdtemp(prefix="mempalace-home-"))
    os.chmod(parent, 0o755)
    monkeypatch.setenv("MEMPALACE_HOME", str(parent / "home"))
    monkeypatch.setenv("MEMPALACE_SHARED", "1")
    folder = parent / "palace"
    try:
        with Palace.open(folder) as palace:
            palace.add_drawer("The staging vault unseal keys live in the blue binder.", "wing_ops", "vault")
            info = ServerInfo.read(folder)
            assert info is not None
            probe = textwrap.dedent(f"""
                import http.client, pathlib
                try:
                    pathlib.Path({str(folder / SERVER_FILE)!r}).read_text()
                    print("read-server-file")
                except PermissionError:
                    print("denied")
                host, port = {info.url!r}.removeprefix("http://").split(":")
                connection = http.client.HTTPConnection(host, int(port), timeout=10)
                connection.request("GET", "/api/v2/tenants/default_tenant/databases/default_database/collections")
                answer = connection.getresponse()
                print(answer.status, b"vault" in answer.read() or b"mempalace" in answer.read())
            """)
            seen = subprocess.run([system_python, "-I", "-c", probe], user=other_user, capture_output=True,
                                  text=True, timeout=60, cwd="/")
            assert seen.returncode == 0, seen.stderr
            first, second = seen.stdout.splitlines()
            assert first == "denied" and second.split()[0] in ("401", "403"), seen.stdout
    finally:
        stopped = ServerInfo.read(folder)
        if stopped:
            _kill(stopped.pid, signal.SIGTERM)
            _wait_gone(stopped.pid)
        shutil.rmtree(parent, ignore_errors=True)
