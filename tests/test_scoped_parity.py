"""The scoped views take every argument their palace counterparts take, so a caller written against
`Palace` (ingest, sync, the pages) works unchanged through `ScopedPalace`: an argument added to a
`Palace` method and forgotten in the view once crashed the Ingest page whenever ingest renamed a room."""

from __future__ import annotations

import inspect

import pytest

from mempalace.access.rules import Actor, Grant, acting_as, full_grant
from mempalace.catalog.placements import INGEST, PERSON
from mempalace.palace.palace import Palace
from mempalace.scoped.palace import ScopedPalace
from mempalace.scoped.sources import ScopedSources
from mempalace.catalog.source_book import SourceBook

# What a view supplies itself, never its caller: the wings it sees, the action the audit records,
# and who added a source.
SUPPLIED_BY_THE_VIEW = {"within", "audit_as", "added_by"}


def _parameters(function) -> dict[str, tuple[object, object]]:
    return {name: (p.kind, p.default) for name, p in inspect.signature(function).parameters.items()
            if name not in SUPPLIED_BY_THE_VIEW}


def _shared_methods(view: type, real: type) -> list[str]:
    shared = []
    for name in dir(view):
        if name.startswith("_") or not hasattr(real, name):
            continue
        mine, theirs = inspect.getattr_static(view, name), inspect.getattr_static(real, name)
        if callable(mine) and callable(theirs) and not isinstance(theirs, (property, type)):
            shared.append(name)
    return shared


@pytest.mark.parametrize("view, real", [(ScopedPalace, Palace), (ScopedSources, SourceBook)],
                         ids=["palace", "sources"])
def test_every_shared_method_takes_the_same_arguments(view, real):
    shared = _shared_methods(view, real)
    assert {"rename_room", "add_drawer", "move_drawers", "file_drawers", "delete_drawers", "search"} <= set(shared) \
        or view is ScopedSources
    differing = {name: (str(inspect.signature(getattr(real, name))), str(inspect.signature(getattr(view, name))))
                 for name in shared if _parameters(getattr(view, name)) != _parameters(getattr(real, name))}
    assert differing == {}


# Palace's own business, never a scoped caller's: opening, keeping in use and closing it, its files,
# its exclusive hold, and its warnings (a view shows them to those who may see its settings:
# `warnings`, `audit_check`).
NOT_THROUGH_A_VIEW = {"open", "keep_in_use", "close", "exclusive", "catalog_path", "known_place", "log_warnings",
                      # backups and restores: the owner's, from the command line (whole palace, vectors included)
                      "all_records", "trash_records", "put_records", "keep_in_trash", "write_marker"}


def test_every_public_part_of_palace_is_in_the_view_or_kept_out_on_purpose():
    missing = {name for name in dir(Palace) if not name.startswith("_") and not hasattr(ScopedPalace, name)}
    assert missing == NOT_THROUGH_A_VIEW  # a new Palace method needs its scoped twin (or a reason here)


def test_the_parity_check_sees_a_forgotten_argument():
    class Forgetful(ScopedPalace):
        def rename_room(self, room: str, new: str):  # the view as it was
            raise AssertionError("not called")

    assert _parameters(Forgetful.rename_room) != _parameters(Palace.rename_room)


def _filed(palace: Palace) -> None:
    with acting_as(Actor("someone", "cli")):
        palace.add_drawer("We moved the parser onto a streaming tokenizer.", "wing_a", "parser")
        palace.add_drawer("The parser claim was checked against the spec.", "wing_b", "parser")


def test_ingest_renames_a_room_through_an_editors_view(palace):
    _filed(palace)
    editor = ScopedPalace(palace, Grant(Actor("ed", "dashboard"), (("editor", ("wing_a",)), ("viewer", ("*",)))))
    renamed = editor.rename_room("parser", "parser-claim", chosen_by=INGEST)
    assert (renamed.old, renamed.new, renamed.moved, renamed.wings) == ("parser", "parser-claim", 2, ("wing_a", "wing_b"))
    assert set(palace.list_rooms()) == {"parser-claim"}
    assert set(palace.room_choosers(palace.drawer_ids(room="parser-claim")).values()) == {INGEST}


def test_a_persons_rename_through_a_view_still_needs_merge_rights_everywhere(palace):
    _filed(palace)
    editor = ScopedPalace(palace, Grant(Actor("ed", "dashboard"), (("editor", ("wing_a",)), ("viewer", ("*",)))))
    with pytest.raises(Exception, match="may not merge in wing_b"):
        editor.rename_room("parser", "parsing")
    admin = ScopedPalace(palace, full_grant("me", "dashboard"))
    assert admin.rename_room("parser", "parsing", chosen_by=PERSON).new == "parsing"
    assert set(palace.room_choosers(palace.drawer_ids(room="parsing")).values()) == {PERSON}
