"""The audit log is tamper-evident: each entry is chained to the one before, an edit or a deletion made
outside MemPalace (triggers dropped first) is reported by `mempalace audit` and the Audit page, a
back-dated entry is refused, and a palace whose log was deleted says so loudly. The anchor beside the
log (its newest entry's number and link) makes a rollback show too: newest entries deleted, an older
copy put back (which also refuses tokens until the owner accepts it), the anchor itself deleted."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from _apptest import close_started, start
from mempalace import Palace
from mempalace.access.rules import Actor
from mempalace.access.audit import ACCESS_FILE, AccessBook
from mempalace.cli import main
from mempalace.cli.mcp import PalaceTokens
from mempalace.errors import AccessDeniedError, InvalidInputError

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


def test_a_deleted_log_is_said_loudly_and_the_next_one_says_it_started_late_until_accepted(settings) -> None:
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
        assert palace.status().warnings == () and "deleted or emptied" in palace.access.verify().summary()
    assert CliRunner().invoke(main, ["--palace", str(folder), "audit", "--accept"]).exit_code == 0
    assert CliRunner().invoke(main, ["--palace", str(folder), "audit"]).exit_code == 0


# -- the anchor: the newest entry's number and link, kept beside the log ------------------------------

CLI = Actor("owner", "cli")


def _anchor(book: AccessBook) -> Path:
    return book.path.with_suffix(".anchor")


@pytest.mark.parametrize("unlinked, broken_at", [
    ("", 1),  # every link removed: not a log "from before chaining"
    ("WHERE seq >= 3", 3),
])
def test_links_removed_and_an_entry_edited_are_a_break(book: AccessBook, unlinked: str, broken_at: int) -> None:
    book.close()
    _tamper(book.path, f"UPDATE audit SET chain = NULL {unlinked}", "UPDATE audit SET who = 'mallory' WHERE seq = 4")
    check = book.verify()
    assert not check.intact and check.broken_at == broken_at and "has no link" in check.summary(), check.summary()


def test_the_newest_entries_deleted_and_the_numbering_reset_show(book: AccessBook) -> None:
    book.close()
    _tamper(book.path, "DELETE FROM audit WHERE seq >= 3", "UPDATE sqlite_sequence SET seq = 2 WHERE name = 'audit'")
    check = book.verify()
    assert not check.intact and "ends at entry 2" in check.summary() and "up to 4" in check.summary(), check.summary()


def test_an_older_copy_put_back_shows_refuses_tokens_and_is_accepted_only_on_purpose(book: AccessBook,
                                                                                   tmp_path: Path) -> None:
    _, secret = book.create_token(CLI, "editor", name="ci-bot")
    _, other = book.create_token(CLI, "viewer", name="reader")
    book.close()  # the WAL is folded into the file, so a copy of the file is the whole book
    shutil.copy(book.path, tmp_path / "older.sqlite3")
    book.revoke_token(CLI, "ci-bot")
    book.close()
    shutil.copy(tmp_path / "older.sqlite3", book.path)  # the revocation is gone from the book
    check = book.verify()
    assert not check.intact and "older copy" in check.summary() and "--accept" in check.summary(), check.summary()
    assert book.verify_token(secret) is None  # the anchor remembers the revocation
    with pytest.raises(AccessDeniedError, match="older copy"):
        book.verify_token(other)  # and every other token waits until the owner has looked
    book.record(ANN, "add", ["d9"])  # a later write does not paper over the break
    assert not book.verify().intact and "older copy" in book.verify().summary()
    problem, revoked_again = book.accept(CLI)
    assert "older copy" in problem and revoked_again == ["ci-bot"]
    assert book.verify().intact and book.verify_token(secret) is None and book.verify_token(other).name == "reader"
    newest = book.entries()[0]
    assert newest.action == "log-accepted" and newest.who == "owner" and newest.detail["revoked_again"] == ["ci-bot"]
    with pytest.raises(InvalidInputError, match="nothing to accept"):
        book.accept(CLI)


def test_a_crash_before_the_first_anchor_is_written_is_no_break(tmp_path: Path, monkeypatch) -> None:
    """The first anchored entry is committed before its anchor is written: a process that dies (or whose
    anchor write fails) in between leaves a log that is still whole, and tokens keep working."""
    from mempalace.access import audit

    fresh = AccessBook(tmp_path / ACCESS_FILE)

    def dies(*args, **kwargs):
        raise OSError("killed between the commit and the anchor")

    monkeypatch.setattr(audit, "write_anchor", dies)
    with pytest.raises(OSError):
        fresh.record(ANN, "add", ["d0"])
    monkeypatch.undo()
    assert not _anchor(fresh).exists()
    assert fresh.verify().intact, fresh.verify().summary()
    fresh.record(ANN, "add", ["d1"])
    assert fresh.verify().intact and _anchor(fresh).exists(), fresh.verify().summary()
    fresh.close()


def test_a_deleted_anchor_is_reported_and_not_made_anew_as_intact(book: AccessBook) -> None:
    _anchor(book).unlink()
    assert not book.verify().intact and "anchor" in book.verify().summary()
    book.record(ANN, "add", ["d9"])
    assert not book.verify().intact and "deleted" in book.verify().summary(), book.verify().summary()
    assert stat.S_IMODE(_anchor(book).stat().st_mode) == 0o600


def test_a_symlink_in_the_anchors_place_is_reported_and_never_written_through(book: AccessBook,
                                                                               tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not yours")
    _anchor(book).unlink()
    _anchor(book).symlink_to(elsewhere)
    assert not book.verify().intact and "anchor" in book.verify().summary()
    book.record(ANN, "add", ["d9"])
    assert elsewhere.read_text() == "not yours" and not _anchor(book).is_symlink()
    assert not book.verify().intact


def test_a_log_from_before_chaining_stays_intact_and_is_anchored_by_its_next_write(tmp_path: Path) -> None:
    older = AccessBook(tmp_path / ACCESS_FILE)
    for n in range(2):
        older.record(ANN, "add", [f"d{n}"])
    older.close()
    _tamper(older.path, "UPDATE audit SET chain = NULL", "DROP TABLE IF EXISTS audit_anchored")
    _anchor(older).unlink()
    assert older.verify().intact and older.verify().unchained == 2
    older.record(ANN, "add", ["d2"])
    assert older.verify().intact and older.verify().unchained == 2 and _anchor(older).exists()
    older.close()


def test_appends_from_several_processes_leave_the_anchor_on_the_newest_entry(book: AccessBook) -> None:
    script = ("import sys; from mempalace.access.audit import AccessBook; from mempalace.access.rules import Actor\n"
              "book = AccessBook(sys.argv[1])\n"
              "for n in range(40): book.record(Actor('w' + sys.argv[2], 'cli'), 'add', [f'd{n}'])\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    writers = [subprocess.Popen([sys.executable, "-c", script, str(book.path), str(w)], env=env) for w in range(3)]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    check = book.verify()
    assert check.intact and check.entries == 4 + 3 * 40, check.summary()
    assert json.loads(_anchor(book).read_text())["seq"] == book.entries(limit=1)[0].seq


def test_a_removed_log_is_never_called_intact(settings) -> None:
    folder = settings.home / "palace"
    with Palace.open(folder, settings=settings) as palace:
        palace.add_drawer("Kai moved the login to OIDC.", "wing_kai", "auth-migration")
    (folder / ACCESS_FILE).unlink()
    CliRunner().invoke(main, ["--palace", str(folder), "token", "list"])  # a read makes no empty log
    result = CliRunner().invoke(main, ["--palace", str(folder), "audit"])
    assert result.exit_code == 1 and "missing" in result.stderr and "intact" not in result.stderr, result.stderr


def test_a_removed_log_without_drawers_is_found_by_its_anchor(book: AccessBook) -> None:
    book.close()
    book.path.unlink()
    check = book.verify()
    assert not check.intact and "missing" in check.summary() and "up to 4" in check.summary(), check.summary()


def test_the_cli_the_page_and_mcp_show_a_rollback_and_audit_accept_ends_it(settings, tmp_path: Path,
                                                                          capsys) -> None:
    folder = settings.home / "palace"
    run = lambda *args: CliRunner().invoke(main, ["--palace", str(folder), *args])  # noqa: E731
    with Palace.open(folder, settings=settings) as palace:
        palace.add_drawer("Kai moved the login to OIDC.", "wing_kai", "auth-migration")
        _, secret = palace.access.create_token(CLI, "viewer", name="ci-bot")
        _, other = palace.access.create_token(CLI, "viewer", name="reader")
    shutil.copy(folder / ACCESS_FILE, tmp_path / "older.sqlite3")
    assert run("token", "revoke", "ci-bot").exit_code == 0
    shutil.copy(tmp_path / "older.sqlite3", folder / ACCESS_FILE)
    found = run("audit")
    assert found.exit_code == 1 and "older copy" in found.stderr, found.stderr
    at = start()
    at.switch_page("app_pages/audit.py").run()
    assert any("older copy" in e.value for e in at.error), [e.value for e in at.error]
    close_started()
    with Palace.open(folder, settings=settings) as palace:
        with ThreadPoolExecutor(1) as pool:  # a fresh event loop: the page's run may have left one in this thread
            assert pool.submit(anyio.run, PalaceTokens(palace).verify_token, other).result() is None
    assert "older copy" in capsys.readouterr().err  # where tokens are checked, the reason is said
    accepted = run("audit", "--accept")
    assert accepted.exit_code == 0 and "ci-bot" in accepted.stdout and "intact" in accepted.stderr, accepted.output
    with Palace.open(folder, settings=settings) as palace:
        assert palace.access.verify_token(secret) is None and palace.access.verify_token(other).name == "reader"
        assert palace.access.verify().intact
