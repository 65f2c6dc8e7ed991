"""A catalog many processes use at once: opening it never disturbs a load under way nor drops another
connection's locks, a load killed half-way is repaired by the next opener, and a file is made afresh
only when SQLite finds it damaged. Each of these once left a shared catalog "malformed"."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mempalace.catalog.catalog import Catalog
from mempalace.errors import PalaceBusyError

from test_catalog_load import rows

ROOT = Path(__file__).resolve().parent.parent


def _triggers(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"))
    finally:
        db.close()


def _fts_agrees(path: Path) -> bool:
    db = sqlite3.connect(path)
    try:
        db.execute("INSERT INTO drawers_fts(drawers_fts, rank) VALUES ('integrity-check', 1)")
        return True
    except sqlite3.DatabaseError:
        return False
    finally:
        db.close()


def test_an_opener_during_a_load_leaves_its_dropped_triggers_alone(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    loader = Catalog(path)
    seen: list[list[str]] = []

    def pages():
        yield rows(0, 30)
        other = Catalog(path)  # another process opening the catalog mid-load (its own lock handle)
        seen.append(_triggers(path))
        other.close()
        yield rows(30, 30)

    loader.load(pages())
    assert seen == [[]]  # the opener did not make them again halfway
    assert _triggers(path) == ["drawers_ad", "drawers_ai", "drawers_au"] and loader.count() == 60
    assert _fts_agrees(path)  # (with the triggers back halfway, the second page was indexed twice)


def test_opening_a_catalog_never_opens_its_files_outside_sqlite(tmp_path: Path, monkeypatch) -> None:
    """Closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's too."""
    path = tmp_path / "catalog.sqlite3"
    Catalog(path).close()
    opened: list[str] = []
    real = os.open
    path_only = getattr(os, "O_PATH", 0)  # (Linux: such a descriptor holds no lock, so closing it drops none)
    monkeypatch.setattr(os, "open", lambda p, flags, *a, **k: (
        opened.append(str(p)) if not (path_only and flags & path_only) else None, real(p, flags, *a, **k))[1])
    catalog = Catalog(path)
    catalog.upsert(rows(0, 3))
    assert not [p for p in opened if p.startswith(str(path)) and not p.endswith(".load-lock")]
    assert (path.stat().st_mode & 0o777) == 0o600
    catalog.close()


def test_a_load_killed_half_way_is_repaired_by_the_next_opener(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    catalog = Catalog(path)
    catalog.upsert(rows(0, 5))
    catalog.set_state("collection", "built-from-chroma")
    catalog.close()
    script = ("import os, sys; sys.path[:0] = [sys.argv[2], sys.argv[3]]\n"
              "from pathlib import Path\nfrom mempalace.catalog import Catalog\nfrom test_catalog_load import rows\n"
              "def pages():\n    yield rows(0, 10)\n    os._exit(9)\n"
              "Catalog(Path(sys.argv[1])).load(pages())\n")
    killed = subprocess.run([sys.executable, "-c", script, str(path), str(ROOT), str(ROOT / "tests")])
    assert killed.returncode == 9 and _triggers(path) == []  # died with the triggers dropped
    again = Catalog(path)
    assert _triggers(path) == ["drawers_ad", "drawers_ai", "drawers_au"]
    assert again.get_state("loading") is None and again.get_state("collection") is None  # rebuilt on next read
    again.close()


def test_a_transient_error_on_opening_is_busy_and_deletes_nothing(tmp_path: Path, monkeypatch) -> None:
    import mempalace.catalog.shared_file as catalog_file

    path = tmp_path / "catalog.sqlite3"
    catalog = Catalog(path)
    catalog.upsert(rows(0, 4))
    catalog.close()

    def hiccup(_path: Path) -> sqlite3.Connection:
        raise sqlite3.OperationalError("locking protocol")

    monkeypatch.setattr(catalog_file, "_connect", hiccup)
    with pytest.raises(PalaceBusyError, match="busy"):
        Catalog(path)
    monkeypatch.undo()
    assert Catalog(path).count() == 4  # nothing was deleted


def test_a_damaged_file_is_made_afresh(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    path.write_bytes(b"this is not a database at all" * 100)
    catalog = Catalog(path)
    catalog.upsert(rows(0, 2))
    assert catalog.count() == 2


def test_a_catalog_that_cannot_be_opened_now_is_busy_and_kept(tmp_path: Path, monkeypatch) -> None:
    """Out of descriptors, say: neither the open nor the damage check can read it, which is no damage."""
    import mempalace.catalog.shared_file as catalog_file

    path = tmp_path / "catalog.sqlite3"
    catalog = Catalog(path)
    catalog.upsert(rows(0, 4))
    catalog.close()

    def cannot(*_args, **_kwargs):
        raise sqlite3.OperationalError("unable to open database file")

    import types

    unopenable = types.SimpleNamespace(**{name: getattr(sqlite3, name) for name in dir(sqlite3) if name[0].isupper()})
    unopenable.connect = cannot
    monkeypatch.setattr(catalog_file, "sqlite3", unopenable)  # this module's opens only
    with pytest.raises(PalaceBusyError):
        Catalog(path)
    monkeypatch.undo()
    assert Catalog(path).count() == 4


@pytest.mark.parametrize("folder", ["a%41b", "a#b", "a?b"])
def test_a_catalog_in_a_folder_with_uri_characters_opens_and_a_damaged_one_is_made_afresh(tmp_path: Path,
                                                                                          folder: str) -> None:
    path = tmp_path / folder / "catalog.sqlite3"
    catalog = Catalog(path)
    catalog.upsert(rows(0, 3))
    catalog.close()
    assert Catalog(path).count() == 3
    path.write_bytes(b"not a database " * 500)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    assert Catalog(path).count() == 0
