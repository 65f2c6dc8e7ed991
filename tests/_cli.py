"""Helpers for CLI tests: run results checked with a readable failure message."""

from __future__ import annotations

import json
from typing import Any

from click.testing import Result


def describe(result: Result) -> str:
    return (f"exit {result.exit_code}\nstdout: {result.stdout!r}\nstderr: {result.stderr!r}\n"
            f"exception: {result.exception!r}")


def ok(result: Result) -> Result:
    assert result.exit_code == 0, describe(result)
    assert result.exception is None, describe(result)
    return result


def as_json(result: Result) -> Any:
    return json.loads(ok(result).stdout)


def assert_user_error(result: Result, *fragments: str, one_line: bool = False) -> str:
    """Exit 1, an `Error: ...` message on stderr, nothing on stdout and no escaped exception."""
    assert result.exit_code == 1, describe(result)
    # The command ended through sys.exit(1), not through an exception click had to catch.
    assert isinstance(result.exception, SystemExit), describe(result)
    assert result.stderr.startswith("Error: "), describe(result)
    assert not one_line or result.stderr.count("\n") == 1, describe(result)
    assert "Traceback" not in result.output, describe(result)
    assert result.stdout == "", describe(result)
    for fragment in fragments:
        assert fragment in result.stderr, describe(result)
    return result.stderr
