"""Who chose a room, and re-rooming that never overrides a person (the fake embedder: no meaning needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.errors import InvalidInputError
from mempalace.ingest import ingest, ingest_paths
from mempalace.ingest.reroom import RoomMove, apply_moves, reroom
from mempalace.catalog.placements import INGEST, PERSON, chooser


def _session(path: Path, exchanges: list[tuple[str, str]], session: str) -> Path:
    """A Claude Code session file, one record per turn."""
    lines = []
    for question, answer in exchanges:
        for role, text in (("user", question), ("assistant", answer)):
            content = text if role == "user" else [{"type": "text", "text": text}]
            lines.append({"type": role, "sessionId": session, "cwd": "/home/kai/driftwood",
                          "timestamp": "2026-01-01T10:00:00Z", "message": {"role": role, "content": content}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _exchanges(topic: str, n: int) -> list[tuple[str, str]]:
    return [(f"How should the {topic} handle case {i}?",
             f"For case {i}: " + " ".join(f"the {topic} keeps step {i}-{j} in order." for j in range(14)))
            for i in range(n)]


def _ids(palace: Palace) -> list[str]:
    return palace.drawer_ids()


def test_two_files_sharing_drawers_in_one_batch_get_rooms(palace: Palace, tmp_path: Path) -> None:
    shared = _exchanges("ledger service", 3)
    first = _session(tmp_path / "a.jsonl", shared, "s-a")
    second = _session(tmp_path / "b.jsonl", shared + _exchanges("billing export", 3), "s-b")
    for dry_run in (True, False):
        reports = ingest_paths(palace, [first, second], dry_run=dry_run)
        assert all(r.ok for r in reports), [r.errors for r in reports]
        assert all(d.room for r in reports for d in r.drawers)
    drawers = list(palace.find_drawers(_ids(palace)).values())
    assert len(drawers) == len({d.id for d in drawers}) > 3 and all(d.room for d in drawers)


def test_a_move_after_the_preview_wins_over_re_rooming(palace: Palace, tmp_path: Path) -> None:
    ingest(palace, _session(tmp_path / "a.jsonl", _exchanges("ledger service", 4), "s-a"))
    victim, other = _ids(palace)[:2]
    preview = (RoomMove(victim, "driftwood", palace.get_drawer(victim).room, "elsewhere"),)
    palace.move_drawers([victim], room="kept-by-me")  # a person, after the preview was made
    assert apply_moves(palace, preview) == 0
    assert (palace.get_drawer(victim).room, palace.get_drawer(victim).room_by) == ("kept-by-me", PERSON)
    assert apply_moves(palace, (RoomMove(other, "driftwood", palace.get_drawer(other).room, "elsewhere"),)) == 1
    assert (palace.get_drawer(other).room, palace.get_drawer(other).room_by) == ("elsewhere", INGEST)


def test_a_grown_conversation_in_a_persons_room_stays_the_persons(palace: Palace, tmp_path: Path) -> None:
    path = _session(tmp_path / "grow.jsonl", _exchanges("ledger service", 2), "s-g")
    ingest(palace, path)
    palace.move_drawers(_ids(palace), room="my-ledger")
    ingest(palace, _session(path, _exchanges("ledger service", 4), "s-g"))
    drawers = [palace.get_drawer(i) for i in _ids(palace)]
    assert {(d.room, d.room_by) for d in drawers} == {("my-ledger", PERSON)}
    assert reroom(palace, dry_run=True).moves == ()


def test_a_hall_or_wing_move_leaves_who_chose_the_room(palace: Palace, tmp_path: Path) -> None:
    ingest(palace, _session(tmp_path / "a.jsonl", _exchanges("ledger service", 2), "s-a"))
    first = _ids(palace)[0]
    palace.update_drawer(first, hall="facts")
    palace.move_drawers([first], wing="wing_kai")
    assert palace.get_drawer(first).room_by == INGEST
    palace.update_drawer(first, room="ledger-rules")
    assert palace.get_drawer(first).room_by == PERSON


def test_who_chose_a_room_is_set_by_mempalace_only(palace: Palace) -> None:
    with pytest.raises(InvalidInputError, match="room_by"):
        palace.add_drawer("A fine memory.", "wing_kai", "notes", room_by="ingest")
    added = palace.add_drawer("A fine memory.", "wing_kai", "notes")
    assert palace.get_drawer(added.drawer_ids[0]).room_by == PERSON


@pytest.mark.parametrize("meta, expected", [
    ({"room_by": "ingest"}, INGEST),
    ({"room_by": "person", "added_by": "mempalace-ingest"}, PERSON),
    ({"added_by": "mempalace-ingest", "filed_at": "2026-01-01T10:00:00+00:00", "mp_seq": 1767261600_000_000}, INGEST),
    ({"added_by": "mempalace-ingest", "filed_at": "2026-01-01T10:00:00+00:00", "mp_seq": 1767265200_000_000}, PERSON),
    ({"added_by": "kai"}, PERSON),
    ({"added_by": "mempalace-ingest", "filed_at": "not a date"}, PERSON),
])
def test_drawers_filed_before_rooms_recorded_their_chooser(meta: dict, expected: str) -> None:
    assert chooser(meta) == expected  # an hour after filing it was written again: someone moved it


def test_re_rooming_an_empty_palace_moves_nothing(palace: Palace) -> None:
    report = reroom(palace)
    assert (report.considered, report.kept, report.moves, report.moved) == (0, 0, (), 0)
