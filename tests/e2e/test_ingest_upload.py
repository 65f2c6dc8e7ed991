"""Ingest through the real file uploader: preview (nothing written), file, then the same files again
are all already in the palace, and a file that is not a transcript is a per-file error. One server,
on a palace that starts empty; the tests run in order (the second uploads what the first filed)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Locator, Page, expect

from _dashboard import (Dashboard, alerts, choose, exceptions, main_block, metric, on_messages, open_app, rerun,
                        sidebar)

pytestmark = pytest.mark.e2e

WING = "wing_e2e"
TRANSCRIPT = """User: The nightly export to the archive bucket failed again with a checksum mismatch.
Assistant: The uploader computes the checksum before compression, so the bucket compares it against the \
compressed object. Compute it after gzip.
User: That fixed it. The archive job ran clean for the first time this week.
Assistant: Good. Add a test that uploads a compressed fixture so the mismatch cannot come back.
"""
SESSION = "0b7c6a52-2f0e-4a40-9a3c-6a1d2e3f4a5b"


def _record(kind: str, message: dict, number: int) -> dict:
    """A record as Claude Code writes it (the shape of tests/test_format_claude_code.py's `record`)."""
    return {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/home/ada/projects/lighthouse",
            "sessionId": SESSION, "version": "2.1.38", "gitBranch": "main", "type": kind, "message": message,
            "uuid": f"uuid-{number}", "timestamp": f"2026-02-10T21:1{number}:00.000Z"}


def _assistant(text: str) -> dict:
    return {"model": "claude-opus-4-6", "id": "msg_1", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": text}], "stop_reason": None}


CLAUDE_CODE = "".join(json.dumps(record) + "\n" for record in [
    _record("user", {"role": "user", "content": "Why does the lighthouse map tile cache grow without bound?"}, 1),
    _record("assistant", _assistant("The tile cache never evicts: the LRU size is never set, so it is unlimited."), 2),
    _record("user", {"role": "user", "content": "Cap it at 512 tiles then."}, 3),
    _record("assistant", _assistant("Done: the cache keeps 512 tiles and evicts the least recently used one."), 4),
])
FILES = [
    {"name": "archive-standup.txt", "mimeType": "text/plain", "buffer": TRANSCRIPT.encode()},
    {"name": "lighthouse-session.jsonl", "mimeType": "application/json", "buffer": CLAUDE_CODE.encode()},
]
FORMATS = {"archive-standup.txt": "plain_text", "lighthouse-session.jsonl": "claude_code"}
NOT_A_TRANSCRIPT = {"name": "x.bin", "mimeType": "application/octet-stream", "buffer": bytes(range(256)) * 8}


@pytest.fixture(scope="module")
def server(module_dashboard) -> Dashboard:
    return module_dashboard()


def drawer_count(page: Page) -> int:
    return int(metric(sidebar(page), "Drawers").replace(",", ""))


def upload(page: Page, files: list[dict]) -> None:
    with rerun(page):
        main_block(page).get_by_test_id("stFileUploaderDropzoneInput").set_input_files(files)
    for file in files:
        expect(main_block(page).get_by_role("button", name=f"Remove {file['name']}", exact=True)).to_be_visible()


def set_wing(page: Page, wing: str) -> None:
    """Type a wing into the Wing selectbox (new or not) and press Enter."""
    box = main_block(page).get_by_role("combobox", name="Wing", exact=True)
    box.fill(wing)
    with rerun(page):
        box.press("Enter")
    expect(box).to_have_value(wing)


def preview(page: Page) -> None:
    with rerun(page):
        main_block(page).get_by_role("button", name="Preview", exact=True).click()


def watch_progress_bars(page: Page) -> list[str]:
    """The texts of the progress bars the server sends to `page` from now on, as they come (call it before the
    page opens the app). Read on the wire: filing reruns the page at once, so a bar may be replaced before
    the browser paints it on a busy machine."""
    texts: list[str] = []

    def keep_progress(message) -> None:
        if (message.WhichOneof("type") == "delta" and message.delta.WhichOneof("type") == "new_element"
                and message.delta.new_element.WhichOneof("type") == "progress"):
            texts.append(message.delta.new_element.progress.text)

    on_messages(page, keep_progress)
    return texts


def file_box(page: Page, name: str) -> Locator:
    """The bordered box in which the preview shows one file (its first element is `<name> · format: …`)."""
    boxes = main_block(page).locator(
        "[data-testid=stVerticalBlock]:has(> [data-testid=stElementContainer] > [data-testid=stText])")
    return boxes.filter(has=page.get_by_test_id("stText").filter(has_text=re.compile(rf"^{re.escape(name)} · format")))


def test_preview_then_file_two_uploads(page: Page, server: Dashboard) -> None:
    progress_bars = watch_progress_bars(page)
    open_app(page, server, "ingest")
    main = main_block(page)
    before = drawer_count(page)
    upload(page, FILES)
    set_wing(page, WING)  # a wing the palace does not have yet: the selectbox takes new options
    preview(page)

    expect(main.get_by_role("heading", name="Preview: 0 already in the palace, 2 new")).to_be_visible()
    for file in FILES:
        box = file_box(page, file["name"])
        expect(box).to_have_count(1)
        expect(box.get_by_test_id("stText").first).to_have_text(f"{file['name']} · format: {FORMATS[file['name']]}")
        expect(box.get_by_text(re.compile(r"^0 already in the palace, 1 new \("))).to_be_visible()
        expect(box.get_by_test_id("stDataFrame")).to_be_visible()
    assert drawer_count(page) == before  # a preview writes nothing: after another run the count is the same
    with rerun(page):
        sidebar(page).get_by_role("button", name="Refresh").click()
    assert drawer_count(page) == before
    expect(main.get_by_role("heading", name="Preview: 0 already in the palace, 2 new")).to_be_visible()

    assert progress_bars, "no progress bar during Preview"
    assert all(re.search(r"(Reading|reading|drawers? embedded|files? done|Done)", text) for text in progress_bars), \
        progress_bars
    progress_bars.clear()
    with rerun(page, 60_000):
        main.get_by_role("button", name="File 2 new drawers").click()
    # A bar over the files and the embedding ("1 of 2 drawers embedded", "2 of 2 files done", then "Done"; the
    # rerun may cut the last ones).
    assert progress_bars, "no progress bar while filing"
    assert all(text == "Done" or re.search(r"(Filing|reading|drawers? embedded|files? done)", text)
               for text in progress_bars), \
        progress_bars
    expect(main.get_by_role("heading", name="Filed")).to_be_visible()
    filed = alerts(main, "success")
    expect(filed).to_have_count(2)
    for file in FILES:
        expect(filed.filter(has_text=file["name"])).to_contain_text("added 1, 0 already in the palace")
    expect(alerts(main, "error")).to_have_count(0)
    link = main.get_by_test_id("stPageLink-NavLink").filter(has_text=f"Search what was added to {WING}")
    expect(link).to_have_attribute("href", f"search?wing={WING}")
    assert drawer_count(page) == before + 2  # at once: the sidebar is not left showing the old count
    expect(main.get_by_role("heading", name=re.compile("^Preview:"))).to_have_count(0)
    expect(main.get_by_role("button", name=re.compile(r"^File \d+ new"))).to_have_count(0)
    expect(exceptions(page)).to_have_count(0)

    # The next run (the wing is no longer new, so the Wing box's options changed) keeps the choice and summary.
    with rerun(page):
        sidebar(page).get_by_role("button", name="Refresh").click()
    assert drawer_count(page) == before + 2
    expect(main.get_by_role("combobox", name="Wing", exact=True)).to_have_value(WING)
    expect(main.get_by_role("heading", name="Filed")).to_be_visible()
    expect(link).to_be_visible()


def test_the_same_files_again_are_already_there_and_a_binary_file_is_an_error(page: Page, server: Dashboard) -> None:
    open_app(page, server, "ingest")
    main = main_block(page)
    before = drawer_count(page)
    assert before >= 2, "runs after test_preview_then_file_two_uploads"
    upload(page, [*FILES, NOT_A_TRANSCRIPT])
    choose(main, "Wing", WING)
    preview(page)

    expect(main.get_by_role("heading", name="Preview: 2 already in the palace, 0 new")).to_be_visible()
    for file in FILES:
        box = file_box(page, file["name"])
        expect(box.get_by_text(re.compile(r"^1 already in the palace, 0 new \("))).to_be_visible()
        expect(box.get_by_test_id("stDataFrame")).to_be_visible()
    bad = file_box(page, "x.bin")
    expect(bad.get_by_test_id("stText").first).to_have_text("x.bin · format: not recognised")
    expect(alerts(bad, "error")).to_contain_text("x.bin")
    expect(bad.get_by_test_id("stDataFrame")).to_have_count(0)
    expect(main.get_by_role("button", name=re.compile(r"^File \d+ new"))).to_have_count(0)
    expect(exceptions(page)).to_have_count(0)
    expect(page.get_by_text("Traceback")).to_have_count(0)
    assert drawer_count(page) == before
