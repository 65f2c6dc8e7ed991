"""Edge cases found in review: each once lost data, crashed, or reported success for nothing."""

import json

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main
from mempalace.config import load_settings
from mempalace.errors import ConfigError, InvalidInputError, PalaceUnavailableError, PlaceNotFoundError
from mempalace.palace.opening import CATALOG_FILE
from mempalace.store.chroma import SEQ_KEY
from mempalace.catalog.sync import new_stamp


def test_a_corrupt_catalog_is_rebuilt_not_fatal(palace, palace_path, settings):
    palace.add_drawer("kept safe in Chroma", "wing_a", "r1")
    palace.close()
    (palace_path / CATALOG_FILE).write_bytes(b"this is not sqlite" * 100)
    with Palace.open(palace_path, settings=settings) as again:
        assert again.taxonomy() == {"wing_a": {"r1": 1}}
        assert again.search("kept safe")[0].content == "kept safe in Chroma"


@pytest.mark.parametrize("bad", [{"drawer_chars": 0}, {"drawer_chars": True}, {"max_limit": -1},
                                 {"duplicate_threshold": 0}, {"duplicate_threshold": 1.5},
                                 {"foreign_check_seconds": "soon"}, {"no_such_setting": 1}])
def test_bad_settings_are_refused_clearly(home, bad):
    with pytest.raises(ConfigError, match="Setting|Unknown"):
        load_settings(home, **bad)


def test_bad_config_file_is_refused_clearly(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text("drawer_chars = [1,2")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(home)


def test_ids_with_surrounding_spaces_act_on_the_real_drawer(palace):
    drawer_id = palace.add_drawer("spacey id target", "wing_a", "r1").drawer_ids[0]
    moved = palace.update_drawer(f"  {drawer_id} ", room="r2")
    assert moved.room == "r2" and palace.taxonomy() == {"wing_a": {"r2": 1}}
    palace.delete_drawer(f" {drawer_id}")
    assert palace.count() == 0


def test_duplicates_the_catalog_has_not_seen_yet_are_still_refused(palace):
    text = "written by another client moments ago"
    palace._store.add(["drawer_unseen"], [text], [{"wing": "wing_x", "room": "r", SEQ_KEY: new_stamp()}],
                      palace._embed([text]))
    matches = palace._similar(palace._embed([text]), 0.9, exclude=set())
    assert [m.drawer_id for m in matches] == ["drawer_unseen"]


def test_partly_deleted_long_content_can_be_filed_again(palace):
    text = "".join(f"Section {i}. " + "detail " * 50 + "\n\n" for i in range(6))
    first = palace.add_drawer(text, "wing_a", "manual")
    palace.delete_drawer(first.drawer_ids[2])
    again = palace.add_drawer(text, "wing_a", "manual")
    assert again.status == "added" and again.drawer_ids == first.drawer_ids
    assert "".join(palace.get_drawer(i).content for i in first.drawer_ids) == text


def test_check_duplicate_looks_at_every_piece_like_add_does(palace):
    tail = "The rollback plan: restore the snapshot, replay the queue, and page the on-call engineer."
    palace.add_drawer(tail, "wing_a", "ops")
    long_text = "".join(f"Unrelated paragraph {i} " + "filler words " * 70 + "\n\n" for i in range(3)) + tail
    assert palace.check_duplicate(long_text)
    assert palace.add_drawer(long_text, "wing_b", "ops").status == "duplicate"


def test_lone_surrogates_are_refused(palace):
    with pytest.raises(InvalidInputError, match="Unicode"):
        palace.add_drawer("bad \ud800 text", "wing_a", "r1")
    assert palace.count() == 0


def test_an_explicit_path_wins_over_mempalace_url(palace_path, settings, monkeypatch):
    monkeypatch.setenv("MEMPALACE_URL", "http://127.0.0.1:9")
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.mode == "embedded"


def test_keyword_filter_follows_a_move(palace):
    drawer_id = palace.add_drawer("qwertyzap incident notes", "wing_a", "incidents").drawer_ids[0]
    palace.update_drawer(drawer_id, wing="wing_b", room="postmortems", hall="discoveries")
    with pytest.raises(PlaceNotFoundError):  # wing_a held only that drawer: it is gone
        palace.search("qwertyzap", wing="wing_a")
    hit = palace.search("qwertyzap", wing="wing_b", room="postmortems", hall="discoveries")[0]
    assert hit.drawer_id == drawer_id and hit.lexical > 0


def test_cli_shows_terminal_controls_and_json_keeps_them_exactly(palace_path, settings):
    text = "\x1b[31mred alert\x1b[0m \x1b]52;c;ZXZpbA==\x07clipboard\x9b2K\rhidden\r\n\tstays stored byte for byte"
    with Palace.open(palace_path, settings=settings) as palace:
        drawer_id = palace.add_drawer(text, "wing_a", "r1").drawer_ids[0]
    shown = CliRunner().invoke(main, ["--palace", str(palace_path), "get", drawer_id])
    assert shown.exit_code == 0
    assert "\u241b[31mred alert\u241b[0m \u241b]52;c;ZXZpbA==\u2407clipboard\\x9b2K\u240dhidden" in shown.stdout
    assert not set(shown.stdout) & {"\x1b", "\x07", "\x9b"} and "\rhidden" not in shown.stdout
    exact = CliRunner().invoke(main, ["--palace", str(palace_path), "--json", "get", drawer_id])
    assert json.loads(exact.stdout)["content"] == text
    searched = CliRunner().invoke(main, ["--palace", str(palace_path), "search", "clipboard"])
    assert "\x1b" not in searched.stdout and "\x07" not in searched.stdout


BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def test_cli_shows_bidirectional_controls_and_json_keeps_them_exactly(palace_path, settings):
    text = "invoice for \u202egnp.exe\u202c paid; marks " + BIDI_CONTROLS
    with Palace.open(palace_path, settings=settings) as palace:
        drawer_id = palace.add_drawer(text, "wing_a", "r1").drawer_ids[0]
    for command in (["search", "invoice paid"], ["get", drawer_id]):
        shown = CliRunner().invoke(main, ["--palace", str(palace_path), *command])
        assert shown.exit_code == 0 and "invoice for \\u202egnp.exe\\u202c paid" in shown.stdout
        assert not set(shown.stdout) & set(BIDI_CONTROLS)
        assert "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c" in shown.stdout
    exact = CliRunner().invoke(main, ["--palace", str(palace_path), "--json", "search", "invoice paid"])
    assert json.loads(exact.stdout)[0]["content"] == text


def test_cli_refuses_non_utf8_stdin(palace_path):
    result = CliRunner().invoke(main, ["--palace", str(palace_path), "add", "--wing", "w", "--room", "r",
                                       "--file", "-"], input=b"\xff\xfe bad bytes")
    assert result.exit_code != 0 and "UTF-8" in result.output and "Traceback" not in result.output


class _Indexing:
    """A collection whose first `failures` queries fail the way a Chroma server does while it indexes."""

    def __init__(self, inner, failures: int, message: str):
        self._inner, self.failures, self.message, self.calls = inner, failures, message, 0

    def query(self, **kwargs):
        return self._answer("query", kwargs)

    def get(self, **kwargs):
        return self._answer("get", kwargs)

    def _answer(self, name, kwargs):
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError(self.message)
        return getattr(self._inner, name)(**kwargs)

    def __getattr__(self, name):
        return getattr(self._inner, name)


INDEXING = "Error creating hnsw segment reader: Nothing found on disk"


def test_a_query_during_indexing_is_retried_until_the_server_answers(palace, monkeypatch):
    palace.add_drawer("The vault seals itself after three failed unseal attempts.", "wing_ops", "vault")
    busy = _Indexing(palace._store._collection, 3, INDEXING)
    monkeypatch.setattr(palace._store, "_collection", busy)
    monkeypatch.setattr(palace._store, "mode", "server")  # only a server indexes behind our back
    assert palace.check_duplicate("The vault seals itself after three failed unseal attempts.")
    assert busy.calls == 4


def test_reading_vectors_during_indexing_is_retried_until_the_server_answers(palace, monkeypatch):
    text = "The vault seals itself after three failed unseal attempts."
    [drawer_id] = palace.add_drawer(text, "wing_ops", "vault").drawer_ids
    busy = _Indexing(palace._store._collection, 2, INDEXING)
    monkeypatch.setattr(palace._store, "_collection", busy)
    monkeypatch.setattr(palace._store, "mode", "server")
    [record] = palace._store.get([drawer_id], embeddings=True)
    assert record.document == text and record.embedding is not None
    assert busy.calls == 3


def test_an_embedded_palace_does_not_wait_on_a_broken_index(palace, monkeypatch):
    palace.add_drawer("The vault seals itself after three failed unseal attempts.", "wing_ops", "vault")
    broken = _Indexing(palace._store._collection, 1, INDEXING)
    monkeypatch.setattr(palace._store, "_collection", broken)
    with pytest.raises(PalaceUnavailableError, match="segment reader"):
        palace.check_duplicate("The vault seals itself.")
    assert broken.calls == 1


def test_other_query_failures_are_not_retried(palace, monkeypatch):
    palace.add_drawer("The vault seals itself after three failed unseal attempts.", "wing_ops", "vault")
    broken = _Indexing(palace._store._collection, 1, "disk I/O error")
    monkeypatch.setattr(palace._store, "_collection", broken)
    with pytest.raises(PalaceUnavailableError, match="disk I/O error"):
        palace.check_duplicate("The vault seals itself.")
    assert broken.calls == 1
