"""The wing a synced source files into: plain text that names no project goes to one wing named after
the source (not one wing per file) unless the source asks for a wing per file; adding a source says how
the wing is chosen."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main
from mempalace.errors import InvalidInputError
from mempalace.sources.sync import book_of, file_transcript, sync_sources
from test_sources import session

TOPICS = ("ferry", "tides", "lighthouse")


def chats(folder: Path) -> Path:
    """A folder of plain-text chats, one file each, and a Claude Code session in a subfolder."""
    folder.mkdir(parents=True)
    for topic in TOPICS:
        (folder / f"{topic}.txt").write_text(f"User: what changes the {topic} timetable in winter?\n\n"
                                             f"Assistant: the {topic} timetable follows the winter storms.\n",
                                             encoding="utf-8")
    session(folder / "sessions" / "s.jsonl", 1)  # its project: lighthouse
    return folder


def test_plain_text_chats_of_a_source_go_to_one_wing_named_after_the_source(palace: Palace, tmp_path: Path) -> None:
    entry = book_of(palace).add(chats(tmp_path / "Winter Chats"))
    [report] = sync_sources(palace)
    assert report.files_changed == 4 and not report.errors
    assert palace.list_wings() == {"winter_chats": 3, "lighthouse": 1}  # the session keeps its project's wing
    assert (entry.name, entry.text_wing, entry.wing_per_file) == ("winter-chats", "winter_chats", False)


def test_a_source_asked_for_a_wing_per_file_names_one_after_each_file(palace: Palace, tmp_path: Path) -> None:
    book_of(palace).add(chats(tmp_path / "chats"), wing_per_file=True)
    sync_sources(palace)
    assert palace.list_wings() == {"ferry": 1, "tides": 1, "lighthouse": 2}  # lighthouse.txt and the session


def test_a_forced_wing_wins_and_asking_for_both_is_refused(palace: Palace, tmp_path: Path) -> None:
    folder = chats(tmp_path / "chats")
    with pytest.raises(InvalidInputError, match="not both"):
        book_of(palace).add(folder, wing="harbour", wing_per_file=True)
    assert book_of(palace).entries() == []
    book_of(palace).add(folder, wing="harbour")
    sync_sources(palace)
    assert palace.list_wings() == {"harbour": 4}


def test_a_hook_files_a_text_file_of_a_source_into_the_sources_wing(palace: Palace, tmp_path: Path) -> None:
    folder = chats(tmp_path / "chats")
    book_of(palace).add(folder)
    report = file_transcript(palace, folder / "ferry.txt")
    assert report.ok and report.wings == ("chats",)


def test_a_book_written_before_wings_per_file_reads_as_one_wing_per_source(palace: Palace, tmp_path: Path) -> None:
    book = book_of(palace)
    with sqlite3.connect(book.path) as db:  # the sources table as older versions wrote it
        db.execute("CREATE TABLE sources(name TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, wing TEXT, format TEXT, "
                   "added_at TEXT NOT NULL, added_by TEXT NOT NULL DEFAULT '', last_sync TEXT, last_added INTEGER "
                   "NOT NULL DEFAULT 0, last_conversations INTEGER NOT NULL DEFAULT 0, last_new_at TEXT, "
                   "last_new_conversations INTEGER NOT NULL DEFAULT 0, last_error TEXT NOT NULL DEFAULT '')")
        db.execute("INSERT INTO sources(name, path, added_at) VALUES ('old', ?, 'then')", (str(chats(tmp_path / "c")),))
    [entry] = book.entries()
    assert (entry.name, entry.wing_per_file, entry.text_wing, entry.errors) == ("old", False, "old", ())


def test_sources_add_and_list_say_how_the_wing_is_chosen(tmp_path: Path) -> None:
    run = lambda *args: CliRunner().invoke(main, ["--palace", str(tmp_path / "p"), *args])  # noqa: E731
    folder = chats(tmp_path / "chats")
    added = run("sources", "add", str(folder))
    assert added.exit_code == 0, added.output
    assert ("Wing: chosen per conversation: a coding tool's session goes to its project's wing, an export to its "
            "service's or workspace's, and plain text to wing chats, the source's name (`--wing-per-file` gives "
            "each text file a wing of its own).") in added.output
    per_file = run("sources", "add", str(folder / "ferry.txt"), "--name", "ferry", "--wing-per-file")
    assert "and plain text to a wing named after its file." in per_file.output
    forced = run("sources", "add", str(folder / "tides.txt"), "--wing", "Harbour")
    assert "Wing: everything from it goes to wing harbour." in forced.output
    both = run("sources", "add", str(folder / "lighthouse.txt"), "--wing", "x", "--wing-per-file")
    assert both.exit_code == 1 and "not both" in both.output
    listed = run("sources", "list").output
    assert "wing per conversation (plain text: chats);" in listed
    assert "wing per conversation (plain text: one per file);" in listed and "wing harbour;" in listed
    assert [e["wing_per_file"] for e in json.loads(run("--json", "sources", "list").output)] == [False, True, False]
