"""Room names from a local model behind an OpenAI-compatible endpoint: off by default; when configured,
a new room takes the model's name if it is usable, and the offline name stands whenever the model
fails, is slow, answers with a person or is not on this machine. The endpoint here is a real HTTP
server on loopback speaking the chat-completions protocol."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.config import load_settings
from mempalace.errors import ConfigError
from mempalace.ingest import ingest
from mempalace.rooms.model_names import SAMPLE_CHARS, SAMPLE_LINES, model_names_for, usable_name

SLEEP = [
    "User: Our baby wakes every two hours. Is sleep training too early at five months?\n\n"
    "Assistant: Sleep training can start around four to six months; a bedtime routine helps first. " * 3,
    "User: We tried the bedtime routine for a week. Sleep training with short checks next?\n\n"
    "Assistant: Yes: short checks every few minutes, and the same bedtime routine each night.",
]


class ChatServer:
    """An OpenAI-compatible chat-completions server on 127.0.0.1 that answers `reply` after `delay`."""

    def __init__(self, reply: str = "Infant sleep", delay: float = 0.0, status: int = 200):
        self.reply, self.delay, self.status, self.requests = reply, delay, status, []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                time.sleep(owner.delay)
                answer = {"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"], "choices": [
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": owner.reply}}]}
                data = json.dumps(answer).encode()
                try:
                    self.send_response(owner.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped waiting: the slow case

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def chat():
    servers: list[ChatServer] = []

    def start(**kwargs) -> ChatServer:
        servers.append(ChatServer(**kwargs))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _ingest(tmp_path: Path, home: Path, name: str = "sleep.txt", texts=SLEEP, **settings):
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / name
    path.write_text("\n\n".join(texts), encoding="utf-8")
    with Palace.open(tmp_path / "palace", settings=load_settings(home, **settings)) as palace:
        report = ingest(palace, path, wing="wing_home")
        return report, palace.list_rooms()


def test_a_new_room_takes_the_models_name_and_the_request_carries_only_what_the_readme_says(
        tmp_path, home, chat, monkeypatch):
    offline = _ingest(tmp_path / "offline", home)[1]
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(variable, "http://127.0.0.1:9")  # a proxy would get the lines: none is used
    server = chat(reply='Name: "Infant sleep"')
    report, rooms = _ingest(tmp_path, home, names_endpoint=server.url, names_model="qwen2.5:3b",
                            names_api_key="k-123")
    assert report.ok and set(rooms) == {"infant-sleep"}
    assert "1 room name from the model qwen2.5:3b" in report.notes
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k-123"
    body = request["body"]
    assert set(body) == {"model", "temperature", "max_tokens", "messages"} and body["model"] == "qwen2.5:3b"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    sent = body["messages"][1]["content"]
    first, lines = sent.splitlines()[0], sent.splitlines()[2:]
    assert first.startswith(f"Candidate phrases: {next(iter(offline))}, ")  # the offline name first
    assert 1 <= len(lines) <= SAMPLE_LINES and all(len(line) <= SAMPLE_CHARS + 2 for line in lines)
    assert not any(word in json.dumps(body) for word in ("wing_home", "sleep.txt", "drawer_"))


def test_the_offline_name_stands_when_the_model_fails_is_slow_or_answers_nothing_usable(tmp_path, home, chat):
    offline = _ingest(tmp_path / "a", home)[1]
    assert offline and "infant-sleep" not in offline
    for server, seconds in ((chat(reply="Sarah"), 30.0), (chat(status=500), 30.0), (chat(delay=3.0), 0.5),
                            (chat(reply="a very long answer that is a whole sentence about sleep"), 30.0),
                            (chat(reply=None), 30.0), (chat(reply="<think>The user wants a label"), 30.0),
                            (chat(reply="General"), 30.0), (chat(reply="Sure!"), 30.0)):
        report, rooms = _ingest(tmp_path / str(server.server.server_address[1]), home, names_endpoint=server.url,
                                names_model="m", names_seconds=seconds)
        assert report.ok and rooms == offline, server.reply
    assert usable_name("<think>A label for baby chats.</think>\nInfant sleep") == "infant-sleep"


def test_a_refused_connection_leaves_the_offline_name_and_says_why(tmp_path, home, chat):
    server = chat()
    url = server.url
    server.close()
    report, rooms = _ingest(tmp_path, home, names_endpoint=url, names_model="m")
    assert report.ok and rooms == _ingest(tmp_path / "b", home)[1]
    assert any(note.startswith("no room name from the model m (ConnectError") for note in report.notes)
    report, _ = _ingest(tmp_path / "c", home, names_endpoint=url, names_model="m", names_seconds=0)
    assert any("no time left of names_seconds" in note for note in report.notes)


def test_off_by_default_and_a_room_named_by_the_model_keeps_its_name_as_it_grows(tmp_path, home, chat):
    assert load_settings(home).names_endpoint == "" and model_names_for(load_settings(home)) is None
    server = chat(reply="Infant sleep")
    settings = {"names_endpoint": server.url, "names_model": "m"}
    _ingest(tmp_path, home, **settings)
    more = ["User: Night feeds still wake her before the bedtime routine. Sleep training anyway?\n\n"
            "Assistant: Drop one night feed at a time; keep the bedtime routine and the sleep training."] * 2
    report, rooms = _ingest(tmp_path, home, name="more.txt", texts=more, **settings)
    assert report.ok and set(rooms) == {"infant-sleep"} and len(server.requests) == 1


def test_an_endpoint_is_checked_when_settings_are_read(home):
    home.mkdir(parents=True, exist_ok=True)
    for url, model, remote, message in (
            ("http://models.example.com/v1", "m", False, "not on this machine"),
            ("http://models.example.com/v1", "m", True, "must be https"),
            ("http://localhost.example.com/v1", "m", False, "not on this machine"),
            ("http://localhost:11434/v1", "", False, "names_model"),
            ("file:///etc/passwd", "m", False, "http"),
            ("http://localhost:11434/v1?key=1", "m", False, "base URL")):
        with pytest.raises(ConfigError, match=message):
            load_settings(home, names_endpoint=url, names_model=model, names_allow_remote=remote)
    assert load_settings(home, names_endpoint="https://models.example.com/v1", names_model="m",
                         names_allow_remote=True).names_endpoint == "https://models.example.com/v1"
    assert model_names_for(load_settings(home, names_endpoint="http://[::1]:8080/v1/", names_model="m")).url == \
        "http://[::1]:8080/v1"


def test_answers_become_names_only_when_short_and_no_persons():
    assert usable_name("Kitchen remodel\nBecause the chats...") == "kitchen-remodel"
    assert usable_name("「数据库升级」") == "数据库升级"
    assert usable_name("Topic: **Tax return**") == "tax-return"
    assert usable_name("Sarah") is None and usable_name("") is None and usable_name("misc") is None
    assert usable_name("the migration of the authentication service") is None
    assert usable_name("On-call") == "on-call" and usable_name("How-to") is None and usable_name("to do") is None
    assert usable_name("The issue") is None and usable_name("Other stuff") is None and usable_name("**The issue**") is None
