"""Where an ingest files each conversation, said by the real run as by the dry run, and a dry run over
several files whose conversations overlap giving the real run's figures, wings and rooms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main
from mempalace.ingest import ingest_paths
from mempalace.rooms.choice import TopicRooms

LEDGER = [(f"Question {i}: how should the ledger service reconcile refunds in case {i}?",
           f"Answer {i}: " + " ".join(f"step{i}-{j} keeps the refund ledger balanced." for j in range(6)))
          for i in range(8)]
INVOICES = [(f"Question {i}: how should the ledger service number invoices in case {i}?",
             f"Answer {i}: " + " ".join(f"step{i}-{j} keeps invoice numbers unique." for j in range(5)))
            for i in range(6)]  # short exchanges: several share a drawer, so a grown session's last one grows
HARBOUR = "User: When does the harbour ferry leave on a spring tide?\n\nAssistant: It waits for high water.\n"


def _session(path: Path, exchanges: list[tuple[str, str]], session: str) -> Path:
    """A Claude Code session file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, (question, answer) in enumerate(exchanges):
        stamp = f"2026-01-0{1 + n % 9}T10:00:00Z"
        for kind, message in (("user", {"role": "user", "content": question}),
                              ("assistant", {"role": "assistant", "content": [{"type": "text", "text": answer}]})):
            lines.append({"type": kind, "sessionId": session, "cwd": "/home/kai/ledger", "timestamp": stamp,
                          "message": message})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _export(path: Path, conversations: list[tuple[str, str, str]]) -> Path:
    """A Claude.ai export of (id, title, question) conversations."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([{"uuid": cid, "name": title, "created_at": "2026-02-01T09:00:00Z", "chat_messages": [
        {"sender": "human", "text": question, "created_at": "2026-02-01T09:00:00Z"},
        {"sender": "assistant", "text": f"About {title.lower()}: start small and write it down.",
         "created_at": "2026-02-01T09:01:00Z"}]} for cid, title, question in conversations]), encoding="utf-8")
    return path


def overlapping(folder: Path) -> list[Path]:
    """Files whose conversations overlap: a session and its copy, a session and its grown later
    version, an export and a later export containing it, a text chat and its copy."""
    bread = ("c1", "Bread", "How do I bake sourdough bread at home?")
    return [
        _session(folder / "a" / "refunds.jsonl", LEDGER[:3], "s-refunds"),
        _session(folder / "b" / "refunds-copy.jsonl", LEDGER[:3], "s-refunds"),
        _session(folder / "a" / "grows.jsonl", INVOICES[:1], "s-grow"),
        _session(folder / "b" / "grows-later.jsonl", INVOICES, "s-grow"),
        _export(folder / "june" / "conversations.json", [bread]),
        _export(folder / "july" / "conversations.json", [bread, ("c2", "Pasta", "How long do I boil fresh pasta?")]),
        _write(folder / "harbour.txt", HARBOUR),
        _write(folder / "harbour-copy.txt", HARBOUR),
    ]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def figures(report) -> tuple:
    """What a report says was (or would be) done, a dry run's and a real run's alike."""
    return (report.source, report.conversations, report.planned, report.new if report.dry_run else report.added,
            report.already_present, report.replaced, report.new_conversations, report.wings, report.rooms,
            report.by_conversation(), report.ok)


def test_a_dry_run_over_overlapping_files_has_the_real_runs_figures_wings_and_rooms(palace: Palace,
                                                                                   tmp_path: Path) -> None:
    paths = overlapping(tmp_path)
    preview = ingest_paths(palace, paths, dry_run=True)
    assert palace.count() == 0
    real = ingest_paths(palace, paths)
    assert sum(r.new for r in preview) == sum(r.added for r in real) == palace.count() + 1  # 1 replaced
    assert sum(r.already_present for r in preview) == sum(r.already_present for r in real)
    assert [figures(r) for r in preview] == [figures(r) for r in real]
    copy, later_export, text_copy = preview[1], preview[5], preview[7]
    assert (copy.new, copy.already_present) == (0, copy.planned)  # counted once, by the first file
    assert (later_export.new_conversations, text_copy.new) == (1, 0)
    assert preview[3].replaced == real[3].replaced == 1  # the grown session replaces its stored last drawer


def test_the_real_run_says_per_conversation_where_it_went_as_the_dry_run_does(tmp_path: Path) -> None:
    paths = [str(p) for p in overlapping(tmp_path / "in")]
    run = lambda *args: CliRunner().invoke(main, ["--palace", str(tmp_path / "p"), "ingest", *paths, *args])  # noqa: E731
    dry, real = run("--dry-run"), run()
    assert dry.exit_code == real.exit_code == 0, (dry.output, real.output)
    said = lambda result: [line for line in result.stdout.splitlines() if line.startswith("  ")]  # noqa: E731
    assert said(real) == said(dry) and len(said(real)) == 9  # one line per conversation of each file
    assert "  'Pasta' (2026-02-01): 1 new drawer → wing claude_ai (Claude.ai export), room " in "\n".join(said(real))
    assert "  'Bread' (2026-02-01): 1 already in the palace" in said(real)  # the July export's copy of June's
    totals = [line for line in (dry.stdout + real.stdout).splitlines() if line.startswith("8 sources: ")]
    assert [t.replace("would add", "added") for t in totals[:1]] == totals[1:]


def test_a_room_renamed_by_a_later_group_is_named_as_finally_filed(palace: Palace, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    first_rooms: list[set[str]] = []
    settle = TopicRooms.settle_names

    def renaming_later(self: TopicRooms, locked=None, prior=None) -> dict[str, str]:
        """The second group's naming renames the rooms the first group opened (as a room grown enough does)."""
        renamed = settle(self, locked, prior)
        if not first_rooms:
            first_rooms.append(set(self._profiles))
            return renamed
        for room in sorted(first_rooms[0]):
            self._rename(renamed.get(room, room), f"{room}-final")
            renamed[room] = f"{room}-final"
        return renamed

    monkeypatch.setattr(TopicRooms, "settle_names", renaming_later)
    june = _export(tmp_path / "june" / "conversations.json", [("c1", "Bread", "How do I bake sourdough bread?")])
    july = _export(tmp_path / "july" / "conversations.json", [("c1", "Bread", "How do I bake sourdough bread?"),
                                                              ("c2", "Pasta", "How long do I boil fresh pasta?")])
    preview = ingest_paths(palace, [june, july], dry_run=True)
    first_rooms.clear()
    real = ingest_paths(palace, [june, july])
    [bread] = real[0].places
    [stored] = palace.find_drawers(list(real[0].drawer_ids)).values()
    assert bread.rooms == (stored.room,) and stored.room.endswith("-final") and real[0].rooms == (stored.room,)
    assert real[0].by_conversation() == preview[0].by_conversation()
    assert [d.room for d in preview[0].drawers] == [stored.room]
    assert any(f"is renamed {stored.room}" in note for note in real[1].notes)
