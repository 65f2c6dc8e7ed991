"""The trash (mempalace.palace.trash, store.trash): a delete keeps each drawer whole, a restore puts it back
exactly as it was, and a delete or restore cut short at any step loses nothing."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mempalace import Palace
from mempalace.graph import find_tunnels
from mempalace.errors import InvalidInputError, PalaceUnavailableError
from mempalace.models import DrawerDraft
from mempalace.store.chroma import Record
from mempalace.store.trash import TRASH_CHANGE, TRASHED_AT, TRASHED_BY, TrashBin

NOTES = (("pg-1", "Postgres upgrade from 14 to 16: pg_upgrade in link mode took four minutes.", "wing_ops", "db"),
         ("pg-2", "After the postgres upgrade, vacuum settings needed a second look.", "wing_ops", "db"),
         ("cat-1", "The cat learned to open the kitchen door with one paw.", "wing_home", "cats"),
         ("pg-3", "Kai asked whether the postgres upgrade broke the reporting jobs.", "wing_kai", "db"))


def seed(palace: Palace) -> None:
    palace.file_drawers([DrawerDraft(i, text, wing, room, "hall_events" if wing == "wing_ops" else None,
                                     f"/notes/{wing}.md", n, f"parent-{wing}", {"conversation_date": "2026-03-01"},
                                     room_by="ingest") for n, (i, text, wing, room) in enumerate(NOTES)])


def stored(palace: Palace, ids: list[str]) -> dict[str, Record]:
    return {r.id: r for r in palace._store.get(ids, embeddings=True)}


def ranked(palace: Palace, query: str) -> list[tuple[str, float]]:
    return [(h.drawer_id, round(h.score, 5)) for h in palace.search(query, limit=10)]


def test_a_delete_leaves_search_counts_rooms_and_tunnels_at_once_and_keeps_the_drawer_whole(palace):
    seed(palace)
    before = stored(palace, ["pg-1", "pg-2"])
    assert palace.list_rooms()["db"] == 3 and "db" in {t.room for t in find_tunnels(palace)}
    done = palace.delete_where(wing="wing_ops")
    assert done.deleted == 2 and done.kept_days == 30 and palace.count() == 2
    assert {h.drawer_id for h in palace.search("postgres upgrade")} <= {"pg-3", "cat-1"}
    assert palace.list_rooms()["db"] == 1 and "db" not in {t.room for t in find_tunnels(palace)}
    kept = palace.trash_list()
    assert [t.drawer.id for t in kept] == ["pg-1", "pg-2"] and {t.change for t in kept} == {done.change}
    first = kept[0].drawer
    assert (first.content, first.wing, first.room, first.hall, first.conversation_date) == (
        NOTES[0][1], "wing_ops", "db", "hall_events", "2026-03-01")
    assert kept[0].purge_at - kept[0].deleted_at == pytest.approx(30 * 86_400)
    trashed = TrashBin(palace._store).get(["pg-1"])["pg-1"][1]
    assert np.allclose(trashed.embedding, before["pg-1"].embedding)
    [entry] = palace.access.entries(action="delete")
    assert set(entry.ids) == {"pg-1", "pg-2"} and entry.detail["change"] == done.change


def test_a_restore_puts_back_the_same_drawers_and_search_answers_as_before(palace):
    seed(palace)
    before, answers = stored(palace, ["pg-1", "pg-2"]), ranked(palace, "postgres upgrade vacuum")
    done = palace.delete_where(room="db", wing="wing_ops")
    back = palace.restore_change(done.change)
    assert back.restored == ("pg-1", "pg-2") and back.blocked == () and palace.trash_list() == []
    after = stored(palace, ["pg-1", "pg-2"])
    for drawer_id, was in before.items():
        now = after[drawer_id]
        assert now.document == was.document and np.array_equal(now.embedding, was.embedding)
        assert {k: v for k, v in now.metadata.items() if k != "mp_seq"} == \
            {k: v for k, v in was.metadata.items() if k != "mp_seq"}
    assert ranked(palace, "postgres upgrade vacuum") == answers
    assert [e.action for e in palace.access.entries()][:2] == ["restore", "delete"]


def test_one_drawer_a_source_file_and_the_preview(palace):
    seed(palace)
    assert palace.deletion_preview(source_file="/notes/wing_ops.md") == [("wing_ops", "db", 2)]
    assert palace.deletion_preview(room="db") == [("wing_ops", "db", 2), ("wing_kai", "db", 1)]
    gone = palace.delete_drawer("cat-1")
    assert gone.room == "cats" and [t.drawer.id for t in palace.trash_list()] == ["cat-1"]
    assert palace.delete_where(source_file="/notes/wing_ops.md").deleted == 2
    assert palace.restore_drawers(["cat-1"]).restored == ("cat-1",)
    assert palace.get_drawer("cat-1").room == "cats"
    with pytest.raises(InvalidInputError):
        palace.delete_where()
    with pytest.raises(InvalidInputError):
        palace.delete_where(wing="wing_ops", ids=["cat-1"])


def test_a_restore_refuses_a_drawer_filed_again_since(palace):
    seed(palace)
    palace.delete_drawer("cat-1")
    seed(palace)  # the same drawer filed again under its id
    assert palace.trash_list() == []  # its trashed copy counts for nothing now
    back = palace.restore_drawers(["cat-1", "nope"])
    assert back.restored == () and dict(back.blocked) == {
        "cat-1": "a drawer with this id is in the palace again (filed again since)",
        "nope": "it is not in the trash (restored already, or purged)"}
    assert palace.count() == 4


def test_no_trash_when_trash_days_is_zero_and_ingest_replacements_never_go_there(palace_path, settings):
    with Palace.open(palace_path, settings=dataclasses.replace(settings, trash_days=0)) as palace:
        seed(palace)
        assert palace.delete_where(wing="wing_ops").kept_days == 0
        assert palace.trash_list() == [] and palace.count() == 2
    with Palace.open(palace_path, settings=settings) as palace:
        assert palace.delete_drawers(["cat-1"], to_trash=False) == 1 and palace.trash_list() == []


def test_what_was_trashed_longer_ago_than_trash_days_is_purged(palace, monkeypatch):
    seed(palace)
    palace.delete_drawer("cat-1")
    import mempalace.palace.trash as trash

    later = trash.time.time() + 31 * 86_400
    monkeypatch.setattr(trash.time, "time", lambda: later)
    assert palace.trash_list() == []  # past its time: no longer listed
    palace.delete_drawer("pg-3")  # every delete purges what expired first
    assert [t.drawer.id for t in palace.trash_list()] == ["pg-3"]
    assert list(palace.access.entries(action="purge-trash")[0].ids) == ["cat-1"]


def test_a_delete_cut_short_after_keeping_its_drawers_loses_nothing(palace, monkeypatch):
    seed(palace)

    def fail(ids):
        raise PalaceUnavailableError("killed")

    monkeypatch.setattr(palace._store, "delete", fail)
    with pytest.raises(PalaceUnavailableError):
        palace.delete_where(wing="wing_ops")
    monkeypatch.undo()
    assert palace.count() == 4 and palace.trash_list() == []  # live, and its copy in the trash counts for nothing
    assert palace.delete_where(wing="wing_ops").deleted == 2 and len(palace.trash_list()) == 2


def test_a_restore_cut_short_after_putting_back_loses_nothing(palace, monkeypatch):
    seed(palace)
    done = palace.delete_where(wing="wing_ops")

    def fail(self, ids):
        raise PalaceUnavailableError("killed")

    monkeypatch.setattr(TrashBin, "remove", fail)
    with pytest.raises(PalaceUnavailableError):
        palace.restore_change(done.change)
    monkeypatch.undo()
    assert palace.count() == 4 and palace.trash_list() == []
    assert palace.get_drawer("pg-1").hall == "hall_events"


def test_a_drawer_trashed_under_another_embedder_is_embedded_again_on_restore(palace):
    seed(palace)
    wide = Record("old-1", "A note from before the palace moved embedders.",
                  {"wing": "wing_old", "room": "history", TRASHED_AT: 1.0e12, TRASH_CHANGE: "c-old", TRASHED_BY: "kai"},
                  np.ones(512, dtype=np.float32) / np.sqrt(512))
    TrashBin(palace._store).put("hash-512", [wide])
    assert palace.restore_change("c-old").restored == ("old-1",)
    vector = stored(palace, ["old-1"])["old-1"].embedding
    assert vector.shape == (384,) and np.allclose(vector, palace.embed([wide.document])[0])


def test_undo_reverts_a_move_a_rename_keeping_its_alias_and_a_delete_newest_first(palace):
    seed(palace)
    was = stored(palace, ["pg-1"])["pg-1"].metadata
    palace.update_drawer("pg-1", room="postgres", hall="facts")
    palace.rename_room("db", "databases")
    palace.delete_drawer("cat-1")
    assert [c.action for c in palace.change_list()] == ["delete", "rename-room", "move"]
    assert palace.undo().action == "delete" and palace.get_drawer("cat-1").room == "cats"
    renamed = palace.undo()
    assert renamed.action == "rename-room" and renamed.drawers == 2
    assert palace.resolve_room("databases") == "db" and set(palace.list_rooms()) == {"db", "postgres", "cats"}
    assert palace.undo().action == "move"
    now = stored(palace, ["pg-1"])["pg-1"].metadata
    assert {k: v for k, v in now.items() if k != "mp_seq"} == {k: v for k, v in was.items() if k != "mp_seq"} | \
        ({"room_aliases": now["room_aliases"]} if "room_aliases" in now else {})
    with pytest.raises(InvalidInputError, match="no change to undo"):
        palace.undo()
    assert [e.action for e in palace.access.entries(action="undo")] == ["undo"] * 3


def test_undo_refuses_a_change_something_later_depends_on_and_names_it(palace):
    seed(palace)
    palace.update_drawer("pg-1", room="first")
    first = palace.last_change()
    palace.update_drawer("pg-1", room="second")
    later = palace.last_change()
    with pytest.raises(InvalidInputError, match=f"later changes moved or deleted some of its drawers \\({later}\\)"):
        palace.undo(first)
    palace.undo(later)
    assert palace.undo(first).drawers == 1 and palace.get_drawer("pg-1").room == "db"
    with pytest.raises(InvalidInputError, match="undone already"):
        palace.undo(first)


def test_a_re_rooming_apply_is_one_change_and_undoing_it_restores_ingests_rooms(palace):
    seed(palace)
    moved = palace.reroom_drawers([("pg-1", "db", "postgres"), ("pg-2", "db", "vacuum"), ("pg-3", "db", "postgres")])
    assert moved == 3 and [c.action for c in palace.change_list()] == ["reroom"]
    assert palace.undo().drawers == 3
    assert {palace.get_drawer(i).room for i in ("pg-1", "pg-2", "pg-3")} == {"db"}
    assert palace.room_choosers(["pg-1"]) == {"pg-1": "ingest"}  # still ingest's to choose again


def test_an_undo_that_cannot_be_whole_writes_nothing_and_leaves_its_change_undoable(palace):
    seed(palace)
    done = palace.delete_where(wing="wing_ops")
    palace.restore_drawers(["pg-2"])  # one of its drawers is back already
    with pytest.raises(InvalidInputError, match="later changes"):
        palace.undo(done.change)
    assert [t.drawer.id for t in palace.trash_list()] == ["pg-1"]  # pg-1 was not restored half-way
    assert palace.changes.get(done.change).undone_by is None
    palace.undo()  # the restore, then the delete: whole
    palace.undo(done.change)
    assert palace.trash_list() == [] and palace.count() == 4


def test_undoing_a_delete_restores_only_its_own_copies_and_a_restore_is_not_undone_without_a_trash(palace_path, settings):
    with Palace.open(palace_path, settings=settings) as palace:
        seed(palace)
        first = palace.delete_where(ids=["cat-1"])
        palace.restore_change(first.change)
        palace.update_drawer("cat-1", wing="wing_ops")
        palace.delete_drawer("cat-1")  # deleted again, from another wing
        with pytest.raises(InvalidInputError, match="later changes"):
            palace.undo(first.change)  # it would bring back the newer copy, in wing_ops
        assert palace.count() == 3
    with Palace.open(palace_path, settings=dataclasses.replace(settings, trash_days=0)) as palace:
        palace.undo()  # the second delete: back in wing_ops
        restore = palace.restore_drawers([])  # nothing: no change
        assert restore.restored == () and palace.get_drawer("cat-1").wing == "wing_ops"
        palace.undo()  # the move back to wing_home
        with pytest.raises(InvalidInputError, match="trash is off"):
            palace.undo()  # the restore: it would delete for good
        assert palace.get_drawer("cat-1").wing == "wing_home"


def test_a_delete_for_good_forgets_older_trashed_copies_and_emptying_forgets_everything(palace):
    seed(palace)
    palace.delete_drawer("cat-1")
    TrashBin(palace._store).put("hash", [Record("pg-1", "stale copy", {"wing": "wing_ops", "room": "db",
                                                                         TRASHED_AT: 1.0e12, TRASH_CHANGE: "c"},
                                                np.zeros(384, np.float32) + 0.05)])
    assert [t.drawer.id for t in palace.trash_list()] == ["cat-1"]  # pg-1 is live: its copy counts for nothing
    palace.delete_drawers(["pg-1"], to_trash=False)
    assert [t.drawer.id for t in palace.trash_list()] == ["cat-1"]  # and does not come back
    assert palace.empty_trash() == 1 and list(TrashBin(palace._store).scan()) == []
