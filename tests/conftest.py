"""Shared fixtures: every test gets its own MEMPALACE_HOME, private (embedded) palaces and, unless it
asks for the real model, the deterministic `hash` embedder."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

# Private palaces for the whole run, module-scoped fixtures included; tests of sharing ask for it.
os.environ["MEMPALACE_SHARED"] = "0"

from mempalace import Palace
from mempalace.config import Settings, load_settings


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private MEMPALACE_HOME so no test touches ~/.mempalace."""
    root = tmp_path / "home"
    monkeypatch.setenv("MEMPALACE_HOME", str(root))
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "hash")
    monkeypatch.setenv("MEMPALACE_SHARED", "0")  # private palaces, unless a test shares one on purpose
    monkeypatch.delenv("MEMPALACE_URL", raising=False)
    return root


@pytest.fixture
def settings(home: Path) -> Settings:
    return load_settings(home)


@pytest.fixture
def palace_path(tmp_path: Path) -> Path:
    return tmp_path / "palace"


@pytest.fixture
def palace(palace_path: Path, settings: Settings) -> Iterator[Palace]:
    """A fresh embedded palace (real Chroma PersistentClient in tmp_path) with the fake embedder."""
    with Palace.open(palace_path, settings=settings) as opened:
        yield opened


@pytest.fixture
def model_palace(palace_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Palace]:
    """A fresh embedded palace with the real model (for tests marked `model`, where meaning matters)."""
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "minilm-int8")
    with Palace.open(palace_path, settings=load_settings(home)) as opened:
        yield opened


@pytest.fixture(autouse=True)
def _close_started_apps() -> Iterator[None]:
    """After each test, close the palaces its AppTest apps opened (tests/_apptest.py)."""
    yield
    from _apptest import close_started

    close_started()


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Under CI, where ../shared is always beside the checkout, a test skipped for want of it fails."""
    outcome = yield
    report = outcome.get_result()
    reason = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr or "")
    if report.skipped and _in_ci() and "shared" in reason.lower() and ("absent" in reason or "not found" in reason):
        report.outcome = "failed"
        report.longrepr = f"CI=true but the shared data is missing: {reason}"


def _cannot(why: str) -> None:
    """Skip, saying why; under CI (run as root) a cross-user test that cannot run fails instead."""
    if _in_ci():
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture
def other_user():
    """A second local account for the length of a test (needs root to create one; CI runs as root, so
    there a missing one fails the test)."""
    if os.geteuid() != 0 or not shutil.which("useradd"):
        _cannot("creating a second local user needs root and useradd: run the tests as root to check this")
    name = f"mp-other-{uuid.uuid4().hex[:8]}"
    made = subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], capture_output=True)
    if made.returncode != 0:
        _cannot(f"useradd could not create a second local user: {made.stderr.decode(errors='replace')}")
    try:
        yield name
    finally:
        subprocess.run(["userdel", name], capture_output=True)
