"""The trash through its front ends: scoped views (who sees and restores what), the CLI's `delete`
and `trash`, and the dashboard's Trash page, Undo and bulk delete (AppTest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.access.rules import grant_for, parse_rules
from mempalace.cli import main
from mempalace.config import Settings
from mempalace.errors import AccessDeniedError, InvalidInputError, PlaceNotFoundError
from mempalace.models import DrawerDraft
from mempalace.scoped.palace import ScopedPalace
from _apptest import start

RULES = parse_rules([
    {"who": "ad@example.com", "role": "admin"},
    {"who": "al@example.com", "role": "editor", "wings": ["wing_alpha"]},
    {"who": "alad@example.com", "role": "admin", "wings": ["wing_alpha"]},
])
NOTES = (("a-1", "Alpha roadmap: ship the importer in May.", "wing_alpha", "roadmap"),
         ("a-2", "Alpha roadmap: the exporter waits for June.", "wing_alpha", "roadmap"),
         ("s-1", "Secret roadmap: acquire zebracorp quietly.", "wing_secret", "roadmap"))


def seed(settings: Settings) -> None:
    with Palace.open(settings=settings) as palace:
        palace.file_drawers([DrawerDraft(i, text, wing, room) for i, text, wing, room in NOTES])


def view(palace: Palace, who: str) -> ScopedPalace:
    return ScopedPalace(palace, grant_for(RULES, who, "dashboard"))


def test_a_wing_admin_deletes_a_shared_room_only_in_wings_they_see(settings):
    seed(settings)
    with Palace.open(settings=settings) as palace:
        alpha_admin = view(palace, "alad@example.com")
        assert alpha_admin.deletion_preview(room="roadmap") == [("wing_alpha", "roadmap", 2)]
        done = alpha_admin.delete_where(room="roadmap")
        assert done.deleted == 2 and palace.get_drawer("s-1").wing == "wing_secret"
        editor = view(palace, "al@example.com")
        assert [t.drawer.id for t in editor.trash_list()] == ["a-1", "a-2"]
        with pytest.raises(AccessDeniedError):
            editor.delete_where(wing="wing_alpha")
        with pytest.raises(AccessDeniedError):
            editor.empty_trash()
        admin = view(palace, "ad@example.com")
        admin.delete_drawer("s-1")
        assert [t.drawer.id for t in editor.trash_list()] == ["a-1", "a-2"]  # never the secret wing's
        assert editor.restore_drawers(["s-1"]).blocked == (("s-1", "it is not in the trash"),)
        assert editor.restore_change(done.change).restored == ("a-1", "a-2")
        assert admin.empty_trash() == 1 and palace.trash_list() == []
        assert palace.access.entries(action="restore")[0].who == "al@example.com"


def cli(palace_dir: Path, *args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["--palace", str(palace_dir), *args], input=stdin)


def test_the_cli_deletes_a_wing_lists_the_trash_restores_a_change_and_empties_it(palace_path, settings):
    with Palace.open(palace_path, settings=settings) as palace:
        palace.file_drawers([DrawerDraft(i, text, wing, room) for i, text, wing, room in NOTES])
    done = cli(palace_path, "delete", "--wing", "wing_alpha", "--yes")
    assert done.exit_code == 0 and done.output.startswith("Deleted 2 drawers:\n  wing_alpha/roadmap: 2 drawers\n")
    change = done.output.split("--all-from ")[1].split("`")[0]
    listed = cli(palace_path, "trash")
    assert listed.exit_code == 0 and listed.output.startswith(f"{change}  ") and "2 drawers (wing_alpha/roadmap 2)" in listed.output
    as_json = json.loads(cli(palace_path, "trash", "list", "--json").output)
    assert [(t["drawer"]["id"], t["change"]) for t in as_json] == [("a-1", change), ("a-2", change)]
    back = cli(palace_path, "trash", "restore", "--all-from", change)
    assert back.exit_code == 0 and back.output == "Restored 2 drawers.\n"
    assert cli(palace_path, "trash", "restore", "a-1").exit_code == 1  # not in the trash any more
    assert cli(palace_path, "delete", "a-1", "s-1", "--json").exit_code == 0
    assert cli(palace_path, "delete", "--wing", "wing_none").output == "No drawer matches: nothing deleted.\n"
    emptied = cli(palace_path, "trash", "empty", "--yes")
    assert emptied.output == "Emptied the trash: 2 drawers forgotten for good.\n"
    assert cli(palace_path, "trash").output == "The trash is empty.\n"
    with Palace.open(palace_path, settings=settings) as palace:
        assert sorted(palace.drawer_ids()) == ["a-2"]


def trash_page():
    at = start()
    at.switch_page("app_pages/trash.py").run()
    assert not at.exception, at.exception
    return at


def test_the_trash_page_lists_a_delete_and_restores_it(settings):
    seed(settings)
    with Palace.open(settings=settings) as palace:
        done = palace.delete_where(wing="wing_alpha")
    at = trash_page()
    shown = " ".join(m.value for m in at.main.markdown)
    assert "deleted 2 drawers from wing\\_alpha/roadmap \\(2\\)" in shown
    assert at.button(key="trash_empty").proto.disabled  # until the tick naming the count
    at.button(key=f"restore_{done.change}").click().run()
    assert not at.exception and [t.value for t in at.toast] == ["Restored 2 drawers\\."]
    assert [i.value for i in at.main.info] == ["The trash is empty."]
    assert at.session_state["palace"].get_drawer("a-1").wing == "wing_alpha"


def test_the_drawers_page_deletes_a_whole_wing_behind_a_confirmation_and_undoes_it(settings):
    seed(settings)
    at = start(wing="wing_alpha")
    at.switch_page("app_pages/drawers.py").run()
    assert at.button(key="bulk_delete_wing_alpha").proto.disabled
    at.checkbox(key="bulk_sure_wing_alpha").check().run()
    at.button(key="bulk_delete_wing_alpha").click().run()
    assert not at.exception and [s.value for s in at.main.success] == ["Deleted 2 drawers of wing\\_alpha\\."]
    assert at.session_state["palace"].count() == 1
    at.button(key="trash_undo_button").click().run()
    assert not at.exception and at.session_state["palace"].count() == 3


def test_the_cli_lists_changes_and_undoes_the_newest(palace_path, settings):
    with Palace.open(palace_path, settings=settings) as palace:
        palace.file_drawers([DrawerDraft(i, text, wing, room) for i, text, wing, room in NOTES])
    assert cli(palace_path, "rename-room", "roadmap", "plans").exit_code == 0
    listed = cli(palace_path, "changes")
    assert listed.exit_code == 0 and " rename-room 3 drawers (room=plans, was=roadmap)" in listed.output
    done = cli(palace_path, "undo")
    assert done.exit_code == 0 and done.output.startswith("Undid ") and "(rename-room, 3 drawers)" in done.output
    assert json.loads(cli(palace_path, "rooms", "--json").output) == {"roadmap": 3}
    refused = cli(palace_path, "undo")
    assert refused.exit_code == 1 and "There is no change to undo." in refused.output


def test_the_changes_page_undoes_a_change_and_says_it_was_undone(settings):
    seed(settings)
    with Palace.open(settings=settings) as palace:
        palace.move_drawers(["a-1"], room="importer")
        change = palace.last_change()
    at = start()
    at.switch_page("app_pages/changes.py").run()
    assert not at.exception and f"change {change}" in at.main.caption[1].value.replace("\\", "")
    at.button(key=f"undo_{change}").click().run()
    assert not at.exception and [t.value for t in at.toast] == ["Undone: 1 drawer back where it was."]
    assert at.session_state["palace"].get_drawer("a-1").room == "roadmap"
    assert "undone by" in at.main.caption[2].value and not [b for b in at.main.button if b.key == f"undo_{change}"]


def test_the_trash_page_empties_the_trash_behind_a_tick_naming_the_count(settings):
    seed(settings)
    with Palace.open(settings=settings) as palace:
        palace.delete_drawer("s-1")
    at = trash_page()
    at.checkbox(key="trash_empty_sure").check().run()
    assert at.checkbox(key="trash_empty_sure").label == "I want to forget the 1 drawer in the trash for good"
    at.button(key="trash_empty").click().run()
    assert not at.exception and [i.value for i in at.main.info] == ["The trash is empty."]
    assert at.session_state["palace"].trash_list() == []


def test_a_scoped_view_never_names_a_hidden_room_or_change_nor_undoes_into_a_hidden_wing(settings):
    seed(settings)
    with Palace.open(settings=settings) as palace:
        palace.file_drawers([DrawerDraft("s-2", "Secret payroll plans.", "wing_secret", "payroll-plans")])
        alpha_admin, admin = view(palace, "alad@example.com"), view(palace, "ad@example.com")
        with pytest.raises(PlaceNotFoundError) as refused:
            alpha_admin.deletion_preview(room="payroll-plan")
        assert "payroll" not in str(refused.value).replace("payroll-plan'", "")
        first = admin.delete_where(ids=["a-1"])
        admin.restore_change(first.change)
        admin.update_drawer("a-1", wing="wing_secret")
        admin.delete_drawer("a-1")
        with pytest.raises(InvalidInputError) as blocked:
            view(palace, "al@example.com").undo(first.change)
        assert "later changes" in str(blocked.value) and "2026" not in str(blocked.value).split("undone:")[1]
        assert [t.drawer.wing for t in palace.trash_list()] == ["wing_secret"]  # not brought back into alpha


def test_the_cli_deletes_a_source_given_by_its_path(palace_path, settings):
    with Palace.open(palace_path, settings=settings) as palace:
        palace.file_drawers([DrawerDraft("f-1", "From a file.", "wing_alpha", "files", source_file="notes.md")])
    done = cli(palace_path, "delete", "--source", "/home/someone/notes.md", "--yes")
    assert done.exit_code == 0 and done.output.startswith("Deleted 1 drawer:\n  wing_alpha/files: 1 drawer\nIt is in")
