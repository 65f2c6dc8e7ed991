"""The `mempalace` command, driven in-process with click's CliRunner.

The autouse `home` fixture (conftest) gives every test its own MEMPALACE_HOME and the
deterministic `hash` embedder. The installed click (8.2+) keeps stderr apart from stdout:
`result.stdout` is stdout only, `result.stderr` is stderr only and `result.output` is both.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from _cli import as_json, assert_user_error, describe, ok
from mempalace.cli import main
from mempalace.models import AddResult, Drawer, DuplicateMatch, PalaceStatus, SearchHit


def field_names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


DRAWER_KEYS = field_names(Drawer)
HIT_KEYS = field_names(SearchHit)
ADD_KEYS = field_names(AddResult)
MATCH_KEYS = field_names(DuplicateMatch)
STATUS_KEYS = field_names(PalaceStatus)




@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def palace_dir(tmp_path: Path) -> Path:
    return tmp_path / "cli-palace"


@pytest.fixture
def cli(runner: CliRunner, palace_dir: Path):
    """Run `mempalace --palace <tmp> ARGS...` in-process."""

    def run(*args: str, input: str | None = None) -> Result:
        return runner.invoke(main, ["--palace", str(palace_dir), *args], input=input)

    return run


def add_json(cli, text: str, wing: str, room: str, *extra: str) -> dict[str, Any]:
    data = as_json(cli("add", "--wing", wing, "--room", room, *extra, text, "--json"))
    assert data["status"] == "added", data
    return data


def add_id(cli, text: str, wing: str, room: str, *extra: str) -> str:
    data = add_json(cli, text, wing, room, *extra)
    assert len(data["drawer_ids"]) == 1
    return data["drawer_ids"][0]


# -- init / status ---------------------------------------------------------------------------------


def test_init_creates_palace_at_given_path(cli, palace_dir: Path) -> None:
    assert not palace_dir.exists()
    result = ok(cli("init"))
    assert palace_dir.is_dir()
    assert str(palace_dir) in result.stdout
    assert "0 drawers" in result.stdout
    # init on an existing palace is harmless
    ok(cli("init"))


def test_init_json_is_palace_status(cli, palace_dir: Path) -> None:
    data = as_json(cli("init", "--json"))
    assert set(data) == STATUS_KEYS
    assert data["location"] == str(palace_dir)
    assert data["mode"] == "embedded"
    assert data["embedder"] == "hash"
    assert (data["drawers"], data["wings"], data["rooms"], data["halls"]) == (0, 0, 0, {})


def test_default_palace_lives_in_mempalace_home(runner: CliRunner, home: Path) -> None:
    data = json.loads(ok(runner.invoke(main, ["init", "--json"])).stdout)
    assert data["location"] == str(home / "palace")
    assert (home / "palace").is_dir()
    ok(runner.invoke(main, ["add", "--wing", "home_wing", "--room", "r", "default palace text"]))
    assert json.loads(ok(runner.invoke(main, ["status", "--json"])).stdout)["drawers"] == 1


def test_status_counts_and_text(cli) -> None:
    add_id(cli, "status alpha words here", "status_wing", "room one", "--hall", "facts")
    add_id(cli, "status beta other words", "status_wing", "room two")
    add_id(cli, "status gamma different text", "status_other", "room one", "--hall", "hall_events")
    data = as_json(cli("status", "--json"))
    assert set(data) == STATUS_KEYS
    assert data["drawers"] == 3
    assert data["wings"] == 2
    assert data["rooms"] == 2  # room-one exists in both wings: counted once by name
    assert data["halls"] == {"": 1, "hall_events": 1, "hall_facts": 1}

    text = ok(cli("status")).stdout
    assert "Drawers: 3" in text
    assert "Wings:   2" in text
    assert "embedded" in text and "hash" in text
    assert "hall_facts 1" in text and "(no hall) 1" in text


def test_global_json_flag_works_like_per_command_flag(runner: CliRunner, palace_dir: Path, cli) -> None:
    cli("init")
    before = json.loads(ok(runner.invoke(main, ["--json", "--palace", str(palace_dir), "status"])).stdout)
    after = as_json(cli("status", "--json"))
    assert set(before) == STATUS_KEYS
    assert before == after


# -- wings / rooms / taxonomy ----------------------------------------------------------------------


@pytest.fixture
def filled(cli) -> dict[str, str]:
    """Five drawers in two wings, several rooms and halls."""
    ids = {
        "kai_auth": add_id(cli, "Kai moved the auth service to OAuth tokens", "Wing Kai", "Auth Migration",
                           "--hall", "facts"),
        "kai_auth2": add_id(cli, "The session cookie expiry is now thirty minutes", "wing_kai", "auth_migration",
                            "--hall", "events"),
        "kai_deploy": add_id(cli, "Deploys happen on Tuesday after the standup", "wing kai", "deploys"),
        "orion_db": add_id(cli, "Orion prefers Postgres over MySQL for the ledger", "WING-ORION", "database",
                           "--hall", "preferences"),
        "orion_auth": add_id(cli, "Orion wants OAuth scopes reviewed before launch", "wing_orion", "auth migration",
                             "--hall", "facts"),
    }
    return ids


def test_wings(cli, filled) -> None:
    data = as_json(cli("wings", "--json"))
    assert data == {"wing_kai": 3, "wing_orion": 2}
    text = ok(cli("wings")).stdout
    assert "wing_kai" in text and "wing_orion" in text
    assert "     3  wing_kai" in text


def test_wings_and_rooms_on_empty_palace(cli) -> None:
    cli("init")
    assert as_json(cli("wings", "--json")) == {}
    assert "No wings yet." in ok(cli("wings")).stdout
    assert as_json(cli("rooms", "--json")) == {}
    assert "No rooms yet." in ok(cli("rooms")).stdout
    assert as_json(cli("taxonomy", "--json")) == {}
    assert "The palace is empty." in ok(cli("taxonomy")).stdout


def test_rooms_all_and_by_wing(cli, filled) -> None:
    assert as_json(cli("rooms", "--json")) == {"auth-migration": 3, "database": 1, "deploys": 1}
    assert as_json(cli("rooms", "--wing", "wing_kai", "--json")) == {"auth-migration": 2, "deploys": 1}
    # wing names are normalised the same way on reads as on writes
    assert as_json(cli("rooms", "--wing", "Wing Orion", "--json")) == {"auth-migration": 1, "database": 1}
    assert_user_error(cli("rooms", "--wing", "no_such_wing", "--json"), "No wing 'no_such_wing'")
    text = ok(cli("rooms", "--wing", "wing_kai")).stdout
    assert "auth-migration" in text and "deploys" in text and "database" not in text


def test_taxonomy(cli, filled) -> None:
    assert as_json(cli("taxonomy", "--json")) == {
        "wing_kai": {"auth-migration": 2, "deploys": 1},
        "wing_orion": {"auth-migration": 1, "database": 1},
    }
    text = ok(cli("taxonomy")).stdout
    assert "wing_kai (3)" in text and "wing_orion (2)" in text
    assert "deploys" in text


# -- search ---------------------------------------------------------------------------------------


def test_search_json_keys_and_best_hit(cli, filled) -> None:
    hits = as_json(cli("search", "Postgres ledger", "--json"))
    assert isinstance(hits, list) and hits
    for hit in hits:
        assert set(hit) == HIT_KEYS
    assert hits[0]["drawer_id"] == filled["orion_db"]
    assert hits[0]["content"] == "Orion prefers Postgres over MySQL for the ledger"
    assert (hits[0]["wing"], hits[0]["room"], hits[0]["hall"]) == ("wing_orion", "database", "hall_preferences")
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_search_filters(cli, filled) -> None:
    hits = as_json(cli("search", "OAuth auth", "--wing", "wing_kai", "--json"))
    assert hits and all(h["wing"] == "wing_kai" for h in hits)

    hits = as_json(cli("search", "OAuth auth", "--room", "Auth Migration", "--json"))
    assert {h["drawer_id"] for h in hits} == {filled["kai_auth"], filled["kai_auth2"], filled["orion_auth"]}

    for hall in ("facts", "hall_facts"):
        hits = as_json(cli("search", "OAuth", "--hall", hall, "--json"))
        assert {h["drawer_id"] for h in hits} == {filled["kai_auth"], filled["orion_auth"]}

    hits = as_json(cli("search", "OAuth", "--wing", "wing_orion", "--room", "auth-migration", "--hall", "facts",
                       "--json"))
    assert [h["drawer_id"] for h in hits] == [filled["orion_auth"]]


def test_search_limit(cli, filled) -> None:
    assert len(as_json(cli("search", "the", "--json"))) == 5
    assert len(as_json(cli("search", "the", "--limit", "2", "--json"))) == 2
    assert len(as_json(cli("search", "the", "--limit", "1", "--json"))) == 1


def test_search_modes(cli, filled) -> None:
    vector = as_json(cli("search", "Postgres", "--mode", "semantic", "--json"))
    assert vector and all(h["lexical"] == 0.0 for h in vector)
    assert as_json(cli("search", "Postgres", "--mode", "vector", "--json")) == vector  # the old name still works
    hybrid = as_json(cli("search", "Postgres", "--mode", "hybrid", "--json"))
    assert hybrid[0]["drawer_id"] == filled["orion_db"]
    assert hybrid[0]["lexical"] > 0.0
    # hybrid is the default
    assert as_json(cli("search", "Postgres", "--json")) == hybrid


def test_search_by_dates_and_without_a_close_match(cli, filled) -> None:
    today = as_json(cli("search", "OAuth", "--json"))[0]["filed_at"][:10]  # undated drawers count by filing day
    assert as_json(cli("search", "OAuth", "--after", today, "--before", today, "--json"))
    assert as_json(cli("search", "OAuth", "--before", "2001-01-01", "--json")) == []
    assert_user_error(cli("search", "OAuth", "--after", "01/02/2003"), "YYYY-MM-DD")
    text = ok(cli("search", "xyzzyplughnonexistentword")).stdout
    assert text.startswith("No close match") and "(weak)" in text


def test_search_text_output(cli, filled) -> None:
    text = ok(cli("search", "Postgres ledger", "--limit", "1")).stdout
    assert text.startswith("#1  score ") and "(meaning " in text and ", words " in text
    assert f"id {filled['orion_db']}" in text
    assert "wing_orion / database / hall_preferences" in text
    assert "Orion prefers Postgres over MySQL for the ledger" in text
    assert_user_error(cli("search", "anything", "--wing", "empty_wing"), "No wing 'empty_wing' in this palace.")
    assert_user_error(cli("search", "Postgres", "--wing", "wing_kia"), "Did you mean wing_kai?")
    assert_user_error(cli("search", "anything", "--wing", "empty_wing", "--json"), "No wing 'empty_wing'")


def test_search_rejects_bad_limit(cli, filled) -> None:
    assert_user_error(cli("search", "the", "--limit", "0"), "limit")


# -- add / get ------------------------------------------------------------------------------------


def test_add_text_then_get(cli) -> None:
    result = ok(cli("add", "--wing", "add_wing", "--room", "Notes Room", "--hall", "discoveries",
                    "--source", "chat-42.txt", "A plain note about caching layers"))
    assert result.stdout.startswith("Filed 1 drawer: drawer_")
    drawer_id = result.stdout.strip().rsplit(" ", 1)[-1]

    drawer = as_json(cli("get", drawer_id, "--json"))
    assert set(drawer) == DRAWER_KEYS
    assert drawer["id"] == drawer_id
    assert drawer["content"] == "A plain note about caching layers"
    assert (drawer["wing"], drawer["room"], drawer["hall"]) == ("add_wing", "notes-room", "hall_discoveries")
    assert drawer["source_file"] == "chat-42.txt"

    text = ok(cli("get", drawer_id)).stdout
    assert text == f"{drawer_id}  add_wing / notes-room / hall_discoveries\nA plain note about caching layers\n"


def test_add_json_is_add_result(cli) -> None:
    data = as_json(cli("add", "--wing", "addjson_wing", "--room", "r", "--json", "json shaped add result"))
    assert set(data) == ADD_KEYS
    assert data["status"] == "added"
    assert data["matches"] == []
    assert data["parent_id"].startswith("parent_")
    assert len(data["drawer_ids"]) == 1


def test_add_file_is_stored_byte_for_byte(cli, tmp_path: Path) -> None:
    content = (
        "First line of the transcript\r\n"
        "\tindented with a tab\tand another\r\n"
        "unicode: café naïve Straße 日本語 中文 🧠🏛️ and a combining accent e\u0301\r\n"
        "  leading and trailing spaces  \r\n"
        "\r\n"
        "last real line\r\n"
        "\r\n"
        "\r\n"
        "\r\n"
    )
    source = tmp_path / "transcript.txt"
    source.write_bytes(content.encode("utf-8"))

    data = as_json(cli("add", "--wing", "file_wing", "--room", "transcripts", "--file", str(source), "--json"))
    assert data["status"] == "added"
    assert len(data["drawer_ids"]) == 1
    drawer_id = data["drawer_ids"][0]

    drawer = as_json(cli("get", drawer_id, "--json"))
    assert drawer["content"] == content
    assert drawer["content"].encode("utf-8") == source.read_bytes()
    assert drawer["source_file"] == str(source)

    # The text form prints the header line, then the content exactly, then click's newline.
    raw = ok(cli("get", drawer_id)).stdout_bytes
    header = f"{drawer_id}  file_wing / transcripts\n".encode()
    assert raw == header + source.read_bytes() + b"\n"

    hits = as_json(cli("search", "transcript tab", "--wing", "file_wing", "--json"))
    assert hits[0]["content"].encode("utf-8") == source.read_bytes()


def test_add_from_stdin(cli) -> None:
    # CliRunner's stdin translates \r\n to \n, so CRLF on stdin is checked with a real process below.
    content = "piped in\nfrom stdin\t✓ ünïcödé\n\n"
    data = as_json(cli("add", "--wing", "stdin_wing", "--room", "r", "--file", "-", "--json", input=content))
    drawer = as_json(cli("get", data["drawer_ids"][0], "--json"))
    assert drawer["content"] == content
    assert drawer["source_file"] is None


def test_add_from_real_stdin_keeps_crlf(tmp_path: Path, home: Path) -> None:
    script = Path(sys.executable).parent / "mempalace"
    env = {"MEMPALACE_HOME": str(home), "MEMPALACE_EMBEDDER": "hash", "MEMPALACE_SHARED": "0", "PATH": str(script.parent)}
    palace = tmp_path / "stdin-palace"
    raw = "piped in\r\n\tfrom a real pipe ✓\r\n\r\n".encode("utf-8")
    added = subprocess.run([str(script), "--palace", str(palace), "add", "--wing", "pipe_wing", "--room", "r",
                            "--file", "-", "--json"], input=raw, capture_output=True, env=env, timeout=120)
    assert added.returncode == 0, added
    drawer_id = json.loads(added.stdout)["drawer_ids"][0]
    result = ok(CliRunner().invoke(main, ["--palace", str(palace), "get", drawer_id, "--json"]))
    assert json.loads(result.stdout)["content"].encode("utf-8") == raw


def test_add_needs_exactly_one_content_source(cli, tmp_path: Path) -> None:
    source = tmp_path / "x.txt"
    source.write_text("some text", encoding="utf-8")
    neither = cli("add", "--wing", "w", "--room", "r")
    assert neither.exit_code == 2 and "TEXT or with --file" in neither.stderr
    both = cli("add", "--wing", "w", "--room", "r", "--file", str(source), "inline")
    assert both.exit_code == 2 and "TEXT or with --file" in both.stderr


def test_add_identical_content_twice_is_a_no_op(cli) -> None:
    first = add_json(cli, "Exactly the same words, filed twice", "twice_wing", "same room")
    second = ok(cli("add", "--wing", "twice_wing", "--room", "same room", "--json",
                    "Exactly the same words, filed twice"))
    data = json.loads(second.stdout)
    assert set(data) == ADD_KEYS
    assert data["status"] == "exists"
    assert data["drawer_ids"] == first["drawer_ids"]
    assert as_json(cli("taxonomy", "--json")) == {"twice_wing": {"same-room": 1}}
    assert as_json(cli("status", "--json"))["drawers"] == 1

    text = ok(cli("add", "--wing", "twice_wing", "--room", "same room", "Exactly the same words, filed twice"))
    assert text.stdout.startswith("Already filed here: " + first["drawer_ids"][0])
    assert as_json(cli("status", "--json"))["drawers"] == 1


def test_long_content_splits_into_drawers_that_join_verbatim(cli, tmp_path: Path) -> None:
    paragraphs = [f"Paragraph {i}: " + " ".join(f"word{i}_{j}" for j in range(60)) for i in range(8)]
    content = "\r\n\r\n".join(paragraphs) + "\r\n"
    source = tmp_path / "long.txt"
    source.write_bytes(content.encode("utf-8"))
    data = as_json(cli("add", "--wing", "long_wing", "--room", "r", "--file", str(source), "--json"))
    assert len(data["drawer_ids"]) > 1
    pieces = [as_json(cli("get", i, "--json")) for i in data["drawer_ids"]]
    assert [p["chunk_index"] for p in pieces] == list(range(len(pieces)))
    assert "".join(p["content"] for p in pieces).encode("utf-8") == source.read_bytes()
    assert as_json(cli("rooms", "--wing", "long_wing", "--json")) == {"r": len(pieces)}


# -- delete / move / reindex -------------------------------------------------------------------


def test_delete(cli) -> None:
    keep = add_id(cli, "this drawer stays where it is", "delete_wing", "r")
    gone = add_id(cli, "this drawer will be deleted soon", "delete_wing", "r")
    drawer = as_json(cli("delete", gone, "--json"))
    assert set(drawer) == DRAWER_KEYS
    assert drawer["id"] == gone
    assert drawer["content"] == "this drawer will be deleted soon"
    assert as_json(cli("rooms", "--wing", "delete_wing", "--json")) == {"r": 1}
    assert_user_error(cli("get", gone), gone)
    assert as_json(cli("get", keep, "--json"))["id"] == keep

    text = ok(cli("delete", keep)).stdout
    assert text.strip() == (f"Deleted {keep} from delete_wing/r. It is in the trash for 30 days: "
                            f"`mempalace trash restore {keep}` puts it back.")
    assert as_json(cli("wings", "--json")) == {}


def test_move_room(cli) -> None:
    drawer_id = add_id(cli, "a drawer that changes rooms", "move_wing", "old room", "--hall", "advice")
    moved = as_json(cli("move", drawer_id, "--room", "New Room", "--json"))
    assert set(moved) == DRAWER_KEYS
    assert (moved["id"], moved["wing"], moved["room"], moved["hall"]) == (
        drawer_id, "move_wing", "new-room", "hall_advice")
    assert moved["content"] == "a drawer that changes rooms"
    assert as_json(cli("taxonomy", "--json")) == {"move_wing": {"new-room": 1}}
    assert as_json(cli("get", drawer_id, "--json"))["room"] == "new-room"
    hits = as_json(cli("search", "changes rooms", "--room", "new-room", "--json"))
    assert [h["drawer_id"] for h in hits] == [drawer_id]
    assert_user_error(cli("search", "changes rooms", "--room", "old-room", "--json"), "No room 'old-room'")

    text = ok(cli("move", drawer_id, "--room", "third", "--wing", "other_move_wing")).stdout
    assert text.strip() == f"Moved {drawer_id} to other_move_wing/third/hall_advice."
    assert as_json(cli("taxonomy", "--json")) == {"other_move_wing": {"third": 1}}


def test_move_out_of_a_hall(cli) -> None:
    drawer_id = add_id(cli, "a drawer leaving its hall", "hall_exit_wing", "r", "--hall", "advice")
    moved = as_json(cli("move", drawer_id, "--no-hall", "--json"))
    assert (moved["room"], moved["hall"]) == ("r", None)
    assert cli("move", drawer_id, "--hall", "facts", "--no-hall").exit_code == 2


def test_move_without_destination_is_a_usage_error(cli) -> None:
    drawer_id = add_id(cli, "nowhere to go", "move_usage_wing", "r")
    result = cli("move", drawer_id)
    assert result.exit_code == 2
    assert "--room" in result.stderr
    assert as_json(cli("get", drawer_id, "--json"))["room"] == "r"


def test_reindex(cli, palace_dir: Path) -> None:
    add_id(cli, "reindex drawer number one", "reindex_wing", "a")
    add_id(cli, "reindex drawer number two", "reindex_wing", "b")
    assert as_json(cli("reindex", "--json")) == {"drawers": 2}
    assert ok(cli("reindex")).stdout.strip() == "Catalog rebuilt: 2 drawers."
    assert as_json(cli("taxonomy", "--json")) == {"reindex_wing": {"a": 1, "b": 1}}
    hits = as_json(cli("search", "number two", "--json"))
    assert hits[0]["content"] == "reindex drawer number two"


# -- errors ---------------------------------------------------------------------------------------

READ_COMMANDS = [
    ["status"], ["wings"], ["rooms"], ["rooms", "--wing", "w"], ["taxonomy"], ["search", "anything"],
    ["get", "drawer_x"], ["delete", "drawer_x"], ["move", "drawer_x", "--room", "r"], ["reindex"],
]


@pytest.mark.parametrize("args", READ_COMMANDS, ids=lambda a: "-".join(a))
def test_command_on_missing_palace_fails_cleanly(runner: CliRunner, tmp_path: Path, args: list[str]) -> None:
    missing = tmp_path / "does" / "not" / "exist"
    result = runner.invoke(main, ["--palace", str(missing), *args])
    assert_user_error(result, "No palace at", str(missing))
    assert not missing.exists()  # reading never creates a palace


@pytest.mark.parametrize("args", [["status", "--json"], ["search", "x", "--json"]])
def test_json_mode_errors_go_to_stderr(runner: CliRunner, tmp_path: Path, args: list[str]) -> None:
    result = runner.invoke(main, ["--palace", str(tmp_path / "nowhere"), *args])
    assert_user_error(result, "No palace at")


def test_palace_path_that_is_a_file_fails_cleanly(runner: CliRunner, tmp_path: Path) -> None:
    not_a_dir = tmp_path / "palace.txt"
    not_a_dir.write_text("hello", encoding="utf-8")
    assert_user_error(runner.invoke(main, ["--palace", str(not_a_dir), "status"]), "not a palace")


def test_missing_palace_has_no_traceback_from_real_process(tmp_path: Path, home: Path) -> None:
    """The installed console script, run for real: one line on stderr, exit 1."""
    script = Path(sys.executable).parent / "mempalace"
    missing = tmp_path / "absent"
    env = {"MEMPALACE_HOME": str(home), "MEMPALACE_EMBEDDER": "hash", "MEMPALACE_SHARED": "0", "PATH": str(script.parent)}
    done = subprocess.run([str(script), "--palace", str(missing), "taxonomy"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 1, done
    assert done.stdout == ""
    assert done.stderr.startswith("Error: No palace at"), done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("content", ["", "   ", "\r\n\t \r\n"], ids=["empty", "spaces", "whitespace-lines"])
def test_empty_content_is_refused(cli, content: str) -> None:
    cli("init")
    assert_user_error(cli("add", "--wing", "empty_wing", "--room", "r", content), "empty")
    assert as_json(cli("status", "--json"))["drawers"] == 0


def test_empty_file_is_refused(cli, tmp_path: Path) -> None:
    blank = tmp_path / "blank.txt"
    blank.write_bytes(b"\r\n\r\n\t\r\n")
    assert_user_error(cli("add", "--wing", "empty_wing", "--room", "r", "--file", str(blank)), "empty")


def test_unknown_hall_is_refused(cli) -> None:
    cli("init")
    assert_user_error(cli("add", "--wing", "hall_wing", "--room", "r", "--hall", "kitchen", "some text"),
                      "Unknown hall", "kitchen")
    assert as_json(cli("status", "--json"))["drawers"] == 0


@pytest.mark.parametrize("command", [["get"], ["delete"], ["move", "--room", "elsewhere"]],
                         ids=["get", "delete", "move"])
def test_unknown_drawer_id(cli, command: list[str]) -> None:
    add_id(cli, "the only drawer here", "unknown_wing", "r")
    missing = "drawer_000000000000000000000000"
    assert_user_error(cli(command[0], missing, *command[1:]), "No drawer", missing)
    assert as_json(cli("rooms", "--wing", "unknown_wing", "--json")) == {"r": 1}


def test_overlong_query_is_refused(cli) -> None:
    add_id(cli, "something to search for", "query_wing", "r")
    assert_user_error(cli("search", "q" * 10_000), "10,000", "limit")
    assert_user_error(cli("search", "word " * 2_000, "--json"), "limit")


def test_duplicate_add_fails_and_names_the_match(cli) -> None:
    original = add_id(cli, "The billing job runs nightly at two in the morning", "dup_wing", "billing")
    result = cli("add", "--wing", "dup_wing", "--room", "elsewhere",
                 "The billing job runs nightly at two in the morning")
    assert result.exit_code == 1, describe(result)
    assert original in result.output
    assert_user_error(result, original)
    assert as_json(cli("taxonomy", "--json")) == {"dup_wing": {"billing": 1}}


def test_duplicate_add_json_reports_the_match(cli) -> None:
    original = add_id(cli, "Near duplicate detection keeps the palace tidy", "dupjson_wing", "a")
    result = cli("add", "--wing", "dupjson_wing", "--room", "b", "--json",
                 "Near duplicate detection keeps the palace tidy")
    assert result.exit_code == 1, describe(result)
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    data = json.loads(result.stdout)
    assert set(data) == ADD_KEYS
    assert data["status"] == "duplicate"
    assert [m["drawer_id"] for m in data["matches"]] == [original]
    assert set(data["matches"][0]) == MATCH_KEYS
    assert (data["matches"][0]["wing"], data["matches"][0]["room"]) == ("dupjson_wing", "a")
    assert as_json(cli("taxonomy", "--json")) == {"dupjson_wing": {"a": 1}}


def test_palace_and_url_may_follow_the_command_and_win(cli, runner: CliRunner, tmp_path: Path) -> None:
    other = tmp_path / "other-palace"
    ok(runner.invoke(main, ["init", "--palace", str(other)]))
    add_id(cli, "only in the first palace", "first_wing", "r")
    status = as_json(cli("status", "--palace", str(other), "--json"))  # after --palace <first> globally
    assert (status["location"], status["drawers"]) == (str(other), 0)
    assert as_json(runner.invoke(main, ["wings", "--palace", str(other), "--json"])) == {}
    refused = runner.invoke(main, ["status", "--url", "http://127.0.0.1:9", "--json"])
    assert refused.exit_code == 1 and "127.0.0.1:9" in refused.stderr
