"""`python -m mempalace.cli.hook_worker HOME`: the background process a tool's hook starts to file the
sessions queued in HOME (see `mempalace.sources.hook_queue`). Its writes are recorded in the audit log as
`via hook`; it prints one line per session, which its starter sends to `HOME/hooks/filing.log`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..access.rules import Actor, acting_as, local_user
from ..sources.hook_queue import MAX_ATTEMPTS, FilingOutcome, file_queue


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mempalace.cli.hook_worker")
    parser.add_argument("home", type=Path)
    args = parser.parse_args(argv)
    with acting_as(Actor(local_user(), "hook")):
        file_queue(args.home, on_outcome=lambda outcome: print(log_line(outcome), flush=True))
    return 0


def log_line(outcome: FilingOutcome) -> str:
    """One session's outcome as the log says it: when, which transcript, what became of it."""
    session = outcome.session
    at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    head = f"{at} {session.tool}: {session.transcript}"
    if outcome.status == "filed":
        return f"{head} filed: {outcome.detail}"
    if outcome.status == "waiting":
        return (f"{head} not filed yet: {outcome.detail}; it is tried again when a hook next runs "
                f"(attempt {session.attempts} of {MAX_ATTEMPTS}).")
    where = ["--url", session.url] if session.url else ["--palace", session.palace or ""]
    again = shlex.join(["mempalace", *where, "ingest", str(session.copy)])
    return f"{head} NOT FILED: {outcome.detail} Its copy is kept: {session.copy}; once fixed, file it with `{again}`."


if __name__ == "__main__":
    sys.exit(main())
