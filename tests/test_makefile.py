"""The README's two commands set up .venv first: that first run takes minutes, so it says so and
lets pip show what it is downloading and installing instead of sitting silent."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("target", ["dashboard", "test"])
def test_the_first_setup_says_what_it_does_and_lets_pip_show_progress(tmp_path: Path, target: str) -> None:
    planned = subprocess.run(["make", "-n", target, f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout  # -n: what make would run, nothing run
    lines = planned.splitlines()
    installs = [line for line in lines if "pip install" in line]
    assert len(installs) == 2 and not any("--quiet" in line or " -q " in line for line in installs), installs
    said = next(index for index, line in enumerate(lines) if "Setting up" in line)
    assert "a few minutes" in lines[said] and said < lines.index(next(line for line in lines if "-m venv" in line))
