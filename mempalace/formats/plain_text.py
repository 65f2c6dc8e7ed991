"""Plain text and Markdown transcripts: the last-resort format, for any UTF-8 text file that is not JSON.

Turns are found by the first style that fits: `> ` or `❯ ` user turns (the lines after one are the reply;
`● ` starts a reply too), `User:`/`Assistant:` or `Human:`/`AI:` labels (also `**User:**`), generic
`Name:` speaker lines, else the whole file is one message. Label lines inside code fences never count.

A `Date: …` line (or `Fecha:`, `Datum:`, `Дата:`, `日期：`, `日付：`) is a header, not a speaker: it stays
in the text before the first label, and when its date reads (ISO, `8 May 2023` / `May 8, 2023`, or a
local form such as `2025年3月1日`, `1 de marzo de 2025`, `1 марта 2025`, `1. März 2025`, `1er mars 2025`;
optionally with a time such as `1:56 pm on`), it becomes the conversation's start (taken as UTC).

A terminal capture's chrome is no one's message: Claude Code's banner (lines of block-element art,
one naming Claude Code; the folder it shows is the conversation's place), rule lines (20 or more
box-drawing dashes) and the input box at the end of the screen (a prompt between two rules, and the
status lines under it).

Verbatim rule: a message's text is the source from just after its label (the marker or `Name:` and the
spaces or tabs after it) up to the start of the next label line, less its leading blank lines and its
trailing whitespace. Text before the first label is a message of its own (without a speaker), so
the only characters outside messages are labels, whitespace and terminal chrome.
"""

from __future__ import annotations

import codecs
import re
from datetime import datetime, timezone
from pathlib import PurePosixPath
from typing import NamedTuple

from .base import Conversation, Message, Role, Source, iso_time, project_name
from .local_dates import HEADER as _DATE_HEADER, HEADER_NAMES, local_date

NAME = "plain_text"
LABEL = "Plain text or Markdown"
DEFAULT_WING = "file"  # the project its banner shows, else the file's name
READS = ".txt/.md: '> ' turns, User:/Assistant: labels, Name: text lines, else the whole text"

SPEAKER_LINE_SHARE = 0.3  # generic `Name:` lines must be at least this share of the non-blank lines
_SUFFIXES = frozenset({"", ".txt", ".text", ".md", ".markdown", ".log"})
_JSON_START = re.compile(r'\s*(?:\{\s*(?:"|\}|$)|\[\s*(?:[\[\]{"\d-]|true\b|false\b|null\b|$))')
_FENCE = re.compile(r" {0,3}(?:`{3,}|~{3,})")
_PROMPT = re.compile(r"(>|❯) [ \t]*")
_ADMONITION = re.compile(r">[ \t]*\[![A-Za-z]+\]")  # `> [!NOTE]`: a GitHub note, never a turn
_REPLY = re.compile(r"● [ \t]*")
_NAMED = re.compile(  # `Name:` or `**Name:**` / `**Name**:`, a name of one to three words
    r"(\*\*)?(?P<name>[^\W\d_][\w'’.-]*(?: [^\W\d_][\w'’.-]*){0,2})(?(1)(?::\*\*|\*\*:)|:)(?=\s|$)[ \t]*")
_ROLES: dict[str, tuple[str, Role]] = {
    "user": ("User", "user"), "human": ("Human", "user"), "assistant": ("Assistant", "assistant"),
    "ai": ("AI", "assistant"),
}
_MONTHS = {m: n for n, names in enumerate(("jan january", "feb february", "mar march", "apr april", "may", "jun june",
                                           "jul july", "aug august", "sep sept september", "oct october",
                                           "nov november", "dec december"), start=1) for m in names.split()}
_DAY_MONTH_YEAR = re.compile(r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?P<month>[a-z]+)\.?,?\s+(?P<year>\d{4})", re.I)
_MONTH_DAY_YEAR = re.compile(r"(?P<month>[a-z]+)\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})", re.I)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]|$)")
_CLOCK = re.compile(r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<half>am|pm)?", re.I)
_HEADING = re.compile(r" {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*\r?$")
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t\r\f\v]*\n)+")
_ART = re.compile(r"[ \t]*[\u2580-\u259f]")  # a line of Claude Code's banner starts with block elements
_RULE = re.compile(r"[ \t]*[─━═╌┄┈]{20,}[ \t\r]*")
_BANNER_FOLDER = re.compile(r"[ \t](~?/[^\n]*?)[ \t\r]*$")
_BOX_PROMPT = re.compile(r"[ \t]*(?:>|❯)(?:[ \t\u00a0]|$)")  # the input box's prompt (a no-break space after it)
CHROME = "chrome"  # the role of a cut that starts terminal chrome: no message


class _Line(NamedTuple):
    start: int  # offset of the line in the text
    text: str  # without its "\n" (a "\r" of CRLF stays)
    fenced: bool  # inside a code fence, or a fence line itself


class _Cut(NamedTuple):
    """Where a message begins: its label line, the first character after the label, who speaks."""

    line_start: int
    text_start: int
    speaker: str
    role: Role


def accept(source: Source) -> bool:
    """A text-ish suffix (or none), UTF-8 without NUL bytes, and a head that does not look like JSON."""
    if source.is_dir or source.suffix not in _SUFFIXES or source.is_zip:
        return False
    head = source.head()
    if b"\x00" in head:
        return False
    try:  # incremental, so a character cut in two at the end of the head is not an error
        text = codecs.getincrementaldecoder("utf-8-sig")().decode(head)
    except UnicodeDecodeError:
        return False
    return not _JSON_START.match(text)


def parse(source: Source) -> list[Conversation]:
    """One conversation per file (none for an empty one); title = the first Markdown heading, or the stem."""
    text = source.read_text()
    if not text.strip():
        return []
    stem = PurePosixPath(source.name).stem or source.name
    lines = _lines(text)
    messages = _messages(text, _cuts(lines), stem)
    title = next((m[1].strip() for line in lines if not line.fenced and (m := _HEADING.match(line.text))), None)
    return [Conversation(messages=tuple(messages), title=title or stem, place=_banner_folder(lines))]


def _lines(text: str) -> list[_Line]:
    """Every line with its offset, marking the lines of fenced code blocks (``` or ~~~)."""
    found, offset, inside = [], 0, False
    for line in text.split("\n"):
        fence = bool(_FENCE.match(line))
        found.append(_Line(offset, line, inside or fence))
        inside ^= fence
        offset += len(line) + 1
    return found


def _cuts(lines: list[_Line]) -> list[_Cut]:
    """The cuts of the first style that fits; between the two role styles, the one with more labels wins."""
    marked = _marker_cuts(lines)
    marker_labels = sum(c.text_start > c.line_start for c in marked)
    marked_fits = marker_labels >= 2 and any(c.role == "user" for c in marked)
    labelled = _named_cuts(lines, roles_only=True)
    labelled_fits = {c.role for c in labelled} == {"user", "assistant"}
    if marked_fits and (not labelled_fits or marker_labels >= len(labelled)):
        return _without_chrome(marked, lines)
    if labelled_fits:
        return labelled
    named = _named_cuts(lines, roles_only=False)
    prose = sum(1 for line in lines if line.text.strip() and not line.fenced)
    if len({c.speaker for c in named}) >= 2 and len(named) >= SPEAKER_LINE_SHARE * prose:
        return named
    return []


def _marker_cuts(lines: list[_Line]) -> list[_Cut]:
    """`>`/`❯` user turns and `●` replies; the first unmarked non-blank line after a user turn starts a reply.

    A `>` turn goes on over the following `>` lines (a Markdown quote); a `❯` turn over the following
    non-blank lines (a wrapped terminal prompt). A `> [!NOTE]` quote is ordinary text, all its lines.
    """
    cuts: list[_Cut] = []
    state = None  # ">" or "❯" inside a user turn, "gap" after its blank line, None inside a reply
    in_note = False
    for start, line, fenced in lines:
        if in_note and not fenced and line.startswith(">"):
            continue
        in_note = not fenced and bool(_ADMONITION.match(line))
        prompt = None if fenced or in_note else _PROMPT.match(line)
        reply = None if fenced else _REPLY.match(line)
        blank = not line.strip()
        if state == ">" and not fenced and line.startswith(">"):
            continue
        if state == "❯" and not (blank or prompt or reply):
            continue
        if prompt:
            cuts.append(_Cut(start, start + prompt.end(), "User", "user"))
            state = prompt[1]
        elif reply:
            cuts.append(_Cut(start, start + reply.end(), "Assistant", "assistant"))
            state = None
        elif state and not blank:
            cuts.append(_Cut(start, start, "Assistant", "assistant"))
            state = None
        elif state and blank:
            state = "gap"
    return cuts


def _chrome(lines: list[_Line]) -> list[tuple[int, int]]:
    """Line ranges [first, after) of a terminal's chrome: banner art naming Claude Code, rule lines,
    and an input box (a prompt between two rules) with the status lines under it, at the end."""
    ranges: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and not lines[end].fenced and _ART.match(lines[end].text):
            end += 1
        if end > index and any("Claude Code" in line.text for line in lines[index:end]):
            ranges.append((index, end))
        elif not lines[index].fenced and _RULE.fullmatch(lines[index].text):
            ranges.append((index, index + 1))
        index = max(end, index + 1)
    rules = [first for first, after in ranges if after == first + 1 and _RULE.fullmatch(lines[first].text)]
    if len(rules) >= 2:
        between = [line.text for line in lines[rules[-2] + 1 : rules[-1]] if line.text.strip()]
        under = [line.text for line in lines[rules[-1] + 1 :] if line.text.strip()]
        if len(between) == 1 and _BOX_PROMPT.match(between[0]) and len(under) <= 4 and not any(
                _PROMPT.match(line) or _REPLY.match(line) for line in under):
            ranges = [r for r in ranges if r[0] < rules[-2]] + [(rules[-2], len(lines))]
    return ranges


def _without_chrome(cuts: list[_Cut], lines: list[_Line]) -> list[_Cut]:
    """`cuts` with each stretch of chrome cut out; text after one goes on as the message before it."""
    kept = list(cuts)
    for first, after in _chrome(lines):
        start = lines[first].start
        end = lines[after].start if after < len(lines) else None
        before = [c for c in kept if c.line_start < start and c.role != CHROME]
        inside = [c for c in kept if start <= c.line_start and (end is None or c.line_start < end)]
        kept = [c for c in kept if c not in inside] + [_Cut(start, start, "", CHROME)]
        if end is not None and not any(c.line_start == end for c in kept):
            speaker, role = (inside[-1].speaker, inside[-1].role) if inside else \
                (before[-1].speaker, before[-1].role) if before else ("", "other")
            kept.append(_Cut(end, end, speaker, role))
        kept.sort(key=lambda cut: cut.line_start)
    return kept


def _banner_folder(lines: list[_Line]) -> str | None:
    """The project of the folder Claude Code's banner shows (`~/projects/spotter` → `spotter`)."""
    for first, after in _chrome(lines):
        banner = [line.text for line in lines[first:after] if _ART.match(line.text)]
        if any("Claude Code" in line for line in banner):
            found = next((m for line in banner if (m := _BANNER_FOLDER.search(line))), None)
            return project_name(found[1]) if found else None
    return None


def _named_cuts(lines: list[_Line], roles_only: bool) -> list[_Cut]:
    """`User:`-style role labels (roles_only) or any short capitalised `Name:` (role "other")."""
    cuts = []
    for start, line, fenced in lines:
        match = None if fenced else _NAMED.match(line)
        if not match:
            continue
        name = match["name"]
        if name.lower() in HEADER_NAMES:  # a header line, not a speaker
            continue
        if roles_only and name.lower() in _ROLES:
            speaker, role = _ROLES[name.lower()]
        elif not roles_only and name[0].isupper() and len(name) <= 32 and "_" not in name:  # not CONSTANT_NAMES
            speaker, role = name, "other"
        else:
            continue
        cuts.append(_Cut(start, start + match.end(), speaker, role))
    return cuts


def _messages(text: str, cuts: list[_Cut], stem: str) -> list[Message]:
    """The text between cuts, per the verbatim rule; text before the first cut is a message of its own."""
    if not cuts or text[: cuts[0].line_start].strip():
        cuts = [_Cut(0, 0, "", "other"), *cuts]  # no speaker: the drawer is the bare text, whatever the file's name
    ends = [cut.line_start for cut in cuts[1:]] + [len(text)]
    messages = []
    for cut, end in zip(cuts, ends):
        if cut.role == CHROME:
            continue
        body = _LEADING_BLANK_LINES.sub("", text[cut.text_start:end]).rstrip()
        if body:
            header = _DATE_HEADER.search(_before_fence(body)) if not cut.speaker and not messages else None
            messages.append(Message(cut.speaker, cut.role, body, timestamp=header and header_date(header["value"])))
    return messages


def _before_fence(text: str) -> str:
    """`text` up to its first code fence: a `Date:` inside code is not a header."""
    lines = text.split("\n")
    return "\n".join(lines[: next((i for i, line in enumerate(lines) if _FENCE.match(line)), len(lines))])


def header_date(value: str) -> str | None:
    """An ISO timestamp from a `Date:` header's value, or None if it does not read as a date."""
    if _ISO_DATE.match(value.strip()):
        return iso_time(value.strip())
    found = next((m for pattern in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR) for m in pattern.finditer(value)
                  if m["month"].lower() in _MONTHS), None)
    year_month_day = (int(found["year"]), _MONTHS[found["month"].lower()], int(found["day"])) if found else \
        local_date(value)
    if not year_month_day:
        return None
    try:
        day = datetime(*year_month_day, tzinfo=timezone.utc)
    except ValueError:
        return None
    if clock := _CLOCK.search(value):
        hour, minute = int(clock["hour"]), int(clock["minute"])
        if clock["half"]:
            hour = hour % 12 + (12 if clock["half"].lower() == "pm" else 0)
        if hour < 24 and minute < 60:  # a time that does not read leaves the date alone
            day = day.replace(hour=hour, minute=minute)
    return day.isoformat().replace("+00:00", "Z")
