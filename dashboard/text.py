"""How a drawer's text is shown: its Markdown rendered safely, Slack's markup as names and links,
ChatGPT's citation marks hidden, and a raw view of the exact stored text.

Display only: nothing here changes what is stored; `show_verbatim`'s raw view shows the drawer
byte for byte.

`safe_markdown` writes Markdown for `st.markdown` (never with unsafe_allow_html) in which:
- no HTML can start: every `<` outside code is `&lt;`; `&` is `&amp;`, so entities show as written;
- no link leaves for another scheme than http, https or mailto: such a `[text](target)` is shown
  as written (its `]` escaped), and an image is shown as a link, so no drawer makes the browser
  fetch anything; in code, where nothing is a link, a word joiner (U+2060) keeps a misread fence
  from making one; a bare web address links only itself (GFM would run it on through a `"` or `{`);
- Streamlit's extras are off: `$` is escaped (no maths), every `:` is `&#58;` (no `:red[…]` or
  `:material/…:`), and a word joiner inside `:word:` keeps emoji shortcodes as typed;
- headings, emphasis, lists, quotes, tables and code still render, and a single line break stays a
  line break (chat text means it).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping

import streamlit as st

from mempalace.text import blobs

from .render import JOINER

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})

# ChatGPT marks its citations and cards with private-use characters: U+E200 kind U+E202 payload
# (U+E202 payload...) U+E201, e.g. "\ue200cite\ue202turn0search1\ue201"; U+E203 ... U+E204 around the
# words a citation covers; U+E202turn0search0 alone after them.
_MARK_SPAN = re.compile("([ \t]*)\ue200([^\ue200\ue201]*)\ue201")
_LONE_REFERENCE = re.compile("\ue202turn\\d+[a-z_]+\\d+")
_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")

# Slack: <@U123>, <@U123|name>, <#C123|general>, <!here>, <!subteam^S1|@team>, <!date^…|fallback>,
# <https://x|label>, <mailto:a@b|a@b>; the text escapes &, < and > as entities.
_SLACK_MARKUP = re.compile(r"<([@#!][^<>|\s]+|(?:https?://|mailto:)[^<>|\s]+)(?:\|([^<>]*))?>")
_SLACK_ESCAPE = re.compile("&(lt|gt|amp);")
_SLACK_ONLY = re.compile(r"<(?:@[UWB][A-Z0-9]{4,}|#C[A-Z0-9]{4,}|!(?:here|channel|everyone))(?:\|[^<>]*)?>|"
                         r"<(?:https?://|mailto:)[^<>|\s]+(?:\|[^<>]+)?>")
_SLACK_CHARACTERS = {"lt": "<", "gt": ">", "amp": "&"}
_SLACK_CODE = re.compile(r"```\n?(.+?)\n?```", re.S)  # Slack's code block, fences on the text's own lines
# A drawer writes each message as "Speaker: text": a text that opens with a block (heading, list,
# table, quote, code fence) renders as one only once the label stands apart.
_LABEL_BEFORE_BLOCK = re.compile(
    r"(?:\A|(?<=\n\n))([^\n]{1,80}?:) (?=#{1,6}[ \t]|[-*+][ \t]|\d{1,9}[.)][ \t]|\||```|~~~|>)")

_HEADING_MARK = re.compile(r"^([ \t]{0,3}(?:[^\n#]{1,80}?: )?)#{1,6}[ \t]+(?=\S)", re.MULTILINE)
_FENCE_LINE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[^\n]*(?:\n|$)", re.MULTILINE)
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_LINK_TARGET = re.compile(r"\[([^\]\n]+)\]\((?:https?://|mailto:)[^)\s]*\)")
_HEADING_LINE = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)", re.MULTILINE)
_DEMOTE = 3  # a drawer's heading is shown three levels down (## → #####): smaller than the page's own

_PUNCTUATION = r"!-/:-@\[-`{-~"
_ADDRESS = r"(?i:https?://|www\.)(?:[^\s<>$`!\[\]{}\\\":]|:(?![A-Za-z]))+"  # a bare web address
_FENCE = re.compile(r"^((?:[ \t]*>)*[ \t]*)(`{3,}|~{3,})(.*)$")
_FENCE_CHARACTER = re.compile(r"([`~])")
_LIST_ITEM = re.compile(r"^[ \t]{0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_BLANK_LINE = re.compile(r"(\n[ \t]*\n)")
_TOKEN = re.compile(rf"""
    \\(?P<escape>[{_PUNCTUATION}])
  | (?P<ticks>`+)
  | (?P<url>{_ADDRESS})
  | \](?P<link>\()
  | (?P<image>!)(?=\[)
  | (?P<colon>:)
  | (?P<char>[<&$])
""", re.VERBOSE)
_TICKS = re.compile("`+")
_WEB_ADDRESS = re.compile(_ADDRESS)
_TRAILING = "?!.,:;*_~'"  # what GFM leaves off the end of a bare web address
_LABEL_SPECIAL = re.compile(r"([*_~\\])")
_CHARACTERS = {"<": "&lt;", "&": "&amp;", "$": "\\$"}
_CODE_RISK = re.compile(r"\](?=[(:])|<(?=[A-Za-z][A-Za-z0-9+.\-]{1,31}:)|:(?=material/)")
_SCHEME = re.compile(r"([a-z][a-z0-9+.\-]*):")
_TARGET = re.compile(r"[ \t]*\n?[ \t]*<?([^ \t\n>]{0,300})")  # a link's target, after its "(" or "<"
_SHORTCODE_REST = re.compile(r"[\w+\-]+:")  # after a colon: the rest of an emoji shortcode like :smile:


def display_text(content: str, mentions: Mapping[str, str] | None) -> str:
    """The text as shown, not as stored: a blob (a pasted image's base64) as its description,
    ChatGPT's citation marks removed (an entity card keeps its name); for Slack's text (`mentions` given, even empty) its markup read: `<@U1>` → `@name` (the
    id when `mentions` lacks it), `<#C1|general>` → `#general`, `<!here>` → `@here`,
    `<https://x|label>` → `[label](https://x)`, `&lt;` `&gt;` `&amp;` → `<` `>` `&`, a ```code``` run
    (Slack writes it inside a line) as a fenced block; and a speaker's
    label put on a line of its own when the message opens with a block ("Kai: ### Plan")."""
    text = _without_marks(blobs.readable(content))
    if mentions is not None:
        text = _SLACK_MARKUP.sub(lambda found: _slack(found.group(1), found.group(2), mentions), text)
        text = _SLACK_ESCAPE.sub(lambda found: _SLACK_CHARACTERS[found.group(1)], text)
        text = _SLACK_CODE.sub(lambda found: f"\n\n```\n{found.group(1)}\n```\n\n", text)
    return _LABEL_BEFORE_BLOCK.sub("\\1\n\n", text)


def plain_text(content: str, extra: Mapping | None) -> str:
    """The text as a closed card's snippet shows it (plain text, not Markdown): a blob as its
    description, citation marks removed, Markdown's heading marks, `**`/`__`, code fences and
    backticks and a link's target left out, and Slack's markup read as `display_text` reads it but
    a link as its label. `extra` is the drawer's
    metadata: with its format known, only a Slack drawer's markup is read; a card listed from the
    catalog or a search hit knows no format, and then only forms Slack alone writes (`<@U…>`,
    `<#C…|…>`, `<!here>`, `<url|label>`) and `<url>` are read, each on its own."""
    text = _without_markup(_without_marks(blobs.readable(content)))
    if extra and "format" in extra:
        mentions = mentions_of(extra)
        if mentions is None:
            return text
        text = _SLACK_MARKUP.sub(lambda found: _slack(found.group(1), found.group(2), mentions, plain=True), text)
        return _SLACK_ESCAPE.sub(lambda found: _SLACK_CHARACTERS[found.group(1)], text)
    return _SLACK_ONLY.sub(lambda found: _slack_plain(found.group()), text)


def _without_markup(text: str) -> str:
    """Markdown's marks that plain text shows as noise: `### ` before a heading (after a speaker's
    label too), `**`/`__` around words, fence lines, a code span's backticks, a link's target."""
    text = _HEADING_MARK.sub(r"\1", text)
    text = _FENCE_LINE.sub("", text)
    text = _STRONG.sub(r"\2", text)
    text = _CODE_SPAN.sub(r"\1", text)
    return _LINK_TARGET.sub(r"\1", text)


def _slack_plain(markup: str) -> str:
    """One piece of markup only Slack writes, as plain text, its own escapes read."""
    found = _SLACK_MARKUP.fullmatch(markup)
    shown = _slack(found.group(1), found.group(2), {}, plain=True) if found else markup
    return _SLACK_ESCAPE.sub(lambda escape: _SLACK_CHARACTERS[escape.group(1)], shown)


def mentions_of(drawer_extra: Mapping | None) -> dict[str, str] | None:
    """The Slack names a drawer keeps for the user ids its text mentions (metadata `mentions`, JSON).
    None for a drawer that is not Slack's; {} for a Slack drawer filed before names were kept, or
    whose `mentions` cannot be read."""
    extra = drawer_extra or {}
    stored = extra.get("mentions")
    if stored is None and extra.get("format") != "slack":
        return None
    try:
        names = json.loads(stored) if isinstance(stored, str) else {}
    except (ValueError, RecursionError):
        return {}
    if not isinstance(names, dict):
        return {}
    return {key: value for key, value in names.items() if isinstance(value, str) and value.strip()}


def show_verbatim(content: str, *, key: str, mentions: Mapping[str, str] | None = None) -> None:
    """A drawer's text: rendered (`display_text`, then `safe_markdown`), or with the toggle `key`
    on, the exact stored text (st.code drops one leading and one trailing line break: given back;
    st.text would dedent and strip)."""
    if st.toggle("Raw text", key=key, help="The exact stored text, byte for byte"):
        st.code(f"\n{content}\n", language=None, wrap_lines=True)
    else:
        st.markdown(safe_markdown(display_text(content, mentions)))


def safe_markdown(text: str) -> str:
    """Markdown for `st.markdown` that can show no HTML, link to no script, run no Streamlit extra."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    parts = []
    for is_code, block in _blocks(lines):
        joined = "\n".join(block)
        parts.append(_defused_code(joined) if is_code else _hard_breaks(_prose(_demoted(joined))))
    return "\n".join(parts)


# -- display transforms ---------------------------------------------------------------------------


def _without_marks(text: str) -> str:
    text = _MARK_SPAN.sub(_mark_span, text)
    text = _LONE_REFERENCE.sub("", text)
    return _PRIVATE_USE.sub("", text)


def _mark_span(found: re.Match[str]) -> str:
    """An entity keeps its name, a link title its title; a citation or card goes, with the space
    before it unless a word follows."""
    space, body = found.group(1), found.group(2)
    kind, _, payload = body.partition("\ue202")
    label = _entity_name(payload) if kind == "entity" else payload.split("\ue202")[0] if kind == "link_title" else ""
    label = _PRIVATE_USE.sub("", label)
    if label:
        return space + label
    after = found.string[found.end():found.end() + 1]
    return space if after and (after.isalnum() or after == "_") else ""


def _entity_name(payload: str) -> str:
    """The shown name of `["kind", "Name", ...]`."""
    try:
        parts = json.loads(payload)
    except (ValueError, RecursionError):
        return ""
    if not isinstance(parts, list) or not parts:
        return ""
    name = parts[1] if len(parts) > 1 else parts[0]
    return name if isinstance(name, str) else ""


def _slack(body: str, label: str | None, mentions: Mapping[str, str], plain: bool = False) -> str:
    """One piece of Slack markup as Markdown, or (`plain`) as plain text: a link's label alone."""
    sigil, name = body[0], body[1:]
    if sigil == "@":
        return "@" + (mentions.get(name) or label or name)
    if sigil == "#":
        return "#" + (label or name)
    if sigil == "!":
        if name.startswith(("date^", "subteam^")) and label:
            return label
        return "@" + name.split("^")[0]
    if not label or label == body or label == body.removeprefix("mailto:"):
        return body.removeprefix("mailto:") if body.startswith("mailto:") else body
    if plain:
        return label
    if re.search(r"[\[\]]", label) or re.search(r"[()\s]", body):
        return f"{label} ({body})"
    return f"[{label}]({body})"


# -- safe Markdown ---------------------------------------------------------------------------------


def _demoted(text: str) -> str:
    """Prose with each ATX heading `_DEMOTE` levels down (at most level 6), so a drawer's `## Plan`
    does not stand as large as the page's title."""
    return _HEADING_LINE.sub(lambda found: found.group(1) + "#" * min(6, len(found.group(2)) + _DEMOTE), text)


def _blocks(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """Consecutive lines as (is code, lines): fenced code, and indented code after a blank line
    outside a list; the rest is prose."""
    blocks: list[tuple[bool, list[str]]] = []
    index, in_list, after_blank = 0, False, True
    while index < len(lines):
        line = lines[index]
        dangling = _dangling_fence(lines, index)
        end = None if dangling else _fence_end(lines, index)
        if end is None and after_blank and not in_list and line.strip() and _indent(line) >= 4:
            end = _indented_end(lines, index)
        if end is not None:
            blocks.append((True, lines[index:end]))
            index, after_blank = end, False
            continue
        line = _FENCE.sub(_literal_fence, line) if dangling else line
        if blocks and not blocks[-1][0]:
            blocks[-1][1].append(line)
        else:
            blocks.append((False, [line]))
        if line.strip():
            in_list = bool(_LIST_ITEM.match(line)) or (in_list and not (after_blank and _indent(line) == 0))
        after_blank = not line.strip()
        index += 1
    return blocks


def _dangling_fence(lines: list[str], index: int) -> bool:
    """Whether line `index` opens a fence with nothing after it (a drawer cut right after its fence):
    shown as the text it is, not as an empty code block."""
    return bool(_FENCE.match(lines[index])) and not any(line.strip() for line in lines[index + 1:])


def _literal_fence(found: re.Match[str]) -> str:
    return found.group(1) + _FENCE_CHARACTER.sub(r"\\\1", found.group(2)) + found.group(3)


def _fence_end(lines: list[str], start: int) -> int | None:
    """The index after the fenced code block opening at `start` (the end if unclosed), or None."""
    opening = _FENCE.match(lines[start])
    if not opening or (opening.group(2)[0] == "`" and "`" in opening.group(3)):
        return None
    fence = opening.group(2)
    closing = re.compile(rf"^(?:[ \t]*>)*[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    for index in range(start + 1, len(lines)):
        if closing.match(lines[index]):
            return index + 1
    return len(lines)


def _indented_end(lines: list[str], start: int) -> int:
    end = start
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) >= 4):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _indent(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def _prose(text: str) -> str:
    """Prose escaped paragraph by paragraph (no code span or link crosses a blank line)."""
    return "".join(piece if index % 2 else _paragraph(piece) for index, piece in enumerate(_BLANK_LINE.split(text)))


def _paragraph(text: str) -> str:
    out, position = [], 0
    while found := _TOKEN.search(text, position):
        out.append(text[position:found.start()])
        piece, position = _token(text, found)
        out.append(piece)
    out.append(text[position:])
    return "".join(out)


def _token(text: str, found: re.Match[str]) -> tuple[str, int]:
    """What one token of prose is written as, and where the scan goes on."""
    kind, end = found.lastgroup, found.end()
    if kind == "ticks":
        close = _code_span_end(text, found)
        return (_defused_code(text[found.start():close]), close) if close else (found.group(), end)
    if kind == "escape":
        return (_colon(text, end) if found.group("escape") == ":" else found.group()), end
    if kind == "link":
        if _unsafe_target(text, end):
            return "\\](", end
        target = _WEB_ADDRESS.match(text, end)  # a link's own target stays as written
        return ("](" + target.group(), target.end()) if target else ("](", end)
    if kind == "image":
        return "\\!", end
    if kind == "colon":
        return _colon(text, end), end
    if kind == "char":
        return _CHARACTERS[found.group()], end
    return _web_address(text, found)


def _web_address(text: str, found: re.Match[str]) -> tuple[str, int]:
    """A bare web address, as written where Markdown links just it (it ends at a space, the text's end
    or a link label's `]`); else, as GFM would have cut it (trailing punctuation and an unbalanced `)`
    left out), an explicit link, so a following `"` or `{` cannot join the link (`=HYPERLINK("http://x","y")`)."""
    address, end = found.group(), found.end()
    if end == len(text) or text[end].isspace() or text[end] == "]":
        return address, end
    while address and (address[-1] in _TRAILING or (address[-1] == ")" and address.count(")") > address.count("("))):
        address = address[:-1]
    target = address if "://" in address else "http://" + address
    label = _LABEL_SPECIAL.sub(r"\\\1", address).replace("&", "&amp;").replace(":", "&#58;")
    return f"[{label}](<{target.replace('&', '&amp;')}>)", found.start() + len(address)


def _code_span_end(text: str, opening: re.Match[str]) -> int | None:
    """Where the code span that `opening` (a run of backticks) starts ends, or None if none closes it."""
    for run in _TICKS.finditer(text, opening.end()):
        if len(run.group()) == len(opening.group()):
            return run.end()
    return None


def _colon(text: str, after: int) -> str:
    """A colon that no Streamlit extra reads: an entity, and a word joiner if `:word:` follows."""
    return "&#58;" + (JOINER if _SHORTCODE_REST.match(text, after) else "")


def _defused_code(code: str) -> str:
    """Code as written, but with a word joiner where a misread fence could make a script link or
    autolink (`](javascript:`, `<data:`), and in `:material/`, which Streamlit rewrites even in code."""
    def defuse(found: re.Match[str]) -> str:
        if found.group() == ":":
            return ":" + JOINER
        target = found.end() + (1 if found.group() == "]" else 0)
        return found.group() + JOINER if _unsafe_target(code, target) else found.group()

    return _CODE_RISK.sub(defuse, code)


def _unsafe_target(text: str, start: int) -> bool:
    """Whether the link target starting at `start` has a scheme other than http, https or mailto."""
    target = _TARGET.match(text, start).group(1)  # type: ignore[union-attr]
    for reading in (target, html.unescape(target)):
        plain = re.sub(rf"\\(?=[{_PUNCTUATION}])", "", reading)  # as Markdown reads its escapes
        plain = re.sub(r"[\x00-\x20\x7f\s]+", "", plain).lower()  # spaces and controls, which browsers may drop
        scheme = _SCHEME.match(plain)
        if scheme and scheme.group(1) not in SAFE_SCHEMES:
            return True
    return False


def _hard_breaks(text: str) -> str:
    """Each line break inside a paragraph made a Markdown hard break (two spaces before it)."""
    lines = text.split("\n")
    for index in range(len(lines) - 1):
        line = lines[index]
        ends_in_break = line.endswith("  ") or (len(line) - len(line.rstrip("\\"))) % 2 == 1
        if line.strip() and lines[index + 1].strip() and not ends_in_break:
            lines[index] = line + "  "
    return "\n".join(lines)
