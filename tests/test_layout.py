"""The core's layout: what a scoped view exposes is one list that the view cannot drift from, the old
flat import paths still work (the same module objects, with a DeprecationWarning), and no module of
the core imports another in a loop or runs back up from a lower package to a higher one."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import mempalace
from mempalace._moved import MOVED
from mempalace.palace.palace import Palace
from mempalace.scoped.exposure import drift
from mempalace.scoped.palace import ScopedPalace

PACKAGE = Path(mempalace.__file__).resolve().parent
LAYERS = ["errors", "models", "_faces", "_moved", "files", "formats", "text", "access", "config", "embedding",
          "language", "store", "catalog", "server", "halls", "rooms", "palace", "archive", "ingest", "sources",
          "graph", "scoped", "cli", "__init__", "__main__"]  # README, "Architecture": each imports only leftwards


def test_the_scoped_view_exposes_exactly_what_its_list_says() -> None:
    assert drift(Palace, ScopedPalace) == []


def test_drift_names_a_new_palace_method_and_a_parameter_the_view_lacks() -> None:
    class Grown(Palace):
        def forget_wing(self, wing: str) -> None: ...

        def search(self, query: str, wing: str | None = None, room: str | None = None, hall: str | None = None,
                   source_file: str | None = None, limit: int = 10, mode: str = "hybrid",
                   within: tuple[str, ...] | None = None, after: str | None = None, before: str | None = None,
                   language: str | None = None) -> list:
            return []

    found = drift(Grown, ScopedPalace)
    assert "forget_wing is on the palace but in no list of scoped/exposure.py" in found
    assert any(line.startswith("search(") and "language" in line.split(" on the view, ")[1] for line in found), found


@pytest.mark.parametrize("old", ["mempalace.sync", "mempalace.syncing", "mempalace.ingest.topics", "mempalace.wording"])
def test_an_old_path_imports_the_new_module_itself_with_a_warning(old: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=MOVED[old].replace(".", r"\.")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])


def test_old_names_of_a_module_that_became_a_package_still_resolve() -> None:
    with pytest.warns(DeprecationWarning, match=r"mempalace\.access\.rules\.local_user"):
        from mempalace.access import parse_rules as old  # noqa: F401  (a public name: no warning)
        from mempalace.access import local_user
    from mempalace.access.rules import local_user as new

    assert local_user is new
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from mempalace.palace import Palace as face  # the package's own public name
    assert face is Palace


def test_no_package_face_offers_a_name_its_submodule_would_shadow() -> None:
    """`from mempalace.cli import main` must give the function: a submodule named `main` would replace it."""
    shadowed = []
    for face in sorted(PACKAGE.rglob("__init__.py")):
        package = ".".join(face.parent.relative_to(PACKAGE.parent).parts)
        for name in getattr(importlib.import_module(package), "__all__", ()):
            if (face.parent / f"{name}.py").exists() or (face.parent / name / "__init__.py").exists():
                shadowed.append(f"{package}.{name}")
    assert shadowed == []


def test_every_old_path_still_imports() -> None:
    script = ("import importlib, warnings; warnings.simplefilter('ignore'); import mempalace._moved as m; "
              "[importlib.import_module(old) for old in m.MOVED]; print(len(m.MOVED))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(MOVED) >= 60


def _imports(path: Path) -> set[str]:
    """The mempalace modules `path` imports anywhere in it (type-only imports included)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    here = parts[:-1]  # the package a relative import starts from, for a module and an `__init__` alike
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or "" if not node.level else ".".join(
                here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
            found.update(f"{base}.{a.name}" for a in node.names)
            found.add(base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {name for name in found if name.startswith("mempalace.")}


def _layer(module: str) -> int:
    top = module.split(".")[1]
    return LAYERS.index(top.removesuffix(".py"))


def test_no_import_runs_back_up_a_layer() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        mine = ".".join(rel.parts)
        for name in _imports(path):
            theirs = name.split(".")
            if len(theirs) > 1 and theirs[1] in LAYERS and _layer(mine) < _layer(name):
                upward.append(f"{mine} -> {name}")
    assert upward == []


def test_no_two_modules_import_each_other_in_a_loop() -> None:
    modules = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p
               for p in PACKAGE.rglob("*.py")}
    arrows = {m: {n for n in _imports(p) if n in modules and n != m} for m, p in modules.items()}
    seen, on_path, loops = set(), [], []

    def visit(module: str) -> None:
        on_path.append(module)
        for target in arrows[module]:
            if target in on_path:
                loops.append(on_path[on_path.index(target):] + [target])
            elif target not in seen:
                visit(target)
        on_path.pop()
        seen.add(module)

    for module in sorted(modules):
        if module not in seen:
            visit(module)
    assert [loop for loop in loops if not any(m == "mempalace" for m in loop)] == []
