"""Nothing listens beyond this machine unless asked, and then only where sign-in or tokens could guard it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from mempalace.cli import main
from mempalace.cli.support import is_loopback

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.8.9.10", True), ("localhost", True), ("::1", True), ("[::1]", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("example.com", False), ("", False),
])
def test_loopback_addresses_are_told_apart(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_the_dashboard_listens_on_loopback_by_default() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["address"] == "127.0.0.1"


@pytest.mark.parametrize("args", [["serve", "--host", "0.0.0.0"], ["mcp", "--http", "--host", "192.168.1.5"]])
def test_serving_beyond_loopback_without_protection_is_refused(args: list[str], tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--palace", str(tmp_path / "palace"), *args])
    assert result.exit_code == 2
    assert "Refusing to serve" in result.output and "127.0.0.1" in result.output
    assert not (tmp_path / "palace").exists()  # refused before anything was opened or created
