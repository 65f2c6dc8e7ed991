"""Ingest under stress: failures in a batch, grown and older copies of a conversation, odd files."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main
from mempalace.errors import PalaceUnavailableError
from mempalace.ingest import ingest, ingest_paths


def _claude_export(path: Path, questions: int, broken: bool = False, repeats: int = 12) -> Path:
    """A Claude.ai export with one conversation of `questions` exchanges (plus a broken one)."""
    messages = []
    for i in range(questions):
        messages += [{"sender": "human", "text": f"Question {i}: how do we size the {i} ledger shards?"},
                     {"sender": "assistant", "text": f"Answer {i}: " + "split the ledger by tenant. " * repeats}]
    conversations = [{"uuid": "conv-x", "name": "Ledger", "chat_messages": messages}]
    if broken:
        conversations.append({"uuid": "conv-y", "name": "Broken", "chat_messages": "not a list"})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(conversations), encoding="utf-8")
    return path


def _stored_text(palace: Palace) -> str:
    hits = palace.search("ledger question answer", limit=1000, mode="vector")
    return "\n".join(h.content for h in hits)


def test_a_failing_file_never_costs_text_that_was_stored(palace: Palace, tmp_path: Path) -> None:
    ingest(palace, _claude_export(tmp_path / "v1" / "conversations.json", 2))
    _claude_export(tmp_path / "batch" / "a" / "conversations.json", 4, broken=True)
    _claude_export(tmp_path / "batch" / "b" / "conversations.json", 6)
    reports = ingest_paths(palace, [tmp_path / "batch"])
    assert [bool(r.errors) for r in reports] == [True, False]
    text = _stored_text(palace)
    assert all(f"Question {i}:" in text for i in range(6))


def test_two_versions_of_a_conversation_in_one_run_are_stored_once(palace: Palace, tmp_path: Path,
                                                                   settings) -> None:
    _claude_export(tmp_path / "batch" / "2024-02" / "conversations.json", 2)
    newest = _claude_export(tmp_path / "batch" / "2024-03" / "conversations.json", 5)
    ingest_paths(palace, [tmp_path / "batch"])
    with Palace.open(tmp_path / "fresh", settings=settings) as fresh:
        ingest(fresh, newest)
        assert palace.count() == fresh.count()


def test_an_older_copy_after_the_newer_one_adds_nothing(palace: Palace, tmp_path: Path) -> None:
    ingest(palace, _claude_export(tmp_path / "new" / "conversations.json", 5))
    count = palace.count()
    older = ingest(palace, _claude_export(tmp_path / "old" / "conversations.json", 2))
    assert older.ok and older.added == 0 and palace.count() == count


def test_when_removing_replaced_drawers_fails_both_versions_stay(palace: Palace, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ingest(palace, _claude_export(tmp_path / "v1" / "conversations.json", 1, repeats=2))
    before = palace.count()

    def refuse(self, ids, what=None, to_trash=True):
        raise PalaceUnavailableError("server went away")

    monkeypatch.setattr(Palace, "delete_drawers", refuse)
    grown = ingest(palace, _claude_export(tmp_path / "v2" / "conversations.json", 2, repeats=2))
    assert grown.ok and grown.added >= 1 and grown.replaced == 0 and "kept" in grown.notes[0]
    assert palace.count() == before + grown.added


def test_a_lone_surrogate_becomes_a_replacement_character(palace: Palace, tmp_path: Path) -> None:
    record = '{"type": "user", "sessionId": "s", "message": {"role": "user", "content": "cut emoji \\ud83d here"}}\n'
    (tmp_path / "s.jsonl").write_text(record, encoding="utf-8")
    report = ingest(palace, tmp_path / "s.jsonl")
    assert report.ok and "cut emoji \ufffd here" in palace.get_drawer(report.drawer_ids[0]).content


def test_renaming_unlabelled_notes_adds_nothing(palace: Palace, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("We decided to shard the ledger by tenant.\n", encoding="utf-8")
    first = ingest(palace, tmp_path / "notes.md")
    again = ingest(palace, (tmp_path / "notes.md").read_bytes(), filename="ledger-notes.md")
    assert first.added == 1 and again.added == 0
    assert palace.get_drawer(first.drawer_ids[0]).content == "We decided to shard the ledger by tenant."


def test_a_downloaded_export_zip_is_read_through(palace: Palace, tmp_path: Path) -> None:
    inner = _claude_export(tmp_path / "x" / "conversations.json", 1)
    with zipfile.ZipFile(tmp_path / "data-2026.zip", "w") as archive:
        archive.write(inner, "conversations.json")
        archive.writestr("users.csv", "id\n1\n")
    report = ingest(palace, tmp_path / "data-2026.zip")
    assert report.ok and report.format == "claude_ai" and report.added == 1


def test_folders_skip_what_is_not_a_transcript_and_odd_files_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    _claude_export(folder / "conversations.json", 1)
    (folder / "settings.json").write_text('{"theme": "dark"}', encoding="utf-8")
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    result = CliRunner().invoke(main, ["--palace", str(tmp_path / "p"), "ingest", str(folder)])
    assert result.exit_code == 0, result.output
    assert "settings.json: skipped, not a transcript" in result.stdout and "1 skipped." in result.stdout
    refused = CliRunner().invoke(main, ["--palace", str(tmp_path / "p"), "ingest", str(fifo)])
    assert refused.exit_code == 1 and "not a regular file" in refused.stderr


def test_a_damaged_zip_member_and_a_folder_read_as_a_file_format_are_clear_errors(palace: Palace,
                                                                                   tmp_path: Path) -> None:
    good = tmp_path / "export.zip"
    with zipfile.ZipFile(good, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", json.dumps([{"uuid": "u", "chat_messages": []}]) * 50)
    data = bytearray(good.read_bytes())
    data[60:70] = b"\xff" * 10  # inside the compressed member
    report = ingest(palace, bytes(data), filename="export.zip")
    assert not report.ok and "export.zip" in report.errors[0] and palace.count() == 0
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "a.txt").write_text("hello", encoding="utf-8")
    folder = ingest(palace, tmp_path / "dir", format_name="claude_code")
    assert "is a folder" in folder.errors[0]


def test_rooms_survive_sequences_and_unspaced_scripts(palace: Palace, tmp_path: Path) -> None:
    dna = "User: " + "ACGT" * 60 + " is the read\n\nAssistant: " + "GATTACA" * 40 + "\n"
    (tmp_path / "dna.txt").write_text(dna, encoding="utf-8")
    (tmp_path / "cjk.txt").write_text("User: 明天的会议上午十点开始在三楼会议室请大家准时参加不要迟到谢谢大家的配合\n\n"
                                      "Assistant: 好的\n", encoding="utf-8")
    for name in ("dna.txt", "cjk.txt"):
        report = ingest(palace, tmp_path / name)
        assert report.ok and all(len(room) <= 100 for room in report.rooms)
