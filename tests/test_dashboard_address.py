"""Without sign-in the dashboard serves loopback only: on any other address every page is refused
and says how to share it safely; with `[auth]` configured the refusal does not apply."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from _apptest import counts_in

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.fixture
def address() -> Iterator[callable]:
    """Set Streamlit's server.address for the test, as `--server.address` would."""
    before = config.get_option("server.address")
    yield lambda value: config.set_option("server.address", value)
    config.set_option("server.address", before)


@pytest.mark.parametrize("value", ["0.0.0.0", "192.168.1.20", "", "::"])
def test_no_sign_in_off_loopback_refuses_every_page(address, value: str) -> None:
    address(value)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert "no sign-in configured" in at.error[0].value
    assert any("Share with a team" in m.value for m in at.markdown)
    assert "palace" not in at.session_state  # the palace was never opened
    assert not counts_in(at.sidebar) and not at.text_input


@pytest.mark.parametrize("value", ["127.0.0.1", "localhost", "::1"])
def test_no_sign_in_on_loopback_is_the_single_user_app(address, value: str) -> None:
    address(value)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception and not at.error
    assert list(counts_in(at.sidebar)) == ["Drawers", "Wings", "Rooms"]
    at.session_state["palace"]._palace.close()


def test_with_sign_in_configured_another_address_asks_people_to_sign_in(address) -> None:
    address("0.0.0.0")
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets = {"auth": {"client_id": "test"}}
    at.user = {"is_logged_in": False}
    at.run()
    assert not at.exception and not at.error
    assert at.info[0].value == "Sign in to open this palace."
    assert "palace" not in at.session_state
