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


def test_serving_chroma_beyond_loopback_without_protection_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--palace", str(tmp_path / "palace"), "serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "Refusing to serve" in result.output and "127.0.0.1" in result.output
    assert not (tmp_path / "palace").exists()  # refused before anything was opened or created


@pytest.mark.parametrize("host", ["127.0.0.1", "192.168.1.5"])
def test_mcp_over_http_without_a_token_is_refused_on_any_address(host: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--palace", str(tmp_path / "palace"), "mcp", "--http", "--host", host])
    assert result.exit_code == 2
    assert "mempalace token create --role viewer --name my-agent" in result.output
    assert not (tmp_path / "palace").exists()  # refused before anything was opened or created


def test_with_a_token_mcp_over_http_may_listen_beyond_loopback(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Tokens are its sign-in, so another address is allowed; the server it would run requires them."""
    from mcp.server.mcpserver import MCPServer

    ran: list[tuple[MCPServer, str, dict]] = []
    monkeypatch.setattr(MCPServer, "run", lambda self, transport="stdio", **kw: ran.append((self, transport, kw)))
    palace = ["--palace", str(tmp_path / "palace")]
    assert CliRunner().invoke(main, [*palace, "token", "create", "--role", "viewer"]).exit_code == 0
    result = CliRunner().invoke(main, [*palace, "mcp", "--http", "--host", "0.0.0.0", "--port", "9876"])
    assert result.exit_code == 0, result.output
    [(server, transport, options)] = ran
    assert (transport, options) == ("streamable-http", {"host": "0.0.0.0", "port": 9876})
    assert server.settings.auth is not None
    assert str(server.settings.auth.resource_server_url) == "http://0.0.0.0:9876/mcp"
    assert "tokens travel in clear text" in result.stderr and "HTTPS reverse proxy" in result.stderr
