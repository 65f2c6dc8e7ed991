"""What every `mempalace` command shares: an open palace, `--json`, and errors written for people."""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..errors import MempalaceError
from ..palace import Palace


def jsonable(value: Any) -> Any:
    """Dataclasses (also inside lists and dicts) as plain dicts and lists, ready for json.dumps."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


def emit(ctx: click.Context, data: Any, text: Callable[[], str]) -> None:
    """Print `data` as JSON when --json was given, else the human text."""
    if ctx.obj["json"]:
        click.echo(json.dumps(jsonable(data), ensure_ascii=False, indent=2))
    else:
        click.echo(text(), color=True)  # color=True: never strip escape codes from verbatim text


def place_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """`--palace` and `--url` after the command too (`mempalace status --url …`); they win over the
    same options given before it."""

    @click.option("--url", "command_url", help="Chroma server URL (or $MEMPALACE_URL) instead of a local palace.")
    @click.option("--palace", "command_palace", type=click.Path(path_type=Path),
                  help="Palace directory (default $MEMPALACE_HOME/palace).")
    @click.pass_context
    @functools.wraps(func)
    def wrapper(ctx: click.Context, command_palace: Path | None, command_url: str | None, **kwargs: Any) -> Any:
        if command_palace or command_url:
            ctx.obj["palace"], ctx.obj["url"] = command_palace, command_url
        return ctx.invoke(func, **kwargs)

    return wrapper


def palace_command(create: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command `--json`, `--palace`/`--url`, an open palace as its first argument, and
    user-facing errors."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
        @place_options
        @click.pass_context
        @functools.wraps(func)
        def wrapper(ctx: click.Context, as_json: bool, **kwargs: Any) -> None:
            ctx.obj["json"] = as_json or ctx.obj["json"]
            try:
                with Palace.open(ctx.obj["palace"], ctx.obj["url"], create=create) as palace:
                    func(ctx, palace, **kwargs)
            except MempalaceError as exc:
                click.echo(f"Error: {exc}", err=True)
                sys.exit(1)

        return wrapper

    return decorate
