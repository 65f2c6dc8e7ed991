"""The palace graph: tunnels, edges, traverse, find_tunnels, graph_stats, weights, caching and merges."""

from __future__ import annotations

import math

import chromadb
import numpy as np
import pytest

from mempalace import Palace
from mempalace.config import load_settings
from mempalace.errors import InvalidInputError, PlaceNotFoundError
from mempalace.graph import (
    build_graph,
    find_tunnels,
    graph_stats,
    merge_rooms,
    suggest_room_merges,
    traverse,
    tunnel_weight,
)
from mempalace.graph.network import MAX_STEPS
from mempalace.store.chroma import SEQ_KEY
from mempalace.catalog.sync import new_stamp


def seed(palace: Palace) -> None:
    """The auth-migration story: one room in three wings, each under its own hall."""
    palace.add_drawer("Kai moved the login service to the new OIDC provider on Tuesday.", "wing_kai",
                      "auth-migration", "hall_events")
    palace.add_drawer("Decision: driftwood uses OIDC; SAML is retired after the auth migration.", "wing_driftwood",
                      "auth-migration", "hall_facts")
    palace.add_drawer("Priya's advice: migrate auth one client at a time behind a flag.", "wing_priya",
                      "auth-migration", "hall_advice")


def foreign_add(palace: Palace, drawer_id: str, text: str, wing: str, room: str) -> None:
    """Another client or tool writing straight into Chroma (room names kept exactly as given)."""
    palace._store.add([drawer_id], [text], [{"wing": wing, "room": room, SEQ_KEY: new_stamp()}],
                      palace.embed([text]))
    palace._store.bump_marker()


def test_seed_story_gives_one_tunnel_with_three_wings_and_three_edges(palace: Palace) -> None:
    seed(palace)
    nodes, edges = build_graph(palace)
    node = nodes["auth-migration"]
    assert node.wings == ("wing_driftwood", "wing_kai", "wing_priya")
    assert node.halls == ("hall_advice", "hall_events", "hall_facts")
    assert node.count == 3 and len(node.dates) == 1 and node.dates[0][:2] == "20"
    assert {(e.wing_a, e.wing_b) for e in edges} == {
        ("wing_driftwood", "wing_kai"), ("wing_driftwood", "wing_priya"), ("wing_kai", "wing_priya")}
    assert all(e.room == "auth-migration" and e.count == 3 and e.halls == node.halls for e in edges)
    stats = graph_stats(palace)
    assert (stats.total_rooms, stats.tunnel_rooms, stats.total_edges, stats.total_wings) == (1, 1, 3, 3)
    assert stats.rooms_per_wing == {"wing_driftwood": 1, "wing_kai": 1, "wing_priya": 1}
    assert [t.room for t in stats.top_tunnels] == ["auth-migration"] and stats.isolated_wings == ()
    assert [t.room for t in find_tunnels(palace)] == ["auth-migration"]
    assert [t.room for t in find_tunnels(palace, "wing_kai", "wing_priya")] == ["auth-migration"]
    steps = traverse(palace, "auth-migration")
    assert [(s.room, s.hop, s.connected_via) for s in steps] == [("auth-migration", 0, ())]


def test_edges_exist_without_halls_and_a_room_in_k_wings_gives_k_choose_2(palace: Palace) -> None:
    for n in range(5):
        palace.add_drawer(f"note {n} about the shared budget", f"wing_{n}", "budget")
    nodes, edges = build_graph(palace)
    assert nodes["budget"].halls == () and len(edges) == 10
    assert graph_stats(palace).total_edges == 10


def test_dates_prefer_the_conversation_day(palace: Palace) -> None:
    palace.add_drawer("the retro happened", "wing_a", "retro", conversation_date="2024-03-05T10:00:00Z")
    palace.add_drawer("another retro", "wing_a", "retro", conversation_date="2025-01-02")
    assert build_graph(palace)[0]["retro"].dates == ("2025-01-02", "2024-03-05")


def test_general_is_left_out_unless_configured(palace: Palace, palace_path, home) -> None:
    palace.add_drawer("misc chatter one", "wing_a", "general")
    palace.add_drawer("misc chatter two", "wing_b", "general")
    assert build_graph(palace) == ({}, [])
    stats = graph_stats(palace)
    assert stats.total_rooms == 0 and stats.isolated_wings == ("wing_a", "wing_b")
    with pytest.raises(PlaceNotFoundError, match="left out of the graph"):
        traverse(palace, "general")
    palace.close()
    with Palace.open(palace_path, settings=load_settings(home, graph_hidden_rooms=[])) as shown:
        assert [t.room for t in find_tunnels(shown)] == ["general"]


def test_weight_formula() -> None:
    assert tunnel_weight(2, 2) == 1.0 and tunnel_weight(2, 10) == 1.0
    assert tunnel_weight(1, 10) == 0.0 and tunnel_weight(2, 1) == 0.0
    assert tunnel_weight(10, 10) == pytest.approx(math.log(11 / 10) / math.log(11 / 2), abs=1e-6)
    assert tunnel_weight(3, 3) == tunnel_weight(3, 10) > 0.7  # small palaces count as ten wings
    weights = [tunnel_weight(k, 30) for k in range(2, 31)]
    assert weights == sorted(weights, reverse=True) and weights[-1] < 0.03


def test_dense_and_stop_listed_rooms_rank_last_and_do_not_end_isolation(palace: Palace) -> None:
    wings = [f"wing_{n:02d}" for n in range(12)]
    for wing in wings:
        palace.add_drawer(f"whatever {wing} talked about", wing, "chit-chat")  # in every wing
    palace.add_drawer("gpu prices a", wings[0], "gpu-pricing")
    palace.add_drawer("gpu prices b", wings[1], "gpu-pricing")
    for wing in wings[:6]:
        palace.add_drawer(f"auth plan in {wing}", wing, "auth-plan")
    palace.add_drawer("misc a", wings[10], "misc")
    palace.add_drawer("misc b", wings[11], "misc")
    stats = graph_stats(palace)
    order = [t.room for t in stats.top_tunnels]
    assert order == ["auth-plan", "gpu-pricing", "chit-chat"]  # misc is stop-listed: weight 0, not a top tunnel
    assert stats.tunnel_rooms == 4 and [t.weight for t in find_tunnels(palace) if t.room == "misc"] == [0.0]
    by_room = {t.room: t for t in stats.top_tunnels}
    assert by_room["gpu-pricing"].weight == 1.0
    assert by_room["chit-chat"].weight < 0.1
    assert by_room["auth-plan"].score == pytest.approx(5 * tunnel_weight(6, 12), abs=1e-5)
    edges = build_graph(palace)[1]
    assert edges[0].room == "gpu-pricing" and edges[-1].room == "misc"
    # wing_10 and wing_11 are linked only by chit-chat (everywhere) and misc (stop list); chit-chat
    # still carries a little weight, so nothing is isolated; drop it from the picture with the stop list
    assert stats.isolated_wings == ()


def test_stop_list_comes_from_settings(palace_path, home) -> None:
    (home / "config.toml").parent.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('tunnel_stop_rooms = ["Chit Chat"]\n')
    with Palace.open(palace_path, settings=load_settings(home)) as palace:
        palace.add_drawer("a", "wing_a", "chit-chat")
        palace.add_drawer("b", "wing_b", "chit-chat")
        palace.add_drawer("c", "wing_c", "solo")
        stats = graph_stats(palace)
        assert find_tunnels(palace)[0].weight == 0.0 and stats.top_tunnels == ()
        assert stats.isolated_wings == ("wing_a", "wing_b", "wing_c")


def test_traverse_walks_shared_wings_breadth_first(palace: Palace) -> None:
    # start (A) - r1 (A, B) - r2 (B, C) - r3 (C)
    palace.add_drawer("s", "wing_a", "start")
    palace.add_drawer("r1 a", "wing_a", "r1")
    palace.add_drawer("r1 b", "wing_b", "r1")
    palace.add_drawer("r1 b again", "wing_b", "r1")
    palace.add_drawer("r2 b", "wing_b", "r2")
    palace.add_drawer("r2 c", "wing_c", "r2")
    palace.add_drawer("r3 c", "wing_c", "r3")
    palace.add_drawer("lonely", "wing_d", "elsewhere")
    steps = traverse(palace, "Start", max_hops=5)
    assert [(s.room, s.hop, s.connected_via, s.count) for s in steps] == [
        ("start", 0, (), 1), ("r1", 1, ("wing_a",), 3), ("r2", 2, ("wing_b",), 2), ("r3", 3, ("wing_c",), 1)]
    assert steps[1].wings == ("wing_a", "wing_b")
    assert [s.room for s in traverse(palace, "start", max_hops=1)] == ["start", "r1"]
    assert [s.room for s in traverse(palace, "start", max_hops=0)] == ["start"]


def test_traverse_sorts_by_hop_then_count_and_stops_at_fifty(palace: Palace) -> None:
    texts, metas = [], []
    for n in range(70):
        for k in range(n % 3 + 1):
            texts.append(f"room {n} drawer {k}")
            metas.append({"wing": "wing_big", "room": f"room-{n:02d}", SEQ_KEY: new_stamp()})
    palace._store.add([f"d{i}" for i in range(len(texts))], texts, metas, palace.embed(texts))
    palace._store.bump_marker()
    steps = traverse(palace, "room-00")
    assert len(steps) == MAX_STEPS and steps[0].room == "room-00"
    counts = [s.count for s in steps[1:]]
    assert counts == sorted(counts, reverse=True) and counts[0] == 3


@pytest.mark.parametrize("hops", [-1, 21, 10**9, True, 2.5, "2"])
def test_traverse_refuses_bad_hops(palace: Palace, hops) -> None:
    seed(palace)
    with pytest.raises(InvalidInputError, match="max_hops"):
        traverse(palace, "auth-migration", max_hops=hops)


def test_unknown_names_get_clear_errors_with_suggestions(palace: Palace) -> None:
    seed(palace)
    with pytest.raises(PlaceNotFoundError, match="Did you mean auth-migration"):
        traverse(palace, "auth-migrations")
    with pytest.raises(PlaceNotFoundError, match="No room 'zebra'"):
        traverse(palace, "zebra")
    with pytest.raises(InvalidInputError):
        traverse(palace, "  ")
    with pytest.raises(PlaceNotFoundError, match="Did you mean wing_priya"):
        find_tunnels(palace, "wing_pria")
    assert [t.room for t in find_tunnels(palace, "kai")] == ["auth-migration"]  # the wing_ prefix is optional
    assert [t.room for t in find_tunnels(palace, "wing_kai", "wing_kai")] == ["auth-migration"]


def test_empty_palace_gives_empty_answers(palace: Palace) -> None:
    assert build_graph(palace) == ({}, [])
    assert find_tunnels(palace) == []
    stats = graph_stats(palace)
    assert (stats.total_rooms, stats.tunnel_rooms, stats.total_edges, stats.top_tunnels) == (0, 0, 0, ())
    assert suggest_room_merges(palace) == []
    with pytest.raises(PlaceNotFoundError):
        traverse(palace, "anything")


def test_find_tunnels_filters_by_one_or_two_wings(palace: Palace) -> None:
    for wing, room in [("wing_a", "x"), ("wing_b", "x"), ("wing_a", "y"), ("wing_c", "y"), ("wing_c", "y2"),
                       ("wing_b", "z"), ("wing_c", "z"), ("wing_a", "solo")]:
        palace.add_drawer(f"{room} in {wing}", wing, room)
    palace.add_drawer("more x", "wing_b", "x")
    assert [t.room for t in find_tunnels(palace)] == ["x", "y", "z"]
    assert [t.room for t in find_tunnels(palace, "wing_a")] == ["x", "y"]
    assert [t.room for t in find_tunnels(palace, "wing_b", "wing_c")] == ["z"]
    assert find_tunnels(palace, wing_b="wing_c", wing_a="wing_a")[0].wings == ("wing_a", "wing_c")


def test_stats_are_exact_right_after_every_kind_of_write(palace: Palace) -> None:
    seed(palace)
    assert graph_stats(palace).tunnel_rooms == 1
    lone = palace.add_drawer("GPU prices in wing_kai", "wing_kai", "gpu-pricing").drawer_ids[0]
    assert graph_stats(palace).total_rooms == 2 and graph_stats(palace).tunnel_rooms == 1
    palace.update_drawer(lone, wing="wing_zed")
    assert graph_stats(palace).rooms_per_wing["wing_zed"] == 1
    palace.add_drawer("GPU prices again", "wing_priya", "gpu-pricing")
    assert {t.room for t in find_tunnels(palace)} == {"auth-migration", "gpu-pricing"}
    palace.delete_drawer(lone)
    assert {t.room for t in find_tunnels(palace)} == {"auth-migration"}
    assert "wing_zed" not in graph_stats(palace).rooms_per_wing


def test_warm_calls_do_not_read_the_catalog_again(palace: Palace, monkeypatch) -> None:
    seed(palace)
    first = graph_stats(palace)
    calls = []
    original = palace._catalog.room_counts
    monkeypatch.setattr(palace._catalog, "room_counts", lambda: calls.append(1) or original())
    again = graph_stats(palace)
    assert again == first and calls == []
    again.rooms_per_wing["wing_kai"] = 99  # callers get their own copy of the mutable parts
    assert graph_stats(palace).rooms_per_wing["wing_kai"] == 1
    palace.add_drawer("new", "wing_new", "auth-migration")
    assert graph_stats(palace).total_wings == 4 and calls == [1]


def test_writes_by_another_client_are_noticed(palace_path, home) -> None:
    with Palace.open(palace_path, settings=load_settings(home, foreign_check_seconds=0)) as palace:
        seed(palace)
        assert graph_stats(palace).tunnel_rooms == 1
        foreign_add(palace, "foreign-1", "GPU costs from another client", "wing_kai", "gpu-pricing")
        foreign_add(palace, "foreign-2", "GPU costs seen elsewhere", "wing_driftwood", "gpu-pricing")
        assert {t.room for t in find_tunnels(palace)} == {"auth-migration", "gpu-pricing"}


def test_writes_by_a_tool_that_bypasses_mempalace_are_noticed(palace: Palace, palace_path) -> None:
    seed(palace)
    assert graph_stats(palace).tunnel_rooms == 1
    client = chromadb.PersistentClient(str(palace_path))  # an upstream tool, unaware of our catalog
    collection = client.get_collection("mempalace_drawers")
    ids = [d for d in palace.drawer_ids(wing="wing_priya")]
    collection.delete(ids=ids)
    assert graph_stats(palace).total_wings == 2
    assert build_graph(palace)[0]["auth-migration"].wings == ("wing_driftwood", "wing_kai")


def test_suggestions_catch_spelling_variants_from_other_tools(palace: Palace) -> None:
    seed(palace)
    foreign_add(palace, "f1", "auth notes from upstream", "wing_zed", "Auth Migration")
    foreign_add(palace, "f2", "migrating auth, again", "wing_yan", "migrating_auth")
    suggestions = {(s.source, s.target): s for s in suggest_room_merges(palace)}
    assert suggestions[("Auth Migration", "auth-migration")].score == 1.0
    assert suggestions[("migrating_auth", "auth-migration")].score == 0.95
    best = suggest_room_merges(palace, limit=1)
    assert len(best) == 1 and best[0].target == "auth-migration" and best[0].target_count == 3
    for bad in (0, 1.5, "high", True):
        with pytest.raises(InvalidInputError):
            suggest_room_merges(palace, min_score=bad)
    with pytest.raises(InvalidInputError):
        suggest_room_merges(palace, limit=0)


def test_merge_rooms_moves_metadata_only_and_makes_the_tunnel(palace: Palace) -> None:
    seed(palace)
    foreign_add(palace, "f1", "auth notes from upstream", "wing_zed", "Auth Migration")
    foreign_add(palace, "f2", "more auth, other spelling", "wing_yan", "auth_migration")
    before = {i: (d.content, d.vector.copy()) for i, d in palace._catalog.rows(["f1", "f2"]).items()}
    stored = {r.id: r.embedding for r in palace._store.get(["f1", "f2"], embeddings=True)}
    result = merge_rooms(palace, "Auth Migration", "auth_migration")
    assert (result.source, result.target, result.moved) == ("Auth Migration", "auth-migration", 2)
    assert result.wings == ("wing_yan", "wing_zed")
    node = build_graph(palace)[0]["auth-migration"]
    assert node.count == 5 and len(node.wings) == 5 and set(palace.list_rooms()) == {"auth-migration"}
    after = palace._catalog.rows(["f1", "f2"])
    for drawer_id, (content, vector) in before.items():
        assert after[drawer_id].content == content and np.array_equal(after[drawer_id].vector, vector)
        chroma = palace._store.get([drawer_id], embeddings=True)[0]
        assert chroma.metadata["room"] == "auth-migration" and np.array_equal(chroma.embedding, stored[drawer_id])
        assert palace.get_drawer(drawer_id).room == "auth-migration"


def test_merge_rooms_refuses_bad_requests_and_changes_nothing(palace: Palace) -> None:
    seed(palace)
    palace.add_drawer("gpu", "wing_kai", "gpu-pricing")
    before = palace.taxonomy()
    with pytest.raises(InvalidInputError, match="into itself"):
        merge_rooms(palace, "gpu-pricing", "GPU Pricing")
    with pytest.raises(PlaceNotFoundError, match="Did you mean gpu-pricing"):
        merge_rooms(palace, "gpu-prices", "auth-migration")
    with pytest.raises(InvalidInputError):
        merge_rooms(palace, "gpu-pricing", "!!!")
    with pytest.raises(InvalidInputError):
        merge_rooms(palace, "", "auth-migration")
    assert palace.taxonomy() == before


def test_merge_into_a_new_name_renames_the_room(palace: Palace) -> None:
    seed(palace)
    result = merge_rooms(palace, "auth-migration", "Identity Migration")
    assert result.moved == 3 and palace.list_rooms() == {"identity-migration": 3}
    assert [t.room for t in find_tunnels(palace)] == ["identity-migration"]


def test_move_drawers_moves_many_and_ignores_unknown_ids(palace: Palace) -> None:
    ids = [palace.add_drawer(f"drawer {n}", "wing_a", "old").drawer_ids[0] for n in range(3)]
    assert palace.move_drawers(ids + ["nope"], room="New Room", hall="facts") == 3
    assert palace.taxonomy() == {"wing_a": {"new-room": 3}}
    assert {palace.get_drawer(i).hall for i in ids} == {"hall_facts"}
    assert palace.move_drawers(["nope"], room="x") == 0
    with pytest.raises(InvalidInputError, match="Say where"):
        palace.move_drawers(ids)


def test_merging_a_slug_into_its_unnormalised_spelling_gathers_both(palace: Palace) -> None:
    seed(palace)
    foreign_add(palace, "f1", "auth notes from upstream", "wing_zed", "Auth Migration")
    result = merge_rooms(palace, "auth-migration", "Auth Migration")
    assert (result.source, result.target, result.moved) == ("auth-migration", "auth-migration", 1)
    assert palace.list_rooms() == {"auth-migration": 4}


def test_wing_suggestions_ignore_the_wing_prefix(palace: Palace) -> None:
    seed(palace)
    with pytest.raises(PlaceNotFoundError, match=r"Did you mean wing_kai\?"):
        find_tunnels(palace, "kia")


def test_every_write_path_slugs_the_room_so_variants_form_one_tunnel(palace: Palace) -> None:
    from mempalace.ingest import ingest
    from mempalace.models import DrawerDraft

    palace.add_drawer("first spelling", "wing_a", "Auth Migration")
    palace.file_drawers([DrawerDraft("drawer_x", "second spelling", "Wing B", "auth_migration")])
    moved = palace.add_drawer("third, moved later", "wing_c", "elsewhere").drawer_ids[0]
    palace.update_drawer(moved, room="  AUTH--migration ")
    ingest(palace, b"User: how is it going?\nAssistant: fine", filename="chat.txt", wing="wing_d",
           room="auth  MIGRATION")
    assert palace.list_rooms() == {"auth-migration": 4}
    assert find_tunnels(palace)[0].wings == ("wing_a", "wing_b", "wing_c", "wing_d")


def test_names_that_only_slug_alike_are_not_called_the_same(palace: Palace) -> None:
    foreign_add(palace, "f1", "pointers and templates", "wing_a", "C++")
    foreign_add(palace, "f2", "LINQ and async", "wing_b", "C#")
    foreign_add(palace, "f3", "more templates", "wing_c", "c++")
    pairs = {(s.source, s.target): s.score for s in suggest_room_merges(palace, min_score=0.9)}
    assert pairs.get(("C++", "c++"), pairs.get(("c++", "C++"))) == 1.0
    assert not {("C#", "C++"), ("C++", "C#"), ("C#", "c++"), ("c++", "C#")} & set(pairs)


def test_suggestions_point_at_the_slug_spelling(palace: Palace) -> None:
    palace.add_drawer("one", "wing_a", "auth-migration")
    for n in range(3):
        foreign_add(palace, f"f{n}", f"upstream note {n}", "wing_b", "Auth Migration")
    suggestion = suggest_room_merges(palace)[0]
    assert (suggestion.source, suggestion.target) == ("Auth Migration", "auth-migration")


def test_merge_reports_every_spelling_it_emptied_and_refuses_a_self_merge(palace: Palace) -> None:
    seed(palace)
    foreign_add(palace, "f1", "upstream note", "wing_zed", "Auth Migration")
    with pytest.raises(InvalidInputError, match="into itself"):
        merge_rooms(palace, "Auth Migration", "Auth Migration")
    palace.add_drawer("deploy notes", "wing_kai", "deploys")
    result = merge_rooms(palace, "deploys", "Auth Migration")
    assert result.sources == ("deploys", "Auth Migration") and result.moved == 2
    assert result.wings == ("wing_kai", "wing_zed") and palace.list_rooms() == {"auth-migration": 5}


def test_wings_stored_unnormalised_are_found_as_stored(palace: Palace) -> None:
    seed(palace)
    foreign_add(palace, "f1", "upstream auth", "Wing Kai", "auth-migration")
    assert [t.room for t in find_tunnels(palace, "Wing Kai")] == ["auth-migration"]
    assert "Wing Kai" in find_tunnels(palace, "Wing Kai")[0].wings


def test_new_methods_refuse_wrongly_typed_input(palace: Palace) -> None:
    seed(palace)
    for bad in ("drawer_x", None, [{}], [1, 2]):
        with pytest.raises(InvalidInputError, match="list of text"):
            palace.move_drawers(bad, room="x")
    with pytest.raises(InvalidInputError, match="must be text"):
        palace.drawer_ids(wing=["wing_kai"])
    with pytest.raises(InvalidInputError, match="must be text"):
        traverse(palace, 5)
    with pytest.raises(InvalidInputError, match="must be text"):
        merge_rooms(palace, "auth-migration", 5)


def test_a_slow_derived_view_does_not_hold_up_other_threads(palace: Palace) -> None:
    import threading

    seed(palace)
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        assert release.wait(10)
        return "done"

    worker = threading.Thread(target=lambda: palace.derived(("slow",), slow))
    worker.start()
    assert started.wait(10)
    assert palace.list_wings() == {"wing_driftwood": 1, "wing_kai": 1, "wing_priya": 1}  # not blocked
    release.set()
    worker.join(10)
    assert palace.derived(("slow",), lambda: "recomputed") == "done"
