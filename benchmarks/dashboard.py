"""Dashboard benchmark: how long Overview and Tunnels take to render in a real browser (Debian
chromium through Playwright) on a large palace, first visit and repeat visits.

    python benchmarks/dashboard.py                    # the 100k palace from benchmarks/scale.py
    python benchmarks/dashboard.py --drawers 10000

Each visit is timed until the page's last element is drawn (Overview: the "drawers filed over
time" chart; Tunnels: the network drawn and the tables), both for in-app navigation (a click in
the sidebar, as people move around) and for a full page load in a new tab (browser cache warm).
Target (issue 5): ≤ 2 s for both on 100,000 drawers.
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
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale import ready_palace  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NETWORK_DRAWN = ("() => { const f = document.querySelector('iframe');"
                 " return f && f.contentWindow && f.contentWindow.network !== undefined; }")


def drawn(page, name: str) -> None:
    """Wait until the page's last element is drawn."""
    if name == "tunnels":
        page.wait_for_function(NETWORK_DRAWN)
        page.locator("[data-testid=stDataFrame]").first.wait_for()
    else:
        page.get_by_text("Drawers filed over time").wait_for()
        page.locator("[data-testid=stVegaLiteChart]").nth(2).locator("canvas, svg").first.wait_for()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_dashboard(palace: Path) -> tuple[subprocess.Popen, str]:
    home = Path(tempfile.mkdtemp(prefix="mempalace-bench-"))
    (home / "palace").symlink_to(palace.resolve())
    port = free_port()
    env = {**os.environ, "MEMPALACE_HOME": str(home)}
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
                               str(port), "--server.address", "127.0.0.1", "--server.headless", "true"],
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


def timed(action, page, name: str) -> float:
    started = time.perf_counter()
    action()
    drawn(page, name)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drawers", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    palace = ready_palace(args.drawers)
    server, url = start_dashboard(palace)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            print(f"\n{args.drawers:,} drawers, dashboard at {url}")
            app = context.new_page()
            app.set_default_timeout(120_000)
            first = timed(lambda: app.goto(url), app, "overview")
            print(f"first visit after the server started (Overview, palace opened): {first:.2f} s")
            results: dict[str, dict[str, list[float]]] = {n: {"navigate": [], "load": []} for n in ("tunnels", "overview")}
            for _ in range(args.repeats):
                for name in results:
                    link = app.locator("[data-testid=stSidebarNavLink]", has_text=name.capitalize())
                    results[name]["navigate"].append(timed(link.click, app, name))
                    fresh = context.new_page()
                    fresh.set_default_timeout(120_000)
                    address = f"{url}/{'' if name == 'overview' else name}"
                    results[name]["load"].append(timed(lambda: fresh.goto(address), fresh, name))
                    fresh.close()
            for name, runs in results.items():
                print(f"{name:9s} in-app navigation median {statistics.median(runs['navigate']):.2f} s "
                      f"(max {max(runs['navigate']):.2f})   full page load median {statistics.median(runs['load']):.2f} s "
                      f"(max {max(runs['load']):.2f})   target ≤ 2 s")
            browser.close()
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
