"""The format registry as a whole: every sample is detected as exactly its own format and no other
format accepts it; unknown, binary, oversized, non-UTF-8 and unsafe sources are refused clearly."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from mempalace.formats import registry as formats
from mempalace.errors import MalformedSourceError, SourceRefusedError, UnsupportedFormatError
from mempalace.formats.registry import FORMATS, Source

from _cursor_store import build as cursor_store
from _cursor_store import fixture as cursor_tables
from _shared import SHARED
TRANSCRIPTS = SHARED / "data/transcripts"
FOLDER_FORMATS = {"claude_code": "claude_code", "codex_cli": "codex_cli", "gemini_cli": "gemini_cli",
                  "plain_text": "plain_text", "slack_export": "slack"}
ALL_FORMATS = ("claude_code", "codex_cli", "copilot_cli", "gemini_cli", "continue_dev", "claude_ai", "chatgpt", "slack",
               "cursor", "aider", "plain_text")
FIXTURES = Path(__file__).parent / "data" / "formats"
MARKDOWN = {"aider"}  # Markdown formats, which plain text (the last resort, tried after them) reads too


def accepts(format_name: str, expected: str) -> bool:
    """Whether `format_name` should accept a sample of format `expected`."""
    return format_name == expected or (format_name == "plain_text" and expected in MARKDOWN)


# --- samples ------------------------------------------------------------------------------------


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def _claude_code(root: Path) -> Path:
    envelope = {"sessionId": "s-1", "cwd": "/home/ada/engine", "isSidechain": False,
                "timestamp": "2026-02-10T21:11:56Z"}
    return _jsonl(root / "session.jsonl", [
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False},
        {**envelope, "type": "user", "message": {"role": "user", "content": "Hello — café"}},
        {**envelope, "type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}},
    ])


def _codex_cli(root: Path) -> Path:
    def item(role: str, kind: str, text: str) -> dict:
        return {"type": "response_item", "timestamp": "2025-09-01T10:00:01Z",
                "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}}
    return _jsonl(root / "rollout-2025-09-01T10-00-00-abc.jsonl", [
        {"timestamp": "2025-09-01T10:00:00Z", "type": "session_meta", "payload": {"id": "c-1", "cwd": "/srv/app"}},
        item("user", "input_text", "Hello"), item("assistant", "output_text", "Hi"),
    ])


def _gemini_cli(root: Path) -> Path:
    return _json(root / "session-2026-08-01T10-00-g1.json", {
        "sessionId": "g-1", "projectHash": "p", "startTime": "2026-08-01T10:00:00Z", "messages": [
            {"id": "1", "type": "user", "timestamp": "2026-08-01T10:00:01Z", "content": [{"text": "Hello"}]},
            {"id": "2", "type": "gemini", "timestamp": "2026-08-01T10:00:02Z", "content": "Hi"},
        ]})


def _claude_ai(root: Path) -> Path:
    (root / "claude_ai").mkdir()
    return _json(root / "claude_ai/conversations.json", [{
        "uuid": "ca-1", "name": "Greetings", "created_at": "2025-01-01T00:00:00Z", "chat_messages": [
            {"uuid": "m1", "sender": "human", "text": "Hello", "created_at": "2025-01-01T00:00:01Z",
             "content": [{"type": "text", "text": "Hello"}], "attachments": [], "files": []},
            {"uuid": "m2", "sender": "assistant", "text": "Hi", "created_at": "2025-01-01T00:00:02Z",
             "content": [{"type": "text", "text": "Hi"}], "attachments": [], "files": []},
        ]}])


def _chatgpt(root: Path) -> Path:
    def node(nid: str, parent: str | None, children: list[str], role: str | None, text: str = "") -> dict:
        message = None if role is None else {
            "id": nid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": 1_700_000_000.0,
            "content": {"content_type": "text", "parts": [text]}, "metadata": {}}
        return {"id": nid, "parent": parent, "children": children, "message": message}
    (root / "chatgpt").mkdir()
    return _json(root / "chatgpt/conversations.json", [{
        "id": "cg-1", "title": "Greetings", "create_time": 1_700_000_000.0, "current_node": "a", "mapping": {
            "root": node("root", None, ["u"], None), "u": node("u", "root", ["a"], "user", "Hello"),
            "a": node("a", "u", [], "assistant", "Hi")}}])


def _slack(root: Path) -> Path:
    export = root / "slack_export"
    (export / "general").mkdir(parents=True)
    _json(export / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    _json(export / "channels.json", [{"id": "C1", "name": "general"}])
    _json(export / "general/2016-01-14.json", [{"type": "message", "user": "U1", "text": "Hello", "ts": "1.0"}])
    return export


def _plain_text(root: Path) -> Path:
    path = root / "chat.md"
    path.write_text("# A chat\n\nUser: Hello — café\n\nAssistant: Hi\n", encoding="utf-8")
    return path


def _copied(fixture: str, name: str) -> Callable[[Path], Path]:
    """A builder that copies one of tests/data/formats' fixtures into the samples' folder as `name`."""
    def build(root: Path) -> Path:
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIXTURES / fixture, target)
        return target
    return build


def _cursor(root: Path) -> Path:
    (root / "cursor").mkdir()
    return cursor_store(root / "cursor" / "state.vscdb", cursor_tables("global_storage.json"))


SYNTHETIC: dict[str, Callable[[Path], Path]] = {
    "claude_code": _claude_code, "codex_cli": _codex_cli, "gemini_cli": _gemini_cli, "claude_ai": _claude_ai,
    "chatgpt": _chatgpt, "slack": _slack, "plain_text": _plain_text,
    "copilot_cli": _copied("copilot_cli/events.jsonl", "copilot/events.jsonl"),
    "continue_dev": _copied("continue_dev/3f1c2a9e-5b7d-4e21-9c0a-7d8e6f5a4b3c.json",
                            "continue/3f1c2a9e-5b7d-4e21-9c0a-7d8e6f5a4b3c.json"),
    "aider": _copied("aider/orchard/.aider.chat.history.md", "orchard/.aider.chat.history.md"),
    "cursor": _cursor,
}


def _real_samples() -> list[tuple[str, Path]]:
    """(expected format, path) for each sample under the shared transcripts; a folder is one source."""
    found = []
    for folder in sorted(TRANSCRIPTS.iterdir()) if TRANSCRIPTS.is_dir() else []:
        expected = FOLDER_FORMATS.get(folder.name)
        if expected is None or not folder.is_dir():
            continue
        for child in sorted(folder.iterdir()):
            if child.name.startswith("."):
                continue
            if child.is_dir() and expected != "slack":
                found += [(expected, p) for p in sorted(child.rglob("*")) if p.is_file()]
            else:
                found.append((expected, child))
    return found


REAL = _real_samples()
NO_SHARED = pytest.mark.skip(reason=f"shared samples not found at {TRANSCRIPTS} (/work/shared is absent)")
SAMPLES = [pytest.param(("synthetic", name, name), id=f"synthetic-{name}") for name in SYNTHETIC] + (
    [pytest.param(("real", expected, path), id=f"real-{expected}-{path.name}") for expected, path in REAL]
    or [pytest.param(("real", None, None), id="real-samples-absent", marks=NO_SHARED)])


@pytest.fixture(scope="module")
def synthetic_root(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("samples")
    return {name: build(root) for name, build in SYNTHETIC.items()}


def resolve(sample: tuple, synthetic_root: dict[str, Path]) -> tuple[str, Path]:
    kind, expected, ref = sample
    return expected, (synthetic_root[ref] if kind == "synthetic" else ref)


def as_upload(path: Path) -> tuple[bytes, str]:
    """A file's bytes and name; a folder zipped in memory, as a browser upload of the export would be."""
    if not path.is_dir():
        return path.read_bytes(), path.name
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member in sorted(path.rglob("*")):
            if member.is_file():
                archive.writestr(member.relative_to(path).as_posix(), member.read_bytes())
    return buffer.getvalue(), f"{path.name}.zip"


# --- the registry -------------------------------------------------------------------------------


def test_the_registry_holds_every_format_in_order_with_plain_text_last():
    assert tuple(FORMATS) == ALL_FORMATS
    for name, module in FORMATS.items():
        assert module.NAME == name
        assert isinstance(module.LABEL, str) and module.LABEL and isinstance(module.READS, str) and module.READS
        assert callable(module.accept) and callable(module.parse)
    assert len({m.LABEL for m in FORMATS.values()}) == len(ALL_FORMATS)
    assert [n for n, m in FORMATS.items() if getattr(m, "BINARY", False)] == ["cursor"]  # asked before NUL bytes refuse


def test_the_shared_samples_cover_every_folder():
    if not REAL:
        pytest.skip(f"shared samples not found at {TRANSCRIPTS} (/work/shared is absent)")
    assert {expected for expected, _ in REAL} == set(FOLDER_FORMATS.values())
    assert sum(expected == "slack" for expected, _ in REAL) == 1  # the export folder is one source


@pytest.mark.parametrize("sample", SAMPLES)
def test_each_sample_is_detected_as_its_own_format_and_parses(sample, synthetic_root):
    expected, path = resolve(sample, synthetic_root)
    source = Source.from_path(path)
    assert formats.detect(source).NAME == expected
    name, conversations = formats.parse(Source.from_path(path))
    assert name == expected
    assert conversations and all(c.messages for c in conversations)
    assert any(m.role != "tool" and m.text.strip() for c in conversations for m in c.messages)


@pytest.mark.parametrize("format_name", ALL_FORMATS)
@pytest.mark.parametrize("sample", SAMPLES)
def test_accept_matrix(sample, format_name, synthetic_root):
    """Each format accepts its own samples and refuses every other format's."""
    expected, path = resolve(sample, synthetic_root)
    assert FORMATS[format_name].accept(Source.from_path(path)) is accepts(format_name, expected)


@pytest.mark.parametrize("format_name", ALL_FORMATS)
@pytest.mark.parametrize("sample", SAMPLES)
def test_accept_matrix_on_uploaded_bytes(sample, format_name, synthetic_root):
    """The same verdicts for an upload (bytes and a name); a folder is uploaded as its zip."""
    expected, path = resolve(sample, synthetic_root)
    source = Source.from_bytes(*as_upload(path))
    assert FORMATS[format_name].accept(source) is accepts(format_name, expected)


def test_a_format_named_by_the_caller_is_used_without_detection(synthetic_root):
    name, conversations = formats.parse(Source.from_path(synthetic_root["plain_text"]), "plain_text")
    assert name == "plain_text" and conversations
    with pytest.raises(MalformedSourceError):  # a Markdown file forced through a JSON format
        formats.parse(Source.from_path(synthetic_root["plain_text"]), "chatgpt")


def test_an_unknown_format_name_lists_the_names(synthetic_root):
    with pytest.raises(UnsupportedFormatError) as caught:
        formats.parse(Source.from_path(synthetic_root["plain_text"]), "nope")
    message = str(caught.value)
    assert "'nope'" in message
    for name in ALL_FORMATS:
        assert name in message


# --- unknown sources ----------------------------------------------------------------------------


@pytest.mark.parametrize("name, content", [
    ("table.csv", "name,role\nada,user\n"),
    ("data.json", json.dumps({"foo": [1, 2], "messages": "not a session"})),
    ("list.json", json.dumps([{"role": "user", "content": "hi"}])),
    ("other.jsonl", '{"event": "click", "x": 1}\n{"event": "scroll", "y": 2}\n'),
    ("notes.txt", '{"looks": "like json"}\n'),
    ("image.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>"),
])
def test_an_unknown_format_names_every_format_label(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    for source in (Source.from_path(path), Source.from_bytes(content.encode(), name)):
        with pytest.raises(UnsupportedFormatError) as caught:
            formats.detect(source)
        message = str(caught.value)
        assert message.startswith(f"{name}:")
        for module in FORMATS.values():
            assert module.LABEL in message
        with pytest.raises(UnsupportedFormatError):
            formats.parse(source)


def test_a_folder_that_is_not_an_export_is_unsupported(tmp_path):
    (tmp_path / "stuff").mkdir()
    (tmp_path / "stuff/readme.txt").write_text("hello")
    with pytest.raises(UnsupportedFormatError, match="Slack export"):
        formats.detect(Source.from_path(tmp_path / "stuff"))


def test_a_missing_path_is_refused(tmp_path):
    with pytest.raises(SourceRefusedError, match="does not exist"):
        Source.from_path(tmp_path / "nowhere.jsonl")


# --- refused sources ----------------------------------------------------------------------------


@pytest.mark.parametrize("name, data", [
    ("photo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"),
    ("notes.txt", b"User: hello\x00\x00\x01\x02 binary junk"),
    ("session.jsonl", b'{"type": "user", "sessionId": "s"}\n\x00\x00\x00'),
    ("conversations.json", b'[{"chat_messages": []}]\x00'),
])
def test_a_binary_file_is_refused(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    for source in (Source.from_path(path), Source.from_bytes(data, name)):
        with pytest.raises(SourceRefusedError, match="binary"):
            formats.detect(source)
        with pytest.raises(SourceRefusedError, match="binary"):
            formats.parse(source)
        with pytest.raises(SourceRefusedError, match="binary"):
            source.read_text()


def test_a_zip_that_would_expand_past_the_cap_is_refused(tmp_path):
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("users.json", "[]")
        archive.writestr("channels.json", "[]")
        archive.writestr("general/2016-01-14.json", b" " * 3_000_000)  # compresses to a few KB
    assert path.stat().st_size < 100_000
    source = Source.from_path(path, max_unzipped_bytes=1_000_000)
    with pytest.raises(SourceRefusedError, match=r"would expand to 3 MB; the limit is 1 MB"):
        source.members()
    with pytest.raises(SourceRefusedError, match="would expand"):
        formats.detect(Source.from_path(path, max_unzipped_bytes=1_000_000))
    upload = Source.from_bytes(path.read_bytes(), "export.zip", max_unzipped_bytes=1_000_000)
    with pytest.raises(SourceRefusedError, match="would expand"):
        formats.parse(upload)
    assert formats.detect(Source.from_path(path)).NAME == "slack"  # within the default cap it is fine


@pytest.mark.parametrize("member", ["../evil.txt", "export/../../evil.txt", "/etc/evil.txt", "C:/evil.txt",
                                    "..\\evil.txt"])
def test_a_zip_with_a_path_escaping_its_folder_is_refused(tmp_path, member):
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("users.json", "[]")
        archive.writestr("channels.json", "[]")
        archive.writestr(zipfile.ZipInfo(member), b"pwned")
    with pytest.raises(SourceRefusedError, match="escapes its folder"):
        Source.from_path(path).members()
    with pytest.raises(SourceRefusedError, match="escapes its folder"):
        formats.detect(Source.from_path(path))
    with pytest.raises(SourceRefusedError, match="escapes its folder"):
        formats.parse(Source.from_bytes(path.read_bytes(), "upload.zip"))
    assert not (tmp_path.parent / "evil.txt").exists()


def test_a_broken_zip_is_refused(tmp_path):
    path = tmp_path / "export.zip"
    path.write_bytes(b"PK\x03\x04" + b"not really a zip" * 10)
    with pytest.raises(SourceRefusedError, match="not a readable zip"):
        formats.detect(Source.from_path(path))


def test_a_file_over_max_bytes_is_refused_on_read(tmp_path, synthetic_root):
    path = tmp_path / "big.txt"
    path.write_text("User: hello\n\nAssistant: " + "x" * 5000 + "\n", encoding="utf-8")
    source = Source.from_path(path, max_bytes=1000)
    assert formats.detect(source).NAME == "plain_text"  # detection reads only the head
    with pytest.raises(SourceRefusedError, match=r"big\.txt is 5,0.. bytes; the limit is 1,000 bytes"):
        source.read_text()
    with pytest.raises(SourceRefusedError, match="max_ingest_bytes"):
        formats.parse(Source.from_path(path, max_bytes=1000))
    with pytest.raises(SourceRefusedError):
        formats.parse(Source.from_bytes(path.read_bytes(), "big.txt", max_bytes=1000))
    jsonl = synthetic_root["claude_code"]
    with pytest.raises(SourceRefusedError):
        formats.parse(Source.from_path(jsonl, max_bytes=jsonl.stat().st_size - 1))
    assert formats.parse(Source.from_path(jsonl, max_bytes=jsonl.stat().st_size))[0] == "claude_code"


def test_a_member_of_a_folder_over_max_bytes_is_refused_on_read(tmp_path):
    export = _slack(tmp_path)
    (export / "general/2016-01-15.json").write_text(json.dumps([{"type": "message", "text": "x" * 5000}]))
    with pytest.raises(SourceRefusedError,
                       match=r"^2016-01-15\.json is 5,0.. bytes; the limit is 1,000 bytes \(setting max_ingest_bytes\)"):
        formats.parse(Source.from_path(export, max_bytes=1000))


def test_non_utf8_text_is_refused_naming_the_line(tmp_path):
    data = "User: hello\nAssistant: hi\nUser: caf".encode() + b"\xe9 au lait\n"  # Latin-1 é on line 3
    path = tmp_path / "chat.txt"
    path.write_bytes(data)
    for source in (Source.from_path(path), Source.from_bytes(data, "chat.txt")):
        with pytest.raises(SourceRefusedError, match=r"^chat\.txt, line 3: not UTF-8 text"):
            source.read_text()


def test_non_utf8_in_a_detected_json_format_is_refused_naming_the_line(tmp_path):
    lines = [json.dumps({"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}}).encode(),
             json.dumps({"type": "user", "sessionId": "s", "message": {"role": "user", "content": "x"}})
             .encode().replace(b'"x"', b'"caf\xe9"')]
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(SourceRefusedError, match=r"^session\.jsonl, line 2: not UTF-8 text"):
        formats.parse(Source.from_path(path))


def test_non_utf8_text_through_the_registry_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_bytes("User: hello\nAssistant: hi\nUser: caf".encode() + b"\xe9 au lait\n")
    with pytest.raises(SourceRefusedError, match=r"line 3: not UTF-8"):
        formats.parse(Source.from_path(path))


def test_a_utf8_bom_is_not_part_of_the_text(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_bytes("\ufeffUser: héllo\n\nAssistant: hi\n".encode())
    name, [conversation] = formats.parse(Source.from_path(path))
    assert name == "plain_text"
    assert conversation.messages[0].text == "héllo"


def test_a_small_broken_json_file_names_its_line_not_an_unknown_format(tmp_path):
    from mempalace.errors import MalformedSourceError
    from mempalace.formats.registry import detect
    from mempalace.formats.base import Source

    broken = tmp_path / "conversations.json"
    broken.write_text('{"title": "x", "mapping": {', encoding="utf-8")
    with pytest.raises(MalformedSourceError, match=r"conversations.json, line 1, column 28: invalid JSON"):
        detect(Source.from_path(broken))
