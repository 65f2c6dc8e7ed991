"""The Ingest page's "Sources kept in sync" panel in a real browser: a folder of Claude Code sessions typed
in, added and synced shows as a row of the table with its files, and a session written into the folder
afterwards is filed by the next "Sync now". Its own server, on a palace that starts with one drawer."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from _dashboard import Dashboard, alerts, dataframe_rows, exceptions, main_block, open_app, rerun

pytestmark = pytest.mark.e2e

SOURCE = "lighthouse-sessions"  # the folder's name, and so the source's
SYNC_SECONDS = 86_400  # the host's own timer stays out of the way after its first look


def prefill(palace) -> None:
    palace.add_drawer("The lighthouse keeper logs the lamp hours every night.", "wing_lighthouse", "lamp-hours")
    (palace.settings.home / "config.toml").write_text(f"sources_sync_seconds = {SYNC_SECONDS}\n", encoding="utf-8")


@pytest.fixture
def server(dashboard, tmp_path: Path) -> Dashboard:
    user_home = tmp_path / "user-home"  # no tool's folder in it: no suggestion buttons from this machine
    user_home.mkdir()
    return dashboard(prefill=prefill, env={"HOME": str(user_home)})


def claude_session(path: Path, session: int, exchanges: int) -> Path:
    """A Claude Code session file (records shaped as tests/test_sources.py's `record`)."""
    lines = []
    for i in range(exchanges):
        for number, kind, text in ((2 * i, "user", f"Session {session}, question {i}: why does lamp {i} flicker "
                                                    "after midnight?"),
                                   (2 * i + 1, "assistant", f"Session {session}, answer {i}: lamp {i} flickers "
                                                            f"because its relay overheats; replace relay {i}.")):
            message = ({"role": "user", "content": text} if kind == "user" else
                       {"role": "assistant", "type": "message", "content": [{"type": "text", "text": text}]})
            lines.append(json.dumps({"type": kind, "sessionId": f"1a2b3c4d-0000-4000-8000-{session:012d}",
                                     "uuid": f"s{session}-{number}", "cwd": "/home/ada/projects/lighthouse",
                                     "timestamp": f"2026-02-1{session}T21:{number:02d}:00.000Z",
                                     "message": message}))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def source_row(main: Locator, until=lambda row: True) -> dict[str, str]:
    """The panel's one row, every column (its table is the only one on the page before any upload). The grid
    draws only the columns in view: the counts come first, and the path, last and wide, is read after
    scrolling to the right end when it is not in view."""
    frame = main.get_by_test_id("stDataFrame")
    expect(frame).to_have_count(1)
    frame.scroll_into_view_if_needed()
    deadline = time.monotonic() + 15
    [row] = dataframe_rows(frame)
    while not until(row) and time.monotonic() < deadline:  # the grid redraws its cells a moment after a run
        time.sleep(0.2)
        [row] = dataframe_rows(frame)
    if "path" in row:
        return row
    frame.evaluate("""async (el) => {
        const scroller = el.querySelector('.dvn-scroller');
        scroller.scrollLeft = scroller.scrollWidth;
        await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    }""")
    expect(frame.locator("table thead th").filter(has_text="path")).to_have_count(1)  # drawn once scrolled
    [right] = dataframe_rows(frame)
    frame.evaluate("(el) => { el.querySelector('.dvn-scroller').scrollLeft = 0; }")
    return {**right, **row}  # what was in view first is what the row shows now


def sync_now(page: Page) -> str:
    """Press "Sync now"; the success message it shows."""
    main = main_block(page)
    with rerun(page, 120_000):  # a shared palace's sync may wait for the host's own, and loads the model
        main.get_by_role("button", name="Sync now", exact=True).click()
    done = alerts(main, "success")
    expect(done).to_have_count(1)
    expect(alerts(main, "error")).to_have_count(0)
    return done.inner_text()


def test_a_typed_folder_is_added_synced_and_its_new_session_filed_by_the_next_sync(page: Page, server: Dashboard,
                                                                                   tmp_path: Path) -> None:
    folder = tmp_path / SOURCE
    claude_session(folder / "-home-ada-lighthouse" / "first.jsonl", 1, exchanges=1)
    open_app(page, server, "ingest")
    main = main_block(page)
    expect(main.get_by_role("heading", name="Sources kept in sync")).to_be_visible()
    expect(main.get_by_role("button", name="Add source", exact=True)).to_be_disabled()

    typed = main.get_by_role("textbox", name="Folder or file to keep in sync")
    typed.fill(str(folder))
    with rerun(page):
        typed.press("Enter")
    with rerun(page):
        main.get_by_role("button", name="Add source", exact=True).click()
    expect(alerts(main, "success")).to_have_text(re.compile(
        rf"^Added {SOURCE}: the next sync files what it holds\. Wing: chosen per conversation: .* and plain text to "
        rf"wing {SOURCE.replace('-', '_')}, the source's name\.$"))
    row = source_row(main)
    assert (row["source"], row["path"], row["files"], row["last sync"]) == (SOURCE, str(folder), "0", "never")

    first = sync_now(page)
    assert first.startswith(f"{SOURCE}: 1 file, ")
    row = source_row(main, until=lambda row: row["last sync"] != "never")
    assert (row["files"], row["failed"], row["gone"]) == ("1", "0", "0") and row["last sync"] != "never"
    filed_first = int(row["filed by last sync"])  # 0 when the host's first look (2 s after it starts) filed it

    claude_session(folder / "-home-ada-lighthouse" / "second.jsonl", 2, exchanges=8)  # longer: more drawers
    second = sync_now(page)
    assert second.startswith(f"{SOURCE}: 2 files, 1 new or changed, "), second
    row = source_row(main, until=lambda row: row["files"] == "2")
    assert row["files"] == "2" and int(row["filed by last sync"]) > 0
    assert int(row["filed by last sync"]) != filed_first
    expect(exceptions(page)).to_have_count(0)
