"""Re-halling: drawers whose hall ingest chose get the hall ingest would choose today; a hall a
person set never changes, and a person's change after the preview wins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main
from mempalace.errors import InvalidInputError
from mempalace.ingest import ingest
from mempalace.halls import classifier as halls_module
from mempalace.ingest.rehall import apply_changes, rehall
from mempalace.catalog.placements import INGEST, PERSON, hall_chooser


def _session(path: Path, n: int) -> Path:
    lines = []
    for i in range(n):
        for role, text in (("user", f"What happened with the harbour survey, part {i}?"),
                           ("assistant", f"On day {i} the survey boat mapped the north channel and logged "
                                         f"{i * 3} soundings before the tide turned.")):
            content = text if role == "user" else [{"type": "text", "text": text}]
            lines.append({"type": role, "sessionId": "s-1", "cwd": "/home/kai/harbour",
                          "timestamp": "2026-01-01T10:00:00Z", "message": {"role": role, "content": content}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def every_drawer_a_fact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's rule, from now on in the test: every drawer is a fact (what it was is not the point)."""
    monkeypatch.setattr(halls_module.HallClassifier, "classify", lambda self, texts, vectors=None: ["hall_facts"] * len(texts))


def test_ingests_halls_are_chosen_again_and_a_persons_hall_never(palace: Palace, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ids = sorted(ingest(palace, _session(tmp_path / "s.jsonl", 12)).drawer_ids)
    assert len(ids) >= 3
    palace.update_drawer(ids[0], hall="hall_events")  # a person's hall
    for drawer_id in ids[1:]:  # as an older rule left them
        palace.rehall_drawers([(drawer_id, palace.get_drawer(drawer_id).hall or "", "hall_advice")])
    every_drawer_a_fact(monkeypatch)
    preview = rehall(palace, dry_run=True)
    assert (preview.considered, preview.kept) == (len(ids) - 1, 1)
    assert sorted(c.drawer_id for c in preview.changes) == ids[1:]
    assert preview.summary() == [("hall_advice", "hall_facts", len(ids) - 1)]
    assert {palace.get_drawer(i).hall for i in ids[1:]} == {"hall_advice"}  # a preview changes nothing
    done = rehall(palace)
    assert done.changed == len(done.changes)
    assert palace.get_drawer(ids[0]).hall == "hall_events"
    assert {palace.get_drawer(i).hall for i in ids[1:]} == {"hall_facts"}
    assert rehall(palace, dry_run=True).changes == ()  # applied: nothing left to change


def test_a_persons_change_after_the_preview_wins(palace: Palace, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ids = sorted(ingest(palace, _session(tmp_path / "s.jsonl", 12)).drawer_ids)
    every_drawer_a_fact(monkeypatch)
    for drawer_id in ids:
        palace.update_drawer(drawer_id, hall="hall_advice")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("mempalace.catalog.placements.hall_chooser", lambda meta: INGEST)  # as if ingest still held them
        preview = rehall(palace, dry_run=True)
    assert len(preview.changes) == len(ids)
    assert apply_changes(palace, preview.changes) == 0  # every hall is a person's now: none changes
    assert {palace.get_drawer(i).hall for i in ids} == {"hall_advice"}


def test_who_chose_a_hall_is_set_by_mempalace_only(palace: Palace) -> None:
    with pytest.raises(InvalidInputError, match="hall_by"):
        palace.add_drawer("A fine memory.", "wing_kai", "notes", hall_by="ingest")


@pytest.mark.parametrize("meta, expected", [
    ({"hall_by": "ingest"}, INGEST),
    ({"hall_by": "person", "added_by": "mempalace-ingest"}, PERSON),
    ({"added_by": "mempalace-ingest", "filed_at": "2026-01-01T10:00:00+00:00", "mp_seq": 1767261600_000_000}, INGEST),
    ({"added_by": "mempalace-ingest", "filed_at": "2026-01-01T10:00:00+00:00", "mp_seq": 1767265200_000_000}, PERSON),
    ({"added_by": "kai"}, PERSON),
])
def test_drawers_filed_before_halls_recorded_their_chooser(meta: dict, expected: str) -> None:
    assert hall_chooser(meta) == expected  # written again an hour after filing: perhaps a person's hall


def test_halls_cli_counts_and_rebuilds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    palace_dir = tmp_path / "p"
    run = lambda *args: CliRunner().invoke(main, ["--palace", str(palace_dir), *args])  # noqa: E731
    assert run("ingest", str(_session(tmp_path / "s.jsonl", 12))).exit_code == 0
    every_drawer_a_fact(monkeypatch)
    assert run("halls", "--dry-run").exit_code == 2  # --dry-run goes with --rebuild
    preview = json.loads(run("--json", "halls", "--rebuild", "--dry-run").output)
    assert preview["dry_run"] and preview["changed"] == 0 and preview["kept"] == 0
    done = run("halls", "--rebuild")
    assert done.exit_code == 0 and done.output.startswith(f"Changed {len(preview['changes'])} of ")
    assert json.loads(run("--json", "halls").output) == {"hall_facts": preview["considered"]}
