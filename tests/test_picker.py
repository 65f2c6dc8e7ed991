"""The sidebar's palace picker: what a typed path or URL points at (`describe_target`), a missing palace
is only created when asked, errors show in the main area, and a palace no session names is released.

AppTest gives every app the same session id, so "another session" holding a palace is simulated by
taking it in `dashboard.views.holders()` directly, as the other session's `hold` would.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from mempalace import Palace
from mempalace.config import Settings
from mempalace.errors import InvalidInputError, NotAPalaceError, PalaceBusyError
from mempalace.palace.opening import describe_target
from _apptest import APP, counts_in, started


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The person's home folder (where relative paths go), not MemPalace's."""
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def run(target: str | None = None, at: AppTest | None = None) -> AppTest:
    """The app after a run with `target` in the sidebar's box (None: leave the box as it is)."""
    if at is None:
        at = AppTest.from_file(APP, default_timeout=60)
        started(at)
    if target is not None:
        at.session_state["palace_target"] = target
    at.run()
    assert not at.exception, at.exception
    return at


def plain(text: str) -> str:
    return text.replace("\\", "")  # Markdown escapes


def test_describe_target_names_what_the_box_points_at(settings: Settings, user_home: Path, tmp_path: Path):
    default = describe_target("  ", settings)
    assert (default.kind, default.path, default.default) == ("missing", settings.default_palace.resolve(), True)
    assert describe_target("work/palace", settings).path == user_home / "work" / "palace"
    assert describe_target("~/p", settings).path == user_home / "p"
    assert describe_target("http://127.0.0.1:8000", settings).url == "http://127.0.0.1:8000"
    assert describe_target("HTTPS://palace.example.com", settings).kind == "server"
    with pytest.raises(InvalidInputError, match=r"ftp:// is not a way to reach a palace"):
        describe_target("ftp://whatever", settings)
    (tmp_path / "notes.txt").write_text("notes")
    with pytest.raises(NotAPalaceError, match="is a file"):
        describe_target(str(tmp_path / "notes.txt"), settings)
    with pytest.raises(NotAPalaceError, match="other files in it"):
        describe_target(str(tmp_path), settings)
    (tmp_path / "empty").mkdir()
    assert describe_target(str(tmp_path / "empty"), settings).kind == "missing"
    Palace.open(tmp_path / "made", settings=settings).close()
    made = describe_target(str(tmp_path / "made") + "/", settings)
    assert (made.kind, made.path, made.default) == ("palace", tmp_path / "made", False)
    assert not (Path.cwd() / "ftp:").exists() and list(user_home.iterdir()) == []  # nothing was created


def test_a_missing_palace_is_created_only_when_asked(home: Path, tmp_path: Path):
    wanted = tmp_path / "no" / "such" / "palace"
    at = run(str(wanted))
    assert [plain(w.value) for w in at.main.warning] == [f"No palace at {wanted}"]
    assert [b.label for b in at.main.button] == ["Create a palace here"]
    assert not wanted.parent.exists() and "palace" not in at.session_state
    assert at.sidebar.text_input[0].value == str(wanted)  # the box stays, to fix a typo
    at.main.button[0].click()
    at = run(at=at)
    assert (wanted / "chroma.sqlite3").exists()
    assert plain(at.sidebar.caption[0].value).endswith(f": {wanted}")
    assert any("The palace is empty" in i.value for i in at.info) and not at.main.warning


def test_errors_are_shown_in_the_main_area_with_what_to_do(home: Path, user_home: Path, tmp_path: Path):
    at = run("ftp://whatever")
    assert "ftp:// is not a way to reach a palace" in plain(at.main.error[0].value)
    assert "http://" in at.main.markdown[0].value and "Palace path or server URL" in at.main.markdown[0].value
    (tmp_path / "notes.txt").write_text("notes")
    at = run(str(tmp_path), at)
    assert "is a directory with other files in it, not a palace" in plain(at.main.error[0].value)
    assert "chroma.sqlite3" in at.main.markdown[0].value
    assert at.sidebar.error and at.sidebar.text_input  # the box is still there to fix it
    at = run("localhost:8000", at)  # a server address typed without http:// is a folder with no palace
    assert "write http://" in at.main.markdown[0].value
    at = run("", at)  # back to the default palace, created on first use
    assert not at.error and [t.value for t in at.title] == ["Palace overview"]
    assert not (Path.cwd() / "ftp:").exists() and list(user_home.iterdir()) == []


def test_choosing_another_palace_releases_the_old_one_once_no_session_holds_it(settings: Settings, tmp_path: Path):
    import dashboard.views as views

    first, second = settings.default_palace, tmp_path / "second"
    Palace.open(second, settings=settings).close()
    at = run()
    old = at.session_state["palace"]._palace
    key = (str(first.resolve()), None)
    views.holders().take(key)  # another session has the default palace open too
    at = run(str(second), at)
    assert at.session_state["palace"].location == str(second)
    with pytest.raises(PalaceBusyError):  # still open for the other session
        Palace.open(first, settings=settings)
    assert old.count() == 0
    views.holders().let_go(key)  # the other session chose something else (or left)
    Palace.open(first, settings=settings).close()  # released: the CLI may open it now
    assert old._closed


def test_the_sidebar_counts_rooms_as_the_overview_does(settings: Settings):
    with Palace.open(settings=settings) as palace:
        palace.add_drawer("Kai's notes on the OIDC switch.", "wing_kai", "auth-migration")
        palace.add_drawer("Odds and ends from the stand-up.", "wing_kai", "general")
    at = run()
    side, main = counts_in(at.sidebar), counts_in(at.main)
    assert side["Rooms"] == main["Rooms"] == "1"  # `general` is left out of both (graph_hidden_rooms)
