"""`mempalace token` and `mempalace audit`: agents' tokens for `mcp --http`, and the log of who changed what.

A front end over the palace's access book (`palace.access`): the core keeps only a token's hash and
refuses bad roles, wings and names; these commands render what it returns, as text or `--json`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import click

from ..access.audit import AuditEntry, TokenInfo
from ..access.rules import ROLES, VIA, Actor, local_user
from ..palace.palace import Palace
from .support import echo, emit, jsonable, palace_command

SHOWN_IDS = 3  # drawer ids a text audit line names before "+N more"


def _actor() -> Actor:
    """Who creates and revokes tokens from the command line, as the audit log records it."""
    return Actor(local_user(), "cli")


@click.group("token")
def token_group() -> None:
    """Tokens that let AI agents use `mempalace mcp --http`, each with a role on some wings."""


@token_group.command("create")
@click.option("--role", type=click.Choice(ROLES), required=True,
              help="viewer reads; editor also files and moves drawers; admin also deletes them.")
@click.option("--wing", "wings", multiple=True,
              help="A wing (or a pattern such as wing_team_*) the token may use; repeat for more (default: all).")
@click.option("--name", help="What the audit log calls the agent (default: token-<id>).")
@palace_command(create=True)
def create_command(ctx: click.Context, palace: Palace, role: str, wings: tuple[str, ...], name: str | None) -> None:
    """Create a token and print its secret, once: only its hash is kept."""
    info, secret = palace.access.create_token(_actor(), role, wings, name)
    emit(ctx, {**jsonable(info), "secret": secret}, lambda: (
        f"Created token {info.name} (id {info.id}): {info.role} on {_wings(info.wings)}.\n"
        f"{secret}\n"
        "This secret will not be shown again: store it now. The agent sends it to `mempalace mcp --http` "
        "as the header `Authorization: Bearer <secret>`."))
    _warn_if_tokens_refused(palace)


@token_group.command("list")
@palace_command()
def list_command(ctx: click.Context, palace: Palace) -> None:
    """Every token (never its secret), revoked ones too."""
    found = palace.access.tokens()
    emit(ctx, found, lambda: _token_table(found) if found else "No tokens yet (see `mempalace token create`).")
    _warn_if_tokens_refused(palace)


def _warn_if_tokens_refused(palace: Palace) -> None:
    """Say so when every token is refused (the audit log does not agree with its anchor)."""
    refusal = palace.access.token_refusal()
    if refusal:
        echo(f"Warning: {refusal}", err=True)


def _token_table(tokens: Sequence[TokenInfo]) -> str:
    rows = [(t.name, t.id, t.role, _wings(t.wings), _when(t.created_at), t.created_by,
             _when(t.revoked_at) if t.revoked_at else "-") for t in tokens]
    return _table(("NAME", "ID", "ROLE", "WINGS", "CREATED (UTC)", "CREATED BY", "REVOKED (UTC)"), rows)


@token_group.command("revoke")
@click.argument("name_or_id")
@palace_command()
def revoke_command(ctx: click.Context, palace: Palace, name_or_id: str) -> None:
    """Revoke a token by name or id: a running `mcp --http` refuses it from its next request on."""
    info = palace.access.revoke_token(_actor(), name_or_id)
    emit(ctx, info, lambda: f"Revoked token {info.name} (id {info.id}); it no longer works.")


def _moment(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A `--since`/`--until` value as the log compares it: an ISO date, or a date and time in UTC."""
    if value is None:
        return None
    try:
        return date.fromisoformat(value.strip()).isoformat()  # a whole day
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is not None:
        raise click.BadParameter(f"{value!r} is not a date such as 2026-12-01 or a UTC time such as "
                                 "2026-12-01T14:30 (without an offset).")
    return moment.isoformat()


@click.command("audit")
@click.option("--who", help="Only writes by this person, user or token (token:<name>).")
@click.option("--via", type=click.Choice(VIA), help="Only writes made from here.")
@click.option("--action", help="Only this action (add, file, move, delete, token-create, ...).")
@click.option("--since", metavar="DATE", callback=_moment, help="From this date (or date and time, UTC), inclusive.")
@click.option("--until", metavar="DATE", callback=_moment, help="Up to this date (or date and time, UTC), inclusive.")
@click.option("--drawer", metavar="ID", help="Only writes that touched this drawer id.")
@click.option("--limit", metavar="N", type=int, default=100, show_default=True, help="At most this many entries.")
@click.option("--accept", is_flag=True, help="Take the log as it is now after you put back an older copy (a "
              "backup): recorded in the log, tokens revoked since then revoked again, the log anchored anew.")
@palace_command()
def audit_command(ctx: click.Context, palace: Palace, accept: bool, **filters: Any) -> None:
    """The palace's audit log, newest first: who changed what, when and from where; and whether it is
    as written (each entry chained to the one before, the newest one anchored). A changed or missing
    log exits with code 1."""
    if accept:
        problem, again = palace.access.accept(_actor())
        echo(f"Accepted the audit log as it is: {problem}" + (f" Revoked again: {', '.join(again)}." if again else ""),
             err=ctx.obj["json"])  # --json keeps stdout for the one document
    warnings = palace.log_warnings()
    check = palace.access.verify()
    entries = palace.access.entries(**filters)
    emit(ctx, entries, lambda: _audit_table(entries) if entries else "No audit entries match.")
    for problem in warnings + ([] if check.intact else [check.summary()]):
        echo(f"Warning: {problem}", err=True)
    if not ctx.obj["json"] and check.intact and not warnings:
        echo(check.summary(), err=True)
    if warnings or not check.intact:
        sys.exit(1)


def _audit_table(entries: Sequence[AuditEntry]) -> str:
    rows = [(_when(e.at), e.who, e.via, e.action, _ids(e.ids),
             ", ".join(f"{k}={_value(v)}" for k, v in e.detail.items())) for e in entries]
    return _table(("AT (UTC)", "WHO", "VIA", "ACTION", "DRAWERS", "DETAIL"), rows)


def _value(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _wings(patterns: Sequence[str]) -> str:
    return "every wing" if tuple(patterns) == ("*",) else ", ".join(patterns)


def _ids(ids: Sequence[str]) -> str:
    if not ids:
        return "-"
    more = f" +{len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else ""
    return ", ".join(ids[:SHOWN_IDS]) + more


def _when(iso: str) -> str:
    """A stored UTC timestamp to the second, for a table."""
    return iso[:19].replace("T", " ")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell; the last one is left unpadded."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    return "\n".join("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)).rstrip()
                     for row in [headers, *rows])
