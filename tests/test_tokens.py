"""`mempalace token create|list|revoke` and `mempalace audit`, driven in-process with click's CliRunner.

The autouse `home` fixture (conftest) gives every test its own MEMPALACE_HOME, private palaces and the
deterministic `hash` embedder. `result.stdout` is stdout only, `result.stderr` stderr only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from _cli import as_json, assert_user_error, describe, ok
from mempalace import Palace
from mempalace.access.rules import local_user
from mempalace.cli import main

TOKEN_KEYS = {"id", "name", "role", "wings", "created_at", "created_by", "revoked_at"}
ENTRY_KEYS = {"seq", "at", "who", "via", "action", "ids", "detail"}


@pytest.fixture
def palace_dir(tmp_path: Path) -> Path:
    return tmp_path / "token-palace"


@pytest.fixture
def cli(palace_dir: Path):
    """Run `mempalace --palace <tmp> ARGS...` in-process."""

    def run(*args: str) -> Result:
        return CliRunner().invoke(main, ["--palace", str(palace_dir), *args])

    return run


def create(cli, name: str, *options: str) -> dict[str, Any]:
    return as_json(cli("token", "create", "--name", name, *options, "--json"))


def audit(cli, *filters: str) -> list[dict[str, Any]]:
    return json.loads(ok(cli("audit", *filters, "--json")).stdout)  # one document, as every --json


def test_create_prints_the_secret_once_and_keeps_only_what_verifies_it(cli, palace_dir: Path) -> None:
    shown = ok(cli("token", "create", "--role", "viewer", "--wing", "Wing Kai", "--name", "my-agent")).stdout
    secret = next(line for line in shown.splitlines() if line.startswith("mpt_"))
    assert "not be shown again" in shown and "viewer on wing_kai" in shown
    listed = ok(cli("token", "list")).stdout + ok(cli("token", "list", "--json")).stdout
    assert "my-agent" in listed and secret not in listed
    with Palace.open(palace_dir) as palace:
        found = palace.access.verify_token(secret)
        assert (found.name, found.role, found.wings) == ("my-agent", "viewer", ("wing_kai",))
        assert secret not in (palace_dir / "mempalace_access.sqlite3").read_bytes().decode("latin-1")


def test_create_json_is_the_token_and_its_secret(cli) -> None:
    made = create(cli, "ops-agent", "--role", "admin")
    assert set(made) == TOKEN_KEYS | {"secret"}
    assert (made["name"], made["role"], made["wings"], made["revoked_at"]) == ("ops-agent", "admin", ["*"], None)
    assert made["created_by"] == local_user() and made["secret"].startswith("mpt_")
    assert create(cli, "other", "--role", "editor")["secret"] != made["secret"]


def test_create_refuses_a_bad_role_and_a_name_already_taken(cli) -> None:
    bad = cli("token", "create", "--role", "owner")
    assert bad.exit_code == 2 and "owner" in bad.stderr, describe(bad)
    create(cli, "my-agent", "--role", "viewer")
    assert_user_error(cli("token", "create", "--role", "editor", "--name", "my-agent"), "my-agent", "exists already")
    assert [t["name"] for t in as_json(cli("token", "list", "--json"))] == ["my-agent"]


def test_list_shows_every_token_with_its_role_wings_and_state(cli) -> None:
    ok(cli("init"))
    assert "No tokens yet" in ok(cli("token", "list")).stdout
    kai = create(cli, "kai-reader", "--role", "viewer", "--wing", "wing_kai", "--wing", "wing_team_*")
    create(cli, "ops-agent", "--role", "admin")
    ok(cli("token", "revoke", "kai-reader"))
    listed = {t["name"]: t for t in as_json(cli("token", "list", "--json"))}
    assert set(listed) == {"kai-reader", "ops-agent"} and all(set(t) == TOKEN_KEYS for t in listed.values())
    assert listed["kai-reader"]["wings"] == ["wing_kai", "wing_team_*"] and listed["kai-reader"]["revoked_at"]
    assert listed["ops-agent"]["revoked_at"] is None
    header, *rows = ok(cli("token", "list")).stdout.splitlines()
    assert header.split()[:4] == ["NAME", "ID", "ROLE", "WINGS"]
    [kai_row] = [r for r in rows if r.startswith("kai-reader")]
    assert kai["id"] in kai_row and "viewer" in kai_row and "wing_kai, wing_team_*" in kai_row
    [ops_row] = [r for r in rows if r.startswith("ops-agent")]
    assert "every wing" in ops_row and ops_row.endswith("-")  # not revoked


def test_revoke_by_name_or_id_stops_the_token(cli, palace_dir: Path) -> None:
    first, second = create(cli, "first", "--role", "viewer"), create(cli, "second", "--role", "editor")
    assert "Revoked token first" in ok(cli("token", "revoke", "first")).stdout
    revoked = as_json(cli("token", "revoke", second["id"], "--json"))
    assert revoked["name"] == "second" and revoked["revoked_at"]
    with Palace.open(palace_dir) as palace:
        assert palace.access.verify_token(first["secret"]) is None
        assert palace.access.verify_token(second["secret"]) is None
    assert_user_error(cli("token", "revoke", "first"), "No active token named 'first'")
    assert_user_error(cli("token", "revoke", "never-made"), "never-made")


def test_audit_lists_writes_newest_first_with_their_actor(cli) -> None:
    made = create(cli, "my-agent", "--role", "editor")
    [drawer_id] = as_json(cli("add", "--wing", "wing_kai", "--room", "notes", "A note.", "--json"))["drawer_ids"]
    ok(cli("token", "revoke", "my-agent"))
    entries = audit(cli)
    assert [e["action"] for e in entries] == ["token-revoke", "add", "token-create"]
    assert all(set(e) == ENTRY_KEYS and (e["who"], e["via"]) == (local_user(), "cli") for e in entries)
    assert entries[1]["ids"] == [drawer_id] and entries[2]["detail"]["token"] == "my-agent"
    assert made["secret"] not in ok(cli("audit")).stdout
    header, *rows = ok(cli("audit")).stdout.splitlines()
    assert header.split()[:5] == ["AT", "(UTC)", "WHO", "VIA", "ACTION"] and len(rows) == 3
    assert "add" in rows[1] and drawer_id in rows[1] and "wing=wing_kai" in rows[1]


def test_audit_filters(cli) -> None:
    create(cli, "my-agent", "--role", "editor")
    ids = [as_json(cli("add", "--wing", "wing_kai", "--room", "notes", text, "--json"))["drawer_ids"][0]
           for text in ("The first note is about ferries.", "The second note is about bicycles.")]
    today = audit(cli)[0]["at"][:10]
    assert [e["ids"] for e in audit(cli, "--action", "add")] == [[ids[1]], [ids[0]]]
    assert [e["ids"] for e in audit(cli, "--drawer", ids[0])] == [[ids[0]]]
    assert len(audit(cli, "--who", local_user(), "--via", "cli")) == 3
    assert audit(cli, "--via", "mcp") == [] and audit(cli, "--who", "token:my-agent") == []
    assert len(audit(cli, "--since", today, "--until", today)) == 3
    assert audit(cli, "--until", "2000-01-01") == [] and audit(cli, "--since", "2999-01-01T00:00") == []
    assert [e["ids"] for e in audit(cli, "--limit", "1")] == [[ids[1]]]
    assert "No audit entries match." in ok(cli("audit", "--action", "delete")).stdout


@pytest.mark.parametrize("options", [["--since", "yesterday"], ["--until", "2026-12-01T10:00+02:00"],
                                     ["--via", "email"]])
def test_audit_refuses_what_it_cannot_filter_on(cli, options: list[str]) -> None:
    result = cli("audit", *options)
    assert result.exit_code == 2 and options[1] in result.stderr, describe(result)


def test_audit_refuses_a_limit_out_of_range(cli) -> None:
    ok(cli("init"))
    assert_user_error(cli("audit", "--limit", "0"), "limit")


def test_mcp_over_http_is_refused_while_the_palace_has_no_active_token(cli) -> None:
    create(cli, "my-agent", "--role", "viewer")
    ok(cli("token", "revoke", "my-agent"))
    result = cli("mcp", "--http")
    assert result.exit_code == 2, describe(result)
    assert "no active token" in result.stderr
    assert "mempalace token create --role viewer --name my-agent" in result.stderr
