"""The graph commands of `mempalace`, driven in-process with click's CliRunner on the `hash` embedder:
graph-stats, tunnels, traverse, merge-rooms and rooms --suggest-merges, as text and as --json.

The seed story: three wings each hold a drawer in room `auth-migration` (wing_kai in hall_events,
wing_driftwood in hall_facts, wing_priya in hall_advice) plus one room of their own, so the palace
has one tunnel spanning three wings, i.e. three wing-to-wing edges.
"""

from __future__ import annotations

import math
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from _cli import as_json, describe, ok
from _cli import assert_user_error as assert_cli_error
from mempalace import Palace
from mempalace.cli import main
from mempalace.config import Settings
from mempalace.store.chroma import SEQ_KEY
from mempalace.catalog.sync import new_stamp

# (key, text, wing, room, hall)
SEED = [
    ("kai_auth", "Kai ran the auth migration dry run on Monday and it failed at noon", "wing_kai",
     "auth-migration", "events"),
    ("kai_deploys", "Kai wrote the deploy checklist for Tuesday releases", "wing_kai", "deploys", "events"),
    ("drift_auth", "The auth migration moves every session cookie to OAuth tokens", "wing_driftwood",
     "auth-migration", "facts"),
    ("drift_billing", "Driftwood billing runs nightly at two in the morning", "wing_driftwood", "billing", "facts"),
    ("priya_auth", "Priya advises a forced re-login to finish the auth migration", "wing_priya",
     "auth-migration", "advice"),
    ("priya_roadmap", "Priya suggests keeping the roadmap document short", "wing_priya", "roadmap", "advice"),
]
SEED_TAXONOMY = {
    "wing_driftwood": {"auth-migration": 1, "billing": 1},
    "wing_kai": {"auth-migration": 1, "deploys": 1},
    "wing_priya": {"auth-migration": 1, "roadmap": 1},
}
THREE_WINGS = ["wing_driftwood", "wing_kai", "wing_priya"]
SEED_HALLS = ["hall_advice", "hall_events", "hall_facts"]


def weight(spanned: int, total: int) -> float:
    total = max(total, 10)  # the graph treats small palaces as having ten wings
    return math.log((total + 1) / spanned) / math.log((total + 1) / 2)


# -- helpers ----------------------------------------------------------------------------------------



def assert_user_error(result: Result, *fragments: str) -> str:
    return assert_cli_error(result, *fragments, one_line=True)


@pytest.fixture
def palace_dir(tmp_path: Path) -> Path:
    return tmp_path / "graph-palace"


@pytest.fixture
def cli(palace_dir: Path):
    """Run `mempalace --palace <tmp> ARGS...` in-process."""
    runner = CliRunner()

    def run(*args: str) -> Result:
        return runner.invoke(main, ["--palace", str(palace_dir), *args])

    return run


def add(cli, text: str, wing: str, room: str, hall: str | None = None) -> str:
    data = as_json(cli("add", "--wing", wing, "--room", room, *(["--hall", hall] if hall else []), text, "--json"))
    assert data["status"] == "added", data
    return data["drawer_ids"][0]


def file_unnormalised(palace_dir: Path, settings: Settings, drawer_id: str, text: str, wing: str,
                      room: str) -> None:
    """File a drawer whose room name is stored exactly as given, as another tool writing through Chroma would."""
    with Palace.open(palace_dir, settings=settings) as palace:
        vectors = palace.embed([text])
        palace._store.add([drawer_id], [text], [{"wing": wing, "room": room, SEQ_KEY: new_stamp()}], vectors)
        palace._store.bump_marker()


def snapshot(cli) -> tuple[Any, Any]:
    return as_json(cli("taxonomy", "--json")), as_json(cli("status", "--json"))["drawers"]


@pytest.fixture
def seeded(cli) -> dict[str, str]:
    """The seed story; returns {key: drawer id}."""
    ids = {key: add(cli, text, wing, room, hall) for key, text, wing, room, hall in SEED}
    assert as_json(cli("taxonomy", "--json")) == SEED_TAXONOMY
    return ids


@pytest.fixture
def messy(seeded, palace_dir: Path, settings: Settings) -> dict[str, str]:
    """The seed story plus a drawer another tool filed in wing_kai under the unnormalised room `Auth Migration`."""
    file_unnormalised(palace_dir, settings, "drawer_foreign_auth", "Auth migration notes typed by another tool",
                      "wing_kai", "Auth Migration")
    return {**seeded, "foreign_auth": "drawer_foreign_auth"}


# -- graph-stats ----------------------------------------------------------------------------------


def test_graph_stats_json(cli, seeded) -> None:
    data = as_json(cli("graph-stats", "--json"))
    assert set(data) == {"total_rooms", "tunnel_rooms", "total_edges", "total_wings", "rooms_per_wing",
                         "top_tunnels", "isolated_wings"}
    assert (data["total_rooms"], data["tunnel_rooms"], data["total_edges"], data["total_wings"]) == (4, 1, 3, 3)
    assert data["rooms_per_wing"] == {"wing_driftwood": 2, "wing_kai": 2, "wing_priya": 2}
    assert data["isolated_wings"] == []
    [top] = data["top_tunnels"]
    assert top["room"] == "auth-migration"
    assert top["wings"] == THREE_WINGS
    assert top["halls"] == SEED_HALLS
    assert top["count"] == 3
    assert top["weight"] == pytest.approx(weight(3, 3), abs=1e-5)
    assert top["score"] == pytest.approx(2 * weight(3, 3), abs=1e-5)


def test_graph_stats_text(cli, seeded) -> None:
    text = ok(cli("graph-stats")).stdout
    assert "Rooms:   4 in 3 wings" in text
    assert "Tunnels: 1 room spans two or more wings (3 wing-to-wing links)" in text
    for wing in THREE_WINGS:
        assert f"     2  {wing}" in text
    assert "     3  auth-migration  [3 wings: wing_driftwood, wing_kai, wing_priya]" in text
    assert f"weight {weight(3, 3):.2f}  score {2 * weight(3, 3):.2f}" in text
    assert "Isolated wings" not in text


def test_graph_stats_isolated_wing_hidden_room_and_stop_room(cli, seeded) -> None:
    add(cli, "A solo note nobody else shares", "wing_solo", "solo-notes")
    add(cli, "General chatter that belongs nowhere in particular", "wing_kai", "general")
    add(cli, "General chatter in another wing entirely", "wing_priya", "general")
    # `notes` is on the tunnel stop list: it spans two wings but links nothing
    add(cli, "Lab notes from the first week of the project", "wing_lab", "notes")
    add(cli, "Notes scribbled during the solo retreat", "wing_solo", "notes")
    data = as_json(cli("graph-stats", "--json"))
    assert data["total_wings"] == 5
    assert data["total_rooms"] == 6  # general is hidden from the graph
    assert data["tunnel_rooms"] == 2  # auth-migration and notes
    assert data["total_edges"] == 4
    assert data["rooms_per_wing"] == {"wing_driftwood": 2, "wing_kai": 2, "wing_lab": 1, "wing_priya": 2,
                                      "wing_solo": 2}
    assert data["isolated_wings"] == ["wing_lab", "wing_solo"]
    tops = {t["room"]: t for t in data["top_tunnels"]}
    assert tops["auth-migration"]["weight"] == pytest.approx(weight(3, 5), abs=1e-5)
    assert "notes" not in tops  # weight 0: never a top tunnel
    notes = next(t for t in as_json(cli("tunnels", "--json")) if t["room"] == "notes")
    assert notes["weight"] == 0.0 and notes["score"] == 0.0
    assert [t["room"] for t in data["top_tunnels"]] == ["auth-migration"]
    text = ok(cli("graph-stats")).stdout
    assert "Isolated wings (no informative tunnel to another wing): wing_lab, wing_solo" in text
    assert "general" not in text


def test_graph_commands_on_empty_palace(cli) -> None:
    ok(cli("init"))
    assert as_json(cli("graph-stats", "--json")) == {
        "total_rooms": 0, "tunnel_rooms": 0, "total_edges": 0, "total_wings": 0, "rooms_per_wing": {},
        "top_tunnels": [], "isolated_wings": [],
    }
    text = ok(cli("graph-stats")).stdout
    assert "Rooms:   0 in 0 wings" in text
    assert "Tunnels: 0 rooms" in text and "(0 wing-to-wing links)" in text
    assert "Top tunnels" not in text and "Isolated wings" not in text
    assert as_json(cli("tunnels", "--json")) == []
    assert ok(cli("tunnels")).stdout.strip() == "No tunnels."
    assert as_json(cli("rooms", "--suggest-merges", "--json")) == []
    assert ok(cli("rooms", "--suggest-merges")).stdout.strip() == "No likely duplicate rooms."
    assert_user_error(cli("traverse", "auth-migration"), "No room 'auth-migration'")
    assert_user_error(cli("tunnels", "--wing-a", "kai"), "No wing 'kai'")
    assert_user_error(cli("merge-rooms", "auth-migration", "auth"), "No room 'auth-migration'")
    assert as_json(cli("status", "--json"))["drawers"] == 0


# -- tunnels --------------------------------------------------------------------------------------


def test_tunnels_without_a_wing(cli, seeded) -> None:
    [tunnel] = as_json(cli("tunnels", "--json"))
    assert tunnel["room"] == "auth-migration"
    assert tunnel["wings"] == THREE_WINGS
    assert tunnel["halls"] == SEED_HALLS
    assert tunnel["count"] == 3
    assert tunnel["weight"] == pytest.approx(weight(3, 3), abs=1e-5)
    text = ok(cli("tunnels")).stdout
    assert text.strip().splitlines() == [
        f"3  auth-migration  [3 wings: wing_driftwood, wing_kai, wing_priya]  weight {weight(3, 3):.2f}  "
        f"score {2 * weight(3, 3):.2f}  halls: hall_advice, hall_events, hall_facts"
    ]


@pytest.fixture
def two_tunnels(cli, seeded) -> None:
    """Adds `standup`, a second tunnel linking only wing_kai and wing_priya: four drawers to auth-migration's 3."""
    add(cli, "Kai's standup: the flaky integration test is quarantined", "wing_kai", "standup", "events")
    add(cli, "Priya's standup: design review moved to Thursday afternoon", "wing_priya", "standup", "events")
    add(cli, "Priya's second standup note about hiring a contractor", "wing_priya", "standup", "facts")
    add(cli, "Kai's second standup: the staging database was restored", "wing_kai", "standup", "events")
    add(cli, "A solo note nobody else shares", "wing_solo", "solo-notes")


def test_tunnels_touching_one_wing(cli, two_tunnels) -> None:
    everything = as_json(cli("tunnels", "--json"))
    assert [t["room"] for t in everything] == ["standup", "auth-migration"]  # most drawers first
    assert everything[0]["wings"] == ["wing_kai", "wing_priya"] and everything[0]["count"] == 4
    for wing in ("wing_kai", "kai", "Wing Kai", "KAI"):  # `kai` is short for `wing_kai`
        assert as_json(cli("tunnels", "--wing-a", wing, "--json")) == everything, wing
    driftwood = as_json(cli("tunnels", "--wing-a", "driftwood", "--json"))
    assert [t["room"] for t in driftwood] == ["auth-migration"]
    assert driftwood[0]["wings"] == ["wing_driftwood", "wing_kai", "wing_priya"]
    assert as_json(cli("tunnels", "--wing-a", "solo", "--json")) == []
    assert ok(cli("tunnels", "--wing-a", "solo")).stdout.strip() == "No tunnels."
    text = ok(cli("tunnels", "--wing-a", "kai")).stdout
    assert [line.split()[1] for line in text.strip().splitlines()] == ["standup", "auth-migration"]


def test_tunnels_linking_two_wings(cli, two_tunnels) -> None:
    both = as_json(cli("tunnels", "--wing-a", "kai", "--wing-b", "wing_priya", "--json"))
    assert [t["room"] for t in both] == ["standup", "auth-migration"]
    kai_drift = as_json(cli("tunnels", "--wing-a", "wing_kai", "--wing-b", "driftwood", "--json"))
    assert [(t["room"], t["wings"], t["count"]) for t in kai_drift] == [("auth-migration", THREE_WINGS, 3)]
    # the order of the two wings does not matter
    assert as_json(cli("tunnels", "--wing-a", "driftwood", "--wing-b", "kai", "--json")) == kai_drift
    assert as_json(cli("tunnels", "--wing-a", "kai", "--wing-b", "solo", "--json")) == []
    assert ok(cli("tunnels", "--wing-a", "kai", "--wing-b", "solo")).stdout.strip() == "No tunnels."
    text = ok(cli("tunnels", "--wing-a", "kai", "--wing-b", "driftwood")).stdout
    assert "auth-migration" in text and "standup" not in text


# -- traverse -------------------------------------------------------------------------------------


@pytest.fixture
def chain(cli, seeded) -> None:
    """`deploys` also lives in wing_ops, whose other room `pager-rota` is two hops from auth-migration."""
    add(cli, "Ops runs the deploys with a canary stage first", "wing_ops", "deploys", "facts")
    add(cli, "The pager rota changes every Monday at nine", "wing_ops", "pager-rota", "facts")


def steps(data: list[dict[str, Any]]) -> list[tuple[int, str, list[str]]]:
    return [(s["hop"], s["room"], s["connected_via"]) for s in data]


def test_traverse_hops_json(cli, chain) -> None:
    zero = as_json(cli("traverse", "auth-migration", "--max-hops", "0", "--json"))
    assert zero == [{"room": "auth-migration", "hop": 0, "connected_via": [], "count": 3, "wings": THREE_WINGS}]

    one = as_json(cli("traverse", "auth-migration", "--max-hops", "1", "--json"))
    assert steps(one) == [
        (0, "auth-migration", []),
        (1, "deploys", ["wing_kai"]),  # two drawers: first among hop 1
        (1, "billing", ["wing_driftwood"]),
        (1, "roadmap", ["wing_priya"]),
    ]
    deploys = one[1]
    assert (deploys["count"], deploys["wings"]) == (2, ["wing_kai", "wing_ops"])

    two = as_json(cli("traverse", "auth-migration", "--max-hops", "2", "--json"))
    assert steps(two) == steps(one) + [(2, "pager-rota", ["wing_ops"])]
    # the default is two hops; more hops find nothing further
    assert as_json(cli("traverse", "auth-migration", "--json")) == two
    assert as_json(cli("traverse", "auth-migration", "--max-hops", "20", "--json")) == two


def test_traverse_from_the_edge_of_the_palace(cli, chain) -> None:
    data = as_json(cli("traverse", "billing", "--max-hops", "3", "--json"))
    assert steps(data) == [
        (0, "billing", []),
        (1, "auth-migration", ["wing_driftwood"]),
        (2, "deploys", ["wing_kai"]),
        (2, "roadmap", ["wing_priya"]),
        (3, "pager-rota", ["wing_ops"]),
    ]
    short = as_json(cli("traverse", "billing", "--max-hops", "1", "--json"))
    assert steps(short) == steps(data)[:2]


def test_traverse_text_and_room_spellings(cli, chain) -> None:
    text = ok(cli("traverse", "auth-migration", "--max-hops", "2")).stdout
    assert text.strip().splitlines() == [
        "hop 0       3  auth-migration",
        "hop 1       2  deploys  via wing_kai",
        "hop 1       1  billing  via wing_driftwood",
        "hop 1       1  roadmap  via wing_priya",
        "hop 2       1  pager-rota  via wing_ops",
    ]
    # other spellings of a room name find the stored room
    expected = as_json(cli("traverse", "auth-migration", "--json"))
    for spelling in ("Auth Migration", "auth_migration", "  AUTH--migration "):
        assert as_json(cli("traverse", spelling, "--json")) == expected, spelling


def test_traverse_reaches_a_room_stored_unnormalised(cli, messy) -> None:
    # `Auth Migration` is stored as written, so it is its own room, one hop away through wing_kai
    data = as_json(cli("traverse", "auth-migration", "--max-hops", "1", "--json"))
    assert (1, "Auth Migration", ["wing_kai"]) in steps(data)
    exact = as_json(cli("traverse", "Auth Migration", "--max-hops", "1", "--json"))
    assert exact[0] == {"room": "Auth Migration", "hop": 0, "connected_via": [], "count": 1, "wings": ["wing_kai"]}
    assert steps(exact)[1:] == [(1, "auth-migration", ["wing_kai"]), (1, "deploys", ["wing_kai"])]


# -- merge-rooms ----------------------------------------------------------------------------------


def test_merge_rooms_json_moves_drawers_and_keeps_them_verbatim(cli, seeded) -> None:
    result = as_json(cli("merge-rooms", "billing", "auth-migration", "--json"))
    assert result == {"source": "billing", "target": "auth-migration", "moved": 1, "wings": ["wing_driftwood"],
                      "sources": ["billing"]}
    assert as_json(cli("taxonomy", "--json")) == {
        "wing_driftwood": {"auth-migration": 2},
        "wing_kai": {"auth-migration": 1, "deploys": 1},
        "wing_priya": {"auth-migration": 1, "roadmap": 1},
    }
    drawer = as_json(cli("get", seeded["drift_billing"], "--json"))
    assert (drawer["wing"], drawer["room"], drawer["hall"]) == ("wing_driftwood", "auth-migration", "hall_facts")
    assert drawer["content"] == "Driftwood billing runs nightly at two in the morning"
    assert as_json(cli("status", "--json"))["drawers"] == len(SEED)
    stats = as_json(cli("graph-stats", "--json"))
    assert (stats["total_rooms"], stats["tunnel_rooms"], stats["total_edges"]) == (3, 1, 3)
    assert stats["top_tunnels"][0]["count"] == 4


def test_merge_rooms_text_across_wings_into_a_new_name(cli, seeded) -> None:
    text = ok(cli("merge-rooms", "Auth Migration", "Identity Cutover")).stdout
    assert text.strip() == ("Moved 3 drawers from 'auth-migration' to 'identity-cutover' "
                            "in wing_driftwood, wing_kai, wing_priya.")
    assert as_json(cli("rooms", "--json")) == {"billing": 1, "deploys": 1, "identity-cutover": 3, "roadmap": 1}
    [tunnel] = as_json(cli("tunnels", "--json"))
    assert (tunnel["room"], tunnel["wings"], tunnel["count"]) == ("identity-cutover", THREE_WINGS, 3)
    hits = as_json(cli("search", "forced re-login", "--room", "identity-cutover", "--json"))
    assert hits[0]["drawer_id"] == seeded["priya_auth"]
    old_name = as_json(cli("search", "forced re-login", "--room", "auth-migration", "--json"))  # now an alias
    assert old_name[0]["drawer_id"] == seeded["priya_auth"] and old_name[0]["room"] == "identity-cutover"
    assert "identity-cutover  (was auth-migration)" in ok(cli("rooms")).stdout


def test_merge_rooms_into_a_room_stored_unnormalised_takes_its_drawers_too(cli, messy) -> None:
    result = as_json(cli("merge-rooms", "deploys", "Auth Migration", "--json"))
    assert result == {"source": "deploys", "target": "auth-migration", "moved": 2, "wings": ["wing_kai"],
                      "sources": ["deploys", "Auth Migration"]}
    assert as_json(cli("taxonomy", "--json"))["wing_kai"] == {"auth-migration": 3}
    assert as_json(cli("get", messy["foreign_auth"], "--json"))["room"] == "auth-migration"


# -- rooms --suggest-merges -----------------------------------------------------------------------


def test_suggest_merges_finds_the_same_slug_and_its_command_merges_them(cli, messy) -> None:
    assert as_json(cli("rooms", "--json"))["Auth Migration"] == 1
    data = as_json(cli("rooms", "--suggest-merges", "--json"))
    assert data[0] == {
        "source": "Auth Migration", "target": "auth-migration", "score": 1.0,
        "reasons": ["the same name once normalised"], "source_count": 1, "target_count": 3,
        "source_wings": ["wing_kai"], "target_wings": THREE_WINGS,
    }
    assert len(data) == 1  # the hash embedder finds no other names alike

    text = ok(cli("rooms", "--suggest-merges")).stdout
    lines = text.splitlines()
    assert lines[0] == "1.00  Auth Migration (1) → auth-migration (3)  the same name once normalised"
    assert lines[1].strip() == "mempalace merge-rooms -- 'Auth Migration' auth-migration"

    # run the suggested command, exactly as printed
    printed = shlex.split(lines[1].strip())
    assert printed[:2] == ["mempalace", "merge-rooms"]
    assert ok(cli(*printed[1:])).stdout == "Moved 1 drawer from 'Auth Migration' to 'auth-migration' in wing_kai.\n"
    assert as_json(cli("taxonomy", "--json"))["wing_kai"] == {"auth-migration": 2, "deploys": 1}
    assert "Auth Migration" not in as_json(cli("rooms", "--json"))
    assert as_json(cli("rooms", "--suggest-merges", "--json")) == []
    assert ok(cli("rooms", "--suggest-merges")).stdout.strip() == "No likely duplicate rooms."


def test_suggest_merges_min_score(cli, messy) -> None:
    everything = as_json(cli("rooms", "--suggest-merges", "--min-score", "0.01", "--json"))
    assert everything[0]["source"] == "Auth Migration"
    assert all(0.01 <= s["score"] <= 1.0 for s in everything)
    scores = [s["score"] for s in everything]
    assert scores == sorted(scores, reverse=True)
    only_exact = as_json(cli("rooms", "--suggest-merges", "--min-score", "1", "--json"))
    assert [(s["source"], s["target"]) for s in only_exact] == [("Auth Migration", "auth-migration")]


@pytest.mark.parametrize("score", ["0", "-0.5", "1.5"])
def test_suggest_merges_rejects_bad_min_score(cli, messy, score: str) -> None:
    before = snapshot(cli)
    assert_user_error(cli("rooms", "--suggest-merges", "--min-score", score), "min_score", score)
    assert snapshot(cli) == before


# -- errors ---------------------------------------------------------------------------------------


def test_unknown_room_suggests_the_closest_name(cli, seeded) -> None:
    before = snapshot(cli)
    message = assert_user_error(cli("traverse", "auth-migraton"), "No room 'auth-migraton'",
                                "Did you mean auth-migration?")
    assert "billing" not in message
    assert_user_error(cli("traverse", "auth-migraton", "--json"), "Did you mean auth-migration?")
    assert_user_error(cli("merge-rooms", "auth-migraton", "billing"), "No room 'auth-migraton'",
                      "Did you mean auth-migration?")
    assert_user_error(cli("merge-rooms", "zzz-unrelated", "billing", "--json"), "No room 'zzz-unrelated'")
    assert snapshot(cli) == before


def test_hidden_room_cannot_be_traversed(cli, seeded) -> None:
    add(cli, "General chatter that belongs nowhere in particular", "wing_kai", "general")
    before = snapshot(cli)
    assert_user_error(cli("traverse", "general"), "'general'", "graph_hidden_rooms")
    assert snapshot(cli) == before


@pytest.mark.parametrize("args", [["--wing-a", "nowhere"], ["--wing-a", "kai", "--wing-b", "nowhere"],
                                  ["--wing-b", "nowhere"]], ids=["a", "b-with-a", "b-alone"])
def test_unknown_wing(cli, seeded, args: list[str]) -> None:
    before = snapshot(cli)
    assert_user_error(cli("tunnels", *args), "No wing 'nowhere'")
    assert_user_error(cli("tunnels", *args, "--json"), "No wing 'nowhere'")
    assert snapshot(cli) == before


def test_unknown_wing_suggests_the_closest_name(cli, seeded) -> None:
    assert_user_error(cli("tunnels", "--wing-a", "wing_driftwod"), "No wing 'wing_driftwod'",
                      "Did you mean wing_driftwood")


@pytest.mark.parametrize("hops", ["-1", "21", "999"])
def test_max_hops_out_of_range(cli, seeded, hops: str) -> None:
    before = snapshot(cli)
    assert_user_error(cli("traverse", "auth-migration", "--max-hops", hops), "max_hops", "0 to 20", hops)
    assert_user_error(cli("traverse", "auth-migration", "--max-hops", hops, "--json"), "max_hops")
    assert snapshot(cli) == before


def test_max_hops_must_be_a_number(cli, seeded) -> None:
    result = cli("traverse", "auth-migration", "--max-hops", "two")
    assert result.exit_code == 2, describe(result)
    assert "--max-hops" in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("source, target", [
    ("auth-migration", "auth-migration"),
    ("Auth Migration", "auth_migration"),
    ("billing", "BILLING"),
])
def test_merging_a_room_into_itself(cli, seeded, source: str, target: str) -> None:
    before = snapshot(cli)
    assert_user_error(cli("merge-rooms", source, target), "cannot be merged into itself")
    assert_user_error(cli("merge-rooms", source, target, "--json"), "cannot be merged into itself")
    assert snapshot(cli) == before


def test_merging_into_an_impossible_name(cli, seeded) -> None:
    before = snapshot(cli)
    assert_user_error(cli("merge-rooms", "billing", "!!!"), "'!!!'", "no letters or digits")
    assert snapshot(cli) == before


@pytest.mark.parametrize("args", [["graph-stats"], ["tunnels"], ["traverse", "auth-migration"],
                                  ["merge-rooms", "a", "b"], ["rooms", "--suggest-merges"]],
                         ids=lambda a: a[0])
def test_graph_commands_on_missing_palace(tmp_path: Path, args: list[str]) -> None:
    missing = tmp_path / "no" / "palace"
    result = CliRunner().invoke(main, ["--palace", str(missing), *args])
    assert_user_error(result, "No palace at", str(missing))
    assert not missing.exists()


def test_suggest_merges_on_the_seed_story_finds_nothing(cli, seeded) -> None:
    assert as_json(cli("rooms", "--suggest-merges", "--json")) == []
    assert ok(cli("rooms", "--suggest-merges")).stdout.strip() == "No likely duplicate rooms."


def test_rooms_options_that_do_not_go_together_are_refused(cli, seeded) -> None:
    wrong_wing = cli("rooms", "--suggest-merges", "--wing", "wing_kai")
    assert wrong_wing.exit_code == 2 and "leave out --wing" in wrong_wing.stderr
    lone_score = cli("rooms", "--min-score", "0.5")
    assert lone_score.exit_code == 2 and "--min-score goes with --suggest-merges" in lone_score.stderr
