"""Catalog.load, the fast rebuild a first open uses: the same catalog as row-by-row upserts (rows,
counts, full-text index), its per-row triggers and indexes back afterwards, even when reading the
pages fails part-way, so later writes keep everything in step."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from mempalace.catalog.catalog import Catalog, Row


def rows(start: int, count: int) -> list[Row]:
    return [Row(f"d{i:04d}", f"note {i} about the {'harbour' if i % 2 else 'ledger'} survey", f"wing_{i % 3}",
                f"room-{i % 5}", "hall_facts" if i % 4 else "", f"f{i // 10}.txt", i % 10, f"p{i // 10}",
                "2026-01-01T00:00:00+00:00", 1000 + i, np.full(4, i, np.float32)) for i in range(start, start + count)]


def state(catalog: Catalog) -> tuple:
    """What a reader sees: every row, the counts, a search, the schema's triggers and indexes."""
    db = sqlite3.connect(catalog.path)
    schema = sorted(db.execute("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'index') "
                               "AND name NOT LIKE 'sqlite_%'").fetchall())
    db.close()
    return (sorted(catalog.ids()), catalog.room_counts(), sorted(catalog.lexical("harbour survey", {}, 100)), schema)


def test_a_load_gives_what_row_by_row_upserts_give_and_later_writes_stay_in_step(tmp_path: Path) -> None:
    slow, fast = Catalog(tmp_path / "slow.sqlite3"), Catalog(tmp_path / "fast.sqlite3")
    fast.upsert(rows(500, 3))  # something there before: a load replaces it
    for page in (rows(0, 40), rows(40, 40)):
        slow.upsert(page)
    assert fast.load([rows(0, 40), rows(40, 40)]) == 1079
    assert state(fast) == state(slow)
    for catalog in (slow, fast):  # triggers keep counts and the index after the load as before
        catalog.upsert(rows(80, 5))
        catalog.move(["d0001", "d0003"], 5000, room="room-9")
        catalog.delete(["d0002"])
    assert state(fast) == state(slow) and ("room-9" in {r for _, r, _, _ in fast.room_counts()})


def test_a_load_that_fails_part_way_leaves_the_triggers_and_indexes_in_place(tmp_path: Path) -> None:
    catalog, reference = Catalog(tmp_path / "c.sqlite3"), Catalog(tmp_path / "ref.sqlite3")
    reference.upsert(rows(0, 10))

    def pages():
        yield rows(0, 10)
        raise OSError("Chroma went away")

    with pytest.raises(OSError):
        catalog.load(pages())
    assert state(catalog) == state(reference)  # what it had read is there, indexed and counted


def test_a_drawer_read_twice_across_pages_is_indexed_once(tmp_path: Path) -> None:
    """Chroma's offset pages can repeat a row when a write lands between them: the later copy wins
    and the full-text index holds no ghost of the first."""
    catalog, reference = Catalog(tmp_path / "c.sqlite3"), Catalog(tmp_path / "ref.sqlite3")
    reference.upsert(rows(0, 20))
    catalog.load([rows(0, 12), rows(10, 10)])
    assert state(catalog) == state(reference)
    fts = sqlite3.connect(catalog.path).execute("SELECT count(*) FROM drawers_fts").fetchone()[0]
    assert fts == 20


def test_a_catalog_another_process_holds_is_busy_not_damaged(tmp_path: Path, monkeypatch) -> None:
    import mempalace.catalog.catalog as catalog_module
    from mempalace.errors import PalaceBusyError

    path = tmp_path / "catalog.sqlite3"
    catalog = Catalog(path)
    catalog.load([rows(0, 3)])
    catalog.close()
    holder = sqlite3.connect(path)
    holder.execute("DROP INDEX drawers_listing")  # as after an upgrade: the next open builds it
    holder.execute("BEGIN EXCLUSIVE")  # another process, building it right now
    real = sqlite3.connect
    monkeypatch.setattr(catalog_module.sqlite3, "connect", lambda *a, **k: real(*a, **{**k, "timeout": 0.1}))
    with pytest.raises(PalaceBusyError, match="busy"):
        Catalog(path)
    holder.rollback()
    holder.close()
    again = Catalog(path)  # nothing was deleted: the drawers are all there
    assert again.count() == 3
