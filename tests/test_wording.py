"""Counts with their nouns, as people write them: `1 drawer`, `2 drawers`, never `1 drawers`, in the
CLI's and the dashboard's messages alike, all through `mempalace.text.counts.counted`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mempalace.access.audit import AuditCheck
from mempalace.catalog.build_progress import BuildProgress
from mempalace.cli.sources import _entry_text
from mempalace.catalog.source_book import SourceEntry
from mempalace.sources.sync import SyncReport
from mempalace.text.counts import counted

ROOT = Path(__file__).resolve().parents[1]
# A count written straight before a plural noun in an f-string, e.g. f"{n} drawers": wrong when n is 1
# ("files it" is the verb).
BARE_COUNT = re.compile(r"\{[^{}]+\}\s+(?:new |more |older )?"
                        r"(drawers|conversations|rooms|wings|files|sources|halls|tunnels|entries|tokens|messages)\b(?! it\b)")


@pytest.mark.parametrize(("n", "one", "shown"), [
    (0, "drawer", "0 drawers"), (1, "drawer", "1 drawer"), (2, "drawer", "2 drawers"), (1234, "drawer", "1,234 drawers"),
    (1, "entry", "1 entry"), (3, "entry", "3 entries"), (2, "close match", "2 close matches"), (2, "day", "2 days"),
    (1, "new conversation", "1 new conversation"), (5, "new conversation", "5 new conversations"),
])
def test_a_count_takes_the_singular_only_for_one(n, one, shown):
    assert counted(n, one) == shown


def test_a_sync_of_one_file_reads_in_the_singular():
    report = SyncReport(source="notes", files_seen=1, files_changed=1, added=1, new_conversations=1)
    assert report.summary() == "notes: 1 file, 1 new or changed, 1 drawer added from 1 conversation."
    assert SyncReport(source="notes", files_seen=2, added=3, new_conversations=2).summary() == (
        "notes: 2 files, 0 new or changed, 3 drawers added from 2 conversations.")


def test_a_source_listed_with_one_file_and_one_drawer_reads_in_the_singular():
    entry = SourceEntry(name="notes", path="/tmp/notes", wing=None, format=None, added_at="", added_by="",
                        last_sync="2026-01-01T10:00:00Z", last_added=1, last_conversations=1, last_new_at=None,
                        last_new_conversations=0, files_seen=1, files_gone=0, errors=(), wing_per_file=False)
    text = _entry_text(entry)
    assert "1 drawer added" in text and text.endswith("; 1 file")


def test_the_audit_check_and_the_catalog_build_read_in_the_singular():
    assert AuditCheck(entries=1, unchained=1).summary() == (
        "The audit log is intact: 1 entry, each chained to the one before (1 older entry from before the log "
        "was chained).")
    assert BuildProgress(pid=1, done=0, total=1, at=0.0).said().endswith("0 of 1 drawer")


def test_the_hall_help_counts_in_the_singular():
    from dashboard.render import hall_help

    assert hall_help({"": 1}).endswith("1 of 1 drawer has no hall.")
    assert hall_help({"": 2, "hall_facts": 1}).endswith("2 of 3 drawers have no hall.")


def test_no_message_writes_a_count_straight_before_a_plural_noun():
    """Every count-with-noun goes through `counted`, so none can say `1 drawers`."""
    found = []
    for path in sorted([*ROOT.glob("mempalace/**/*.py"), *ROOT.glob("dashboard/*.py"), *ROOT.glob("app_pages/*.py"),
                        ROOT / "app.py"]):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bf[\"']", line) and BARE_COUNT.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_audit_page_counts_one_entry_in_the_singular(settings):
    from _apptest import start
    from mempalace import Palace

    with Palace.open(settings=settings) as palace:
        palace.add_drawer("The one note this palace holds.", "wing_a", "notes")
    at = start()
    at.switch_page("app_pages/audit.py").run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert "1 entry" in captions and any("intact\\: 1 entry, each" in c for c in captions), captions
