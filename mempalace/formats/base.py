"""What every transcript format parses into, and the safe reading every format shares."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from ..errors import MalformedSourceError, SourceRefusedError
from ..files.paths import checked_path
from .confined import Roots, read_file, refuse_over, refuse_unless_regular

Role = Literal["user", "assistant", "tool", "other"]
HEAD_BYTES = 64 * 1024
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
DEFAULT_MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024
SUMMARY_CHARS = 200  # tool calls and results are kept as one line of at most this many characters
_MENTION = re.compile(r"@([A-Za-z0-9]+)")
_WORKTREES_OF = re.compile(r"(.+?)[-_.]worktrees?", re.IGNORECASE)  # spotter-worktrees/spotter-gqc
_WORKTREES = frozenset({"worktrees", ".worktrees", "worktree", ".worktree"})
_TOOL_FOLDERS = frozenset({".claude", ".git", ".codex", ".cursor", ".gemini"})  # repo/.claude/worktrees/x


@dataclass(frozen=True)
class Message:
    """One turn. `text` is the source's text, untouched, unless `verbatim` is False (tool summaries)."""

    speaker: str
    role: Role
    text: str
    timestamp: str | None = None
    verbatim: bool = True
    machine: bool = False  # posted by a bot or an integration (commit notices, CI): never read for room names


@dataclass(frozen=True)
class Conversation:
    """One conversation of a transcript, in order. `place` hints the default wing (project, channel)."""

    messages: tuple[Message, ...]
    id: str | None = None
    title: str | None = None
    place: str | None = None
    names: Mapping[str, str] = field(default_factory=dict, hash=False)  # ids the text mentions (@id) → names
    day: str | None = None  # YYYY-MM-DD the source files it under in its own local time (Slack day files)

    @property
    def speakers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.speaker for m in self.messages if m.role != "tool" and m.speaker))

    @property
    def machines(self) -> tuple[str, ...]:
        """The speakers who only post as machines (a Slack integration such as `github`)."""
        people = {m.speaker for m in self.messages if not m.machine}
        return tuple(s for s in dict.fromkeys(m.speaker for m in self.messages if m.machine and m.speaker)
                     if s not in people)

    @property
    def started(self) -> str | None:
        return next((m.timestamp for m in self.messages if m.timestamp), None)

    @property
    def dated(self) -> str | None:
        """The date it is shown and filtered on: the source's own day when it names one, else when it started
        (a UTC moment can fall on the next or previous day)."""
        return self.day or self.started

    def mentions(self, text: str) -> str | None:
        """The names of the ids `text` mentions as `@id` (Slack's `<@U0BMYT2FL>`), as the JSON object
        a drawer keeps in its `mentions` metadata; None when it mentions none with a known name."""
        named = {key: self.names[key] for key in sorted(set(_MENTION.findall(text)))
                 if key in self.names and self.names[key] != key}
        return json.dumps(named, ensure_ascii=False) if named else None


def conversation_key(fmt: str, conversation: Conversation) -> str:
    """The parent id of an ingested conversation's drawers, stable across re-exports: from the
    source's conversation id, else from the first message's text."""
    first = conversation.messages[0] if conversation.messages else None
    basis = (str(conversation.id) if conversation.id not in (None, "") else "") or (
        f"{first.speaker}\0{first.text}" if first else "")
    return "conv_" + hashlib.sha256(f"{fmt}\0{basis}".encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class Source:
    """A file, a folder or uploaded bytes, read lazily and only within the size caps."""

    name: str
    path: Path | None = None
    data: bytes | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    max_unzipped_bytes: int = DEFAULT_MAX_UNZIPPED_BYTES
    roots: Roots = ()  # when given, every file read must really be inside one of these folders
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], **caps: Any) -> "Source":
        where = checked_path(Path(path).expanduser())
        try:
            mode = where.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            raise SourceRefusedError(f"{where} does not exist.") from None
        if not stat.S_ISDIR(mode):
            refuse_unless_regular(where, mode)
        return cls(name=where.name or str(where), path=where, **caps)

    @classmethod
    def from_bytes(cls, data: bytes, name: str, **caps: int) -> "Source":
        return cls(name=PurePosixPath(name.replace("\\", "/")).name or "upload", data=bytes(data), **caps)

    @property
    def is_dir(self) -> bool:
        return self.path is not None and self.path.is_dir()

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.name).suffix.lower()

    @property
    def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        return 0 if self.is_dir else self.path.stat().st_size  # type: ignore[union-attr]

    @property
    def is_zip(self) -> bool:
        return not self.is_dir and self.head(4) == b"PK\x03\x04"

    def head(self, n: int = HEAD_BYTES) -> bytes:
        """The first `n` bytes, for cheap detection (empty for a folder)."""
        if self.data is not None:
            return self.data[:n]
        if self.is_dir:
            return b""
        try:
            return read_file(self.path, self.roots, limit=n)  # type: ignore[arg-type]
        except OSError as exc:
            raise SourceRefusedError(f"{self.name} cannot be read ({exc.strerror or exc}).") from None

    def head_text(self, n: int = HEAD_BYTES) -> str:
        return self.head(n).decode("utf-8", errors="ignore")

    def read_bytes(self) -> bytes:
        """The whole file, refused without reading it when it is over `max_bytes`."""
        refuse_over(self.name, self.size, self.max_bytes)
        if self.data is not None:
            return self.data
        try:
            return read_file(self.path, self.roots, max_bytes=self.max_bytes)  # type: ignore[arg-type]
        except OSError as exc:
            raise SourceRefusedError(f"{self.name} cannot be read ({exc.strerror or exc}).") from None

    def read_text(self) -> str:
        """The whole file as text; binary or non-UTF-8 files are refused with a clear message."""
        if "text" not in self._cache:
            self._cache["text"] = decode_text(self.read_bytes(), self.name)
        return self._cache["text"]

    def members(self) -> dict[str, Callable[[], bytes]]:
        """Files inside a folder or zip, by relative POSIX path, each read on demand within the caps."""
        if self.is_dir:
            return _folder_members(self.path, self.max_bytes, self.roots)  # type: ignore[arg-type]
        if self.is_zip:
            return _zip_members(self.read_bytes(), self.name, self.max_unzipped_bytes)
        return {}


def project_name(folder: str | None) -> str | None:
    """The project a session's working folder belongs to, from the path alone (it may be another
    machine's): its last folder, but a git worktree's project rather than the worktree
    (`spotter-worktrees/spotter-gqc`, `spotter/.worktrees/gqc`, `spotter/.claude/worktrees/gqc` → `spotter`)."""
    if not isinstance(folder, str) or not folder.strip():
        return None
    parts = [part for part in PurePosixPath(folder.strip().replace("\\", "/").rstrip("/")).parts if part != "/"]
    for index in range(len(parts) - 2, -1, -1):
        own = _WORKTREES_OF.fullmatch(parts[index])
        if own:
            return own.group(1)
        if parts[index].lower() in _WORKTREES:
            before = parts[:index]
            while before and before[-1].lower() in _TOOL_FOLDERS:
                before.pop()
            if parts[index].startswith(".") or len(before) < index:  # inside a project, not a home folder's
                return before[-1] if before else None
    return parts[-1] if parts and not parts[-1].endswith(":") else None


def one_line(text: str) -> str:
    """Whitespace collapsed to single spaces, cut to SUMMARY_CHARS with an ellipsis (tool summaries)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= SUMMARY_CHARS else flat[: SUMMARY_CHARS - 1].rstrip() + "…"


def decode_text(data: bytes, name: str) -> str:
    if b"\x00" in data[:HEAD_BYTES]:
        raise SourceRefusedError(f"{name} looks like a binary file, not a transcript.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SourceRefusedError(f"{name}, line {line}: not UTF-8 text (byte {exc.start}).") from None


def load_json(text: str, name: str) -> Any:
    """Parse a JSON document, naming the file, line and column of any error."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedSourceError(f"{name}, line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg}).") from None
    except RecursionError:
        raise MalformedSourceError(f"{name}: JSON nested too deeply.") from None


def json_lines(text: str, name: str) -> Iterator[tuple[int, Any]]:
    """(line number, object) for each non-blank line of a JSONL file; a bad line names itself."""
    for number, line in enumerate(text.split("\n"), start=1):  # not splitlines: U+2028 may sit in a string
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            raise MalformedSourceError(f"{name}, line {number}: invalid JSON ({exc.msg}).") from None


def export_items(source: Source, single_key: str, what: str) -> list[Any]:
    """The conversations of a JSON export: its list, or one conversation object (told by `single_key`)."""
    data = load_json(source.read_text(), source.name)
    if isinstance(data, dict) and single_key in data:
        data = [data]
    if not isinstance(data, list):
        raise malformed(source.name, f"expected a list of {what}.")
    return data


def item_label(index: int, item: Any, title_key: str) -> str:
    """A label like conversation 3 ('Title'), 1-based, so an error points at the right conversation."""
    title = item.get(title_key) if isinstance(item, dict) else None
    return f"conversation {index + 1} ({title!r})" if isinstance(title, str) and title else f"conversation {index + 1}"


def text_parts(content: Any, where: str, name: str, joiner: str) -> str:
    """A message's content as text: a string, nothing, or the `{type: "text", text}` parts of an
    OpenAI-style part list (images and other parts skipped), joined by `joiner` as the tool shows them."""
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise malformed(name, f"{where}: content must be text or a list of parts.")
    texts = []
    for part in content:
        if not isinstance(part, dict):
            raise malformed(name, f"{where}: a content part is not an object.")
        if part.get("type") == "text":
            if not isinstance(part.get("text"), str):
                raise malformed(name, f"{where}: a text part whose text is not a string.")
            texts.append(part["text"])
    return joiner.join(texts)


def malformed(name: str, what: str, line: int | None = None) -> MalformedSourceError:
    where = f"{name}, line {line}" if line else name
    return MalformedSourceError(f"{where}: {what}")


def iso_time(value: Any) -> str | None:
    """An ISO 8601 UTC timestamp from epoch seconds or an ISO string; None when absent or unreadable."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)) or (isinstance(value, str) and _is_number(value)):
            moment = datetime.fromtimestamp(float(value), tz=timezone.utc)
        elif isinstance(value, str):
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _folder_members(root: Path, max_bytes: int, roots: Roots = ()) -> dict[str, Callable[[], bytes]]:
    found: dict[str, Callable[[], bytes]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for file in sorted(files):
            path = Path(folder) / file
            if path.is_file():  # a FIFO, device or socket is no member (its reader refuses one put there later)
                found[path.relative_to(root).as_posix()] = _file_reader(path, max_bytes, roots)
    return found


def _file_reader(path: Path, max_bytes: int, roots: Roots) -> Callable[[], bytes]:
    def read() -> bytes:
        try:
            return read_file(path, roots, max_bytes=max_bytes)
        except OSError as exc:
            raise SourceRefusedError(f"{path.name} cannot be read ({exc.strerror or exc}).") from None

    return read


def _zip_members(data: bytes, name: str, max_total: int) -> dict[str, Callable[[], bytes]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = [i for i in archive.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, ValueError) as exc:
        raise SourceRefusedError(f"{name} is not a readable zip file ({exc}).") from None
    total = 0
    for info in infos:
        parts = PurePosixPath(info.filename.replace("\\", "/")).parts
        if info.filename.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
            raise SourceRefusedError(f"{name} contains a path that escapes its folder: {info.filename!r}.")
        total += info.file_size
    if total > max_total:
        raise SourceRefusedError(
            f"{name} would expand to {total / 1e6:,.0f} MB; the limit is {max_total / 1e6:,.0f} MB "
            "(setting max_unzipped_bytes)."
        )
    return {i.filename.replace("\\", "/"): _zip_reader(archive, i, name) for i in infos}


def _zip_reader(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> Callable[[], bytes]:
    def read() -> bytes:
        try:
            with archive.open(info) as handle:
                data = handle.read(info.file_size + 1)  # never trust the header: stop one byte past it
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError, OSError, zlib.error) as exc:
            raise SourceRefusedError(f"{name}: {info.filename} cannot be unpacked ({exc}).") from None
        if len(data) > info.file_size:
            raise SourceRefusedError(f"{name}: {info.filename} is larger than its zip header says.")
        return data

    return read
