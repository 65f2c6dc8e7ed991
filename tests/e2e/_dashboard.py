"""What browser tests of the dashboard share: a real `streamlit run app.py` server, and helpers that
know Streamlit 1.67's DOM.

The fixtures (`dashboard`, `module_dashboard`, `page`) live in conftest.py; import the helpers from
here:

    from _dashboard import alerts, metric, open_app, rerun, wait_for_app

Streamlit facts these helpers rely on (checked on 1.67 with Chromium):

- The root `[data-testid=stApp]` carries `data-test-connection-state` (`CONNECTED` once the
  websocket is up) and `data-test-script-state`: `initial` until the first run has started, then
  `running` / `notRunning` (`compilationError` for a script that does not compile). A page that
  says CONNECTED and notRunning shows a finished run. The status widget (`stStatusWidget`, with
  `stStatusWidgetRunningIcon`) is no signal: it appears only ~0.5 s into a run, is absent before
  the first run, and lingers ~0.25 s after a run ends.
- An element still loading lazily shows `[data-testid=stSkeleton]`.
- That attribute cannot tell that a rerun happened: right after a click or an edit it still shows
  the previous run as `notRunning` until the rerun request is handled, and a fast rerun is often
  never visible in it at all (React batches `running` and `notRunning` into one render). So the
  `page` fixture counts runs on the wire: the `script_finished` messages (other than "finished
  early for a rerun" and a fragment's own run, such as the Overview's lines on syncing redrawn
  every few seconds) that the server sends over the `/_stcore/stream` websocket. `rerun()` and
  `open_app()` wait for that count to grow, then for the page to settle.
- Stale elements of the previous run carry `data-stale="true"` until the run that replaces them
  finishes.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from _processes import answers, free_port, stop

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator, Page

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
STARTUP_SECONDS = 30
PAGE_TIMEOUT_MS = 30_000  # the first run of a page in a new server loads the embedding model

DONE_STATES = ("notRunning", "compilationError")
STREAM_PATH = "/_stcore/stream"

# -- the server --------------------------------------------------------------------------------


@dataclass
class Dashboard:
    """A running `streamlit run app.py`: its `url`, its MEMPALACE_HOME (`home`) and its output log."""

    url: str
    home: Path
    log: Path
    process: subprocess.Popen

    @property
    def palace_path(self) -> Path:
        return self.home / "palace"

    def output(self) -> str:
        """Everything the server printed so far (stdout and stderr, interleaved)."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        """Stop the dashboard, then the server MemPalace started for its palace (if it did)."""
        from mempalace.server.starting import ServerInfo

        stop(self.process)
        info = ServerInfo.read(self.palace_path)
        if info is not None:
            try:
                os.kill(info.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def _health(url: str) -> bool:
    return answers(f"{url}/_stcore/health")


def start_dashboard(home: Path, env: Mapping[str, str] | None = None, attempts: int = 3,
                    args: Sequence[str] = ()) -> Dashboard:
    """Start the dashboard on a free loopback port with MEMPALACE_HOME=`home` and the real model;
    return once `/_stcore/health` answers. Raises RuntimeError with the server's output otherwise.
    `args` go to `streamlit run` after ours (such as `--secrets.files PATH`).

    The server opens the palace only when a browser session first runs the script, so whatever is
    in `home/palace` before the first `page.goto` is what the app sees.
    """
    home.mkdir(parents=True, exist_ok=True)
    full_env = {**os.environ, "MEMPALACE_HOME": str(home), "MEMPALACE_EMBEDDER": "minilm-int8",
                "MEMPALACE_SHARED": "1", "PYTHONUNBUFFERED": "1"}  # the palace shared, as people run it
    full_env.pop("MEMPALACE_URL", None)
    full_env.update(env or {})
    for attempt in range(1, attempts + 1):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log = home.parent / f"{home.name}-streamlit-{port}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(port),
                 "--server.address", "127.0.0.1", "--server.headless", "true",
                 "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none", *args],
                cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )
        dashboard = Dashboard(url, home, log, process)
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _health(url):
            if process.poll() is not None:
                output = dashboard.output()
                if ("is not available" in output or "already in use" in output) and attempt < attempts:
                    break  # lost the race for the port: try another one
                raise RuntimeError(f"streamlit run exited with {process.returncode} before answering "
                                   f"{url}/_stcore/health. Its output:\n{output}")
            if time.monotonic() > deadline:
                dashboard.stop()
                raise RuntimeError(f"streamlit run did not answer {url}/_stcore/health within "
                                   f"{STARTUP_SECONDS} s. Its output:\n{dashboard.output()}")
            time.sleep(0.1)
        else:
            return dashboard
    raise AssertionError("unreachable")


# -- waiting for the app -----------------------------------------------------------------------


_run_counts: weakref.WeakKeyDictionary[Page, list[int]] = weakref.WeakKeyDictionary()


def on_messages(page: Page, handler) -> None:
    """Call `handler(ForwardMsg)` for every message the server sends `page` from now on (call it before
    the page opens the app)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    def on_frame(payload: str | bytes) -> None:
        if isinstance(payload, str):
            return
        message = ForwardMsg()
        try:
            message.ParseFromString(payload)
        except Exception:  # not a ForwardMsg: nothing to hand on
            return
        handler(message)

    def on_websocket(socket) -> None:
        if socket.url.split("?")[0].endswith(STREAM_PATH):
            socket.on("framereceived", on_frame)

    page.on("websocket", on_websocket)


def track_runs(page: Page) -> None:
    """Count the script runs `page` sees finish (the `page` fixture does this; call it yourself for
    another page, before it opens the app)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    count = [0]

    def count_finished(message) -> None:
        if (message.WhichOneof("type") == "script_finished"
                and message.script_finished not in (ForwardMsg.FINISHED_EARLY_FOR_RERUN,
                                                    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)):
            count[0] += 1

    on_messages(page, count_finished)
    _run_counts[page] = count


def runs(page: Page) -> int:
    """How many script runs (or chains of runs, for `st.rerun()`) `page` has seen finish."""
    if page not in _run_counts:
        raise AssertionError("this page's runs are not counted: call track_runs(page) before opening the app")
    return _run_counts[page][0]


def _wait_for_runs(page: Page, more_than: int, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout / 1000
    while runs(page) <= more_than:
        if time.monotonic() > deadline:
            raise AssertionError(f"the app did not finish a run within {timeout / 1000:.0f} s after {what}")
        page.wait_for_timeout(20)  # lets Playwright deliver websocket events


def wait_for_app(page: Page, timeout: float = PAGE_TIMEOUT_MS) -> None:
    """Wait until the page shows a finished run: the websocket is connected, the script state is
    done, the main block is there, no element is still loading or left stale from the run before.

    After an interaction, use `rerun()`: this alone cannot tell whether the rerun has happened yet.
    """
    from playwright.sync_api import expect

    page.locator("[data-testid=stApp][data-test-connection-state=CONNECTED]").wait_for(
        state="attached", timeout=timeout)
    page.locator(", ".join(f"[data-testid=stApp][data-test-script-state={state}]" for state in DONE_STATES)
                 ).wait_for(state="attached", timeout=timeout)
    page.get_by_test_id("stMain").wait_for(state="attached", timeout=timeout)
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=timeout)
    expect(page.locator("[data-stale=true]")).to_have_count(0, timeout=timeout)
    # The finished message may have been seen on the wire a moment before the page handled it.
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


@contextmanager
def rerun(page: Page, timeout: float = PAGE_TIMEOUT_MS) -> Iterator[None]:
    """Wait, after the block, for the rerun that the block's interaction triggered to finish:

        with rerun(page):
            sidebar(page).get_by_role("button", name="Refresh").click()
    """
    before = runs(page)
    yield
    _wait_for_runs(page, before, timeout, "the interaction (did it trigger a rerun at all?)")
    wait_for_app(page, timeout)


def open_app(page: Page, dashboard: Dashboard, path: str = "", timeout: float = PAGE_TIMEOUT_MS) -> Page:
    """Open `path` (a page's URL path such as "search", or "" for the default page) and wait for
    its first run to finish."""
    before = runs(page)
    page.goto(f"{dashboard.url}/{path.lstrip('/')}")
    _wait_for_runs(page, before, timeout, f"opening {page.url}")
    wait_for_app(page, timeout)
    return page


# -- finding things ----------------------------------------------------------------------------


def sidebar(page: Page) -> Locator:
    return page.get_by_test_id("stSidebar")


def main_block(page: Page) -> Locator:
    return page.get_by_test_id("stMain")


COUNT = ".mp-count"  # one number of a row of counts (dashboard.render.counts)


def metric(scope: Page | Locator, label: str) -> str:
    """The value of the count labelled `label` (exactly, without its info mark) in `scope`."""
    page = scope if hasattr(scope, "goto") else scope.page  # `has=` takes a locator of the page
    box = scope.locator(COUNT).filter(
        has=page.locator(".mp-count-label").filter(has_text=re.compile(rf"^\s*{re.escape(label)}\s*i?\s*$")))
    return box.locator(".mp-count-value").inner_text().strip()


_ALERT_KINDS = {"error": "Error", "warning": "Warning", "info": "Info", "success": "Success"}


def alerts(scope: Page | Locator, kind: str) -> Locator:
    """`st.error` / `st.warning` / `st.info` / `st.success` boxes in `scope` (not `st.exception`,
    which is a `stException` box although it also contains a `stAlertContentError`)."""
    content = f"[data-testid=stAlertContent{_ALERT_KINDS[kind]}]"
    return scope.locator(f"[data-testid=stAlert]:has({content})")


def exceptions(scope: Page | Locator) -> Locator:
    """Tracebacks shown by Streamlit (`st.exception`, or an uncaught exception in the script)."""
    return scope.get_by_test_id("stException")


def dataframe_rows(frame: Locator) -> list[dict[str, str]]:
    """The rows of an `st.dataframe` (`[data-testid=stDataFrame]`) as text, keyed by column header.

    The grid is drawn on a canvas; Glide Data Grid keeps an accessible `<table>` inside the canvas
    (cells `[data-testid=glide-cell-<col>-<row>]`), rendered only for the rows in view.
    """
    frame.locator("table").wait_for(state="attached")
    return frame.evaluate("""(el) => {
        const table = el.querySelector('table');
        const heads = [...table.querySelectorAll('thead th')].map(th => th.textContent);
        return [...table.querySelectorAll('tbody tr')].map(tr =>
            Object.fromEntries([...tr.querySelectorAll('td')].map((td, i) => [heads[i], td.textContent])));
    }""")


def safe_name(name: str) -> str:
    """A test's name as a file name."""
    return re.sub(r"[^\w.-]+", "_", name).strip("_") or "test"


# -- widgets -----------------------------------------------------------------------------------


def choose(scope: Page | Locator, label: str, option: str, timeout: float = PAGE_TIMEOUT_MS) -> None:
    """Pick `option` in the `st.selectbox` labelled `label` in `scope` and wait for the rerun.

    Picking the value it already shows triggers no rerun: don't.
    """
    page = scope if hasattr(scope, "goto") else scope.page
    options = open_options(scope, label)
    with rerun(page, timeout):
        options.get_by_role("option", name=option, exact=True).click()


def open_options(scope: Page | Locator, label: str) -> Locator:
    """Open the option list of the `st.selectbox` labelled `label` in `scope`; return the list box.

    A selectbox is a `combobox` named by its label, with an "Open" button beside it; the options
    open in a `listbox` at the page's root, not inside `scope`. The list closes when the page
    scrolls, so the box is scrolled into view first (and the click retried if a late scroll shut it).
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = scope if hasattr(scope, "goto") else scope.page
    box = scope.get_by_test_id("stSelectbox").filter(has=page.get_by_role("combobox", name=label, exact=True))
    listbox = page.get_by_role("listbox")
    for attempt in range(3):
        box.scroll_into_view_if_needed()
        page.wait_for_timeout(100 * attempt)
        box.get_by_role("button", name="Open", exact=True).click()
        try:
            listbox.wait_for(state="visible", timeout=2_000)
            return listbox
        except PlaywrightTimeout:
            continue
    listbox.wait_for(state="visible", timeout=1)  # fails with Playwright's own message
    return listbox


def expander(scope: Page | Locator, label: str | re.Pattern[str]) -> Locator:
    """The `st.expander`(s) whose summary shows `label` (a substring, or a pattern)."""
    page = scope if hasattr(scope, "goto") else scope.page  # `has=` takes a locator of the page
    return scope.get_by_test_id("stExpander").filter(has=page.locator("summary").filter(has_text=label))


def open_expander(box: Locator) -> Locator:
    """Open a closed `st.expander` (a client-side toggle, no rerun) and return its details block."""
    details = box.get_by_test_id("stExpanderDetails")
    if box.locator("details[open]").count() == 0:
        box.locator("summary").click()
    details.wait_for(state="visible")
    return details


# A drawer's card (a search result, a listed drawer) while closed: an <article class="mp-card"> in its
# listing's HTML block (dashboard.cards), whose "Open drawer" switch names the drawer and the listing.
CARD = "article.mp-card"


def interactive_network(page: Page) -> Frame:
    """Switch the Tunnels page's network to the interactive (pyvis) one and return its frame."""
    from playwright.sync_api import expect

    with rerun(page):
        main_block(page).get_by_text("Move rooms about: the interactive network").click()
    iframe = main_block(page).get_by_test_id("stIFrame")
    expect(iframe).to_be_visible()
    frame = iframe.element_handle().content_frame()
    assert frame is not None
    return frame


def open_card(card: Locator) -> Locator:
    """Switch a closed card's "Open drawer" on from the keyboard (see CLICKS in test_drawers.py) and
    return the card a run draws open in its place: the bordered container keyed `<listing>_card_<drawer
    id>` (dashboard.hits.show_drawer), its toggle focused. A card drawn open already is returned as it is."""
    from playwright.sync_api import expect

    switch = card.get_by_role("switch", name="Open drawer").first
    drawer_id, listing = switch.get_attribute("data-open"), switch.get_attribute("data-list")
    if drawer_id is None:  # Streamlit's toggle: the card is open
        return card
    card.page.locator(f"[data-mp-listing='{listing}']").wait_for(state="attached")  # its clicks are heard
    with rerun(card.page):
        switch.press("Enter")
    opened = main_block(card.page).locator(f".st-key-{listing}_card_{drawer_id}")
    opened.get_by_test_id("stCode").first.wait_for()  # the drawer's id, under its text
    expect(opened.get_by_role("switch", name="Open drawer")).to_be_focused()  # the keyboard stays on the card
    return opened
