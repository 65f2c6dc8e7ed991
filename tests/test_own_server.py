"""Only the palace's own server gets its clients' requests: the host holds the listening socket from
before Chroma's server starts until it stops (no port to squat), and a client sends nothing but a
challenge to a server until it proved it knows the palace's secret, and checks, connection by
connection, that the other end belongs to this user.

Real processes: the folder's host and Chroma's server; impostors are small HTTP servers that answer
anything with 200, run by this user or (where a second local user can be made) by another one."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from mempalace import Palace
from mempalace.errors import PalaceUnavailableError
from mempalace.server.starting import ServerInfo, machine

from test_sharing import _chroma_child, _kill, _wait_gone, shared  # noqa: F401  (a fixture)

SYSTEM_PYTHON = "/usr/bin/python3"  # the tests' interpreter may be in a folder only root can enter

IMPOSTOR = r"""
import http.server, sys
class Answer(http.server.BaseHTTPRequestHandler):
    def setup(self):
        super().setup()
        print("connected", flush=True)
    def _any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        print(repr((self.requestline, str(self.headers), body)), flush=True)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"nanosecond heartbeat": 1}')
    do_GET = do_POST = do_PUT = do_DELETE = _any
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Answer)
print("listening", flush=True)
server.serve_forever()
"""


class _Recorder(BaseHTTPRequestHandler):
    """An impostor in this process: answers every request 200 and keeps what it was sent."""

    seen: list[bytes] = []

    def _any(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        type(self).seen.append(f"{self.requestline}\n{self.headers}".encode() + body)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"nanosecond heartbeat": 1}')

    do_GET = do_POST = do_PUT = do_DELETE = _any

    def log_message(self, *args: object) -> None:
        pass


def _listening_inode(port: int) -> str:
    """The inode of the socket listening on 127.0.0.1:`port`, from /proc/net/tcp."""
    wanted = f"0100007F:{port:04X}"
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == wanted and fields[3] == "0A":  # 0A: LISTEN
            return fields[9]
    raise AssertionError(f"nothing listens on port {port}")


def _wait_for_command(pid: int, word: bytes, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while word not in Path(f"/proc/{pid}/cmdline").read_bytes():
        assert time.monotonic() < deadline, f"process {pid} never ran its command"
        time.sleep(0.01)


def _open_sockets(pid: int) -> set[str]:
    found = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            found.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc")
def test_the_host_holds_its_servers_socket_so_no_one_can_take_the_port(shared: Path) -> None:
    with Palace.open(shared) as palace:
        palace.add_drawer("Kai moved the login to OIDC.", "wing_kai", "auth-migration")
        info = ServerInfo.read(shared)
        assert info is not None
        listening = f"socket:[{_listening_inode(urlsplit(info.url).port)}]"
        assert listening in _open_sockets(info.pid), "the host does not hold its server's listening socket"
        server = Path(f"/proc/{_chroma_child(info.pid)}/cmdline").read_bytes().split(b"\0")
        assert b"--fd" in server and b"--port" not in server  # handed over, never bound by number
        assert listening in _open_sockets(_chroma_child(info.pid))
        assert palace.search("OIDC login", limit=1)[0].room == "auth-migration"


def test_a_client_sends_nothing_to_a_server_that_cannot_prove_it_is_the_palaces(shared: Path) -> None:
    with Palace.open(shared, private=True) as palace:
        palace.add_drawer("The staging vault unseal keys live in the blue binder.", "wing_ops", "vault")
    _Recorder.seen = []
    impostor = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=impostor.serve_forever, daemon=True).start()
    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "mempalace.cli.host",
                              str(shared.resolve())])  # looks like the folder's host to /proc
    _wait_for_command(decoy.pid, b"mempalace.cli.host")  # until exec, /proc shows pytest's own command
    try:
        ServerInfo(f"http://127.0.0.1:{impostor.server_address[1]}", decoy.pid, machine(),
                   "the-palace-secret").write(shared)
        with pytest.raises(PalaceUnavailableError, match="not the palace's own server"):
            with Palace.open(shared) as palace:
                palace._store.count()
    finally:
        decoy.kill()
        decoy.wait()
        impostor.shutdown()
    sent = b"\n".join(_Recorder.seen)
    assert b"the-palace-secret" not in sent and b"Bearer" not in sent and b"vault" not in sent, sent
    assert all(request.startswith(b"GET /mempalace/proof") for request in _Recorder.seen), sent


def test_another_users_process_on_a_dead_servers_port_gets_nothing(shared: Path, other_user: str) -> None:
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip(f"{SYSTEM_PYTHON} is needed to run an impostor as the second user")
    with Palace.open(shared) as palace:
        palace.add_drawer("The staging vault unseal keys live in the blue binder.", "wing_ops", "vault")
        assert palace._store.count() == 1  # chromadb's client connected
        _let_go_of_kept_connections(palace)
        info = ServerInfo.read(shared)
        server = _chroma_child(info.pid)
        _kill(info.pid, signal.SIGKILL)  # the host dies (OOM, say); its server dies with it
        assert _wait_gone(info.pid) and _wait_gone(server)
        port = urlsplit(info.url).port
        impostor = subprocess.Popen([SYSTEM_PYTHON, "-I", "-c", IMPOSTOR, str(port)], user=other_user, cwd="/",
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            started = impostor.stdout.readline()
            assert started.strip() == "listening", started + impostor.communicate()[0]
            assert palace._store.count() == 1  # asked again of a new server of the palace's own
            assert palace.search("vault keys", limit=1)[0].room == "vault"
        finally:
            impostor.kill()
            output = impostor.communicate()[0]
        assert ServerInfo.read(shared).url != info.url or ServerInfo.read(shared).pid != info.pid
    assert "Bearer" not in output and "vault" not in output and info.token not in output, output
    assert output.split() and set(output.split()) == {"connected"}, output  # reached, and sent nothing


def _let_go_of_kept_connections(palace: Palace) -> None:
    """Close the client's kept-alive connections first, as happens by itself to an idle one: a server
    socket the client has not closed would keep the port from being bound for a minute (tcp_fin_timeout)."""
    palace._store._client._server._session._transport._pool.close()
    if palace._store._rest is not None:  # the search's own connection (REST, before chromadb is loaded)
        palace._store._rest.close()


def _looks_like_a_host(folder: Path, user: str) -> subprocess.Popen:
    """A process of `user` whose command line names the folder's host, as a reused pid could."""
    code = "import time; time.sleep(120)"
    return subprocess.Popen([SYSTEM_PYTHON, "-I", "-c", code, "mempalace.cli.host", str(folder.resolve())],
                            user=user, cwd="/")


def test_a_server_file_naming_another_users_process_is_not_trusted(shared: Path, other_user: str) -> None:
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip(f"{SYSTEM_PYTHON} is needed to run an impostor as the second user")
    with Palace.open(shared, private=True) as palace:
        palace.add_drawer("The staging vault unseal keys live in the blue binder.", "wing_ops", "vault")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    impostor = subprocess.Popen([SYSTEM_PYTHON, "-I", "-c", IMPOSTOR, str(port)], user=other_user, cwd="/",
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    decoy = _looks_like_a_host(shared, other_user)
    try:
        assert impostor.stdout.readline().strip() == "listening"
        ServerInfo(f"http://127.0.0.1:{port}", decoy.pid, machine(), "stale-secret").write(shared)
        with Palace.open(shared) as palace:
            assert palace.search("vault keys", limit=1)[0].room == "vault"  # its own new server
            assert ServerInfo.read(shared).pid not in (decoy.pid, None)
    finally:
        decoy.kill()
        impostor.kill()
        output = impostor.communicate()[0]
        decoy.wait()
    assert output.strip() == "", output  # never even reached


def test_the_server_proves_it_knows_the_secret_without_being_sent_it(shared: Path) -> None:
    import hashlib
    import hmac
    import http.client

    with Palace.open(shared) as palace:
        palace.add_drawer("Ours.", "wing_kai", "notes")
        info = ServerInfo.read(shared)
        where = urlsplit(info.url)
        connection = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
        connection.request("GET", "/mempalace/proof", headers={"X-MemPalace-Challenge": "ab" * 16})
        answer = connection.getresponse()
        proof = answer.read().decode()
        connection.close()
        assert answer.status == 200
        assert proof == hmac.new(info.token.encode(), b"mempalace-proof:" + b"ab" * 16, hashlib.sha256).hexdigest()
        assert info.token not in proof


@pytest.fixture
def connected() -> tuple[socket.socket, socket.socket]:
    """Both ends of a loopback TCP connection (the client's first)."""
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    server, _ = listener.accept()
    listener.close()
    yield client, server
    client.close()
    server.close()


def test_a_peer_of_another_user_is_refused_with_its_address(connected, monkeypatch) -> None:
    from mempalace.store import server_identity as own_server

    client, server = connected
    port = server.getsockname()[1]
    monkeypatch.setattr(own_server, "_peer_owner", lambda sock: os.geteuid() + 1)
    with pytest.raises(own_server.NotOurs, match=f"127.0.0.1:{port} is another user's"):
        own_server.check_peer(client)
    assert client.fileno() == -1  # closed: nothing can be sent on it


def test_a_connection_the_table_does_not_list_cannot_be_told_and_is_not_refused(connected, monkeypatch, tmp_path) -> None:
    from mempalace.store import server_identity as own_server

    client, _ = connected
    header_only = tmp_path / "tcp"
    header_only.write_text("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n")
    monkeypatch.setattr(own_server, "PROC_TCP", str(header_only))
    assert own_server._peer_owner(client) is None
    own_server.check_peer(client)  # the server's proof is what is relied on there
    if Path("/proc/net/tcp").exists():
        monkeypatch.setattr(own_server, "PROC_TCP", "/proc/net/tcp")
        assert own_server._peer_owner(client) == os.geteuid()


def test_a_chroma_client_that_cannot_be_guarded_is_a_clear_error_not_an_unguarded_client() -> None:
    from types import SimpleNamespace

    from mempalace.store.server_identity import guard_chroma_client

    changed = SimpleNamespace(_server=SimpleNamespace(_session=SimpleNamespace()))  # insides of another version
    with pytest.raises(PalaceUnavailableError, match="cannot be checked connection by connection"):
        guard_chroma_client(changed)
