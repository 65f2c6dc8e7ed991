"""Continue (continuedev/continue, the IDE assistant) saved session: `~/.continue/sessions/<sessionId>.json`.

Kept: what the person typed and what the model answered, verbatim (text parts joined with a newline, as
Continue itself renders them; `<think>` blocks stripped from answers, as Continue hides them); each tool
call and each tool result as one `tool` line. Dropped: `thinking` and `system` messages, `reasoning`,
`contextItems` (files, code and search results Continue attached to the prompt, not the conversation),
prompt logs, compaction summaries and images. `sessions.json`, the index beside the sessions, holds no
messages and is refused with a clear error. Sessions saved by the 2023 Python server (step logs) are read
too: user inputs and chat answers as messages, other visible steps as one-line `tool` summaries.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import UnsupportedFormatError
from .base import Conversation, Message, Source, load_json, malformed, one_line, project_name, text_parts

NAME = "continue_dev"
LABEL = "Continue session JSON"
DEFAULT_WING = "project"  # a session files into its project's wing
READS = '~/.continue/sessions/<id>.json (not sessions.json, the index)'

_SESSION_ID = re.compile(r'(?<!\\)"sessionId"\s*:')
_HISTORY_LIST = re.compile(r'(?<!\\)"history"\s*:\s*\[')
_CONTEXT_ITEMS = re.compile(r'(?<!\\)"contextItems"\s*:')
_HISTORY_FIRST = re.compile(r'\{\s*"history"\s*:\s*\[')
_PY_SESSION = re.compile(r'\{\s*"session_state"\s*:\s*\{\s*"history"\s*:\s*\[')  # 2023 Python server
_PY_FULL_STATE = re.compile(r'\{\s*"history"\s*:\s*\{\s*"timeline"\s*:\s*\[')  # its earlier layout
_INDEX_KEYS = (re.compile(r'"sessionId"\s*:'), re.compile(r'"dateCreated"\s*:'))
_PY_INDEX_KEYS = (re.compile(r'"session_id"\s*:'), re.compile(r'"date_created"\s*:'))
_THINK = re.compile(r"<think>[\s\S]*?</think>")
_NEW_SESSION_TITLE = "New Session"  # Continue's placeholder until a title is made
_ASSISTANT = "Continue"


def accept(source: Source) -> bool:
    """A `.json` whose first 64 KB look like a Continue session, or like `sessions.json` (to refuse it)."""
    if source.is_dir or source.suffix != ".json" or source.is_zip:
        return False
    head = source.head_text().lstrip("\ufeff \t\r\n")
    if head.startswith("["):
        return _looks_like_index(source.name, head)
    if not head.startswith("{"):
        return False
    if _SESSION_ID.search(head) and _HISTORY_LIST.search(head):
        return True
    if _HISTORY_FIRST.match(head) and _CONTEXT_ITEMS.search(head):  # older saves put `history` first
        return True
    return bool(_PY_SESSION.match(head) or _PY_FULL_STATE.match(head))


def _looks_like_index(name: str, head: str) -> bool:
    """`sessions.json`: a list of {sessionId, title, dateCreated, workspaceDirectory} (or the snake_case ones)."""
    if PurePosixPath(name).name.lower() != "sessions.json":
        return False
    return any(all(key.search(head) for key in keys) for keys in (_INDEX_KEYS, _PY_INDEX_KEYS))


def parse(source: Source) -> list[Conversation]:
    """The session as one conversation: id = `sessionId`, title, place = the workspace folder's name."""
    data = load_json(source.read_text(), source.name)
    if isinstance(data, list):
        raise _index_refusal(source.name, data)
    if not isinstance(data, dict):
        raise malformed(source.name, "expected a Continue session: an object with a `history` list.")
    if "session_state" in data:
        return _python_session(data, source.name)
    if isinstance(data.get("history"), dict):
        return _python_full_state(data, source.name)
    if not isinstance(data.get("history"), list):
        raise malformed(source.name, "expected a Continue session: an object with a `history` list.")
    messages = _history(data["history"], source.name)
    return _conversation(messages, data.get("sessionId"), data.get("title"), data.get("workspaceDirectory"))


def _index_refusal(name: str, data: list[Any]) -> Exception:
    """sessions.json lists sessions without their messages: say where the messages are."""
    if all(isinstance(item, dict) and ("sessionId" in item or "session_id" in item) for item in data):
        return UnsupportedFormatError(
            f"{name} is Continue's index of sessions (titles and dates, no messages): ingest the "
            "<sessionId>.json files beside it, or the whole sessions folder, instead.")
    return malformed(name, "expected a Continue session: an object with a `history` list.")


def _conversation(messages: list[Message], ident: Any, title: Any, folder: Any) -> list[Conversation]:
    """One conversation, or none when nobody said anything."""
    if not any(m.role != "tool" for m in messages):
        return []
    named = title.strip() if isinstance(title, str) else ""
    return [Conversation(
        messages=tuple(messages), id=str(ident) if isinstance(ident, (str, int)) and ident != "" else None,
        title=named if named and named != _NEW_SESSION_TITLE else None, place=_folder_name(folder),
    )]


def _folder_name(folder: Any) -> str | None:
    """The last folder of a workspace path or URI (`file:///home/me/shop`, `C:\\work\\shop` → `shop`)."""
    if not isinstance(folder, str) or not folder.strip():
        return None
    text = folder.strip()
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]+://", text):
        text = unquote(urlsplit(text).path)
    return project_name(text)


# Sessions written by the TypeScript core (2024 on): history = [{message, contextItems, ...}].

def _history(items: list[Any], name: str) -> list[Message]:
    """Each history item's message in order; tool results name the call they answer."""
    messages: list[Message] = []
    calls: dict[str, str] = {}  # toolCallId → tool name, for the result lines
    for number, item in enumerate(items, start=1):
        where = f"history item {number}"
        if not isinstance(item, dict) or not isinstance(item.get("message"), dict):
            raise malformed(name, f"{where} is not an object with a `message` object.")
        message = item["message"]
        role = message.get("role")
        if not isinstance(role, str):
            raise malformed(name, f"{where}: the message has no `role`.")
        if role == "user":
            text = _text(message.get("content"), where, name)
            messages += [Message("User", "user", text)] if text.strip() else []
        elif role == "assistant":
            messages += _assistant(message, where, name, calls)
        elif role == "tool":
            messages.append(_tool_result(message, where, name, calls))
        # "thinking" and "system" messages (and any role Continue may add) are not the conversation
    return messages


def _assistant(message: dict[str, Any], where: str, name: str, calls: dict[str, str]) -> list[Message]:
    """The answer's text without `<think>` blocks, then one line per tool call it made."""
    text = _THINK.sub("", _text(message.get("content"), where, name))
    found = [Message(_ASSISTANT, "assistant", text)] if text.strip() else []
    tool_calls = message.get("toolCalls")
    if tool_calls is None:
        return found
    if not isinstance(tool_calls, list):
        raise malformed(name, f"{where}: `toolCalls` is not a list.")
    for call in tool_calls:
        function = call.get("function") or {} if isinstance(call, dict) else None
        if not isinstance(function, dict):
            raise malformed(name, f"{where}: a tool call is not an object with a `function` object.")
        tool = str(function.get("name") or "tool")
        if isinstance(call.get("id"), str):
            calls[call["id"]] = tool
        arguments = function.get("arguments")
        line = f"→ {tool}: {arguments}" if isinstance(arguments, str) and arguments.strip() else f"→ {tool}"
        found.append(Message("Tool", "tool", one_line(line), verbatim=False))
    return found


def _tool_result(message: dict[str, Any], where: str, name: str, calls: dict[str, str]) -> Message:
    """`← tool: output`, squeezed to one line; the output is what Continue sent back to the model."""
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise malformed(name, f"{where}: a tool result's content is not text.")
    call_id = message.get("toolCallId")
    tool = calls.get(call_id, "tool") if isinstance(call_id, str) else "tool"
    output = content if content and content.strip() else "(empty)"
    return Message("Tool", "tool", one_line(f"← {tool}: {output}"), verbatim=False)


def _text(content: Any, where: str, name: str) -> str:
    """A string, or the text parts of a part list joined with a newline (images skipped), as Continue shows them."""
    return text_parts(content, where, name, "\n")


# Sessions written by the 2023 Python server: a log of steps, each with its type, name and description.

def _python_session(data: dict[str, Any], name: str) -> list[Conversation]:
    """`{session_state: {history: [step...]}, title, workspace_directory, session_id}`."""
    state = data["session_state"]
    if not isinstance(state, dict) or not isinstance(state.get("history"), list):
        raise malformed(name, "`session_state` is not an object with a `history` list of steps.")
    steps = []
    for number, step in enumerate(state["history"], start=1):
        if not isinstance(step, dict):
            raise malformed(name, f"step {number} is not an object.")
        params = step.get("params") if isinstance(step.get("params"), dict) else {}
        steps.append((step.get("step_type"), step, params.get("user_input")))
    return _conversation(_steps(steps, name), data.get("session_id"), data.get("title"),
                         data.get("workspace_directory"))


def _python_full_state(data: dict[str, Any], name: str) -> list[Conversation]:
    """`{history: {timeline: [{step, depth, deleted...}]}, session_info: {title, workspace_directory}}`."""
    timeline = data["history"].get("timeline")
    if not isinstance(timeline, list):
        raise malformed(name, "`history` has no `timeline` list of steps.")
    steps = []
    for number, node in enumerate(timeline, start=1):
        if not isinstance(node, dict) or not isinstance(node.get("step"), dict):
            raise malformed(name, f"step {number} is not an object with a `step` object.")
        if node.get("deleted") is True:
            continue
        step = node["step"]
        steps.append((step.get("class_name"), step, step.get("user_input")))
    info = data.get("session_info") if isinstance(data.get("session_info"), dict) else {}
    return _conversation(_steps(steps, name), info.get("session_id"), info.get("title"),
                         info.get("workspace_directory"))


def _steps(steps: list[tuple[Any, dict[str, Any], Any]], name: str) -> list[Message]:
    """User inputs and chat answers as messages; other visible steps as one-line summaries."""
    messages = []
    for number, (kind, step, user_input) in enumerate(steps, start=1):
        description = step.get("description")
        if description is not None and not isinstance(description, str):
            raise malformed(name, f"step {number}: `description` is not text.")
        if kind == "UserInputStep":  # hidden in some versions, but it is what the person typed
            text = user_input if isinstance(user_input, str) else description or ""
            messages += [Message("User", "user", text)] if text.strip() else []
        elif step.get("hide") is True:
            continue
        elif kind == "SimpleChatStep":
            messages += [Message(_ASSISTANT, "assistant", description)] if description and description.strip() else []
        elif description and description.strip():
            label = step.get("name") if isinstance(step.get("name"), str) and step.get("name") else kind or "step"
            messages.append(Message("Tool", "tool", one_line(f"{label}: {description}"), verbatim=False))
    return messages
