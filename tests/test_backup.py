"""Backups (mempalace.archive.backup) and portable exports (mempalace.archive.portable): a backup is whole or absent,
verifies against its manifest, and restores into a palace that answers the same searches; an export
imports into any palace exactly as written."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.archive.backup import prune_daily, restore_backup, verify_backup, write_backup
from mempalace.cli import main
from mempalace.cli.backup_timer import BackupTimer
from mempalace.errors import InvalidInputError, MempalaceError
from mempalace.models import DrawerDraft
from mempalace.archive.portable import export_lines, import_lines

NOTES = [(f"n-{i:02}", f"Note {i}: the {('postgres', 'cat', 'budget')[i % 3]} story, part {i}.",
          f"wing_{'abc'[i % 3]}", ("db", "pets", "money")[i % 3]) for i in range(24)]


def seed(palace: Palace) -> None:
    palace.file_drawers([DrawerDraft(i, text, wing, room, "hall_facts" if i.endswith("1") else None, "/n.md", 0,
                                     f"p-{i}", {"conversation_date": "2026-01-02"}) for i, text, wing, room in NOTES])
    palace.delete_where(room="pets")
    palace.update_drawer("n-00", room="database")


def ranked(palace: Palace, query: str) -> list[tuple[str, float]]:
    return [(h.drawer_id, round(h.score, 5)) for h in palace.search(query, limit=10)]


def test_a_backup_restores_into_a_palace_that_answers_the_same_searches(palace, palace_path, settings, tmp_path):
    seed(palace)
    answers, trash, changes = ranked(palace, "postgres story"), palace.trash_list(), palace.change_list()
    report = write_backup(palace, tmp_path / "bk")
    assert (report.drawers, report.trashed, report.embedder) == (16, 8, "hash")
    assert sorted(os.listdir(tmp_path / "bk")) == ["access.anchor", "access.sqlite3", "changes.sqlite3", "drawers.jsonl",
                                                   "manifest.json", "trash.jsonl", "vectors.f32"]
    assert verify_backup(tmp_path / "bk").problems == ()
    restored = restore_backup(tmp_path / "bk", tmp_path / "again", settings)
    assert restored.drawers == 16 and not list(tmp_path.glob(".again*"))
    with Palace.open(tmp_path / "again", settings=settings) as again:
        assert ranked(again, "postgres story") == answers
        assert [t.drawer.id for t in again.trash_list()] == [t.drawer.id for t in trash]
        assert [c.id for c in again.change_list()] == [c.id for c in changes]
        assert again.access.verify().intact and again.get_drawer("n-11").hall == "hall_facts"
        assert again.undo().action == "move" and again.get_drawer("n-00").room == "db"
        assert again.restore_change(trash[0].change).restored  # the trash came back whole


def test_a_damaged_backup_does_not_verify_and_is_not_restored(palace, settings, tmp_path):
    seed(palace)
    write_backup(palace, tmp_path / "bk")
    with (tmp_path / "bk" / "drawers.jsonl").open("a", encoding="utf-8") as f:
        f.write("\n")
    assert verify_backup(tmp_path / "bk").problems == ("drawers.jsonl differs from what was written",)
    with pytest.raises(InvalidInputError, match="does not verify"):
        restore_backup(tmp_path / "bk", tmp_path / "again", settings)
    assert not (tmp_path / "again").exists()
    with pytest.raises(InvalidInputError, match="not a MemPalace backup"):
        verify_backup(tmp_path)


def test_a_restore_never_overwrites_a_palace_unless_asked_and_then_moves_it_aside(palace, palace_path, settings, tmp_path):
    seed(palace)
    write_backup(palace, tmp_path / "bk")
    palace.close()
    with pytest.raises(InvalidInputError, match="holds a palace"):
        restore_backup(tmp_path / "bk", palace_path, settings)
    restore_backup(tmp_path / "bk", palace_path, settings, replace=True)
    [aside] = tmp_path.glob("palace.before-restore-*")
    assert (aside / "chroma.sqlite3").is_file()
    with Palace.open(palace_path, settings=settings) as again:
        assert again.count() == 16


def test_a_backup_is_whole_or_absent(palace, tmp_path, monkeypatch):
    seed(palace)
    with pytest.raises(InvalidInputError, match="exists already"):
        write_backup(palace, tmp_path)
    markers = iter(range(100))
    monkeypatch.setattr(palace, "write_marker", lambda: next(markers))  # a palace written to without pause
    with pytest.raises(MempalaceError, match="changed during each"):
        write_backup(palace, tmp_path / "bk")
    assert not (tmp_path / "bk").exists() and not list(tmp_path.glob(".bk*"))
    seen = iter([1, 2, 3, 3])  # a write landed during the first read only: read again
    monkeypatch.setattr(palace, "write_marker", lambda: next(seen))
    assert write_backup(palace, tmp_path / "bk").drawers == 16


def test_an_export_imports_exactly_and_its_vectors_are_kept_or_made_anew(palace, settings, tmp_path):
    seed(palace)
    out = io.StringIO()
    assert export_lines(palace, out, wing="wing_a", vectors=True) == 8
    lines = out.getvalue().splitlines()
    first = json.loads(lines[0])
    assert set(first) >= {"id", "content", "wing", "room", "hall", "filed_at", "conversation_date", "metadata", "vector"}
    with Palace.open(tmp_path / "same", settings=settings) as same:
        assert import_lines(same, lines).added == 8
        assert import_lines(same, lines).present == 8  # again: nothing twice
        theirs = {r.id: r for page in same.all_records() for r in page}
        ours = {r.id: r for page in palace.all_records() for r in page}
        for drawer_id, record in theirs.items():
            assert record.document == ours[drawer_id].document
            assert np.allclose(record.embedding, ours[drawer_id].embedding, atol=1e-6)
            assert {k: v for k, v in record.metadata.items() if k != "mp_seq"} == \
                {k: v for k, v in ours[drawer_id].metadata.items() if k != "mp_seq"}
    wide = dataclasses.replace(settings, embedder="hash-512", embedder_chosen=True)
    with Palace.open(tmp_path / "wide", settings=wide) as other:
        report = import_lines(other, lines, wing="wing_elsewhere")
        assert (report.added, report.embedded) == (8, 8) and set(other.list_wings()) == {"wing_elsewhere"}
        with pytest.raises(InvalidInputError, match="Line 2 is not a drawer"):
            import_lines(other, [lines[0], "{not json", lines[1]])
        assert other.count() == 8


def test_daily_backups_keep_the_newest_and_the_host_starts_one_when_none_is_a_day_old(tmp_path, monkeypatch):
    for day in ("20261201", "20261202", "20261203"):
        (tmp_path / f"mempalace-backup-{day}-000000").mkdir()
        (tmp_path / f"mempalace-backup-{day}-000000" / "manifest.json").write_text("{}")
    gone = prune_daily(tmp_path, 2)
    assert [p.name for p in gone] == ["mempalace-backup-20261201-000000"]
    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: started.append(args))
    BackupTimer(tmp_path / "palace", 0, tmp_path, first_look=0).tick()
    assert started == []  # backups_keep 0: never
    timer = BackupTimer(tmp_path / "palace", 3, tmp_path, first_look=0)
    timer.tick()
    assert started and started[0][-3:-1] == ["backup", "--daily"] and "/daily-palace/" in started[0][-1]


def test_the_cli_backs_up_verifies_and_restores(palace_path, settings, tmp_path):
    with Palace.open(palace_path, settings=settings) as palace:
        seed(palace)
    run = CliRunner().invoke
    made = run(main, ["--palace", str(palace_path), "backup", str(tmp_path / "bk")])
    assert made.exit_code == 0 and made.output.startswith("Backed up 16 drawers (8 in the trash) to ")
    checked = run(main, ["backup", "--verify", str(tmp_path / "bk"), "--json"])
    assert checked.exit_code == 0 and json.loads(checked.output)["problems"] == []
    back = run(main, ["--palace", str(tmp_path / "new"), "restore", str(tmp_path / "bk")])
    assert back.exit_code == 0 and back.output.startswith("Restored 16 drawers (8 in the trash, embedder hash")
    again = run(main, ["--palace", str(tmp_path / "new"), "restore", str(tmp_path / "bk")])
    assert again.exit_code == 1 and "ask to replace it" in again.output
    exported = run(main, ["--palace", str(tmp_path / "new"), "export", "-"])
    assert exported.exit_code == 0 and len(exported.output.splitlines()) == 16
    (tmp_path / "all.jsonl").write_text(exported.output, encoding="utf-8")
    imported = run(main, ["--palace", str(tmp_path / "third"), "import", str(tmp_path / "all.jsonl")])
    assert imported.output == "Imported 16 drawers (0 already in the palace; 16 embedded anew).\n"


def test_a_killed_backups_leftover_is_cleared_by_the_next_one(palace, tmp_path):
    seed(palace)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (tmp_path / f".bk.partial-{dead.pid}").mkdir()
    (tmp_path / f".other.partial-{os.getpid()}").mkdir()  # a live process's: left alone
    write_backup(palace, tmp_path / "bk2")
    shown = sorted(p.name for p in tmp_path.iterdir() if p.name not in ("palace", "home"))
    assert shown == [f".other.partial-{os.getpid()}", "bk2"]


@pytest.mark.model
def test_with_the_real_model_a_restored_backup_and_an_undone_delete_search_as_before(model_palace, settings, tmp_path):
    palace = model_palace
    seed(palace)
    answers = ranked(palace, "the budget story")
    done = palace.delete_where(wing="wing_c")
    assert ranked(palace, "the budget story") != answers
    palace.undo(done.change)
    assert ranked(palace, "the budget story") == answers  # same ids, same scores
    write_backup(palace, tmp_path / "bk")
    restore_backup(tmp_path / "bk", tmp_path / "again", dataclasses.replace(settings, embedder="minilm-int8"))
    with Palace.open(tmp_path / "again", settings=settings) as again:
        assert again.settings.embedder == "minilm-int8" and ranked(again, "the budget story") == answers


def test_replacing_a_palace_in_use_is_refused_and_changes_nothing(palace, palace_path, settings, tmp_path):
    seed(palace)
    write_backup(palace, tmp_path / "bk")  # the palace stays open: its lock is held
    from mempalace.errors import PalaceBusyError

    with pytest.raises(PalaceBusyError):
        restore_backup(tmp_path / "bk", palace_path, settings, replace=True)
    assert palace.count() == 16 and not list(tmp_path.glob("*before-restore*")) and not list(tmp_path.glob(".*restoring*"))


def test_an_import_takes_a_drawer_without_a_wing_and_refuses_bad_ids_and_vectors_first(palace, settings):
    good = json.dumps({"id": "x-1", "content": "no wing here", "wing": None, "room": None})
    assert import_lines(palace, [good]).added == 1 and palace.get_drawer("x-1").wing == "unsorted"
    for bad in ({"id": " x-2", "content": "a"}, {"id": "", "content": "a"},
                {"id": "x-3", "content": "a", "vector": [float("nan")] * 3, "embedder": "hash"}):
        with pytest.raises(InvalidInputError, match="Line 2"):
            import_lines(palace, [good.replace("x-1", "x-9"), json.dumps(bad)])
    assert palace.count() == 1
    kept = import_lines(palace, [json.dumps({"id": "x-4", "content": "b", "metadata": {"chroma:document": "z"}})])
    assert kept.added == 1 and "chroma:document" not in palace.get_drawer("x-4").extra


def test_an_export_to_standard_output_ends_cleanly(palace_path, settings, home):
    with Palace.open(palace_path, settings=settings) as palace:
        seed(palace)
    done = subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(palace_path), "export", "-"],
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0 and done.stderr == "" and len(done.stdout.splitlines()) == 16
