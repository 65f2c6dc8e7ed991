"""Filing from the Ingest page when ingest renames a room: the page writes through the scoped view,
which once lacked `rename_room`'s `chosen_by` and crashed, filing nothing (the CLI filed the file)."""

from __future__ import annotations

import pytest

from mempalace import Palace
from mempalace.config import load_settings
from mempalace.ingest import ingest_paths
from _apptest import start
from _shared import sample

pytestmark = pytest.mark.model


def test_filing_an_upload_that_renames_a_room_files_it(home, monkeypatch):
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "minilm-int8")  # the room's better name comes from the model's grouping
    codex, gemini = sample("codex_cli"), sample("gemini_cli/polylogue_gemini-cli-session.json")
    with Palace.open(settings=load_settings(home)) as palace:
        ingest_paths(palace, [codex])
        assert palace.list_rooms().get("parser") == 1

    at = start()
    at.switch_page("app_pages/ingest.py").run()
    at.file_uploader[0].upload(gemini.name, gemini.read_bytes(), "application/json")
    at.run()
    [preview] = [b for b in at.main.button if b.label == "Preview"]
    preview.click().run()
    assert not at.exception, at.exception
    [file] = [b for b in at.button if b.label.startswith("File ")]
    file.click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    palace = at.session_state["palace"]._palace
    assert palace.count() == 3
    rooms = palace.list_rooms()
    assert "parser" not in rooms and rooms.get("parser-claim") == 2  # renamed, the new drawer filed in it
    assert palace.resolve_room("parser") == "parser-claim"  # the old name still finds it
