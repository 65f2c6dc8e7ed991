"""`ScopedPalace`: what a viewer of one wing, an editor and an admin see and may change.

The palace has three wings: wing_alpha and wing_secret share the room `roadmap` (a tunnel), wing_secret
also has a room of its own (`payroll`), and wing_beta shares nothing. The viewer sees wing_alpha only.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import replace

import pytest

from mempalace import Palace
from mempalace.access.rules import HIDDEN_WING, grant_for, parse_rules, token_grant
from mempalace.config import load_settings
from mempalace.errors import AccessDeniedError, DrawerNotFoundError, InvalidInputError, PlaceNotFoundError
from mempalace.archive.export import hits_to_csv, hits_to_markdown
from mempalace.graph import build_graph, find_tunnels, graph_stats, merge_rooms, traverse
from mempalace.models import DrawerDraft
from mempalace.scoped.palace import ScopedPalace

RULES = parse_rules([
    {"who": "vi@example.com", "role": "viewer", "wings": ["alpha"]},
    {"who": "ed@example.com", "role": "editor"},
    {"who": "ad@example.com", "role": "admin"},
    {"who": "al@example.com", "role": "editor", "wings": ["wing_alpha"]},
    {"who": "mix@example.com", "role": "viewer"},
    {"who": "mix@example.com", "role": "editor", "wings": ["wing_alpha"]},
])
SECRET_WORDS = ("wing_secret", "wing_beta", "payroll", "zebracorp", "salaries", "sourdough", "recipes")


def grant(email: str, via: str = "dashboard"):
    found = grant_for(RULES, email, via)
    assert found is not None
    return found


def long_text(topic: str, n: int) -> str:
    return " ".join(f"{topic} note {i}: item {i * 7} of the {topic} list was checked by person {i}." for i in range(n))


def fill(palace: Palace) -> dict[str, object]:
    """The three wings; returns the ids by name."""
    ids: dict[str, object] = {}

    def add(name: str, text: str, wing: str, room: str, hall: str) -> None:
        result = palace.add_drawer(text, wing, room, hall=hall, source_file=f"{name}.md")
        assert result.status == "added", (name, result)
        ids[name] = result.drawer_ids if len(result.drawer_ids) > 1 else result.drawer_ids[0]
        ids[name + "_parent"] = result.parent_id

    add("a1", "Roadmap: ship the offline sync feature in the spring release", "wing_alpha", "roadmap", "facts")
    add("a2", "Roadmap: the mobile redesign waits for the design review in May", "wing_alpha", "roadmap", "events")
    add("a_long", long_text("standup", 40), "wing_alpha", "standup", "events")
    add("s1", "Roadmap: acquire zebracorp before the board meeting, quietly", "wing_secret", "roadmap", "advice")
    add("s_long", long_text("payroll salaries", 40), "wing_secret", "payroll", "advice")
    add("b1", "Recipes: sourdough wants a starter fed twice a day", "wing_beta", "recipes", "facts")
    assert len(ids["a_long"]) >= 2 and len(ids["s_long"]) >= 2  # type: ignore[arg-type]
    return ids


def alpha_ids(ids: dict[str, object]) -> set[str]:
    return {ids["a1"], ids["a2"], *ids["a_long"]}  # type: ignore[misc]


def snapshot(palace: Palace) -> tuple:
    """Everything stored: every drawer's place, and the audit log's length."""
    total, drawers = palace.browse(limit=1_000)
    return (total, sorted((d.id, d.wing, d.room, d.hall, d.content) for d in drawers), palace.taxonomy(),
            len(palace.access.entries()))


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Palace, dict[str, object]]]:
    """One filled palace for the read-only tests."""
    root = tmp_path_factory.mktemp("scoped")
    settings = load_settings(root / "home", embedder="hash", shared=False)
    with Palace.open(root / "palace", settings=settings, private=True) as opened:
        yield opened, fill(opened)


@pytest.fixture
def fresh(palace: Palace) -> tuple[Palace, dict[str, object]]:
    """A filled palace of this test's own, for writes."""
    return palace, fill(palace)


# -- what each role sees ----------------------------------------------------------------------------


def test_viewer_of_one_wing_sees_only_it(shared) -> None:
    palace, ids = shared
    view = ScopedPalace(palace, grant("vi@example.com"))
    alpha = palace.taxonomy()["wing_alpha"]
    assert view.count() == sum(alpha.values()) == len(alpha_ids(ids)) < palace.count()
    assert view.list_wings() == {"wing_alpha": sum(alpha.values())}
    assert view.taxonomy() == {"wing_alpha": alpha}
    assert view.list_rooms() == alpha == view.list_rooms("wing_alpha") == view.list_rooms("Wing Alpha")
    for hidden in ("wing_secret", "wing_beta", "nowhere"):  # hidden or missing: the same answer
        with pytest.raises(PlaceNotFoundError) as unknown:
            view.list_rooms(hidden)
        assert str(unknown.value) == f"No wing {hidden!r} in this palace."
    assert view.hall_counts() == palace.hall_counts("wing_alpha") == view.hall_counts("wing_alpha")
    assert "hall_advice" not in view.hall_counts() and "hall_advice" in palace.hall_counts()
    assert view.hall_counts("wing_secret") == {}
    assert view.places() == tuple(p for p in palace.places() if p[0] == "wing_alpha") and view.places()
    status = view.status()
    assert (status.drawers, status.wings, status.rooms, status.halls) == (
        view.count(), 1, 2, view.hall_counts())
    assert sum(view.filed_per_day().values()) == view.count()
    assert set(view.room_dates()) == {"roadmap", "standup"}
    assert set(view.wing_vectors()) == {"wing_alpha"}
    assert {s[0] for found in view.room_samples().values() for s in found} == {"wing_alpha"}
    assert set(view.room_centroids()) == {"roadmap", "standup"}
    assert view.room_inventory() == []  # a viewer may re-room nothing
    for text in (repr(view.taxonomy()), repr(view.places()), repr(status), repr(view.room_dates())):
        assert not any(word in text for word in SECRET_WORDS), text


@pytest.mark.parametrize("email", ["ed@example.com", "ad@example.com", "mix@example.com"])
def test_editor_admin_and_viewer_of_all_see_everything(shared, email: str) -> None:
    palace, _ = shared
    view = ScopedPalace(palace, grant(email))
    assert view.count() == palace.count()
    assert view.list_wings() == palace.list_wings() and len(view.list_wings()) == 3
    assert view.taxonomy() == palace.taxonomy()
    assert view.list_rooms() == palace.list_rooms() and view.list_rooms("wing_secret") == {
        "payroll": len(palace.drawer_ids("wing_secret", "payroll")), "roadmap": 1}
    assert view.hall_counts() == palace.hall_counts() and view.places() == palace.places()
    shown = view.status()
    assert replace(shown, location=palace.location) == palace.status()
    assert shown.location == (palace.location if email == "ad@example.com" else "the team's palace")
    assert view.filed_per_day() == palace.filed_per_day() and view.room_dates() == palace.room_dates()


# -- search -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_search_keeps_to_the_visible_wings(shared, mode: str) -> None:
    palace, ids = shared
    viewer, admin = ScopedPalace(palace, grant("vi@example.com")), ScopedPalace(palace, grant("ad@example.com"))
    query = "roadmap zebracorp payroll salaries sourdough"
    seen = viewer.search(query, limit=50, mode=mode)
    assert {h.drawer_id for h in seen} == alpha_ids(ids)  # every visible drawer, none other
    assert {h.wing for h in admin.search(query, limit=50, mode=mode)} == {"wing_alpha", "wing_secret", "wing_beta"}
    assert {h.drawer_id for h in viewer.search(query, wing="wing_alpha", limit=50, mode=mode)} == alpha_ids(ids)
    assert {h.drawer_id for h in viewer.search(query, wing="Wing Alpha", room="roadmap", mode=mode)} == {
        ids["a1"], ids["a2"]}
    assert viewer.search(query, hall="advice", mode=mode) == []
    # a filter naming a hidden wing or room gets what one that does not exist gets, word for word
    for hidden, missing in (({"wing": "wing_secret"}, {"wing": "wing_nowhe"}), ({"wing": "secret"}, {"wing": "nowhe"}),
                            ({"room": "payroll"}, {"room": "paybook"}),
                            ({"wing": "wing_secret", "room": "roadmap"}, {"wing": "wing_nowhe", "room": "roadmap"})):
        said = []
        for place in (hidden, missing):
            with pytest.raises(PlaceNotFoundError) as unknown:
                viewer.search(query, mode=mode, **place)
            said.append(str(unknown.value).replace(next(iter(place.values())), "X"))
        assert said[0] == said[1] and "secret" not in said[0] and "payroll" not in said[0], said
    assert admin.search("zebracorp", wing="wing_secret", mode=mode)[0].drawer_id == ids["s1"]
    # the palace itself, asked with the viewer's wings, agrees
    with pytest.raises(PlaceNotFoundError):
        palace.search(query, wing="wing_secret", mode=mode, within=("wing_alpha",))


def test_a_viewer_of_no_stored_wing_finds_nothing(shared) -> None:
    palace, _ = shared
    nobody = ScopedPalace(palace, token_grant("lost", "viewer", ("wing_gone",)))
    assert nobody.search("roadmap") == [] and nobody.search("roadmap", mode="vector") == []
    assert nobody.count() == 0 and nobody.list_wings() == {} and nobody.browse() == (0, [])
    assert nobody.drawer_ids() == [] and nobody.list_rooms() == {} and nobody.filed_per_day() == {}


def test_exports_of_a_scoped_search_hold_only_visible_drawers(shared) -> None:
    palace, ids = shared
    viewer, admin = ScopedPalace(palace, grant("vi@example.com")), ScopedPalace(palace, grant("ad@example.com"))
    query = "roadmap plans for the spring"
    hits = viewer.search(query, limit=50)
    report, table = hits_to_markdown(query, hits, {"wing": None}, viewer.shown_location), hits_to_csv(hits)
    rows = list(csv.DictReader(io.StringIO(table)))
    assert {r["drawer_id"] for r in rows} == alpha_ids(ids) and {r["wing"] for r in rows} == {"wing_alpha"}
    hidden = [ids["s1"], *ids["s_long"], ids["b1"]]  # type: ignore[misc]
    for secret in (*hidden, "wing\\_secret", "wing_secret", "zebracorp", "salaries", "sourdough", palace.location):
        assert secret not in report and secret not in table, secret
    full = hits_to_csv(admin.search(query, limit=50))
    assert all(i in full for i in hidden)  # the admin's export holds them
    assert viewer.status().location == "the team's palace" and admin.status().location == palace.location


# -- reading drawers --------------------------------------------------------------------------------


def test_a_hidden_drawer_is_not_found_exactly_as_a_missing_one(shared) -> None:
    palace, ids = shared
    view = ScopedPalace(palace, grant("vi@example.com"))
    hidden, missing = str(ids["s1"]), "drawer_" + "0" * 24
    assert len(hidden) == len(missing)
    with pytest.raises(DrawerNotFoundError) as was_hidden:
        view.get_drawer(hidden)
    with pytest.raises(DrawerNotFoundError) as was_missing:
        view.get_drawer(missing)
    assert str(was_hidden.value).replace(hidden, "X") == str(was_missing.value).replace(missing, "X")
    assert type(was_hidden.value) is type(was_missing.value)
    assert was_hidden.value.args == (str(was_hidden.value),)
    assert view.get_drawer(str(ids["a1"])).wing == "wing_alpha"
    assert ScopedPalace(palace, grant("ad@example.com")).get_drawer(hidden).wing == "wing_secret"


def test_a_wing_changed_behind_the_catalogs_back_does_not_open_a_drawer(fresh) -> None:
    palace, ids = fresh
    view = ScopedPalace(palace, grant("vi@example.com"))  # sees wing_alpha only
    secret = str(ids["s1"])
    palace._store.update_metadata([secret], [{"wing": "wing_alpha"}])  # another tool, unseen by the catalog
    assert secret not in view.find_drawers([secret])
    with pytest.raises(DrawerNotFoundError):
        view.get_drawer(secret)


def test_finding_and_browsing_keep_to_the_visible_wings(shared) -> None:
    palace, ids = shared
    view = ScopedPalace(palace, grant("vi@example.com"))
    a_long, s_long = list(ids["a_long"]), list(ids["s_long"])  # type: ignore[call-overload]
    found = view.find_drawers([ids["a1"], ids["s1"], ids["b1"], s_long[0], "drawer_missing"])
    assert set(found) == {ids["a1"]}
    assert [d.id for d in view.drawers_of(str(ids["a_long_parent"]))] == a_long
    assert view.drawers_of(str(ids["s_long_parent"])) == [] and len(palace.drawers_of(str(ids["s_long_parent"]))) >= 2
    assert [d.id for d in view.neighbours(a_long[1])] == a_long[:3]
    assert view.neighbours(s_long[1]) == [] and len(palace.neighbours(s_long[1])) >= 2
    assert view.neighbours("drawer_missing") == []

    total, page = view.browse()
    assert total == len(alpha_ids(ids)) and {d.id for d in page} == alpha_ids(ids)
    for unknown in ("wing_secret", "wing_nowhere"):
        with pytest.raises(PlaceNotFoundError, match=f"^No wing '{unknown}' in this palace.$"):
            view.browse(wing=unknown)
    total, page = view.browse(room="roadmap")
    assert total == 2 and {d.id for d in page} == {ids["a1"], ids["a2"]}
    assert palace.browse(room="roadmap")[0] == 3
    assert view.browse(hall="hall_advice") == (0, [])
    total, page = view.browse(offset=1, limit=1)
    assert total == len(alpha_ids(ids)) and len(page) == 1 and page[0].id in alpha_ids(ids)

    assert set(view.drawer_ids()) == alpha_ids(ids)
    assert view.drawer_ids(wing="wing_secret") == [] == view.drawer_ids(room="payroll")
    assert set(view.drawer_ids(room="roadmap")) == {ids["a1"], ids["a2"]}
    assert set(view.drawer_ids(wing="wing_alpha", room="standup")) == set(a_long)


def test_duplicates_and_nearest_drawers_are_kept_to_the_visible_wings(shared) -> None:
    palace, ids = shared
    view = ScopedPalace(palace, grant("vi@example.com"))
    text = palace.get_drawer(str(ids["s1"])).content
    assert [m.drawer_id for m in palace.check_duplicate(text)] == [ids["s1"]]
    assert view.check_duplicate(text) == ()
    vectors = palace.embed([text, palace.get_drawer(str(ids["a1"])).content])
    near = view.nearest_existing(vectors)
    assert near[0] is None or near[0][0] in alpha_ids(ids)
    assert near[1] is not None and near[1][0] == ids["a1"]


# -- the graph: tunnels into hidden wings show the room, never the wing -------------------------------


def test_graph_of_a_viewer_shows_the_tunnel_room_with_the_hidden_wing_placeholder(shared) -> None:
    palace, ids = shared
    view = ScopedPalace(palace, grant("vi@example.com"))
    (tunnel,) = find_tunnels(view)
    assert (tunnel.room, tunnel.wings, tunnel.count) == ("roadmap", (HIDDEN_WING, "wing_alpha"), 2)
    assert tunnel.halls == ("hall_events", "hall_facts")  # the hidden drawer's hall is not shown
    assert [t.room for t in find_tunnels(view, "wing_alpha")] == ["roadmap"]
    assert [t.room for t in find_tunnels(view, "alpha", HIDDEN_WING)] == ["roadmap"]
    with pytest.raises(PlaceNotFoundError) as caught:
        find_tunnels(view, "wing_secret")
    assert "wing_secret" in str(caught.value) and "wing_beta" not in str(caught.value)  # only the name asked

    stats = graph_stats(view)
    assert (stats.total_rooms, stats.tunnel_rooms, stats.total_edges, stats.total_wings) == (2, 1, 1, 1)
    assert stats.rooms_per_wing == {"wing_alpha": 2} and stats.isolated_wings == ()
    assert [(t.room, t.wings, t.count) for t in stats.top_tunnels] == [("roadmap", (HIDDEN_WING, "wing_alpha"), 2)]

    nodes, edges = build_graph(view)
    assert set(nodes) == {"roadmap", "standup"}
    assert (nodes["roadmap"].wings, nodes["roadmap"].count) == ((HIDDEN_WING, "wing_alpha"), 2)
    assert nodes["standup"].count == len(ids["a_long"])  # type: ignore[arg-type]
    assert [(e.room, e.wing_a, e.wing_b, e.count) for e in edges] == [("roadmap", HIDDEN_WING, "wing_alpha", 2)]

    steps = traverse(view, "roadmap", max_hops=5)
    assert [(s.room, s.hop, s.connected_via) for s in steps] == [("roadmap", 0, ()), ("standup", 1, ("wing_alpha",))]
    with pytest.raises(PlaceNotFoundError) as caught:
        traverse(view, "payroll")
    assert "wing_secret" not in str(caught.value)

    shown = repr((find_tunnels(view), stats, nodes, edges, steps))
    assert not any(word in shown for word in SECRET_WORDS), shown


def test_graph_of_an_admin_shows_every_wing(shared) -> None:
    palace, _ = shared
    admin = ScopedPalace(palace, grant("ad@example.com"))
    (tunnel,) = find_tunnels(admin)
    assert (tunnel.room, tunnel.wings, tunnel.count) == ("roadmap", ("wing_alpha", "wing_secret"), 3)
    assert find_tunnels(admin) == find_tunnels(palace)
    assert graph_stats(admin) == graph_stats(palace) and graph_stats(admin).total_wings == 3
    assert set(build_graph(admin)[0]) == {"roadmap", "standup", "payroll", "recipes"}
    assert {s.room for s in traverse(admin, "roadmap")} == {"roadmap", "standup", "payroll"}


def test_derived_views_of_two_scopes_never_mix(shared) -> None:
    palace, _ = shared
    viewer, admin = ScopedPalace(palace, grant("vi@example.com")), ScopedPalace(palace, grant("ad@example.com"))
    beta = ScopedPalace(palace, token_grant("beta", "viewer", ("wing_beta",)))
    for _ in range(2):  # the second round answers from the caches
        assert graph_stats(admin).total_wings == 3 and graph_stats(palace).total_wings == 3
        assert graph_stats(viewer).rooms_per_wing == {"wing_alpha": 2}
        assert graph_stats(beta).rooms_per_wing == {"wing_beta": 1} and find_tunnels(beta) == []
        assert find_tunnels(viewer)[0].wings == (HIDDEN_WING, "wing_alpha")
        assert find_tunnels(admin)[0].wings == ("wing_alpha", "wing_secret")
        assert set(build_graph(viewer)[0]) == {"roadmap", "standup"} and set(build_graph(beta)[0]) == {"recipes"}
        assert viewer.derived(("mine",), lambda: "viewer") == "viewer"
        assert admin.derived(("mine",), lambda: "admin") == "admin"
        assert palace.derived(("mine",), lambda: "palace") == "palace"
    viewer.park("state", "v")
    assert admin.take("state") is None and viewer.take("state") == "v"


# -- writes -----------------------------------------------------------------------------------------


def test_a_viewer_may_change_nothing(fresh) -> None:
    palace, ids = fresh
    view = ScopedPalace(palace, grant("vi@example.com"))
    before = snapshot(palace)
    a1, a_long = str(ids["a1"]), list(ids["a_long"])  # type: ignore[call-overload]
    attempts = [
        lambda: view.add_drawer("A new idea for the spring release", "wing_alpha", "roadmap"),
        lambda: view.add_drawer("A new idea for the secret wing", "wing_secret", "roadmap"),
        lambda: view.file_drawers([DrawerDraft("drawer_new", "Filed text", "wing_alpha", "roadmap")]),
        lambda: view.update_drawer(a1, room="archive"),
        lambda: view.update_drawer(a1, wing="wing_beta"),
        lambda: view.move_drawers([a1, *a_long], room="archive"),
        lambda: view.move_drawers([str(ids["s1"])], room="archive"),
        lambda: view.move_rooms(["roadmap"], "plans"),
        lambda: merge_rooms(view, "standup", "roadmap"),
        lambda: view.reroom_drawers([(a1, "roadmap", "standup")]),
        lambda: view.delete_drawer(a1),
        lambda: view.delete_drawers([a1]),
        lambda: view.delete_drawers([str(ids["s1"])]),
        lambda: view.rebuild_index(),
        lambda: view.audit_entries(),
    ]
    for number, attempt in enumerate(attempts):
        with pytest.raises(AccessDeniedError, match=r"^vi@example\.com may not "):
            attempt()
        assert snapshot(palace) == before, number
    with pytest.raises(DrawerNotFoundError):  # a hidden drawer is not found before the role is checked
        view.update_drawer(str(ids["s1"]), room="archive")
    assert snapshot(palace) == before


def test_an_editor_of_every_wing_adds_moves_merges_and_rerooms_but_deletes_only_what_it_filed(fresh) -> None:
    palace, ids = fresh
    editor = ScopedPalace(palace, grant("ed@example.com", "mcp"))
    added = editor.add_drawer("The quarterly planning moved to Thursdays", "wing_beta", "planning")
    assert added.status == "added"
    (new_id,) = added.drawer_ids
    assert editor.update_drawer(new_id, wing="wing_secret", room="plans").wing == "wing_secret"
    assert editor.move_drawers([str(ids["b1"])], room="kitchen", hall="events") == 1
    assert palace.get_drawer(str(ids["b1"])).room == "kitchen"
    merged = merge_rooms(editor, "roadmap", "plans")
    assert (merged.moved, merged.wings) == (3, ("wing_alpha", "wing_secret"))
    assert palace.list_rooms().get("roadmap") is None and palace.list_rooms()["plans"] == 4
    editor.file_drawers([DrawerDraft("drawer_ingested", "An ingested chat about sourdough", "wing_beta", "chats",
                                     room_by="ingest")])
    assert {d.id for d in editor.room_inventory()} == set(palace.drawer_ids())
    assert editor.reroom_drawers([("drawer_ingested", "chats", "kitchen")]) == 1
    assert palace.get_drawer("drawer_ingested").room == "kitchen"

    before = snapshot(palace)
    for attempt in (lambda: editor.delete_drawer(new_id), lambda: editor.delete_drawers([str(ids["b1"]), new_id]),
                    lambda: editor.rebuild_index(), lambda: editor.audit_entries()):
        with pytest.raises(AccessDeniedError, match="needs the admin role"):
            attempt()
    assert snapshot(palace) == before

    log = palace.access.entries()
    assert {(e.who, e.via) for e in log} >= {("ed@example.com", "mcp")}
    mine = [e for e in log if e.who == "ed@example.com"]
    assert [e.action for e in reversed(mine)] == ["add", "move", "move", "move-rooms", "file", "reroom"]
    assert all(e.via == "mcp" for e in mine)
    assert mine[-1].ids == (new_id,) and set(mine[2].ids) == {ids["a1"], ids["a2"], ids["s1"]}
    # what it filed itself it may take back (ingest replacing a grown conversation, or undoing a run)
    assert editor.delete_drawers([new_id, "drawer_ingested"]) == 2
    assert palace.access.entries(action="delete")[0].who == "ed@example.com"


def test_an_editor_of_one_wing_stays_in_it(fresh) -> None:
    palace, ids = fresh
    editor = ScopedPalace(palace, grant("al@example.com"))
    a1, b1, s1 = str(ids["a1"]), str(ids["b1"]), str(ids["s1"])
    assert editor.add_drawer("Alpha's next milestone is the beta launch", "Wing Alpha", "roadmap").status == "added"
    assert editor.update_drawer(a1, room="plans").room == "plans"
    before = snapshot(palace)
    for attempt in (lambda: editor.update_drawer(a1, wing="wing_beta"),
                    lambda: editor.move_drawers([a1], wing="wing_secret"),
                    lambda: editor.add_drawer("Something for beta", "wing_beta", "recipes"),
                    lambda: editor.file_drawers([DrawerDraft("drawer_x", "Text", "wing_beta", "recipes")]),
                    lambda: editor.delete_drawer(a1)):
        with pytest.raises(AccessDeniedError):
            attempt()
    assert snapshot(palace) == before
    for hidden in (b1, s1):  # drawers outside are not there for it
        with pytest.raises(DrawerNotFoundError):
            editor.update_drawer(hidden, room="plans")
    assert editor.move_drawers([b1, s1], room="plans") == 0
    assert snapshot(palace) == before
    # filing a draft under a hidden drawer's id is refused, and that drawer stays as it was
    with pytest.raises(InvalidInputError, match="already filed in a wing you cannot see"):
        editor.file_drawers([DrawerDraft(s1, "Overwritten by the editor", "wing_alpha", "roadmap")])
    kept = palace.get_drawer(s1)
    assert (kept.wing, kept.content) == ("wing_secret", "Roadmap: acquire zebracorp before the board meeting, quietly")
    assert editor.find_drawers([s1]) == {} and snapshot(palace)[:3] == before[:3]
    # merging moves its own wing's drawers only; the secret wing keeps its roadmap
    merged = merge_rooms(editor, "roadmap", "plans")
    assert (merged.moved, merged.wings) == (2, ("wing_alpha",))
    assert palace.list_rooms("wing_secret") == {"payroll": len(ids["s_long"]), "roadmap": 1}  # type: ignore[arg-type]
    assert palace.get_drawer(s1).room == "roadmap" and palace.list_rooms("wing_alpha").get("roadmap") is None
    with pytest.raises(PlaceNotFoundError):
        merge_rooms(editor, "payroll", "plans")
    assert editor.reroom_drawers([(b1, "recipes", "plans")]) == 0 and palace.get_drawer(b1).room == "recipes"


def test_a_viewer_of_all_and_editor_of_one_wing_may_not_touch_the_others(fresh) -> None:
    palace, ids = fresh
    mixed = ScopedPalace(palace, grant("mix@example.com"))
    a1, b1 = str(ids["a1"]), str(ids["b1"])
    assert mixed.get_drawer(b1).wing == "wing_beta"  # it sees every wing
    before = snapshot(palace)
    for attempt in (lambda: mixed.update_drawer(b1, room="plans"),
                    lambda: mixed.move_drawers([a1, b1], room="plans"),
                    lambda: mixed.update_drawer(a1, wing="wing_beta")):
        with pytest.raises(AccessDeniedError, match="needs the editor role in wing_beta"):
            attempt()
    assert snapshot(palace) == before
    merged = merge_rooms(mixed, "roadmap", "plans")
    assert (merged.moved, merged.wings) == (2, ("wing_alpha",)) and palace.get_drawer(str(ids["s1"])).room == "roadmap"


def test_an_admin_deletes_and_rebuilds_and_reads_the_log(fresh) -> None:
    palace, ids = fresh
    admin = ScopedPalace(palace, grant("ad@example.com"))
    start = palace.count()
    assert admin.delete_drawer(str(ids["a1"])).id == ids["a1"]
    assert admin.delete_drawers([str(ids["b1"]), *ids["s_long"], "drawer_missing"]) == 1 + len(ids["s_long"])  # type: ignore[misc]
    assert palace.count() == start - 2 - len(ids["s_long"])  # type: ignore[arg-type]
    assert admin.rebuild_index() == palace.count()
    entries = admin.audit_entries(who="ad@example.com")
    assert [e.action for e in entries] == ["rebuild", "delete", "delete"]
    assert all(e.via == "dashboard" for e in entries)
    assert entries[2].ids == (ids["a1"],) and set(entries[1].ids) == {ids["b1"], *ids["s_long"]}  # type: ignore[misc]
    assert admin.audit_entries(drawer=str(ids["a1"]))[0].action == "delete"


def test_writes_of_the_palace_itself_and_of_a_token_are_audited_under_their_actor(fresh) -> None:
    palace, ids = fresh
    from mempalace.access.rules import local_user

    assert {(e.who, e.via, e.action) for e in palace.access.entries()} == {(local_user(), "python", "add")}
    bot = ScopedPalace(palace, token_grant("ci-bot", "editor", ("wing_beta",)))
    bot.update_drawer(str(ids["b1"]), room="kitchen")
    (entry,) = palace.access.entries(who="token:ci-bot")
    assert (entry.via, entry.action, entry.ids, entry.detail) == (
        "mcp", "move", (ids["b1"],), {"room": "kitchen", "change": entry.detail["change"]})
    palace.update_drawer(str(ids["a1"]), room="plans")  # the grant's actor did not stay behind
    assert palace.access.entries()[0].who == local_user()
