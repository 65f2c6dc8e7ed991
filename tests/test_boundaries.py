"""Boundaries of the core: what it imports, how it reports, and how it refuses bad places and bad input."""

from __future__ import annotations

import ast
import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable

import pytest

import mempalace
from mempalace import Palace
from mempalace.config import Settings, load_settings
from mempalace.errors import (
    ConfigError,
    CorruptPalaceError,
    InvalidInputError,
    MempalaceError,
    NotAPalaceError,
    PalaceNotFoundError,
)

REPO = Path(__file__).resolve().parents[1]
PACKAGE = Path(mempalace.__file__).resolve().parent


def snapshot(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under `root` (directories as '<dir>')."""
    if root.is_file():
        return {".": hashlib.sha256(root.read_bytes()).hexdigest()}
    found: dict[str, str] = {}
    for item in sorted(root.rglob("*")):
        rel = str(item.relative_to(root))
        found[rel] = "<dir>" if item.is_dir() else hashlib.sha256(item.read_bytes()).hexdigest()
    return found


# -- (a) and (b): what the core may do ------------------------------------------------------------------


def test_core_never_imports_streamlit() -> None:
    script = textwrap.dedent("""
        import importlib, pkgutil, sys
        import mempalace
        names = [m.name for m in pkgutil.walk_packages(mempalace.__path__, "mempalace.")]
        for name in names:
            importlib.import_module(name)
        print(len(names))
        print("streamlit" in sys.modules or any(m.startswith("streamlit.") for m in sys.modules))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    imported, streamlit_loaded = done.stdout.split()
    expected = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert int(imported) >= len(expected)
    assert streamlit_loaded == "False"


def _printing_calls(source: str) -> list[tuple[int, str]]:
    calls = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("print", "exit", "quit"):
            calls.append((node.lineno, f"{func.id}("))
        elif (isinstance(func, ast.Attribute) and func.attr in ("exit", "_exit")
              and isinstance(func.value, ast.Name) and func.value.id in ("sys", "os")):
            calls.append((node.lineno, f"{func.value.id}.{func.attr}("))
    return calls


def test_only_the_cli_prints_or_exits() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    front_end = PACKAGE / "cli"
    assert front_end / "__init__.py" in modules and len(modules) > 5
    offenders = []
    for module in modules:
        if module.is_relative_to(front_end):
            continue
        source = module.read_text(encoding="utf-8")
        offenders += [f"{module.relative_to(REPO)}:{line}: {call}" for line, call in _printing_calls(source)]
        # and the plain-text grep, in case a call is built in a way the AST walk does not see
        for number, line in enumerate(source.splitlines(), start=1):
            code = line.split("#", 1)[0]
            if "print(" in code or "sys.exit(" in code:
                offenders.append(f"{module.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_check_itself_notices_print_and_exit() -> None:
    sample = "import sys\nprint('x')\nsys.exit(2)\n"
    assert _printing_calls(sample) == [(2, "print("), (3, "sys.exit(")]


# -- (c) bad palace locations ---------------------------------------------------------------------------


def test_path_that_is_a_file_is_not_a_palace(tmp_path: Path, settings: Settings) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("just some notes\n", encoding="utf-8")
    before = snapshot(tmp_path)

    for create in (True, False):
        with pytest.raises(NotAPalaceError) as caught:
            Palace.open(target, settings=settings, create=create)
        assert str(target) in str(caught.value)
        assert "file" in str(caught.value)

    assert snapshot(tmp_path) == before


def test_directory_of_unrelated_files_is_not_a_palace_and_is_left_alone(tmp_path: Path,
                                                                       settings: Settings) -> None:
    target = tmp_path / "photos"
    (target / "2024").mkdir(parents=True)
    (target / "beach.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    (target / "2024" / "list.txt").write_text("milk\neggs\n", encoding="utf-8")
    before = snapshot(target)

    for create in (True, False):
        with pytest.raises(NotAPalaceError) as caught:
            Palace.open(target, settings=settings, create=create)
        assert str(target) in str(caught.value)
        assert "not a palace" in str(caught.value)

    assert snapshot(target) == before


def test_missing_path_without_create_is_not_found_and_not_created(tmp_path: Path,
                                                                  settings: Settings) -> None:
    target = tmp_path / "nowhere" / "palace"
    with pytest.raises(PalaceNotFoundError) as caught:
        Palace.open(target, settings=settings, create=False)
    assert str(target) in str(caught.value)
    assert not target.exists() and not target.parent.exists()


def test_empty_directory_without_create_is_not_found_and_stays_empty(tmp_path: Path,
                                                                     settings: Settings) -> None:
    target = tmp_path / "empty"
    target.mkdir()
    with pytest.raises(PalaceNotFoundError):
        Palace.open(target, settings=settings, create=False)
    assert list(target.iterdir()) == []


def _palace_with_one_drawer(path: Path, settings: Settings) -> None:
    with Palace.open(path, settings=settings) as palace:
        assert palace.add_drawer("The vault code is written on the back of the map.", "wing_a", "vault").added


def test_corrupt_palace_raises_a_palace_error_not_a_crash(palace_path: Path, settings: Settings) -> None:
    _palace_with_one_drawer(palace_path, settings)
    garbage = bytes(range(256)) * 64
    (palace_path / "chroma.sqlite3").write_bytes(garbage)
    before = snapshot(palace_path)

    for create in (True, False):
        with pytest.raises((CorruptPalaceError, NotAPalaceError)) as caught:
            Palace.open(palace_path, settings=settings, create=create)
        assert str(palace_path) in str(caught.value)

    assert (palace_path / "chroma.sqlite3").read_bytes() == garbage
    assert snapshot(palace_path) == before


def test_opening_a_corrupt_palace_twice_gives_the_same_clear_error(palace_path: Path,
                                                                   settings: Settings) -> None:
    _palace_with_one_drawer(palace_path, settings)
    (palace_path / "chroma.sqlite3").write_bytes(b"\x00garbage" * 512)

    with pytest.raises((CorruptPalaceError, NotAPalaceError)) as first:
        Palace.open(palace_path, settings=settings)
    with pytest.raises((CorruptPalaceError, NotAPalaceError)) as second:
        Palace.open(palace_path, settings=settings)
    # the second attempt must explain the same problem, not leak a Chroma internal
    assert str(second.value) == str(first.value)


def test_failed_open_of_a_corrupt_palace_does_not_spoil_later_opens(palace_path: Path,
                                                                    settings: Settings) -> None:
    """Change nothing: once the file is put back, the same process can open the palace again."""
    _palace_with_one_drawer(palace_path, settings)
    database = palace_path / "chroma.sqlite3"
    good = database.read_bytes()
    database.write_bytes(b"\x00garbage" * 512)

    with pytest.raises((CorruptPalaceError, NotAPalaceError)):
        Palace.open(palace_path, settings=settings)

    database.write_bytes(good)
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.count() == 1


def test_an_embedder_this_mempalace_lacks_is_a_config_error_and_changes_nothing(palace_path: Path, home: Path,
                                                                              settings: Settings) -> None:
    assert settings.embedder == "hash"
    _palace_with_one_drawer(palace_path, settings)
    with Palace.open(palace_path, settings=settings) as palace:
        palace._store._set_state("embedder", "e5-from-the-future")  # as a newer MemPalace would record it
    before = snapshot(palace_path)

    with pytest.raises(ConfigError) as caught:
        Palace.open(palace_path, settings=load_settings(home, embedder="minilm-int8"))
    message = str(caught.value)
    assert "'e5-from-the-future'" in message and "upgrade MemPalace" in message

    # Chroma itself touches chroma.sqlite3 on every open, so compare what is there, not its bytes
    assert set(snapshot(palace_path)) == set(before)
    assert snapshot(palace_path)["mempalace_catalog.sqlite3"] == before["mempalace_catalog.sqlite3"]
    from mempalace.files.locks import PalaceLock

    lock = PalaceLock(palace_path, 1.0)
    lock.acquire()  # the lock was given back
    lock.release()


# -- (d) bad input ------------------------------------------------------------------------------------


@pytest.fixture
def filled(palace: Palace) -> Palace:
    assert palace.add_drawer("Kai prefers Postgres for the billing service.", "wing_kai", "databases",
                             hall="facts").added
    assert palace.add_drawer("The nightly deploy failed on a full disk.", "wing_ops", "deploys",
                             hall="events").added
    return palace


BAD_INPUT: dict[str, Callable[[Palace], Any]] = {
    "empty content": lambda p: p.add_drawer("", "wing_kai", "notes"),
    "whitespace content": lambda p: p.add_drawer(" \n\t \r\n ", "wing_kai", "notes"),
    "int content": lambda p: p.add_drawer(42, "wing_kai", "notes"),
    "None content": lambda p: p.add_drawer(None, "wing_kai", "notes"),
    "bytes content": lambda p: p.add_drawer(b"some bytes", "wing_kai", "notes"),
    "list content": lambda p: p.add_drawer(["a", "list"], "wing_kai", "notes"),
    "unknown hall": lambda p: p.add_drawer("A fine new memory.", "wing_kai", "notes", hall="kitchen"),
    "empty wing": lambda p: p.add_drawer("A fine new memory.", "", "notes"),
    "whitespace wing": lambda p: p.add_drawer("A fine new memory.", "   ", "notes"),
    "punctuation wing": lambda p: p.add_drawer("A fine new memory.", "!!!", "notes"),
    "empty room": lambda p: p.add_drawer("A fine new memory.", "wing_kai", ""),
    "whitespace room": lambda p: p.add_drawer("A fine new memory.", "wing_kai", " \t "),
    "None room": lambda p: p.add_drawer("A fine new memory.", "wing_kai", None),
    "reserved chunk_index": lambda p: p.add_drawer("A fine new memory.", "wing_kai", "notes", chunk_index=3),
    "reserved chunk_count": lambda p: p.add_drawer("A fine new memory.", "wing_kai", "notes", chunk_count=1),
    "reserved parent_id": lambda p: p.add_drawer("A fine new memory.", "wing_kai", "notes", parent_id="x"),
    "reserved filed_at": lambda p: p.add_drawer("A fine new memory.", "wing_kai", "notes",
                                                filed_at="2020-01-01"),
    "reserved mp_seq": lambda p: p.add_drawer("A fine new memory.", "wing_kai", "notes", mp_seq=1),
    "empty query": lambda p: p.search(""),
    "whitespace query": lambda p: p.search("   \n"),
    "non-string query": lambda p: p.search(None),
    "10,000-character query": lambda p: p.search("postgres " * 1111 + "x"),
    "limit 0": lambda p: p.search("postgres", limit=0),
    "limit 10**9": lambda p: p.search("postgres", limit=10**9),
    "limit True": lambda p: p.search("postgres", limit=True),
    "limit False": lambda p: p.search("postgres", limit=False),
    "limit -1": lambda p: p.search("postgres", limit=-1),
    "limit 2.0": lambda p: p.search("postgres", limit=2.0),
    "unknown mode": lambda p: p.search("postgres", mode="fuzzy"),
    "unknown hall filter": lambda p: p.search("postgres", hall="kitchen"),
    "empty duplicate check": lambda p: p.check_duplicate("  "),
    "non-string duplicate check": lambda p: p.check_duplicate(7),
}


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_bad_input_is_refused_and_changes_nothing(filled: Palace, case: str) -> None:
    count, taxonomy, halls = filled.count(), filled.taxonomy(), filled.hall_counts()
    assert count == 2

    with pytest.raises(MempalaceError) as caught:
        BAD_INPUT[case](filled)
    assert isinstance(caught.value, InvalidInputError), type(caught.value)
    assert str(caught.value).strip()

    assert filled.count() == count
    assert filled.taxonomy() == taxonomy
    assert filled.hall_counts() == halls


def test_ten_thousand_character_query_message_names_the_limit(filled: Palace) -> None:
    query = "q" * 10_000
    assert len(query) == 10_000
    with pytest.raises(InvalidInputError) as caught:
        filled.search(query)
    assert "10,000" in str(caught.value) and f"{filled.settings.max_query_chars:,}" in str(caught.value)


def test_reserved_metadata_is_refused_but_added_by_and_plain_extras_are_allowed(filled: Palace) -> None:
    with pytest.raises(InvalidInputError) as caught:
        filled.add_drawer("Another fine memory.", "wing_kai", "notes", parent_id="parent_x")
    assert "parent_id" in str(caught.value)
    assert filled.count() == 2

    result = filled.add_drawer("Another fine memory.", "wing_kai", "notes", added_by="tester", topic="misc")
    assert result.added
    drawer = filled.get_drawer(result.drawer_ids[0])
    assert drawer.added_by == "tester" and drawer.extra == {"topic": "misc"} and drawer.room_by == "person"


def test_a_chroma_database_of_another_app_is_not_turned_into_a_palace(tmp_path, settings):
    import chromadb

    from mempalace import Palace
    from mempalace.errors import NotAPalaceError

    other = tmp_path / "other_app"
    client = chromadb.PersistentClient(str(other))
    client.create_collection("their_docs", embedding_function=None)
    client.close()
    with pytest.raises(NotAPalaceError, match="their_docs"):
        Palace.open(other, settings=settings)
    client = chromadb.PersistentClient(str(other))
    assert [c.name for c in client.list_collections()] == ["their_docs"]
    client.close()
