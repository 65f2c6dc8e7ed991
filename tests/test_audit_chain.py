"""The audit log is tamper-evident: each entry is chained to the one before, an edit or a deletion made
outside MemPalace (triggers dropped first) is reported by `mempalace audit` and the Audit page, a
back-dated entry is refused, and a palace whose log was deleted says so loudly."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from _apptest import start
from mempalace import Palace
from mempalace.access import Actor
from mempalace.audit import ACCESS_FILE, AccessBook
from mempalace.cli import main

ANN = Actor("ann@example.com", "dashboard")


def _tamper(path: Path, *statements: str) -> None:
    """What someone with the file does: drop the triggers, then change the log."""
    db = sqlite3.connect(str(path), isolation_level=None)
    try:
        for trigger in ("audit_no_update", "audit_no_delete", "audit_no_replace", "audit_newest_only"):
            db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        for statement in statements:
            db.execute(statement)
    finally:
        db.close()


@pytest.fixture
def book(tmp_path: Path):
    opened = AccessBook(tmp_path / ACCESS_FILE)
    for n in range(4):
        opened.record(ANN, "add", [f"d{n}"], wing="wing_kai")
    yield opened
    opened.close()


def test_an_untouched_log_is_intact_and_keeps_its_chain_as_it_grows(book: AccessBook) -> None:
    assert book.verify().intact and book.verify().entries == 4
    book.record(ANN, "delete", ["d0"])
    assert book.verify().intact and book.verify().entries == 5


@pytest.mark.parametrize("change, found", [
    ("UPDATE audit SET who = 'mallory@example.com' WHERE seq = 2", "entry 2"),
    ("UPDATE audit SET ids = '[]' WHERE seq = 4", "entry 4"),
    ("DELETE FROM audit WHERE seq = 2", "entries 2 to 2 are missing"),
    ("DELETE FROM audit WHERE seq >= 3", "newest entries (from 3 to 4) were deleted"),
])
def test_an_edit_or_a_deletion_outside_mempalace_is_found(book: AccessBook, change: str, found: str) -> None:
    book.close()
    _tamper(book.path, change)
    check = book.verify()
    assert not check.intact and found in check.summary(), check.summary()


def test_a_back_dated_entry_is_refused_with_the_triggers_in_place(book: AccessBook) -> None:
    db = sqlite3.connect(str(book.path), isolation_level=None)
    try:
        db.execute("INSERT INTO audit (seq, at, who, via, action, drawers, ids, detail) VALUES "
                   "(100, '2030-01-01', 'x', 'cli', 'add', 0, '[]', '{}')")  # a newest one goes in (and is found)
        for seq, at in ((50, "2030-01-02"), (101, "2000-01-01T00:00:00+00:00")):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                db.execute("INSERT INTO audit (seq, at, who, via, action, drawers, ids, detail) VALUES "
                           f"({seq}, '{at}', 'mallory', 'cli', 'add', 1, '[\"d9\"]', '{{}}')")
    finally:
        db.close()
    assert not book.verify().intact  # the forged newest one has no valid link and leaves a gap


def test_the_cli_and_the_audit_page_report_a_changed_log(tmp_path: Path, settings) -> None:
    folder = settings.home / "palace"
    with Palace.open(folder, settings=settings) as palace:
        palace.add_drawer("Kai moved the login to OIDC.", "wing_kai", "auth-migration")
        palace.add_drawer("Priya compared GPU prices.", "wing_priya", "gpu-pricing")
    intact = CliRunner().invoke(main, ["--palace", str(folder), "audit"])
    assert intact.exit_code == 0 and "intact" in intact.stderr
    _tamper(folder / ACCESS_FILE, "UPDATE audit SET who = 'mallory' WHERE seq = 1")
    changed = CliRunner().invoke(main, ["--palace", str(folder), "audit"])
    assert changed.exit_code == 1 and "changed outside MemPalace" in changed.stderr
    at = start()
    at.switch_page("app_pages/audit.py").run()
    assert not at.exception, at.exception
    assert any("changed outside MemPalace" in e.value for e in at.error)


def test_a_deleted_log_is_said_loudly_and_the_next_one_says_it_started_late(settings) -> None:
    folder = settings.home / "palace"
    with Palace.open(folder, settings=settings) as palace:
        palace.add_drawer("Kai moved the login to OIDC.", "wing_kai", "auth-migration")
        assert palace.status().warnings == ()
    (folder / ACCESS_FILE).unlink()
    status = CliRunner().invoke(main, ["--palace", str(folder), "status"])
    assert "audit log and tokens" in status.stdout and "missing" in status.stdout
    assert CliRunner().invoke(main, ["--palace", str(folder), "audit"]).exit_code == 1
    with Palace.open(folder, settings=settings) as palace:
        palace.add_drawer("Priya compared GPU prices.", "wing_priya", "gpu-pricing")
        first = palace.access.entries()[-1]
        assert first.action == "log-start" and first.detail == {"drawers_already": 1}
        assert palace.status().warnings == () and palace.access.verify().intact
