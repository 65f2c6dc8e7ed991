"""Browser tests of the dashboard: a real `streamlit run app.py` on a loopback port, with its own
MEMPALACE_HOME and the real embedding model, driven by Debian's Chromium through Playwright.

Fixtures:
- `dashboard(prefill=None, env=None, args=())` starts a fresh server per call and stops it after the test;
  `module_dashboard(...)` does the same but keeps the server for the whole module (use it in a
  module-scoped fixture to share one server between tests). Both return a `_dashboard.Dashboard`
  (`url`, `home`, `palace_path`, `output()`). `prefill(palace)` receives the palace at `home/palace`,
  opened private with the real model, and runs before the server starts; the dashboard then opens
  it shared, as people run it (its palace server is stopped with it).
- `page`: a fresh browser context and page (30 s default timeout, also for `expect`) whose
  Streamlit runs are counted (see `_dashboard.rerun`).
- `browser`: one Chromium (/usr/bin/chromium, `--no-sandbox`) for the session.

Every test in this folder is marked `e2e`. Without Chromium or Playwright the folder is skipped,
except under CI (the CI environment variable set), where that is a failure.
When a test that uses `page` fails, its screenshot, HTML and logs (browser console, server output)
are written to tests/e2e/artifacts/<test name>.png / .html / .log.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from _dashboard import PAGE_TIMEOUT_MS, Dashboard, safe_name, start_dashboard, track_runs

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

    from mempalace import Palace

HERE = Path(__file__).resolve().parent
ARTIFACTS = HERE / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
VIEWPORT = {"width": 1280, "height": 900}

_live: list[Dashboard] = []  # servers running now, whose output goes with a failure's artifacts


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _missing() -> str | None:
    """Why browser tests cannot run here, or None."""
    problems = []
    if not CHROMIUM.exists():
        problems.append(f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does it)")
    try:
        importlib.import_module("playwright.sync_api")
    except ImportError as exc:
        problems.append(f"the playwright package cannot be imported ({exc}; `make test` installs it)")
    return "; ".join(problems) or None


_MISSING = _missing()


class _CannotRun(pytest.Item):
    def runtest(self) -> None:
        pytest.fail(f"CI is set, so the browser tests must run, but {_MISSING}.", pytrace=False)

    def reportinfo(self):
        return self.path, None, f"{self.name}: {_MISSING}"


class _WithoutBrowser(pytest.Module):
    """A test module that cannot run here (it may not even import): skipped, or one failure under CI."""

    def collect(self):
        if not _in_ci():
            pytest.skip(f"browser tests need Chromium and Playwright: {_MISSING}")
        return [_CannotRun.from_parent(self, name="browser_tests")]


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    if _MISSING and module_path.name.startswith("test_"):
        return _WithoutBrowser.from_parent(parent, path=module_path)
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.e2e)


# -- servers -----------------------------------------------------------------------------------

StartDashboard = Callable[..., Dashboard]


def _prefill(home: Path, prefill: Callable[[Palace], Any]) -> None:
    from mempalace import Palace
    from mempalace.config import load_settings

    settings = load_settings(home, embedder="minilm-int8")
    with Palace.open(home / "palace", settings=settings, private=True) as palace:
        prefill(palace)


@pytest.fixture
def _dashboards_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StartDashboard]:
    yield from _factory(tmp_path_factory)


@pytest.fixture(scope="module")
def _module_dashboards_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StartDashboard]:
    yield from _factory(tmp_path_factory)


def _factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StartDashboard]:
    started: list[Dashboard] = []

    def start(prefill: Callable[[Palace], Any] | None = None, env: Mapping[str, str] | None = None,
              args: Sequence[str] = ()) -> Dashboard:
        home = tmp_path_factory.mktemp("dashboard") / "home"
        if prefill is not None:
            _prefill(home, prefill)
        try:
            dashboard = start_dashboard(home, env, args=args)
        except RuntimeError as exc:
            pytest.fail(str(exc), pytrace=False)
        started.append(dashboard)
        _live.append(dashboard)
        return dashboard

    try:
        yield start
    finally:
        for dashboard in started:
            dashboard.stop()
            _live.remove(dashboard)


@pytest.fixture
def dashboard(_dashboards_factory: StartDashboard) -> StartDashboard:
    """`dashboard(prefill=None, env=None, args=())` → a fresh server for this test (stopped after it)."""
    return _dashboards_factory


@pytest.fixture(scope="module")
def module_dashboard(_module_dashboards_factory: StartDashboard) -> StartDashboard:
    """`module_dashboard(prefill=None, env=None, args=())` → a fresh server kept until the module ends."""
    return _module_dashboards_factory


# -- the browser -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import expect, sync_playwright

    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
    except Exception as exc:
        playwright.stop()
        pytest.fail(f"{CHROMIUM} did not start under Playwright: {exc}", pytrace=False)
    expect.set_options(timeout=PAGE_TIMEOUT_MS)
    try:
        yield chromium
    finally:
        chromium.close()
        playwright.stop()


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    opened = context.new_page()
    track_runs(opened)
    console: list[str] = []
    opened.on("console", lambda message: console.append(
        f"console.{message.type}: {message.text} ({message.location.get('url', '?')})"))
    opened.on("pageerror", lambda error: console.append(f"page error: {error}"))
    request.node._e2e_console = console
    try:
        yield opened
    finally:
        context.close()


# -- artifacts of failures ---------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    report = yield
    if report.failed and report.when in ("setup", "call"):
        page = getattr(item, "funcargs", {}).get("page")
        if page is not None and not page.is_closed():
            report.sections.append(("e2e artifacts", _save_artifacts(item, page)))
    return report


def _save_artifacts(item: pytest.Item, page: Page) -> str:
    ARTIFACTS.mkdir(exist_ok=True)
    base = ARTIFACTS / safe_name(item.name)
    saved, problems = [], []
    try:
        page.screenshot(path=f"{base}.png", full_page=True, timeout=10_000)
        saved.append(f"{base}.png")
    except Exception as exc:
        problems.append(f"screenshot failed: {exc}")
    try:
        Path(f"{base}.html").write_text(page.content(), encoding="utf-8")
        saved.append(f"{base}.html")
    except Exception as exc:
        problems.append(f"HTML failed: {exc}")
    log = [f"URL: {page.url}", "", "== browser console =="] + getattr(item, "_e2e_console", [])
    for dashboard in _live:
        log += ["", f"== streamlit server {dashboard.url} (MEMPALACE_HOME={dashboard.home}) ==", dashboard.output()]
    Path(f"{base}.log").write_text("\n".join(log), encoding="utf-8")
    saved.append(f"{base}.log")
    message = "\n".join(f"saved {path}" for path in saved) + "".join(f"\n{p}" for p in problems)
    print(f"\n{message}")  # shown at once with -s; otherwise the report section shows it
    return message
