"""A palace keeps the embedder it was made with, and `mempalace embedder --to` moves it to another in
place: every drawer kept exactly, searchable until the switch, resumable after a kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main
from mempalace.config import load_settings
from mempalace.embedding.embedders import WideHashEmbedder
from mempalace.errors import InvalidInputError, PalaceMovedError
from mempalace.palace.embedder_move import embedder_info, move_embedder

from _cli import as_json, assert_user_error, ok


def fill(palace: Palace, count: int) -> None:
    for n in range(count):
        unique = " ".join(f"w{n}x{k}" for k in range(8))
        result = palace.add_drawer(f"note {n}: the kiln {n} fired at cone {n % 9}, {unique}", wing=f"wing_{n % 3}",
                          room=f"room-{n % 4}", hall="hall_facts" if n % 2 else None,
                          source_file=f"/notes/{n}.md" if n % 5 else None, conversation_date="2026-03-0%d" % (1 + n % 9))
        assert result.status == "added"


def held(palace_path: Path, settings, private: bool | None = None) -> dict[str, tuple[str, dict]]:
    """Every drawer as Chroma holds it: id -> (text, metadata)."""
    with Palace.open(palace_path, settings=settings, private=private) as palace:
        return {r.id: (r.document, dict(r.metadata)) for page in palace._store.scan() for r in page}


def collections(palace_path: Path, settings) -> list[str]:
    with Palace.open(palace_path, settings=settings) as palace:
        return sorted(c.name for c in palace._store._client.list_collections())


def test_an_existing_palace_opens_with_its_recorded_embedder_whatever_is_configured(palace_path, home, monkeypatch):
    with Palace.open(palace_path, settings=load_settings(home)) as palace:
        fill(palace, 5)
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "hash-512")
    with Palace.open(palace_path, settings=load_settings(home)) as palace:
        assert palace.settings.embedder == "hash"
        assert palace.status().embedder == "hash"
        assert palace.search("kiln 3 cone", limit=1)[0].content.startswith("note 3:")
        palace.add_drawer("a new drawer about raku firing", wing="wing_0", room="room-0")  # embedded with hash
    with Palace.open(palace_path / "new", settings=load_settings(home)) as fresh:
        assert fresh.settings.embedder == "hash-512"  # a new palace takes the configured one


def test_a_move_keeps_every_drawer_exactly_and_search_works_after(palace_path, settings):
    with Palace.open(palace_path, settings=settings) as palace:
        fill(palace, 40)
    before = held(palace_path, settings)
    with Palace.open(palace_path, settings=settings) as palace:
        report = move_embedder(palace, "hash-512")
        assert palace.settings.embedder == "hash-512"  # the object that moved it goes on with the new embedder
        assert palace.search("kiln 17 cone", limit=1)[0].content.startswith("note 17:")
    assert (report.before, report.after, report.drawers, report.embedded) == ("hash", "hash-512", 40, 40)
    assert held(palace_path, settings) == before
    assert collections(palace_path, settings) == ["mempalace_drawers_hash-512", "mempalace_state"]
    assert len([p for p in palace_path.iterdir() if p.is_dir()]) == 1  # the old index's folder is gone
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.status().embedder == "hash-512"
        record = palace._store.get([next(iter(before))], embeddings=True)[0]
        assert np.allclose(record.embedding, WideHashEmbedder().embed([record.document])[0], atol=1e-6)
        assert palace.search("kiln 17 cone", limit=1)[0].content.startswith("note 17:")
        assert palace.add_drawer("after the move: a raku kiln", wing="wing_0", room="room-0").status == "added"


def test_search_works_and_writes_made_during_the_move_are_not_lost(palace_path, settings, monkeypatch):
    monkeypatch.setenv("MEMPALACE_MOVE_BATCH", "5")
    with Palace.open(palace_path, settings=settings) as palace:
        fill(palace, 30)
        ids = sorted(palace._catalog.ids())
        seen: list[str] = []

        def meanwhile(step) -> None:
            if step.phase == "copy" and step.done == 10:  # a third of the way
                seen.append(palace.search("kiln 21 cone", limit=1)[0].content)
                palace.add_drawer("written during the move: a wood-fired kiln", wing="wing_9", room="late")
                palace.delete_drawers([ids[0]])
                palace.move_drawers([ids[-1]], room="moved-meanwhile")

        move_embedder(palace, "hash-512", told=meanwhile)
    assert seen and seen[0].startswith("note 21:")
    after = held(palace_path, settings)
    assert ids[0] not in after and len(after) == 30
    assert after[ids[-1]][1]["room"] == "moved-meanwhile"
    assert any(text.startswith("written during the move") for text, _ in after.values())
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.search("wood-fired kiln written", limit=1)[0].content.startswith("written during the move")


def test_a_move_killed_midway_leaves_the_old_embedder_live_and_resumes_where_it_stopped(palace_path, settings):
    with Palace.open(palace_path, settings=settings) as palace:
        fill(palace, 60)
    before = held(palace_path, settings)
    env = {**os.environ, "MEMPALACE_MOVE_BATCH": "5", "MEMPALACE_MOVE_PAUSE": "0.3",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    mover = subprocess.Popen([sys.executable, "-m", "mempalace", "--palace", str(palace_path), "embedder",
                              "--to", "hash-512", "--yes"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        for line in mover.stderr:  # type: ignore[union-attr]
            if line.startswith("copy: 25 /"):
                mover.send_signal(signal.SIGKILL)
                break
    finally:
        mover.kill()
        mover.wait()
    assert mover.returncode == -signal.SIGKILL
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.settings.embedder == "hash"  # the switch never happened: the old collection is live
        assert embedder_info(palace).leftovers == ("mempalace_drawers_hash-512",)
        assert palace.search("kiln 44 cone", limit=1)[0].content.startswith("note 44:")
        report = move_embedder(palace, "hash-512")
    assert report.resumed >= 25 and report.embedded == 60 - report.resumed
    assert held(palace_path, settings) == before
    assert collections(palace_path, settings) == ["mempalace_drawers_hash-512", "mempalace_state"]


def test_the_cli_shows_the_embedder_moves_and_refuses_clearly(palace_path, settings):
    with Palace.open(palace_path, settings=settings) as palace:
        fill(palace, 6)
    runner = CliRunner()
    where = ["--palace", str(palace_path)]
    shown = as_json(runner.invoke(main, [*where, "embedder", "--json"]))
    assert shown["embedder"] == "hash" and "use-m3" in shown["available"] and shown["drawers"] == 6
    assert_user_error(runner.invoke(main, [*where, "embedder", "--to", "hash"]), "already uses the 'hash' embedder")
    assert_user_error(runner.invoke(main, [*where, "embedder", "--to", "bert"]), "Unknown embedder 'bert'")
    dry = as_json(runner.invoke(main, [*where, "embedder", "--to", "hash-512", "--dry-run", "--json"]))
    assert dry["dry_run"] and as_json(runner.invoke(main, [*where, "embedder", "--json"]))["embedder"] == "hash"
    moved = ok(runner.invoke(main, [*where, "embedder", "--to", "hash-512", "--yes"]))
    assert "Moved 6 drawers from hash to hash-512" in moved.stdout and "copy: 6 / 6 drawers" in moved.stderr
    assert "embedder hash-512" in ok(runner.invoke(main, [*where, "status"])).stdout


@pytest.mark.model
def test_a_palace_moved_from_minilm_to_use_m3_finds_a_chinese_drawer_from_an_english_question(
        palace_path, home, monkeypatch):
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "minilm-int8")
    with Palace.open(palace_path, settings=load_settings(home)) as palace:
        palace.add_drawer("我们上个月领养了一只退役的灰狗，它冬天很怕冷，所以给它买了一件厚外套。", wing="wing_home", room="dogs")
        palace.add_drawer("The database upgrade to PostgreSQL 16 needs a maintenance window on Sunday.",
                          wing="wing_work", room="database")
        palace.add_drawer("Tax return: remember the receipts for the home office deduction.", wing="wing_home", room="taxes")
        move_embedder(palace, "use-m3")
    with Palace.open(palace_path, settings=load_settings(home)) as palace:
        assert palace.settings.embedder == "use-m3"
        hit = palace.search("adopting a greyhound that is cold in winter", limit=1, mode="semantic")[0]
    assert "灰狗" in hit.content


def test_a_shared_palace_moves_while_another_holder_searches_and_the_holder_goes_on_with_the_new_embedder(
        settings, tmp_path: Path) -> None:
    from test_first_open import _stop_host

    folder = tmp_path / "shared"
    try:
        with Palace.open(folder, settings=settings, private=False) as palace:
            fill(palace, 20)
        before = held(folder, settings, private=False)
        with Palace.open(folder, settings=settings, private=False) as holder, \
                Palace.open(folder, settings=settings, private=False) as mover:
            found: list[str] = []
            move_embedder(mover, "hash-512", told=lambda _: found.append(holder.search("kiln 7 cone", limit=1)[0].content))
            assert found and all(text.startswith("note 7:") for text in found)  # the old collection served it
            assert holder.settings.embedder == "hash"
            assert holder.search("kiln 7 cone", limit=1)[0].content.startswith("note 7:")  # after the switch
            assert holder.settings.embedder == "hash-512"
            added = holder.add_drawer("written by a holder opened before the move", wing="wing_0", room="room-0")
            with pytest.raises(InvalidInputError, match="already uses"):
                move_embedder(holder, "hash-512")
        after = held(folder, settings, private=False)
        assert {k: v for k, v in after.items() if k not in added.drawer_ids} == before
        with Palace.open(folder, settings=settings, private=False) as again:
            assert again.settings.embedder == "hash-512"
            assert again.search("kiln 7 cone", limit=1)[0].content.startswith("note 7:")
            assert again.search("a holder opened before the move", limit=1)[0].drawer_id == added.drawer_ids[0]
            record = again._store.get([added.drawer_ids[0]], embeddings=True)[0]
            assert np.allclose(record.embedding, WideHashEmbedder().embed([record.document])[0], atol=1e-6)
            assert len([p for p in folder.iterdir() if p.is_dir() and "-" in p.name and "." not in p.name]) == 1
    finally:
        _stop_host(folder)


def test_drawers_embedded_before_a_move_are_refused_after_it_and_filed_when_given_again(palace_path, settings):
    from mempalace.models import DrawerDraft

    with Palace.open(palace_path, settings=settings) as palace:
        fill(palace, 4)
        drafts = [DrawerDraft(f"late{n}", f"a drawer read while the palace moved, number {n}", "wing_0", "room-0")
                  for n in range(3)]
        vectors = palace.embed([d.content for d in drafts])  # as ingest does before it files
        move_embedder(palace, "hash-512")
        with pytest.raises(PalaceMovedError, match="nothing was filed"):
            palace.file_drawers(drafts, vectors)
        assert palace.find_drawers([d.id for d in drafts]) == {}
        palace.file_drawers(drafts)
        assert palace.search("read while the palace moved number 2", limit=1)[0].drawer_id == "late2"


def test_a_second_move_is_refused_while_one_runs(palace_path, settings):
    from mempalace.errors import PalaceBusyError
    from mempalace.files.locks import OwnLock

    with Palace.open(palace_path, settings=settings) as palace:
        fill(palace, 6)
        with OwnLock(palace._catalog.path.with_suffix(".move.lock")):  # as a move running in another terminal
            with pytest.raises(PalaceBusyError, match="is moving this palace now"):
                move_embedder(palace, "hash-512")
        move_embedder(palace, "hash-512")  # once it is over
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.settings.embedder == "hash-512" and palace.count() == 6


def test_a_private_palace_killed_between_its_switch_and_the_catalog_names_its_embedder_again(palace_path, settings):
    from mempalace.catalog.sync import MOVING

    with Palace.open(palace_path, settings=settings) as palace:
        fill(palace, 3)
        palace._catalog.set_state("embedder", MOVING + "hash")  # as `_switch` leaves it until the vectors are in
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace._catalog.get_state("embedder") == "hash"
