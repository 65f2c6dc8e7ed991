"""What every `mempalace` command shares: an open palace, `--json`, and errors written for people."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from ..access.rules import is_loopback  # noqa: F401  (the CLI's commands check their --host with it)

from ..catalog.build_progress import catalog_built, read_progress
from ..catalog.catalog import CATALOG_FILE
from ..config import load_settings
from ..errors import MempalaceError
from ..files.paths import PATH_ERRNOS, checked_path, path_error
from ..palace.palace import Palace
from ..store.chroma import CHROMA_FILE


def jsonable(value: Any) -> Any:
    """Dataclasses (also inside lists and dicts) as plain dicts and lists, ready for json.dumps."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))  # marks, overrides, isolates
_CONTROLS = {**{c: chr(0x2400 + c) for c in range(0x20) if chr(c) not in "\n\t\r"}, 0x7F: "\u2421",
             **{c: f"\\x{c:02x}" for c in range(0x80, 0xA0)}, **{c: f"\\u{c:04x}" for c in _BIDI}}
_LONE_CR = re.compile(r"\r(?!\n)")


def visible(text: str) -> str:
    """`text` with terminal controls shown, not obeyed: ESC as ␛, other C0 controls and a carriage
    return that ends no line as their symbols, C1 as `\\x9b`, bidirectional controls (which reorder
    what is shown, U+202E) as `\\u202e`; newline, CRLF and tab stay. Stored text is never changed
    (`--json` prints it exactly)."""
    return _LONE_CR.sub("\u240d", text).translate(_CONTROLS)


def echo(text: str, err: bool = False) -> None:
    """Print human text whose parts others wrote (drawers, names, file names) to a terminal safely."""
    click.echo(visible(text), err=err, color=True)


def emit(ctx: click.Context, data: Any, text: Callable[[], str]) -> None:
    """Print `data` as JSON when --json was given (exact, escaped by JSON), else the human text."""
    if ctx.obj["json"]:
        click.echo(json.dumps(jsonable(data), ensure_ascii=False, indent=2))
    else:
        echo(text())


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """A MemPalace error becomes `Error: <message>` on stderr and exit code 1."""
    try:
        yield
    except MempalaceError as exc:
        echo(f"Error: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:  # a path the core met deeper down, which no check before could see
        if exc.errno not in PATH_ERRNOS or exc.filename is None:
            raise
        echo(f"Error: {path_error(exc, exc.filename)}", err=True)
        sys.exit(1)


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
    user-facing errors. With `create`, a missing palace is created, except for a `--dry-run`, which
    plans against an empty scratch palace instead."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
        @place_options
        @click.pass_context
        @functools.wraps(func)
        def wrapper(ctx: click.Context, as_json: bool, **kwargs: Any) -> None:
            ctx.obj["json"] = as_json or ctx.obj["json"]
            with user_errors(), opened(ctx.obj["palace"], ctx.obj["url"], create,
                                        bool(kwargs.get("dry_run"))) as palace:
                func(ctx, palace, **kwargs)

        return wrapper

    return decorate


@contextlib.contextmanager
def opened(path: Path | None, url: str | None, create: bool, dry_run: bool) -> Iterator[Palace]:
    """The palace a command works on; a dry run never creates one (it plans against a scratch palace)."""
    settings = load_settings()
    local = not (url or os.environ.get("MEMPALACE_URL"))
    folder = checked_path(Path(path or settings.default_palace).expanduser()) if local else None
    if create and dry_run and folder and not (folder / CHROMA_FILE).exists():
        with tempfile.TemporaryDirectory(prefix="mempalace-dry-run-") as scratch:
            with Palace.open(Path(scratch) / "palace", settings=settings, private=True) as palace:
                yield palace
        return
    catalog = folder / CATALOG_FILE if folder and (folder / CHROMA_FILE).exists() else None
    with showing_build(catalog) if catalog and not catalog_built(catalog) else contextlib.nullcontext():
        palace = Palace.open(path, url, create=create and not dry_run)  # a shared one waits for its host's build
    with palace:
        if not catalog_built(palace.catalog_path):
            with showing_build(palace.catalog_path):
                palace.count()  # the first read builds the catalog (a server's palace, or a private one)
        yield palace


@contextlib.contextmanager
def showing_build(catalog: Path) -> Iterator[None]:
    """While the block runs, a line on stderr says how far a catalog build has got (a first open)."""
    done = threading.Event()

    def show() -> None:
        said = ""
        while not done.wait(0.5):
            found = read_progress(catalog)
            if found is not None:
                said = f"{found.said()} ({found.fraction:.0%})"
                click.echo("\r" + said, nl=False, err=True)
        if said:
            click.echo("", err=True)

    watcher = threading.Thread(target=show, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


class FormatsListed(click.Command):
    """A command whose --help ends with every transcript format, in the order detection tries them, and
    what each reads (the registry is imported only when help is shown)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from ..formats.registry import FORMATS

        with formatter.section("Formats (detected in this order; --format NAME skips detection)"):
            formatter.write_dl([(name, f"{module.LABEL}: {module.READS}") for name, module in FORMATS.items()])
        super().format_epilog(ctx, formatter)
