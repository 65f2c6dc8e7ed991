"""`server_token`: a palace on a Chroma server behind a reverse proxy that checks a bearer token.

Chroma has no authentication of its own, so a team puts a proxy in front of it. Here the proxy is
written in the test (stdlib only): it forwards method, path, headers and body to a real `chroma run`
serving a palace folder made privately, and answers 401 unless `Authorization: Bearer <token>`.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from _processes import chroma_run

from mempalace import Palace
from mempalace.config import load_settings
from mempalace.errors import PalaceUnavailableError

pytestmark = pytest.mark.server

STARTUP_SECONDS = 30
TOKEN = "team-proxy-secret-0123456789"
FILED_PRIVATELY = "The deploy key of the billing service rotates every ninety days"
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
              "transfer-encoding", "upgrade", "host", "content-length", "authorization"}


class TokenProxy:
    """A reverse proxy on a free loopback port: requests with the right bearer token go to `upstream`,
    the rest get 401 with `refusal` as their body."""

    def __init__(self, upstream_port: int):
        self.refusal = b"401 Unauthorized: a bearer token is required"
        self.refusal_type = "text/plain"
        self.forwarded = self.refused = 0
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as Chroma's client expects

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    with proxy._lock:
                        proxy.refused += 1
                    self._answer(401, [("Content-Type", proxy.refusal_type),
                                       ("WWW-Authenticate", 'Bearer realm="mempalace"')], proxy.refusal)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=60)
                try:
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    response = upstream.getresponse()
                    data = response.read()
                    kept = [(k, v) for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP]
                    status = response.status
                finally:
                    upstream.close()
                with proxy._lock:
                    proxy.forwarded += 1
                self._answer(status, kept, data)

            def _answer(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _any

            def log_message(self, *_: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def counts(self) -> tuple[int, int]:
        with self._lock:
            return self.forwarded, self.refused

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


@pytest.fixture(scope="module")
def chroma_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """`chroma run` serving a palace folder that was made (and filed into) as a private palace."""
    root = tmp_path_factory.mktemp("token-server")
    folder = root / "palace"
    with Palace.open(folder, settings=load_settings(root / "home", embedder="hash", shared=False),
                     private=True) as palace:
        assert palace.add_drawer(FILED_PRIVATELY, "wing_ops", "keys").status == "added"
    with chroma_run(folder, root / "server.log", STARTUP_SECONDS) as port:
        yield port


@pytest.fixture
def proxy(chroma_port: int) -> Iterator[TokenProxy]:
    started = TokenProxy(chroma_port)
    try:
        yield started
    finally:
        started.close()


def test_with_the_token_the_palace_behind_the_proxy_works(proxy: TokenProxy, home: Path) -> None:
    settings = load_settings(home, server_token=TOKEN)
    with Palace.open(url=proxy.url, settings=settings) as palace:
        assert (palace.mode, palace.location) == ("server", proxy.url)
        assert palace.status().embedder == "hash"
        hits = palace.search("deploy key rotates", wing="wing_ops")
        assert hits and hits[0].content == FILED_PRIVATELY  # what was filed privately is served

        added = palace.add_drawer("The proxy checks a bearer token before Chroma sees a request",
                                  "wing_token_round", "proxy", hall="facts")
        assert added.status == "added"
        (drawer_id,) = added.drawer_ids
        hits = palace.search("bearer token proxy", wing="wing_token_round")
        assert [h.drawer_id for h in hits] == [drawer_id]
        assert palace.get_drawer(drawer_id).room == "proxy"
        assert palace.list_rooms("wing_token_round") == {"proxy": 1}
        assert palace.delete_drawer(drawer_id).id == drawer_id
    forwarded, refused = proxy.counts()
    assert forwarded > 0 and refused == 0


def test_the_token_can_come_from_the_environment(proxy: TokenProxy, home: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMPALACE_SERVER_TOKEN", TOKEN)
    with Palace.open(url=proxy.url, settings=load_settings(home)) as palace:
        assert palace.search("deploy key rotates", wing="wing_ops")[0].content == FILED_PRIVATELY
    assert proxy.counts()[1] == 0


@pytest.mark.parametrize("token", ["", "not-the-token"], ids=["no token", "wrong token"])
def test_without_the_token_opening_fails_saying_which_setting(proxy: TokenProxy, home: Path, token: str) -> None:
    with pytest.raises(PalaceUnavailableError) as caught:
        Palace.open(url=proxy.url, settings=load_settings(home, server_token=token or None))
    message = str(caught.value)
    assert "server_token" in message and "MEMPALACE_SERVER_TOKEN" in message, message
    assert proxy.url in message
    forwarded, refused = proxy.counts()
    assert forwarded == 0 and refused >= 1  # nothing reached Chroma


@pytest.mark.parametrize("body, kind", [
    pytest.param(b"<html><head><title>401 Authorization Required</title></head></html>", "text/html",
                 id="nginx page"),
    pytest.param(b"Unauthorized", "text/plain", id="plain text"),
    pytest.param(json.dumps({"error": "AuthError", "message": "missing bearer token"}).encode(), "application/json",
                 id="chroma-style json"),
])
def test_a_refusal_is_recognised_whatever_the_proxy_says(proxy: TokenProxy, home: Path, body: bytes,
                                                         kind: str) -> None:
    proxy.refusal, proxy.refusal_type = body, kind
    with pytest.raises(PalaceUnavailableError) as caught:
        Palace.open(url=proxy.url, settings=load_settings(home))
    assert "MEMPALACE_SERVER_TOKEN" in str(caught.value), str(caught.value)
