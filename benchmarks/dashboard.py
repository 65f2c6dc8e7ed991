"""Dashboard benchmark: how long every page takes to draw in a real browser (Debian chromium through
Playwright) on a large palace, by in-app navigation and by a full page load.

    python benchmarks/dashboard.py                    # the 100k palace from benchmarks/scale.py
    python benchmarks/dashboard.py --drawers 10000 --repeats 3

Pages: Overview, Search with a query, Search listing a place (a place link: a room, no query),
Tunnels, Drawers, Ingest and Audit. Each visit is timed until the page's last element is drawn (see
PAGES), both for in-app navigation (as people move around: a sidebar link; for the place listing the
Overview's first top-tunnel link; for a query, typing it on the Search page and pressing Enter) and
for a full page load in a new tab (browser cache warm). Every page is visited once before timing
(the model loads, cached views fill), as a dashboard in use has been. Each round also loads a
one-line Streamlit app the same way: the floor under any page's full load on this machine. Targets (issue 17):
every page ≤ 2 s median, Drawers ≤ 1.5 s, on 100,000 drawers.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale import ready_palace  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
QUERY = "gpu metrics costs"  # words of the synthetic drawers: 20 close matches, then "Show 20 more"
TARGETS = {"drawers": 1.5}  # seconds; every other page 2 s
FLOOR = 'import streamlit as st\nst.write("The floor")\n'  # a one-line app: Streamlit's own cost of a page


# Each page is drawn when a check in the page itself holds, tested on every animation frame: Playwright's
# own waits poll with a backoff that ends at one look per 500 ms, which added up to half a second to a
# timing (and split repeated loads of one page into two groups about 0.45 s apart).
SEEN = ("const seen = (e) => !!e && e.getClientRects().length > 0;"  # as Playwright's 'visible'
        " const main = document.querySelector('[data-testid=stMain]');"
        " const all = (s) => main ? [...main.querySelectorAll(s)] : [];"
        " const text = (s, t) => all(s).some((e) => e.textContent.includes(t) && seen(e));"
        # `text` reads only the few elements a narrow selector names: the checks run on every frame, and
        # reading every block of a long page would cost the page itself time
        " const CAPTION = '[data-testid=stCaptionContainer]', NOTE = '[data-testid=stAlertContentInfo]',"
        " BUTTON = 'button', WRITTEN = '[data-testid=stMarkdownContainer]';"
        # the closed cards of the listing `key` (dashboard.cards), by their "Open drawer" switches
        " const cards = (key) => all(`button[data-list=\"${key}\"]`).map((b) => b.closest('.mp-card'));")
# The run is over and no element still waits for its lazily loaded code (Streamlit draws a skeleton in
# its place meanwhile): the widgets, in the sidebar too, often arrive 0.3-0.5 s after the rest of a page.
RUN_OVER = ("!!document.querySelector('[data-testid=stApp][data-test-script-state=notRunning]')"
            " && !document.querySelector('[data-testid=stSkeleton]')")


def _main(page):
    return page.get_by_test_id("stMain")


def drawn_when(check: str) -> Callable:
    """A `drawn` for the pages: waits until the JavaScript expression `check` (with SEEN's helpers) holds."""
    def drawn(page) -> None:
        try:
            page.wait_for_function(f"() => {{ {SEEN} return ({check}) && {RUN_OVER}; }}", polling="raf")
        except Exception as exc:  # Playwright's timeout does not say what was awaited
            raise SystemExit(f"{page.url} was not drawn: {check} never held") from exc
    return drawn


_overview = drawn_when("text(CAPTION, 'Each conversation on the day it happened')"  # under the timeline, last
                       " && all('.st-key-timeline *').some((e) => seen(e.shadowRoot?.querySelector('.mp-axis')))")
_search = drawn_when("text(BUTTON, 'Show 20 more') && seen(cards('hit')[19])")  # under the 20th card, and it
_place = drawn_when("seen(all('.st-key-search_place_next_end')[0]) && seen(cards('search_place')[24])")  # the pager
_tunnels = drawn_when("all('.st-key-network *').some((e) => seen(e.shadowRoot?.querySelector('.mp-net .mp-wing')))"
                      " && seen(all('[data-testid=stDataFrame]')[0])"  # the tunnels (the walk's is on request)
                      " && seen(all('.st-key-reroom_open')[0])")  # the re-rooming panel's toggle, last
_drawers = drawn_when("seen(all('.st-key-drawers_next_end')[0]) && seen(cards('drawers')[24])")  # the pager, 25 cards
_ingest = drawn_when("text(NOTE, 'Drop one or more files above.')")
_audit = drawn_when("text(BUTTON, 'Export JSON')")
_search_empty = drawn_when("text(NOTE, 'Type a question or some words')")  # before a query is typed
_floor = drawn_when("text(WRITTEN, 'The floor')")


# name: (address, the sidebar link that leads there or None, drawn)
PAGES: dict[str, tuple[str, str | None, Callable]] = {  # in the order a round visits them
    "overview": ("", "Overview", _overview),
    "search place": ("search?room={room}", None, _place),  # the Overview's first top-tunnel link
    "tunnels": ("tunnels", "Tunnels", _tunnels),
    "search": (f"search?q={urllib.parse.quote(QUERY)}", None, _search),  # typed, after the Search link
    "drawers": ("drawers", "Drawers", _drawers),
    "ingest": ("ingest", "Ingest", _ingest),
    "audit": ("audit", "Audit", _audit),
}


def peak_rss_mb(pid: int) -> float:
    """A running process's peak resident memory (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_dashboard(palace: Path | None) -> tuple[subprocess.Popen, str]:
    """The dashboard on `palace`; with None, FLOOR (what Streamlit itself costs a page)."""
    home = Path(tempfile.mkdtemp(prefix="mempalace-bench-"))
    script = ROOT / "app.py"
    if palace is None:
        script = home / "floor.py"
        script.write_text(FLOOR, encoding="utf-8")
    else:
        (home / "palace").symlink_to(palace.resolve())
    port = free_port()
    env = {**os.environ, "MEMPALACE_HOME": str(home)}
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(script), "--server.port",
                               str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                               "--browser.gatherUsageStats", "false"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
            return server, url
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise SystemExit("the dashboard did not start")


def timed(action: Callable[[], object], drawn: Callable, page) -> float:
    started = time.perf_counter()
    action()
    drawn(page)  # and the run that drew it is over
    return time.perf_counter() - started


def navigate(app, name: str) -> Callable[[], object]:
    """The in-app way to `name` from wherever `app` is (see the module's docstring)."""
    link = PAGES[name][1]
    if link:
        return app.locator("[data-testid=stSidebarNavLink]", has_text=link).click
    if name == "search place":  # from the Overview, where the cycle stands just then
        return _main(app).get_by_test_id("stPageLink-NavLink").first.click
    box = _main(app).get_by_role("textbox", name="Search your palace")

    def ask() -> None:
        box.fill(QUERY)
        box.press("Enter")
    return ask


def measure(context, url: str, room: str, repeats: int, floor: str) -> dict[str, dict[str, list[float]]]:
    """In-app and full-load times of every page, `repeats` rounds after one visit of each; each round
    also loads FLOOR (served at `floor`), so that machine drift shows in it as in the pages."""
    app = context.new_page()
    app.set_default_timeout(120_000)
    timed(lambda: app.goto(url), _overview, app)
    results: dict[str, dict[str, list[float]]] = {n: {"navigate": [], "load": []} for n in [*PAGES, "(floor)"]}
    for round_ in range(repeats + 1):
        bare = context.new_page()
        took = timed(lambda: bare.goto(floor, wait_until="commit"), _floor, bare)
        bare.close()
        results["(floor)"]["load"] += [took] if round_ else []
        for name, (address, _, drawn) in PAGES.items():
            if name == "search":  # typed on the Search page: get there first (from Tunnels, so nothing is stale)
                app.locator("[data-testid=stSidebarNavLink]", has_text="Search").click()
                _search_empty(app)
            took = timed(navigate(app, name), drawn, app)
            fresh = context.new_page()
            fresh.set_default_timeout(120_000)
            target = f"{url}/{address.format(room=urllib.parse.quote(room))}"
            loaded = timed(lambda: fresh.goto(target, wait_until="commit"), drawn, fresh)
            fresh.close()
            if round_:  # the first round only warms up
                results[name]["navigate"].append(took)
                results[name]["load"].append(loaded)
    return results


def first_tunnel(page) -> str:
    """The room of the Overview's first top-tunnel link (what the place listing opens)."""
    href = _main(page).get_by_test_id("stPageLink-NavLink").first.get_attribute("href") or ""
    return urllib.parse.parse_qs(urllib.parse.urlparse(href).query)["room"][0]


def report(results: dict[str, dict[str, list[float]]]) -> None:
    """Medians and maxima per page; "over floor" is a full load's median less the floor's, the page's
    own cost, which moves less with the machine's load than the full figure."""
    floor = statistics.median(results["(floor)"]["load"])
    print(f"\n{'page':13s} {'in-app navigation':>24s} {'full page load':>24s} {'over floor':>11s}   target")
    for name, runs in results.items():
        nav, load, target = runs["navigate"], runs["load"], TARGETS.get(name, 2.0)
        if not nav:  # the floor: a full load only
            print(f"{name:13s} {'':24s} {statistics.median(load):9.2f} s (max {max(load):5.2f})"
                  f" {'':11s}   a one-line Streamlit app, for scale")
            continue
        nav_median, load_median = statistics.median(nav), statistics.median(load)
        verdict = "ok" if max(nav_median, load_median) <= target else "SLOW"
        print(f"{name:13s} {nav_median:9.2f} s (max {max(nav):5.2f}) {load_median:9.2f} s (max {max(load):5.2f}) "
              f"{load_median - floor:9.2f} s   ≤ {target} s median: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drawers", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--palace", type=Path, help="an existing palace instead (say, benchmarks/out/scale-1000000)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    palace = args.palace or ready_palace(args.drawers)
    server, url = start_dashboard(palace)
    floor_server, floor_url = start_dashboard(None)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            print(f"\n{palace}, dashboard at {url}")
            first = context.new_page()
            first.set_default_timeout(120_000)
            took = timed(lambda: first.goto(url), _overview, first)
            print(f"first visit after the server started (Overview, palace opened): {took:.2f} s")
            room = first_tunnel(first)
            first.close()
            before = os.getloadavg()[0]
            report(measure(context, url, room, args.repeats, floor_url))
            print(f"load average (1 min) {before:.2f} before the rounds, {os.getloadavg()[0]:.2f} after "
                  "(on 2 cores, above ~1.5 other work shared the machine)")
            print(f"dashboard process peak RSS {peak_rss_mb(server.pid):.0f} MB")
            browser.close()
    finally:
        for running in (server, floor_server):
            running.terminate()
            running.wait(30)


if __name__ == "__main__":
    main()
