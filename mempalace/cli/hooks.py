"""`mempalace hooks`: file a coding tool's session into the palace when the session ends.

`install TOOL` adds a hook to the tool's settings file that runs `hooks run TOOL` against the palace in use
at install time; `run` is what the tool executes, with the hook's JSON on stdin: it queues the transcript
and leaves the filing to a background process (`mempalace.sources.hook_queue`, `mempalace.cli.hook_worker`). The
core (`mempalace.sources.hooks`) keeps the registry of tools and edits their settings; these commands render it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import click

from ..errors import MempalaceError
from ..sources.hooks import (MAX_PAYLOAD_BYTES, TOOLS, hook_payload, hook_tool, install, status, transcript_from_payload,
                     uninstall)
from .support import echo, emit, jsonable, place_options, user_errors

_TOOL = click.Choice(tuple(TOOLS))
_SETTINGS = click.option("--settings", "settings_file", type=click.Path(dir_okay=False, path_type=Path),
                         help="The tool's settings file, if not where the tool keeps it by default.")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")


@click.group("hooks")
@click.pass_context
def hooks_group(ctx: click.Context) -> None:
    """File a coding tool's session into the palace when the session ends (and before it is compacted)."""
    ctx.ensure_object(dict)
    for key, default in (("palace", None), ("url", None), ("json", False)):
        ctx.obj.setdefault(key, default)


def palace_in_use(palace: Path | None, url: str | None) -> tuple[str | None, str | None]:
    """(palace folder, None) or (None, server URL): the one given, else `$MEMPALACE_URL`, else the default."""
    url = url or (None if palace else os.environ.get("MEMPALACE_URL") or None)
    if url:
        return None, url
    from ..config import load_settings

    return str(Path(palace or load_settings().default_palace).expanduser().resolve()), None


def hook_command(tool: str, palace: Path | None, url: str | None) -> str:
    """The shell command a tool's hook runs: this Python, the palace in use now, `hooks run TOOL`."""
    folder, url = palace_in_use(palace, url)
    where = ["--url", url] if url else ["--palace", str(folder)]
    words = [sys.executable, "-m", "mempalace", *where, "hooks", "run", tool]
    return subprocess.list2cmdline(words) if os.name == "nt" else shlex.join(words)  # cmd.exe's quoting on Windows


@hooks_group.command("install")
@click.argument("tool", type=_TOOL)
@_SETTINGS
@_JSON
@place_options
@click.pass_context
def install_command(ctx: click.Context, tool: str, settings_file: Path | None, as_json: bool) -> None:
    """Add MemPalace's hook to TOOL's settings, keeping every other hook and setting there."""
    ctx.obj["json"] = as_json or ctx.obj["json"]
    command = hook_command(tool, ctx.obj["palace"], ctx.obj["url"])
    with user_errors():
        result = install(tool, command, settings_file)
    entry = hook_tool(tool)
    emit(ctx, {**jsonable(result), "command": command}, lambda: (
        (f"Installed the {entry.label} hook in {result.settings_file} ({', '.join(result.events)})."
         if result.changed else f"The {entry.label} hook was already installed in {result.settings_file}.")
        + f"\nIt runs: {command}"))


@hooks_group.command("uninstall")
@click.argument("tool", type=_TOOL)
@_SETTINGS
@_JSON
@click.pass_context
def uninstall_command(ctx: click.Context, tool: str, settings_file: Path | None, as_json: bool) -> None:
    """Remove MemPalace's hook (and nothing else) from TOOL's settings."""
    ctx.obj["json"] = as_json or ctx.obj["json"]
    with user_errors():
        result = uninstall(tool, settings_file)
    label = hook_tool(tool).label
    emit(ctx, result, lambda: (f"Removed the {label} hook from {result.settings_file}." if result.changed
                               else f"No MemPalace hook in {result.settings_file}; nothing to remove."))


@hooks_group.command("status")
@click.argument("tool", type=_TOOL, required=False)
@_SETTINGS
@_JSON
@click.pass_context
def status_command(ctx: click.Context, tool: str | None, settings_file: Path | None, as_json: bool) -> None:
    """Whether MemPalace's hook is installed for TOOL (every tool with hooks when none is named)."""
    ctx.obj["json"] = as_json or ctx.obj["json"]
    if settings_file is not None and tool is None:
        raise click.UsageError("--settings names one tool's file: give the TOOL too.")
    if tool:
        with user_errors():
            one = jsonable(status(tool, settings_file))
        emit(ctx, one, lambda: _status_line(one) + _queue_line())
        return
    rows: list[dict[str, Any]] = []
    for name in TOOLS:
        try:
            rows.append(jsonable(status(name)))
        except MempalaceError as exc:
            rows.append({"tool": name, "error": str(exc)})
    emit(ctx, rows, lambda: "\n".join(_status_line(row) for row in rows) + _queue_line())


def _queue_line() -> str:
    """A line on the sessions hooks handed to the background, when some wait or failed."""
    from ..config import load_settings
    from ..sources.hook_queue import queue_state

    state = queue_state(load_settings().home)
    if not (state.waiting or state.failed):
        return ""
    return (f"\nFiled in the background: {state.waiting} waiting{' (filing now)' if state.running else ''}, "
            f"{state.failed} failed (see {state.log}).")


def _status_line(row: dict[str, Any]) -> str:
    label = hook_tool(row["tool"]).label
    if "error" in row:
        return f"{label}: {row['error']}"
    if row["installed"]:
        return f"{label}: installed in {row['settings_file']} ({', '.join(row['events'])})"
    if row["events"]:
        return f"{label}: partly installed in {row['settings_file']} (only {', '.join(row['events'])})"
    return f"{label}: not installed ({row['settings_file']})"


@hooks_group.command("run")
@click.argument("tool", type=_TOOL)
@click.pass_context
def run_command(ctx: click.Context, tool: str) -> None:
    """What TOOL's hook executes: reads the hook's JSON on stdin, copies the transcript it names into a
    queue and files it in the background, so the tool never waits for the palace or the model.

    It never breaks the tool's session: nothing is printed on stdout, one line on stderr says what
    happens (or what went wrong), and the exit code is 0 all the same."""
    context = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            payload = hook_payload(tool, sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1))
            if payload.get("hook_event_name") == hook_tool(tool).start_event:
                context = _wake_up(payload, ctx.obj["palace"], ctx.obj["url"])
                said = (f"gave the session a wake-up of {len(context)} characters" if context
                        else "no palace to wake up from")
            else:
                said = _queue_session(tool, payload, ctx.obj["palace"], ctx.obj["url"])
    except Exception as exc:  # noqa: BLE001 (a hook must never fail the session it runs in)
        said = str(exc) if isinstance(exc, MempalaceError) else f"{type(exc).__name__}: {exc}"
    if context:  # the documented field for a session's extra context (Claude Code's and Gemini CLI's SessionStart)
        click.echo(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}},
                              ensure_ascii=False))
    echo("mempalace hooks run: " + " ".join(said.split()), err=True)


def _wake_up(payload: dict[str, Any], palace: Path | None, url: str | None) -> str:
    """The wake-up for the session's project, from the palace folder's catalog (none for a server palace)."""
    from ..config import load_settings
    from ..palace.wakeup import session_context

    folder, _ = palace_in_use(palace, url)
    cwd = payload.get("cwd")
    return session_context(Path(folder), cwd if isinstance(cwd, str) else None, load_settings().home) if folder else ""


def _queue_session(tool: str, payload: dict[str, Any], palace: Path | None, url: str | None) -> str:
    """Queue the transcript the hook's stdin names for the palace and start the background filing."""
    from ..config import load_settings
    from ..sources import hook_queue

    path = transcript_from_payload(tool, payload)
    settings = load_settings()
    home = settings.home
    hook_queue.enqueue(home, tool, hook_tool(tool).format_name, path, *palace_in_use(palace, url),
                       max_bytes=settings.max_ingest_bytes)
    hook_queue.start_filing(home)
    return (f"{path.name} is being filed in the background; what could not be filed is logged in "
            f"{hook_queue.log_path(home)}.")
