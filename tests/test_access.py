"""Access rules, grants and the access book (audit log and tokens), without a palace."""

from __future__ import annotations

import sqlite3
import threading
from datetime import date, timedelta
from pathlib import Path

import pytest

from mempalace.access.rules import (
    ALL_WINGS, Actor, AccessRule, Grant, acting_as, current_actor, full_grant, grant_for, local_user, parse_rules,
    token_grant,
)
from mempalace.access.audit import TOKEN_PREFIX, AccessBook
from mempalace.config import load_settings
from mempalace.errors import AccessDeniedError, ConfigError, InvalidInputError


# -- parse_rules ------------------------------------------------------------------------------------


def test_parse_rules_cleans_addresses_roles_and_wings() -> None:
    rules = parse_rules([
        {"who": "Ann@Example.com", "role": "admin"},
        {"who": [" bob@example.com ", "@Team.Example"], "role": "editor", "wings": ["Wing Kai", "wing_team_*"]},
        {"who": ["cy@example.org"], "role": "viewer", "wings": "Kai"},
    ])
    assert rules == (
        AccessRule(("ann@example.com",), "admin", ALL_WINGS),
        AccessRule(("bob@example.com", "@team.example"), "editor", ("wing_kai", "wing_team_*")),
        AccessRule(("cy@example.org",), "viewer", ("kai",)),
    )
    assert parse_rules([]) == ()


@pytest.mark.parametrize("value", [{"who": "a@b.co", "role": "viewer"}, "a@b.co", 3, [{"who": "a@b.co"}, "x"]])
def test_parse_rules_wants_a_list_of_tables(value: object) -> None:
    with pytest.raises(ConfigError, match=r"list of \[\[access\]\] tables"):
        parse_rules(value)


GOOD = {"who": "ann@example.com", "role": "viewer"}


@pytest.mark.parametrize("table, says", [
    ({**GOOD, "wing": ["kai"]}, "unknown key(s) wing"),
    ({**GOOD, "roles": "admin", "extra": 1}, "unknown key(s) extra, roles"),
    ({"role": "viewer"}, "who must be"),
    ({**GOOD, "who": []}, "who must be"),
    ({**GOOD, "who": 7}, "who must be"),
    ({**GOOD, "who": ["ann@example.com", 7]}, "who must be"),
    ({**GOOD, "who": "ann"}, "'ann' is neither an e-mail address nor an @domain"),
    ({**GOOD, "who": ["ann@example.com", "@localhost"]}, "'@localhost' is neither"),
    ({**GOOD, "who": "ann smith@example.com"}, "is neither"),
    ({"who": "ann@example.com"}, "Unknown role None"),
    ({**GOOD, "role": "owner"}, "Unknown role 'owner'"),
    ({**GOOD, "role": "Admin"}, "Unknown role 'Admin'"),
    ({**GOOD, "wings": [""]}, "must be text"),
    ({**GOOD, "wings": ["kai", 3]}, "must be text, not 3"),
    ({**GOOD, "wings": 3}, "not iterable"),
    ({**GOOD, "wings": ["!!!"]}, "[[access]] table 2"),
    ({**GOOD, "wings": []}, "wings is empty"),
])
def test_parse_rules_names_the_table_of_each_mistake(table: dict, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_rules([GOOD, table])
    message = str(caught.value)
    assert message.startswith("[[access]] table 2: "), message
    assert says in message


def test_rules_come_from_config_toml(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[[access]]\nwho = ["Ann@Example.com", "@team.example"]\nrole = "editor"\nwings = ["Wing Kai", "wing_team_*"]\n\n'
        '[[access]]\nwho = "boss@example.com"\nrole = "admin"\n', encoding="utf-8")
    settings = load_settings()
    assert settings.access == (
        AccessRule(("ann@example.com", "@team.example"), "editor", ("wing_kai", "wing_team_*")),
        AccessRule(("boss@example.com",), "admin", ALL_WINGS),
    )
    grant = grant_for(settings.access, "zed@team.example", "dashboard")
    assert grant is not None and grant.may("add", "wing_team_blue") and not grant.may("add", "wing_other")


def test_a_mistake_in_config_toml_is_a_config_error_naming_the_table(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[[access]]\nwho = "ann@example.com"\nrole = "viewer"\n\n'
        '[[access]]\nwho = "bob@example.com"\nrole = "superuser"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^\[\[access\]\] table 2: Unknown role 'superuser'"):
        load_settings()
    (home / "config.toml").write_text('access = "everyone"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"list of \[\[access\]\] tables"):
        load_settings()


# -- grant_for --------------------------------------------------------------------------------------


RULES = parse_rules([
    {"who": "ann@example.com", "role": "admin"},
    {"who": "@example.com", "role": "viewer"},
    {"who": ["bob@example.com"], "role": "editor", "wings": ["wing_kai"]},
    {"who": "cy@other.org", "role": "editor", "wings": ["wing_team_*"]},
])


def test_grant_for_an_exact_address_ignores_case_and_spaces() -> None:
    grant = grant_for(RULES, "  Cy@Other.ORG ", "mcp")
    assert grant == Grant(Actor("cy@other.org", "mcp"), (("editor", ("wing_team_*",)),))
    assert grant.role == "editor" and not grant.every_wing


def test_grant_for_a_domain_covers_its_addresses_only() -> None:
    grant = grant_for(RULES, "Dee@EXAMPLE.com", "dashboard")
    assert grant is not None and grant.actor == Actor("dee@example.com", "dashboard")
    assert grant.rules == (("viewer", ALL_WINGS),)
    for stranger in ("dee@sub.example.com", "dee@example.com.evil.org", "dee@notexample.com", "cy@other.org.uk"):
        assert grant_for(RULES, stranger, "dashboard") is None, stranger


@pytest.mark.parametrize("email", ["nobody@else.org", "", "   ", "ann", "example.com", "@example.com",
                                   "mallory@evil.org@example.com", "two words@example.com"])
def test_nobody_gets_no_grant(email: str) -> None:
    assert grant_for(RULES, email, "dashboard") is None
    assert grant_for((), "ann@example.com", "dashboard") is None


def test_rules_add_up_viewer_of_all_and_editor_of_one_wing() -> None:
    grant = grant_for(RULES, "bob@example.com", "dashboard")
    assert grant is not None
    assert set(grant.rules) == {("viewer", ALL_WINGS), ("editor", ("wing_kai",))}
    assert grant.every_wing and grant.role == "editor" and grant.key == ALL_WINGS
    assert grant.sees("wing_kai") and grant.sees("wing_priya")
    assert grant.may("read", "wing_priya") and grant.may("add", "wing_kai") and grant.may("move", "kai")
    assert not grant.may("add", "wing_priya") and not grant.may("delete", "wing_kai")
    assert grant.may("add") and not grant.may("delete")  # on some wing
    assert not grant.may("merge", "*") and not grant.may("audit", "*")
    # the admin's rules add up with the domain's too, and admin wins everywhere
    admin = grant_for(RULES, "ann@example.com", "cli")
    assert admin is not None and admin.role == "admin"
    assert admin.may("delete", "wing_anything") and admin.may("settings", "*") and admin.may("audit", "*")


def test_full_and_token_grants() -> None:
    mine = full_grant("kai", "cli")
    assert mine.actor == Actor("kai", "cli") and mine.every_wing and mine.may("settings", "*")
    bot = token_grant("ci-bot", "editor", ("wing_ops",))
    assert bot.actor == Actor("token:ci-bot", "mcp") and bot.key == ("wing_ops",)
    assert bot.may("add", "wing_ops") and not bot.sees("wing_kai") and not bot.may("delete", "wing_ops")
    assert token_grant("reader", "viewer", ()).every_wing  # no wings: all of them


# -- wing patterns ----------------------------------------------------------------------------------


def test_team_pattern() -> None:
    grant = token_grant("t", "viewer", parse_rules([{"who": "a@b.co", "role": "viewer",
                                                     "wings": ["wing_team_*"]}])[0].wings)
    for wing in ("wing_team_alpha", "wing_team_", "team_blue"):
        assert grant.sees(wing), wing
    for wing in ("wing_teams", "wing_kai", "wing_alpha_team_x", "wing_Team_alpha", "team"):
        assert not grant.sees(wing), wing
    assert grant.key == ("wing_team_*",)


def test_kai_and_wing_kai_name_the_same_wing() -> None:
    for written in ("kai", "wing_kai", "Wing Kai", "KAI"):
        (rule,) = parse_rules([{"who": "a@b.co", "role": "editor", "wings": [written]}])
        grant = token_grant("t", rule.role, rule.wings)
        assert grant.sees("kai") and grant.sees("wing_kai"), written
        assert grant.may("add", "wing_kai") and grant.may("add", "kai"), written
        assert not grant.sees("wing_kai2") and not grant.sees("kai_wing") and not grant.sees("wing_wing_kai"), written


def test_patterns_with_brackets_and_question_marks() -> None:
    grant = token_grant("t", "viewer", ("wing_[ab]?",))
    assert grant.sees("wing_a1") and grant.sees("b2") and not grant.sees("wing_c1") and not grant.sees("wing_a12")


# -- check() ----------------------------------------------------------------------------------------


def test_check_messages_name_the_role_needed() -> None:
    grant = grant_for(RULES, "bob@example.com", "dashboard")
    assert grant is not None
    grant.check("read", "wing_priya")
    grant.check("add", "wing_kai")
    with pytest.raises(AccessDeniedError) as caught:
        grant.check("add", "wing_priya")
    assert str(caught.value) == "bob@example.com may not add in wing_priya: that needs the editor role in wing_priya."
    with pytest.raises(AccessDeniedError) as caught:
        grant.check("delete")
    assert str(caught.value) == "bob@example.com may not delete: that needs the admin role."
    with pytest.raises(AccessDeniedError) as caught:
        grant.check("audit", "*")
    assert str(caught.value) == "bob@example.com may not audit on every wing: that needs the admin role on every wing."
    viewer = token_grant("reader", "viewer", ())
    with pytest.raises(AccessDeniedError, match=r"^token:reader may not move in wing_kai: that needs the editor"):
        viewer.check("move", "wing_kai")


# -- the actor of writes ----------------------------------------------------------------------------


def test_current_actor_defaults_to_this_user_from_python_and_follows_acting_as() -> None:
    assert current_actor() == Actor(local_user(), "python")
    with acting_as(Actor("ann@example.com", "dashboard")):
        assert current_actor() == Actor("ann@example.com", "dashboard")
        seen: list[Actor] = []
        worker = threading.Thread(target=lambda: seen.append(current_actor()))
        worker.start()
        worker.join()
        assert seen == [Actor(local_user(), "python")]  # a new thread starts as this user again
        with acting_as(Actor("token:bot", "mcp")):
            assert current_actor().who == "token:bot"
        assert current_actor().who == "ann@example.com"
    assert current_actor() == Actor(local_user(), "python")


def test_the_wing_prefix_folds_unless_only_wildcards_are_left() -> None:
    grant = Grant(Actor("ann@example.com", "dashboard"), (("viewer", ("wing_team_*",)), ("viewer", ("kai",))))
    assert grant.sees("wing_team_alpha") and grant.sees("team_alpha") and not grant.sees("alpha")
    assert grant.sees("kai") and grant.sees("wing_kai") and not grant.sees("kai2")
    everything_prefixed = Grant(Actor("ann@example.com", "dashboard"), (("viewer", ("wing_*",)),))
    assert everything_prefixed.sees("wing_x") and not everything_prefixed.sees("payroll")


def test_a_look_alike_address_gets_no_one_elses_grant() -> None:
    rules = parse_rules([{"who": "kai@example.com", "role": "admin"}])
    assert grant_for(rules, "\u212aai@example.com", "dashboard") is None  # a Kelvin sign lower-cases to k
    assert grant_for(rules, "KAI@example.com", "dashboard") is not None
    with pytest.raises(ConfigError, match="ASCII"):
        parse_rules([{"who": "k\u00e4i@example.com", "role": "viewer"}])


def test_the_os_user_comes_from_the_user_id_not_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import pwd

    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(name, "kai@example.com")
    assert local_user() == pwd.getpwuid(os.getuid()).pw_name != "kai@example.com"


@pytest.mark.parametrize("pattern", ["?", "wing_[!z]*", "[!q]*", "*?"])
def test_only_a_rule_for_every_wing_counts_as_every_wing(pattern: str) -> None:
    narrow = Grant(Actor("ann@example.com", "dashboard"), (("admin", (pattern,)),))
    assert not narrow.may("audit", "*") and not narrow.may("settings", "*")
    with pytest.raises(AccessDeniedError):
        narrow.check("audit", "*")
    assert full_grant("ann", "cli").may("audit", "*")


# -- the audit log ----------------------------------------------------------------------------------


ANN, BOB = Actor("ann@example.com", "dashboard"), Actor("bob@example.com", "mcp")


@pytest.fixture
def book(tmp_path: Path):
    opened = AccessBook(tmp_path / "mempalace_access.sqlite3")
    yield opened
    opened.close()


def test_audit_entries_newest_first_with_every_filter(book: AccessBook) -> None:
    book.record(ANN, "add", ["d1", "d2"], wing="wing_kai", room="notes")
    book.record(BOB, "move", ["d2"], room="archive")
    book.record(ANN, "delete", ["d3"])
    book.record(BOB, "rebuild", [])
    everything = book.entries()
    assert [(e.who, e.via, e.action, e.ids) for e in everything] == [
        ("bob@example.com", "mcp", "rebuild", ()),
        ("ann@example.com", "dashboard", "delete", ("d3",)),
        ("bob@example.com", "mcp", "move", ("d2",)),
        ("ann@example.com", "dashboard", "add", ("d1", "d2")),
    ]
    assert everything[-1].detail == {"wing": "wing_kai", "room": "notes"}
    assert [e.seq for e in everything] == sorted((e.seq for e in everything), reverse=True)
    assert [e.action for e in book.entries(who="ann@example.com")] == ["delete", "add"]
    assert [e.action for e in book.entries(via="mcp")] == ["rebuild", "move"]
    assert [e.action for e in book.entries(action="move")] == ["move"]
    assert [e.action for e in book.entries(drawer="d2")] == ["move", "add"]
    assert book.entries(drawer="d") == [] and book.entries(drawer='d1", "d2') == []
    assert [e.action for e in book.entries(who="bob@example.com", drawer="d2")] == ["move"]
    assert book.entries(who="nobody") == [] and book.entries(action="merge") == []
    assert [e.action for e in book.entries(limit=2)] == ["rebuild", "delete"]
    for bad in (0, -1, 100_001, True, "5", 2.0):
        with pytest.raises(InvalidInputError):
            book.entries(limit=bad)


def test_audit_since_and_until_take_whole_days(book: AccessBook) -> None:
    book.record(ANN, "add", ["d1"])
    (entry,) = book.entries()
    day = date.fromisoformat(entry.at[:10])
    before, after = (day - timedelta(days=1)).isoformat(), (day + timedelta(days=1)).isoformat()
    assert book.entries(since=day.isoformat()) == [entry] == book.entries(until=day.isoformat())
    assert book.entries(since=day.isoformat(), until=day.isoformat()) == [entry]
    assert book.entries(since=before, until=after) == [entry]
    assert book.entries(since=after) == [] and book.entries(until=before) == []


def test_the_audit_table_refuses_update_and_delete(book: AccessBook) -> None:
    book.record(ANN, "add", ["d1"], wing="wing_kai")
    book.record(BOB, "delete", ["d1"])
    before = book.entries()
    db = sqlite3.connect(str(book.path), isolation_level=None)
    try:
        for sql in ("UPDATE audit SET who = 'mallory'", "UPDATE audit SET ids = '[]' WHERE action = 'delete'",
                    "DELETE FROM audit", "DELETE FROM audit WHERE who = 'bob@example.com'",
                    "INSERT OR REPLACE INTO audit (seq, at, who, via, action, drawers, ids, detail)"
                    " SELECT seq, at, 'mallory', via, action, drawers, ids, detail FROM audit",
                    "REPLACE INTO audit (seq, at, who, via, action, drawers, ids, detail)"
                    " VALUES (1, '2000-01-01', 'mallory', 'cli', 'add', 0, '[]', '{}')",
                    "INSERT INTO audit (seq, at, who, via, action, drawers, ids, detail)"
                    " VALUES (1, '2000-01-01', 'mallory', 'cli', 'add', 0, '[]', '{}')"
                    " ON CONFLICT(seq) DO UPDATE SET who = 'mallory'"):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                db.execute(sql)
        assert db.execute("SELECT count(*) FROM audit").fetchone() == (2,)
    finally:
        db.close()
    assert book.entries() == before
    book.record(ANN, "add", ["d4"])  # appending still works
    assert len(book.entries()) == 3


# -- tokens -----------------------------------------------------------------------------------------


def test_tokens_create_verify_list_revoke(book: AccessBook) -> None:
    info, secret = book.create_token(ANN, "editor", ["Wing Ops"], name="ci-bot")
    assert secret.startswith(TOKEN_PREFIX) and len(secret) > 40
    assert (info.name, info.role, info.wings, info.created_by, info.revoked_at) == (
        "ci-bot", "editor", ("wing_ops",), "ann@example.com", None)
    assert book.verify_token(secret) == info
    reader, reader_secret = book.create_token(ANN, "viewer")
    assert reader.name == f"token-{reader.id}" and reader.wings == ALL_WINGS and reader_secret != secret
    assert {t.name for t in book.tokens()} == {"ci-bot", reader.name}

    for wrong in (secret + "x", secret[:-1], TOKEN_PREFIX + "0" * 43, secret.removeprefix(TOKEN_PREFIX), "",
                  secret.upper(), TOKEN_PREFIX + "a" * 300, None, 42, b"mpt_bytes"):
        assert book.verify_token(wrong) is None, wrong  # type: ignore[arg-type]

    revoked = book.revoke_token(BOB, "ci-bot")
    assert revoked.name == "ci-bot" and revoked.revoked_at is not None
    assert book.verify_token(secret) is None
    assert book.verify_token(reader_secret) == reader
    with pytest.raises(InvalidInputError, match="No active token named 'ci-bot'"):
        book.revoke_token(BOB, "ci-bot")
    assert book.revoke_token(ANN, reader.id).revoked_at is not None  # by id too
    assert book.verify_token(reader_secret) is None
    assert all(t.revoked_at for t in book.tokens())

    log = [(e.who, e.action, e.detail.get("token")) for e in book.entries()]
    assert log == [("ann@example.com", "token-revoke", reader.name), ("bob@example.com", "token-revoke", "ci-bot"),
                   ("ann@example.com", "token-create", reader.name), ("ann@example.com", "token-create", "ci-bot")]


def test_token_mistakes(book: AccessBook) -> None:
    book.create_token(ANN, "viewer", name="dup")
    with pytest.raises(InvalidInputError, match="exists already"):
        book.create_token(ANN, "viewer", name="dup")
    with pytest.raises(InvalidInputError, match="Unknown role"):
        book.create_token(ANN, "root")
    for name in ("two\nlines", "tab\there", "x" * 101):
        with pytest.raises(InvalidInputError, match="1 to 100 characters"):
            book.create_token(ANN, "viewer", name=name)
    with pytest.raises(InvalidInputError):
        book.create_token(ANN, "viewer", wings=[""])
    assert [t.name for t in book.tokens()] == ["dup"]


def test_only_the_hash_of_a_secret_is_stored(book: AccessBook) -> None:
    import hashlib

    secrets = [book.create_token(ANN, role, name=f"t{i}")[1] for i, role in enumerate(("viewer", "editor", "admin"))]
    assert all(book.verify_token(s) for s in secrets)

    def stored() -> bytes:
        return b"".join(p.read_bytes() for p in book.path.parent.glob(book.path.name + "*"))

    for data in (stored(),):
        for secret in secrets:
            assert secret.encode() not in data
            assert secret.removeprefix(TOKEN_PREFIX).encode() not in data
            assert hashlib.sha256(secret.encode()).hexdigest().encode() in data  # the file was really read
    book.close()
    data = stored()
    for secret in secrets:
        assert secret.encode() not in data and secret.removeprefix(TOKEN_PREFIX).encode() not in data
        assert hashlib.sha256(secret.encode()).hexdigest().encode() in data
    reopened = AccessBook(book.path)
    try:
        assert [reopened.verify_token(s).name for s in secrets] == ["t0", "t1", "t2"]  # type: ignore[union-attr]
    finally:
        reopened.close()


def test_a_sign_out_ends_sign_ins_issued_before_it_only(tmp_path: Path) -> None:
    book = AccessBook(tmp_path / "access.sqlite3")
    assert not book.signed_out("ann@example.com", 1_000.0)
    book.record_sign_out("ann@example.com", 1_000.0)
    book.record_sign_out("ann@example.com", 900.0)  # an older sign-out never shortens a later one
    assert book.signed_out("ann@example.com", 1_000.0) and book.signed_out("ann@example.com", 10.0)
    assert not book.signed_out("ann@example.com", 1_001.0)  # a sign-in issued afterwards
    assert not book.signed_out("bob@example.com", 10.0)
    book.close()


def test_own_drawers_are_those_the_same_actor_filed_from_the_same_front_end(book: AccessBook) -> None:
    book.record(Actor("kai@example.com", "cli"), "add", ["d1"])  # an OS user named like Kai's address
    book.record(Actor("kai@example.com", "dashboard"), "file", ["d2"])
    assert book.filed_by(Actor("kai@example.com", "dashboard"), ["d1", "d2"]) == {"d2"}
