"""Slack workspace export (the downloaded .zip or its unzipped folder): one conversation per channel
per day file (`<channel>/<YYYY-MM-DD>.json`), speakers resolved to real names through `users.json`.

Decisions: the export may sit at the top or inside one wrapping folder; files that are not channel
day files are ignored; the channel is the folder name (DM folders keep their id); system lines
(joins, topic changes, pins...) and empty messages are skipped; a person's message keeps exactly its
`text` (link previews are dropped), while a bot post, or a message with no text of its own, is its
text followed by each attachment's pretext, title and text (fallback if no text), joined by a blank
line, every piece verbatim; day files left with no message make no conversation. The workspace
(named by the export's file or folder name) is each conversation's place. A day file holds the
workspace's local day, so the conversation is dated by the file's day, as its title names it, while each
message keeps its exact UTC moment (a late evening message is the next day in UTC).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from .base import Conversation, Message, Source, decode_text, iso_time, load_json, malformed

NAME = "slack"
LABEL = "Slack export"
DEFAULT_WING = "workspace"  # an export of one workspace files into slack_<workspace>
READS = 'the export .zip as downloaded, or its unzipped folder'

REQUIRED_FILES = ("users.json", "channels.json")
DAY_FILE = re.compile(r"\d{4}-\d{2}-\d{2}\.json")
ATTACHMENT_SEPARATOR = "\n\n"
SYSTEM_SUBTYPES = frozenset({
    "channel_join", "channel_leave", "group_join", "group_leave", "bot_add", "bot_remove",
    "channel_purpose", "channel_topic", "channel_name", "channel_archive", "channel_unarchive",
    "pinned_item",
})
UNKNOWN_SPEAKER = "unknown"

Reader = Callable[[], bytes]


def accept(source: Source) -> bool:
    """A folder or zip with users.json and channels.json at its top or in one wrapping folder (names only)."""
    if source.is_dir:
        return bool(_export_roots(_folder_names(source.path)))  # type: ignore[arg-type]
    if source.is_zip:
        return bool(_export_roots(source.members()))
    return False


def parse(source: Source) -> list[Conversation]:
    """Every channel day file with at least one real message, in channel then date order."""
    members = source.members()
    root = _single_root(source.name, members)
    users = _read_objects(source.name, members, root + "users.json", "user")
    _read_objects(source.name, members, root + "channels.json", "channel")  # checked only: folders name channels
    user_names = _speaker_names(users, f"{source.name}: {root}users.json")
    speaker_names = dict(user_names)
    days = [(channel, day, member, _read_objects(source.name, members, member, "message"))
            for channel, day, member in _day_files(members, root)]
    for *_, items in days:
        for bot_id, bot_name in _bots_added(items):
            speaker_names.setdefault(bot_id, bot_name)
    found, workspace = [], _workspace(source.name)
    for channel, day, member, items in days:
        label = f"{source.name}: {member}"
        messages = [_message(item, speaker_names, label, number) for number, item in enumerate(items, 1)]
        kept = tuple(message for message in messages if message is not None)
        if kept:
            found.append(Conversation(messages=kept, id=f"{channel}/{day}", title=f"#{channel} {day}", place=workspace,
                                      names=user_names, day=day))
    return found


def _workspace(name: str) -> str | None:
    """The workspace an export is of, from its name as Slack gives it
    (`Acme Slack export Jan 1 2024 - Feb 2 2024.zip` → `Acme`); None for a generic name."""
    stem = re.sub(r"\.zip$", "", PurePosixPath(name.replace("\\", "/")).name, flags=re.IGNORECASE)
    stem = re.sub(r"[\s_-]*slack[\s_-]*export\b.*$", "", stem, flags=re.IGNORECASE).strip(" _-")
    return None if re.fullmatch(r"(?i)(slack|export|archive|download|\d+)?", stem) else stem


def _folder_names(folder: Path) -> set[str]:
    """Member-style names of the required files at the top of `folder` and one level down, without walking it."""
    names = {name for name in REQUIRED_FILES if (folder / name).is_file()}
    if len(names) == len(REQUIRED_FILES):
        return names
    try:
        children = [child for child in folder.iterdir() if child.is_dir() and not child.name.startswith(".")]
    except OSError:
        return names
    for child in children:
        names.update(f"{child.name}/{name}" for name in REQUIRED_FILES if (child / name).is_file())
    return names


def _export_roots(names: Iterable[str]) -> list[str]:
    """Prefixes ("" or "folder/") under which both users.json and channels.json sit; the top wins."""
    present = set(names)
    if all(name in present for name in REQUIRED_FILES):
        return [""]
    wrappers = {name.split("/", 1)[0] for name in present if name.count("/") == 1}
    return sorted(
        f"{wrapper}/" for wrapper in wrappers
        if all(f"{wrapper}/{name}" in present for name in REQUIRED_FILES)
    )


def _single_root(source_name: str, members: dict[str, Reader]) -> str:
    """The one export root inside the source; none or several is a clear error, not a guess."""
    roots = _export_roots(members)
    if not roots:
        raise malformed(source_name, "not a Slack export: no users.json and channels.json at the top or one folder in.")
    if len(roots) > 1:
        listed = ", ".join(root.rstrip("/") for root in roots)
        raise malformed(source_name, f"holds several Slack exports ({listed}); ingest them one at a time.")
    return roots[0]


def _read_objects(source_name: str, members: dict[str, Reader], member: str, kind: str) -> list[dict[str, Any]]:
    """A member that must be a JSON list of objects; bad JSON or shape names the member (and line)."""
    label = f"{source_name}: {member}"
    data = load_json(decode_text(members[member](), label), label)
    if not isinstance(data, list):
        raise malformed(label, f"expected a JSON list of {kind}s, found {type(data).__name__}.")
    for number, item in enumerate(data, 1):
        if not isinstance(item, dict):
            raise malformed(label, f"{kind} {number} is not an object.")
    return data


def _day_files(members: dict[str, Reader], root: str) -> list[tuple[str, str, str]]:
    """(channel, day, member) for each `<channel>/<YYYY-MM-DD>.json` under the root, sorted by channel then day."""
    found = []
    for member in members:
        if not member.startswith(root):
            continue
        parts = member[len(root):].split("/")
        if len(parts) == 2 and DAY_FILE.fullmatch(parts[1]) and not parts[0].startswith("."):
            found.append((parts[0], parts[1][: -len(".json")], member))
    return sorted(found)


def _speaker_names(users: list[dict[str, Any]], label: str) -> dict[str, str]:
    """User id -> the best human name: real name, profile real name, display name, then handle."""
    names = {}
    for number, user in enumerate(users, 1):
        user_id = user.get("id")
        if not isinstance(user_id, str) or not user_id:
            raise malformed(label, f"user {number} has no id.")
        candidates = (user.get("real_name"), _inner(user, "profile", "real_name"),
                      _inner(user, "profile", "display_name"), user.get("name"))
        names[user_id] = _first_filled(candidates) or user_id
    return names


def _bots_added(items: list[dict[str, Any]]) -> Iterable[tuple[str, str]]:
    """(bot id, name) from "added an integration" lines, whose link names the bot; bot posts often carry no name."""
    for item in items:
        bot_id, text = item.get("bot_id"), item.get("text")
        if item.get("subtype") in ("bot_add", "bot_remove") and _filled(bot_id) and isinstance(text, str):
            named = re.search(rf"/services/{re.escape(bot_id)}\|([^>]+)>", text)
            if named and named.group(1).strip():
                yield bot_id, named.group(1)


def _message(item: dict[str, Any], speaker_names: dict[str, str], label: str, number: int) -> Message | None:
    """One chat message, or None for system lines, non-messages and messages with nothing to say."""
    if item.get("type", "message") != "message" or item.get("subtype") in SYSTEM_SUBTYPES:
        return None
    text = _message_text(item, label, number)
    if not text.strip():
        return None
    return Message(speaker=_speaker(item, speaker_names), role="other", text=text, timestamp=iso_time(item.get("ts")),
                   machine=_is_bot(item))


def _message_text(item: dict[str, Any], label: str, number: int) -> str:
    """The verbatim `text`; for bot posts and text-less messages, followed by the attachments' words."""
    text = item.get("text")
    text = "" if text is None else text
    if not isinstance(text, str):
        raise malformed(label, f"message {number} has a text that is not a string.")
    attachments = item.get("attachments") or []
    if not isinstance(attachments, list) or not all(isinstance(a, dict) for a in attachments):
        raise malformed(label, f"message {number} has attachments that are not a list of objects.")
    if not attachments or (text.strip() and not _is_bot(item)):
        return text
    pieces = [text] if text.strip() else []
    for attachment in attachments:
        body = attachment.get("text") if _filled(attachment.get("text")) else attachment.get("fallback")
        pieces.extend(piece for piece in (attachment.get("pretext"), attachment.get("title"), body) if _filled(piece))
    return ATTACHMENT_SEPARATOR.join(pieces)


def _speaker(item: dict[str, Any], speaker_names: dict[str, str]) -> str:
    """Bots by their posting name; people by their users.json name, else what the message says about them."""
    user_id = item.get("user") or _inner(item, "comment", "user")  # file comments carry the user inside
    bot_id = item.get("bot_id")
    known_user = speaker_names.get(user_id) if isinstance(user_id, str) else None
    known_bot = speaker_names.get(bot_id) if isinstance(bot_id, str) else None
    posted_as = (item.get("username"), _inner(item, "bot_profile", "name"))
    profile_name = _inner(item, "user_profile", "real_name")
    if _is_bot(item):
        candidates = (*posted_as, known_bot, known_user, profile_name, user_id, bot_id)
    else:
        candidates = (known_user, profile_name, *posted_as, known_bot, user_id, bot_id)
    return _first_filled(candidates) or UNKNOWN_SPEAKER


def _is_bot(item: dict[str, Any]) -> bool:
    return item.get("subtype") == "bot_message" or _filled(item.get("bot_id"))


def _inner(item: dict[str, Any], key: str, field: str) -> Any:
    """item[key][field] when item[key] is an object, else None (exports omit or null these freely)."""
    value = item.get(key)
    return value.get(field) if isinstance(value, dict) else None


def _filled(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _first_filled(values: Iterable[Any]) -> str | None:
    return next((value for value in values if _filled(value)), None)
