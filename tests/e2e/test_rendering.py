"""Drawer text as Chromium renders it through show_verbatim: hostile Markdown runs nothing and links
nowhere, Markdown structure renders, Streamlit's extras stay off, and the raw toggle shows the
stored text. A tiny script of its own (no palace, no model), so one server start is the cost."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from _dashboard import ROOT, main_block, rerun, wait_for_app
from _processes import answers, free_port, stop

pytestmark = pytest.mark.e2e

HOSTILE = (
    "Kai: ### **Step 1**\n"
    "<script>window.__xss=1</script> <img src=x onerror=\"window.__xss=2\">\n"
    "[x](javascript:window.__xss=3) [y](JaVaScRiPt:window.__xss=4) [z](data:text/html,<b>hi</b>) "
    "![pixel](https://tracker.invalid/p.gif) [docs](https://example.org/docs)\n"
    "It costs $5 and $10, not $x$. :red[hot] :material/home: :smile:\n"
    '=HYPERLINK("https://evil.invalid/x","click")\n\n'
    "| step | cost |\n|---|---|\n| **one** | `$5` |\n\n"
    "```python\nprint('<script>')\n```\n"
    "Paris.\ue200cite\ue202turn0search1\ue201 Asked <@U0BMYT2FL>."
)
# A ChatGPT answer whose fences sit inside its private-use citation marks, cut into drawers by ingest
CHATGPT = ("Use the Gmail API like this:\n\n\ue203```xml\n<scope>https://mail.google.com/</scope>\n```\ue204\n\n"
           + "Then ask for consent and keep the refresh token. " * 30 + "\n\n") * 4
SCRIPT = f"""
import streamlit as st
from dashboard.text import show_verbatim
from mempalace.formats.base import Conversation, Message
from mempalace.text.drawer_chunks import chunk_conversation

with st.container(key="hostile"):
    show_verbatim({HOSTILE!r}, key="raw-drawer", mentions={{"U0BMYT2FL": "Harry Potter"}})
answer = Conversation((Message("User", "user", "gmail api?"), Message("ChatGPT", "assistant", {CHATGPT!r})))
with st.container(key="chatgpt"):
    for number, chunk in enumerate(chunk_conversation(answer, 800)):
        show_verbatim(chunk.content, key=f"chunk-{{number}}")
"""


@pytest.fixture
def rendering_app(tmp_path: Path) -> Iterator[Callable[[], str]]:
    """Starts `streamlit run` on the script and hands back a wait for its URL, so that the server
    starts while the browser does (ask for this fixture before `page`)."""
    script, log_path = tmp_path / "rendering_app.py", tmp_path / "streamlit.log"
    script.write_text(SCRIPT, encoding="utf-8")
    port = free_port()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def url() -> str:
        deadline = time.monotonic() + 30
        while not answers(f"http://127.0.0.1:{port}/_stcore/health"):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit run did not start:\n{log_path.read_text(errors='replace')}")
            time.sleep(0.1)
        return f"http://127.0.0.1:{port}"

    try:
        yield url
    finally:
        stop(process)


def test_hostile_markdown_renders_safely_and_the_raw_toggle_shows_the_stored_text(rendering_app, page: Page):
    page.goto(rendering_app())
    wait_for_app(page)
    main = main_block(page).locator(".st-key-hostile")
    shown = main.get_by_test_id("stMarkdown")
    expect(shown.locator("h6")).to_have_text("Step 1")  # a drawer's ### is shown three levels down
    expect(shown.locator("table td strong")).to_have_text("one")
    expect(shown.locator("pre code")).to_contain_text("print('<script>')")
    assert main.locator("script, img, iframe, object, embed, [onerror], [onload], .katex").count() == 0
    assert main.locator(".stMarkdownColoredText, [translate=no]").count() == 0  # no :red[], no :material/
    hrefs = [a.get_attribute("href") or "" for a in shown.locator("a").all()]
    assert "https://example.org/docs" in hrefs and "https://tracker.invalid/p.gif" in hrefs  # the image, as a link
    assert "https://evil.invalid/x" in hrefs  # a bare address stops where it ends, not after `","click"`
    assert not [h for h in hrefs if not h.startswith(("https://", "#"))], hrefs
    text = shown.inner_text()
    for plain in ("<script>window.__xss=1</script>", "[x](javascript:window.__xss=3)", "$5 and $10, not $x$",
                  ":red[hot] :material/home:", "Paris. Asked @Harry Potter."):
        assert plain in text, plain
    assert "\ue200" not in text and "😄" not in text
    assert page.evaluate("() => window.__xss") is None

    with rerun(page):
        main.get_by_text("Raw text").click()
    raw = main.get_by_test_id("stCode")
    expect(raw).to_have_count(1)
    assert raw.locator("code").inner_text() == HOSTILE
    assert main.locator("script, img, [onerror]").count() == 0


def test_prose_after_a_chatgpt_code_block_renders_as_prose_in_every_drawer(rendering_app, page: Page):
    page.goto(rendering_app())
    wait_for_app(page)
    drawers = main_block(page).locator(".st-key-chatgpt").get_by_test_id("stMarkdown")
    expect(drawers.first).to_be_visible()
    assert drawers.count() >= 4
    code = drawers.locator("pre")
    assert code.count() == 4 and all(block.inner_text().strip() == "<scope>https://mail.google.com/</scope>"
                                     for block in code.all())  # the four real blocks, and nothing else
    assert drawers.locator("p", has_text="Then ask for consent").count() >= 4
    assert "\ue203" not in drawers.first.inner_text()
