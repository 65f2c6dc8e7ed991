"""A path the system cannot look up at all (5,000 characters, or one name over the file system's 255)
is one short, clear line from every command that takes a path, and a clear error from the core,
never a traceback."""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client

from mempalace import Palace
from mempalace.cli import main
from mempalace.cli.mcp import build_server
from mempalace.cli.support import user_errors
from mempalace.errors import InvalidInputError
from mempalace.ingest import ingest_paths
from mempalace.sources.sync import book_of, file_transcript

from _cli import assert_user_error, describe
from test_hooks import hooks_cli
from test_mcp import refused, threaded

SHORT_LINE = 300  # the message names the path, cut in the middle, and says what is wrong

UNUSABLE: dict[str, Callable[[Path], str]] = {
    "5,000 characters": lambda tmp: str(tmp / ("a" * 5000)),
    "a name over 255 characters": lambda tmp: str(tmp / ("b" * 300) / "s.jsonl"),
}

COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "sources add": lambda path: ["sources", "add", path],
    "ingest": lambda path: ["ingest", path],
    "--palace before the command": lambda path: ["--palace", path, "status"],
    "--palace after the command": lambda path: ["wings", "--palace", path],
    "hooks install --settings": lambda path: ["hooks", "install", "claude-code", "--settings", path],
    "hooks status --settings": lambda path: ["hooks", "status", "claude-code", "--settings", path],
    "add --file": lambda path: ["add", "--wing", "w", "--room", "r", "--file", path],
    "serve --palace": lambda path: ["serve", "--palace", path],
}


@pytest.mark.parametrize("unusable", UNUSABLE)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_taking_a_path_says_in_one_line_that_it_is_too_long(command: str, unusable: str,
                                                                          tmp_path: Path) -> None:
    path = UNUSABLE[unusable](tmp_path)
    result = CliRunner().invoke(main, COMMANDS[command](path))
    message = assert_user_error(result, "is too long for the file system", one_line=True)
    assert len(message) < SHORT_LINE and "…" in message, describe(result)


def test_a_hooks_transcript_path_too_long_is_one_short_line(palace_path: Path, tmp_path: Path) -> None:
    payload = json.dumps({"transcript_path": UNUSABLE["5,000 characters"](tmp_path)}).encode()
    ran = hooks_cli(palace_path, "run", "claude-code", stdin=payload)
    assert (ran.exit_code, ran.stdout) == (0, ""), describe(ran)
    assert ran.stderr.startswith("mempalace hooks run: The path ") and ran.stderr.count("\n") == 1
    assert "is too long for the file system" in ran.stderr and len(ran.stderr) < SHORT_LINE


@pytest.mark.parametrize("unusable", UNUSABLE)
def test_the_core_refuses_an_unusable_path_with_a_clear_error(palace: Palace, settings, unusable: str,
                                                             tmp_path: Path) -> None:
    path = UNUSABLE[unusable](tmp_path)
    for attempt in (lambda: Palace.open(path, settings=settings), lambda: book_of(palace).add(path),
                    lambda: ingest_paths(palace, [path]), lambda: file_transcript(palace, path)):
        with pytest.raises(InvalidInputError, match=r"^The path .*….* \(\d[\d,]* characters\) is too long"):
            attempt()
    assert palace.count() == 0 and book_of(palace).entries() == []


@threaded
async def test_the_mcp_ingest_tool_refuses_a_path_too_long_in_one_short_line(palace: Palace, tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    async with Client(build_server(palace, [allowed])) as client:
        message = await refused(client, "ingest", path=str(allowed / ("a" * 5000)))
    assert "is too long for the file system" in message and len(message) < SHORT_LINE


def test_a_path_error_met_deeper_down_is_still_one_short_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        with user_errors():
            raise OSError(errno.ENAMETOOLONG, "File name too long", "/data/" + "a" * 5000)
    shown = capsys.readouterr().err
    assert exited.value.code == 1 and shown.startswith("Error: The path /data/aaa") and shown.count("\n") == 1
    assert "is too long for the file system" in shown and len(shown) < SHORT_LINE
