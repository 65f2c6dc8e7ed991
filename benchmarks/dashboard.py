"""Dashboard benchmark: how long Overview and Tunnels take to render in a real browser (Debian
chromium through Playwright) on a large palace, first visit and repeat visits.

    python benchmarks/dashboard.py                    # the 100k palace from benchmarks/scale.py
    python benchmarks/dashboard.py --drawers 10000

A visit is timed from navigation until the page's last element is drawn: for Overview the
"drawers filed over time" chart, for Tunnels the network's canvas with its layout done.
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
PAGES = {
    "overview": lambda page: page.get_by_text("Drawers filed over time").wait_for()
    or page.locator("[data-testid='stVegaLiteChart']").last.locator("canvas, svg").first.wait_for(),
    "tunnels": lambda page: page.frame_locator("iframe").first.locator("canvas").wait_for()
    or page.wait_for_function("() => { const f = document.querySelector('iframe');"
                              " return f && f.contentWindow && f.contentWindow.network !== undefined; }"),
}


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


def visit(browser, url: str, name: str) -> float:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(120_000)
    started = time.perf_counter()
    page.goto(f"{url}/{'' if name == 'overview' else name}")
    PAGES[name](page)
    took = time.perf_counter() - started
    page.close()
    return took


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
            print(f"\n{args.drawers:,} drawers, dashboard at {url}")
            for name in PAGES:
                first = visit(browser, url, name)
                again = [visit(browser, url, name) for _ in range(args.repeats)]
                print(f"{name:9s} first visit {first:.2f} s   repeat visits median {statistics.median(again):.2f} s"
                      f"  max {max(again):.2f} s   target ≤ 2 s")
            browser.close()
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
