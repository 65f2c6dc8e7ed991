"""The dashboard shell and its pages run (Streamlit AppTest, no browser).

Each test makes one run: with st.navigation, AppTest (Streamlit 1.67) drops the sidebar's
elements from its tree on a rerun, so switching palaces is left to the browser tests.
"""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from mempalace import Palace

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def test_empty_palace_shows_a_friendly_start(home):
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert any("empty" in i.value for i in at.info)
    assert at.sidebar.metric[0].value == "0"


def test_overview_lists_wings_and_rooms(settings):
    with Palace.open(settings=settings) as palace:
        palace.add_drawer("<script>alert(1)</script> decided on OAuth", "wing_kai", "auth-migration")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert at.sidebar.metric[0].value == "1"
    frame = at.dataframe[0].value
    assert list(frame["wing"]) == ["wing_kai"] and list(frame["room"]) == ["auth-migration"]


def test_a_bad_palace_path_is_an_error_not_a_crash(home):
    home.mkdir(parents=True)
    (home / "palace").write_text("not a directory")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert "not a palace" in at.error[0].value
