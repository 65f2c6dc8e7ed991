"""Search results and the audit log as files people keep: Markdown with provenance, and CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence

from ..access.audit import AuditEntry
from ..models import SearchHit

CSV_COLUMNS = ("rank", "score", "similarity", "semantic", "lexical", "drawer_id", "wing", "room", "hall",
               "source_file", "filed_at", "content")
AUDIT_COLUMNS = ("when", "who", "from", "action", "drawers", "details", "ids")


def hits_to_markdown(query: str, hits: Sequence[SearchHit], filters: Mapping[str, str | None] | None = None,
                     palace: str = "") -> str:
    """A Markdown report: the query and filters, then each hit's place, provenance and verbatim text."""
    scope = ", ".join(f"{k} {_code(v)}" for k, v in (filters or {}).items() if v) or "the whole palace"
    lines = [f"# Search: {_inline(query)}", "", f"- Scope: {scope}"]
    if palace:
        lines.append(f"- Palace: {_code(palace)}")
    lines += [f"- Results: {len(hits)}", ""]
    for hit in hits:
        place = " / ".join(_code(p) for p in (hit.wing, hit.room, hit.hall) if p)
        lines += [f"## {hit.rank}. {place}", "", f"- Drawer: {_code(hit.drawer_id)}",
                  f"- Score: {hit.score:.3f} (meaning similarity {hit.similarity:.3f}, "
                  f"parts: meaning {hit.semantic:.3f} + words {hit.lexical:.3f})"]
        if hit.title or hit.conversation_date:
            lines.append("- Conversation: " + " · ".join(
                p for p in (hit.conversation_date, hit.title and _inline(hit.title)) if p))
        if hit.source_file:
            lines.append(f"- Source: {_code(hit.source_file)}")
        if hit.filed_at:
            lines.append(f"- Filed: {hit.filed_at}")
        fence = "`" * max(3, _longest_backtick_run(hit.content) + 1)
        lines += ["", f"{fence}text", hit.content, fence, ""]
    return "\n".join(lines)


def hits_to_csv(hits: Sequence[SearchHit]) -> str:
    """One row per hit with every field; the Markdown export is the byte-for-byte one."""
    return rows_to_csv(CSV_COLUMNS, ([getattr(hit, column) for column in CSV_COLUMNS] for hit in hits))


def audit_to_csv(entries: Iterable[AuditEntry]) -> str:
    """The audit log as a spreadsheet reads it: one row per write, its details as JSON."""
    return rows_to_csv(AUDIT_COLUMNS, ([e.at, e.who, e.via, e.action, len(e.ids), json.dumps(e.detail, ensure_ascii=False),
                                        " ".join(e.ids)] for e in entries))


def rows_to_csv(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV whose text cells a spreadsheet would run as a formula (starting with = + - @, a tab or a
    carriage return) get a leading ' : every CSV MemPalace writes goes through here."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(value) for value in row])
    return out.getvalue()


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _inline(text: str) -> str:
    """One line of prose that Markdown shows as typed: only the characters that could start markup
    inside a line are escaped (a name such as auth-migration stays readable in the file)."""
    flat = " ".join(text.split())
    return "".join("\\" + c if c in "\\`*_[]<>|~$" else c for c in flat)


def _code(text: str) -> str:
    """A name as a code span, shown exactly as typed (on one line); the fence outgrows its backticks."""
    flat = " ".join(str(text).split())
    fence = "`" * (_longest_backtick_run(flat) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest
