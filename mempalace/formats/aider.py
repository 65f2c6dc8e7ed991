"""Aider chat history (`.aider.chat.history.md`, in the repository root): one Markdown file aider appends to.

Each run starts with `# aider chat started at YYYY-MM-DD HH:MM:SS` (the writer's local time; the file
records no zone, so it is read as UTC) and is one
conversation. Aider writes user input as `#### ` lines, its own notices as `> ` lines and the model's
replies as plain Markdown; the first two always end with two spaces (a Markdown line break).

Kept: user input (the `#### ` prefix and the two spaces aider added are dropped, the lines joined with
newlines), replies verbatim (less aider's reasoning blocks), and aider's notices after the first input as
one-line `tool` messages (edits, commits, file adds, questions with their answers, command output).
Dropped: the start-up banner before the first input, the model/repo banner re-shown on a mode switch,
token and cost reports, `^C` notices, empty `>` lines and `#### <blank>` (an empty input).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path, PurePosixPath

from .base import Conversation, Message, Source, iso_time, malformed, one_line

NAME = "aider"
LABEL = "Aider chat history (.aider.chat.history.md)"
DEFAULT_WING = "project"  # a session files into its project's wing
READS = '.aider.chat.history.md in a repository (one conversation per session)'

HISTORY_NAME = ".aider.chat.history.md"
_HEADER_PREFIX = "# aider chat started at"
_HEADER = re.compile(r"# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})[ \t]*")
_USER = re.compile(r"####(?: |$)")
_QUOTE = re.compile(r">(?: |$)")
_MARK = "  "  # the Markdown line break aider ends every `#### ` and `> ` line with
_BLANK_INPUT = "<blank>"
_REASONING = re.compile(r"<(thinking-content-[0-9a-f]{32})>.*?(?:</\1>\s*|\Z)", re.DOTALL)
_LONE_REASONING_END = re.compile(r"\A.*?</thinking-content-[0-9a-f]{32}>\s*", re.DOTALL)
_GROUP_ANSWER = re.compile(r".*\(Y\)es/\(N\)o.*\]: (?:all|skip)")  # a question answered by an earlier "all"
_CHAT_COMMAND = re.compile(r"\A/(?:ask|code|architect|context)\s+(?=\S)")  # a chat mode and its message
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t\r\f\v]*\n)+")
_NOTICES = (  # aider talking about itself, not the work: the banner shown again on /model, /chat-mode...
    "Aider v", "Main model:", "Weak model:", "Editor model:", "Model:", "Models:", "Git repo:", "Repo-map:",
    "Restored previous conversation history.", "Multiline mode:", "Tokens: ", "^C ",
)


def accept(source: Source) -> bool:
    """A file named `.aider.chat.history.md`, or a `.md` whose first non-blank line is aider's session header."""
    if source.is_dir or source.is_zip:
        return False
    if PurePosixPath(source.name.replace("\\", "/")).name == HISTORY_NAME:
        return True
    if source.suffix != ".md":
        return False
    first = next((line for line in source.head_text(8192).lstrip("\ufeff").split("\n") if line.strip()), "")
    return first.startswith(_HEADER_PREFIX)


def parse(source: Source) -> list[Conversation]:
    """One conversation per `# aider chat started at` section that holds a user or assistant message."""
    text = source.read_text()
    if not text.strip():
        return []
    lines = text.split("\n")
    starts = _session_starts(lines, source.name)
    marked = _keeps_marks(lines)
    place = _place(source)
    label = PurePosixPath(source.name.replace("\\", "/")).name or source.name
    conversations, seen = [], {}
    for number, (start, when) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
        messages = _session(lines[start + 1:end], marked, iso_time(when))
        if not any(m.role in ("user", "assistant") for m in messages):
            continue  # started and quit, or only aider's banner
        seen[when] = seen.get(when, 0) + 1
        identity = f"{label}@{when}" + (f"#{seen[when]}" if seen[when] > 1 else "")
        conversations.append(Conversation(messages=tuple(messages), id=identity, title=_title(messages),
                                          place=place))
    return conversations


def _session_starts(lines: list[str], name: str) -> list[tuple[int, str]]:
    """(line index, header time) of every session; the file must open with a readable header."""
    first = next(i for i, line in enumerate(lines) if line.strip())
    head = lines[first].rstrip("\r")
    if not head.startswith(_HEADER_PREFIX):
        raise malformed(name, f"expected the '{_HEADER_PREFIX} ...' header that opens every aider "
                              "chat history, found other text.", first + 1)
    match = _HEADER.fullmatch(head)
    if not match or iso_time(match[1]) is None:
        raise malformed(name, "the session header's time does not read as YYYY-MM-DD HH:MM:SS.", first + 1)
    starts = [(first, match[1])]
    for index in range(first + 1, len(lines)):
        match = _HEADER.fullmatch(lines[index].rstrip("\r"))
        if match and iso_time(match[1]) and _between_blank_lines(lines, index):
            starts.append((index, match[1]))
    return starts


def _between_blank_lines(lines: list[str], index: int) -> bool:
    """Aider writes a header as `\\n# aider chat started at ...\\n\\n`: a blank line on each side."""
    after = lines[index + 1] if index + 1 < len(lines) else ""
    return not lines[index - 1].strip() and not after.strip()


def _keeps_marks(lines: list[str]) -> bool:
    """Whether the file still has aider's two trailing spaces (an editor may have stripped them all)."""
    bare = (line.rstrip("\r") for line in lines)
    return any(line.endswith(_MARK) for line in bare if _USER.match(line) or _QUOTE.match(line))


def _place(source: Source) -> str | None:
    """The repository folder: the folder holding `.aider.chat.history.md` (aider writes it in the git root)."""
    if PurePosixPath(source.name.replace("\\", "/")).name != HISTORY_NAME:
        return None  # a renamed or moved copy: its folder says nothing about the project
    if source.path is not None:
        return Path(source.path).absolute().parent.name or None
    parts = source.name.replace("\\", "/").split("/")
    return (parts[-2].strip() or None) if len(parts) >= 2 else None


def _session(lines: list[str], marked: bool, when: str | None) -> list[Message]:
    """The messages of one session, in order; the session's start time goes on its first message."""
    messages: list[Message] = []
    had_input = False
    for kind, block in _blocks(lines, marked):
        if kind == "user":
            had_input = True
            messages.extend(_user(block, marked))
        elif kind == "tool":
            if had_input:  # before the first input it is the start-up banner and checks
                messages.extend(_tools(block))
        else:
            messages.extend(_reply(block))
    if messages and when:
        messages[0] = replace(messages[0], timestamp=when)
    return messages


def _is_user(line: str, marked: bool) -> bool:
    """A `#### ` input line; with marks kept, only one ending in aider's two spaces (not a `####` heading)."""
    line = line.rstrip("\r")
    return bool(_USER.match(line)) and (not marked or line.endswith(_MARK))


def _blocks(lines: list[str], marked: bool) -> list[tuple[str, list[str]]]:
    """The session cut into ("user" | "tool" | "text", lines) blocks, in file order."""
    blocks: list[tuple[str, list[str]]] = []
    text: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        end = index + 1
        if _is_user(line, marked):
            while end < len(lines) and _is_user(lines[end], marked):
                end += 1
            kind = "user"
        elif _QUOTE.match(line.rstrip("\r")):
            while end < len(lines) and lines[end].rstrip("\r"):  # a notice's unquoted lines follow it directly
                end += 1
            kind = "tool" if not marked or lines[end - 1].rstrip("\r").endswith(_MARK) else "text"
        else:
            kind = "text"
        if kind == "text":
            text.extend(lines[index:end])
        else:
            blocks.extend([("text", text), (kind, lines[index:end])] if text else [(kind, lines[index:end])])
            text = []
        index = end
    if text:
        blocks.append(("text", text))
    return blocks


def _user(block: list[str], marked: bool) -> list[Message]:
    """One input: each line less `#### ` and aider's two trailing spaces, joined with newlines."""
    found = []
    for line in block:
        line = line.rstrip("\r")
        if marked:
            line = line[: -len(_MARK)]
        found.append(line[5:] if line.startswith("#### ") else line[4:])
    text = "\n".join(found)
    if text == _BLANK_INPUT or not text.strip():
        return []  # aider's placeholder for an empty input
    if len(found) == 1 and _GROUP_ANSWER.fullmatch(text):
        return [Message("Tool", "tool", one_line(text), verbatim=False)]  # aider answering for the user
    return [Message("User", "user", text)]


def _tools(block: list[str]) -> list[Message]:
    """One `tool` line per `> ` notice (with the unquoted lines that continue it), less aider's own chatter."""
    notices: list[list[str]] = []
    for line in block:
        if _QUOTE.match(line.rstrip("\r")):
            notices.append([line[2:]])
        else:
            notices[-1].append(line)
    found = []
    for notice in notices:
        text = one_line(" ".join(notice))
        if text and not text.startswith(_NOTICES):
            found.append(Message("Tool", "tool", text, verbatim=False))
    return found


def _reply(block: list[str]) -> list[Message]:
    """The model's reply as aider wrote it, less its reasoning blocks and the blank lines around it."""
    raw = "\n".join(block)
    text = _REASONING.sub("", raw)
    end, start = raw.find("</thinking-content-"), raw.find("<thinking-content-")
    if end != -1 and (start == -1 or end < start):  # the block begins inside reasoning cut off before it
        text = _LONE_REASONING_END.sub("", text, count=1)
    text = _LEADING_BLANK_LINES.sub("", text).rstrip()
    return [Message("Aider", "assistant", text)] if text else []


def _title(messages: list[Message]) -> str | None:
    """The first line of the first input that is not a command (`/ask <question>` counts as its question)."""
    for message in messages:
        if message.role != "user":
            continue
        line = next((part.strip() for part in message.text.split("\n") if part.strip()), "")
        line = _CHAT_COMMAND.sub("", line)
        if line and not line.startswith("/"):
            return one_line(line)[:80]
    return None
