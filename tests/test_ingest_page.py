"""The Ingest page's uploads, run by Streamlit's AppTest: files previewed together (a conversation two
files hold counts once, as filing them does) and, once filed, where each conversation went; and the
scoped view they are filed through."""

from __future__ import annotations

from pathlib import Path

from dashboard.render import md
from mempalace import Palace
from mempalace.access.rules import full_grant
from mempalace.config import Settings
from mempalace.ingest import ingest_uploads
from mempalace.scoped.palace import ScopedPalace
from test_app import app_palace, open_page, seed
from test_ingest_places import INVOICES, _session

CHAT = (b"User: when does the harbour ferry leave on a spring tide?\n"
        b"Assistant: it waits for high water, so check the tide table first.\n")
OTHER = (b"User: how do we rotate the gpu pricing cache?\n"
         b"Assistant: rotate it nightly; the pricing job reads it at six.\n")


def test_two_uploads_holding_one_conversation_preview_it_once_and_filing_says_where_each_went(
        settings: Settings) -> None:
    seed(settings)
    at = open_page("ingest")
    for name, data in (("harbour.txt", CHAT), ("harbour-copy.txt", CHAT), ("gpu.txt", OTHER)):
        at.file_uploader[0].upload(name, data, "text/plain")
    at.run()
    at.main.button[0].click().run()
    assert not at.exception, at.exception
    assert at.subheader[0].value == "Preview: 1 already in the palace, 2 new"
    [file] = [b for b in at.button if b.label.startswith("File ")]
    assert file.label == "File 2 new drawers"
    previewed = [m.value for m in at.main.markdown if m.value.startswith("- ")]
    before = app_palace(at).count()

    file.click().run()
    assert not at.exception, at.exception
    assert app_palace(at).count() == before + 2
    [room] = app_palace(at).taxonomy()["harbour"]
    lines = [m.value for m in at.main.markdown if m.value.startswith("- ")]
    assert len(lines) == 3
    assert lines[0].startswith("- " + md(f"'harbour': 1 new drawer → wing harbour (file name), room {room}, halls "))
    assert lines[1] == "- " + md("'harbour-copy': 1 already in the palace")
    assert lines[2].startswith("- " + md("'gpu': 1 new drawer → wing gpu (file name), room "))
    assert lines == previewed  # the preview said where each would go, as filing did


def test_a_grown_session_filed_through_the_pages_scoped_view_replaces_its_shorter_version(palace: Palace,
                                                                                        tmp_path: Path) -> None:
    view = ScopedPalace(palace, full_grant("me", "dashboard"))  # the view the Ingest page and MCP file through
    first = ingest_uploads(view, [("a.jsonl", _session(tmp_path / "a.jsonl", INVOICES[:1], "s-grow").read_bytes())])
    [grown] = ingest_uploads(view, [("b.jsonl", _session(tmp_path / "b.jsonl", INVOICES, "s-grow").read_bytes())])
    assert first[0].ok and grown.ok, grown.errors
    assert grown.replaced == 1 and palace.count() == grown.added
