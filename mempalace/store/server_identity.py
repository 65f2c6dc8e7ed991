"""Telling a shared palace's own server from an impostor on its port, before sending it anything.

The server proves it knows the palace's secret (the token in the owner-only server file) by answering
a fresh challenge with an HMAC of it: the client sends the challenge alone, never the token, until the
proof is right. Then every connection a client opens is checked, before its first byte, to end at a
socket of this user (Linux: /proc/net/tcp): a port freed by a server that died and taken by another
user's process gets nothing. Nothing here imports chromadb (finding the server stays cheap).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import os
import re
import secrets
import socket
import sys
from typing import Any, Literal
from urllib.parse import urlparse

PROOF_PATH = "/mempalace/proof"
CHALLENGE_HEADER = "X-MemPalace-Challenge"
CHALLENGE = re.compile(r"[0-9a-f]{32,128}")
PROC_TCP = "/proc/net/tcp"

Answer = Literal["ours", "silent", "impostor"]


def proof(token: str, challenge: str) -> str:
    """What the palace's server answers to `challenge`: only a holder of `token` can compute it."""
    return hmac.new(token.encode(), f"mempalace-proof:{challenge}".encode(), hashlib.sha256).hexdigest()


def who_answers(url: str, token: str, timeout: float = 1.0) -> Answer:
    """Whether the palace's own server answers at `url` ("ours": it proved it knows `token`), nothing
    answers yet ("silent"), or something else does ("impostor")."""
    parts = urlparse(url)
    challenge = secrets.token_hex(16)
    connection = OwnServerConnection(parts.hostname or "", parts.port, timeout=timeout)
    try:
        connection.request("GET", PROOF_PATH, headers={CHALLENGE_HEADER: challenge})
        answer = connection.getresponse()
        said = answer.read(200).decode("ascii", errors="replace")
    except NotOurs:
        return "impostor"
    except (OSError, http.client.HTTPException):
        return "silent"
    finally:
        connection.close()
    if token and answer.status == 200 and hmac.compare_digest(said, proof(token, challenge)):
        return "ours"
    return "impostor"


class NotOurs(ConnectionError):
    """The other end of a connection is a socket of another user: nothing is sent to it."""


def check_peer(sock: socket.socket) -> None:
    """Raise `NotOurs` unless the other end of the loopback connection `sock` belongs to this user
    (where the system cannot tell, as off Linux, the server's proof is what is relied on)."""
    owner = _peer_owner(sock)
    if owner is not None and owner != os.geteuid():
        host, port = sock.getpeername()[:2]
        sock.close()
        raise NotOurs(f"the process listening at {host}:{port} is another user's, not the palace's own server")


def _peer_owner(sock: socket.socket) -> int | None:
    """The uid owning the far end of an IPv4 TCP connection on this machine, from /proc/net/tcp; None
    where it cannot be told (not IPv4, no such table, or the connection not listed in it: the table is
    no snapshot, and some systems list only part of it)."""
    if sock.family != socket.AF_INET:
        return None
    try:
        far, near = _proc_address(*sock.getpeername()), _proc_address(*sock.getsockname())
        for _ in range(2):  # a row missed by a torn read is looked for once more
            with open(PROC_TCP, encoding="ascii") as table:
                next(table)
                for line in table:
                    fields = line.split()
                    if fields[1] == far and fields[2] == near:
                        return int(fields[7])
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    return None


def _proc_address(host: str, port: int) -> str:
    """An IPv4 address and port as /proc/net/tcp writes them (the address in the machine's byte order)."""
    return f"{int.from_bytes(socket.inet_aton(host), sys.byteorder):08X}:{port:04X}"


class OwnServerConnection(http.client.HTTPConnection):
    """An HTTP connection that sends nothing to a server socket of another user (see `check_peer`)."""

    def connect(self) -> None:
        super().connect()
        try:
            check_peer(self.sock)
        except NotOurs:
            self.sock = None
            raise


def guard_chroma_client(client: Any) -> None:
    """Make chromadb's HTTP client `client` (and its admin client, which has its own connections) check
    every connection it opens from now on (see `check_peer`), and drop the ones opened while it was
    made (they asked for the tenant and database only, moments after the server proved itself).
    chromadb offers no way to choose its transport, so this reaches into its httpx sessions' pools;
    a chromadb or httpx whose insides differ is a clear error, never an unguarded client."""
    from ..errors import PalaceUnavailableError

    for part in (client, getattr(client, "_admin_client", None)):
        if part is None:
            continue
        try:
            pool = part._server._session._transport._pool
            if not isinstance(pool._network_backend, _CheckedBackend):
                pool._network_backend = _CheckedBackend(pool._network_backend)
        except AttributeError as exc:
            raise PalaceUnavailableError(
                f"This chromadb's client cannot be checked connection by connection ({exc}): install the "
                "chromadb and httpx versions MemPalace was tested with (pip install -e . in its folder).") from None
        pool.close()


class _CheckedBackend:
    """httpcore's network backend, checking each new TCP connection's far end before it is used."""

    def __init__(self, inner: Any):
        self._inner = inner

    def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
        import httpcore

        stream = self._inner.connect_tcp(*args, **kwargs)
        try:
            check_peer(stream.get_extra_info("socket"))
        except NotOurs as exc:
            stream.close()
            raise httpcore.ConnectError(str(exc)) from None
        return stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
