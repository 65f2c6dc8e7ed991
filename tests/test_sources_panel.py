"""The Ingest page's "Sources kept in sync" panel, the Overview's freshness line and the Drawers page's
gone-file switch, run by Streamlit's AppTest (no browser, the fake embedder): the owner's palace, a
team's palace per role, and the suggestions found under HOME."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from mempalace import Palace
from mempalace.config import load_settings
from mempalace.sources.sync import book_of, sync_sources
from _apptest import APP, cards_in, started
from test_app import app_palace, open_page

ROLES = {"viewer": "viewer@example.com", "editor": "editor@example.com", "admin": "admin@example.com"}
HARBOUR_EDITOR = "harbour-editor@example.com"  # an editor of the wing `harbour` only
AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "s" * 64, "client_id": "mempalace",
        "client_secret": "secret", "server_metadata_url": "http://localhost:9/.well-known/openid-configuration"}
ADMIN_CONTROLS = {"sources_sync", "sources_remove_name", "sources_remove", "sources_path", "sources_wing",
                  "sources_add"}
NOT_ALLOWED = "is not under a folder this palace may read sources from"


def added(name: str, wing: str | None = None) -> str:
    """What the panel says once a source is added: how its wing is chosen."""
    rule = (f"everything from it goes to wing {wing}" if wing else
            "chosen per conversation: a coding tool's session goes to its project's wing, an export to its service's "
            f"or workspace's, and plain text to wing {name.replace('-', '_')}, the source's name")
    return f"Added {name}: the next sync files what it holds. Wing: {rule}."


# -- Claude Code session files ---------------------------------------------------------------------


def claude_line(kind: str, text: str, number: int, session: int) -> str:
    """One Claude Code JSONL record, newline included (the shape tests/test_sources.py's `record` writes)."""
    message = ({"role": "user", "content": text} if kind == "user" else
               {"role": "assistant", "type": "message", "content": [{"type": "text", "text": text}]})
    return json.dumps({"type": kind, "sessionId": f"5e55a0b1-0000-4000-8000-{session:012d}",
                       "uuid": f"s{session}-{number}", "cwd": "/home/ada/projects/harbour",
                       "timestamp": f"2026-03-0{1 + session % 9}T09:{number:02d}:00.000Z", "message": message}) + "\n"


def claude_session(path: Path, session: int, exchanges: int = 1) -> Path:
    """A Claude Code session file of `exchanges` question-and-answer pairs about one harbour."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(
        claude_line("user", f"Session {session}, question {i}: when does the ferry to pier {session} leave "
                            f"on a spring tide?", 2 * i, session)
        + claude_line("assistant", f"Session {session}, answer {i}: the pier {session} ferry waits for high "
                                   f"water, so check tide table {session}-{i}.", 2 * i + 1, session)
        for i in range(exchanges)), encoding="utf-8")
    return path


# -- driving the panel -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def empty_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME without any tool's folder, so no suggestion comes from the machine running the tests."""
    folder = tmp_path / "user-home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def run(at: AppTest) -> AppTest:
    """Run the app once more; it must not raise."""
    at.run()
    assert not at.exception, at.exception
    return at


def goto(at: AppTest, name: str) -> AppTest:
    """Switch the app to app_pages/<name>.py and run it."""
    at.switch_page(f"app_pages/{name}.py")
    return run(at)


def add_in_panel(at: AppTest, path: Path | str, wing: str = "") -> AppTest:
    """Type a folder (and a wing) into the panel and press "Add source"."""
    at.text_input(key="sources_path").input(str(path))
    at.text_input(key="sources_wing").input(wing)
    run(at)
    at.button(key="sources_add").click()
    return run(at)


def sync_now(at: AppTest) -> AppTest:
    """Press the panel's "Sync now"."""
    at.button(key="sources_sync").click()
    return run(at)


def sources_table(at: AppTest) -> list[dict]:
    """The rows of the panel's table of sources (none when it is not shown)."""
    tables = [d.value for d in at.main.dataframe if "filed by last sync" in d.value.columns]
    assert len(tables) <= 1
    return tables[0].to_dict("records") if tables else []


def said(at: AppTest) -> tuple[list[str], list[str]]:
    """(successes, errors) the page shows, Markdown escapes removed."""
    return ([s.value.replace("\\", "") for s in at.main.success], [e.value.replace("\\", "") for e in at.main.error])


def freshness_line(at: AppTest) -> str | None:
    """The Overview's "Kept in sync: …" caption, or None."""
    found = [text for text in (c.value.replace("\\", "") for c in at.main.caption) if text.startswith("Kept in sync:")]
    return found[0] if found else None


def owner_with_drawer(settings) -> None:
    """The owner's palace, not empty (the Overview shows its counts only then)."""
    with Palace.open(settings=settings) as palace:
        assert palace.add_drawer("The harbour master posts the ferry times each morning.", "wing_harbour",
                                 "ferry-times").added


# -- the owner's palace ------------------------------------------------------------------------------


def test_the_owner_adds_a_folder_syncs_it_and_the_overview_says_when(settings, tmp_path: Path) -> None:
    owner_with_drawer(settings)
    folder = tmp_path / "projects"
    claude_session(folder / "-home-ada-harbour" / "one.jsonl", 1, exchanges=2)
    claude_session(folder / "-home-ada-harbour" / "two.jsonl", 2)
    at = open_page("ingest")
    assert sources_table(at) == [] and any("No sources yet" in c.value for c in at.main.caption)

    add_in_panel(at, folder, "Harbour")
    assert said(at) == ([added("projects", "harbour")], [])
    [row] = sources_table(at)
    assert (row["source"], row["path"], row["wing"], row["last sync"], row["files"]) == (
        "projects", str(folder.resolve()), "harbour", "never", 0)

    before = app_palace(at).count()
    sync_now(at)
    [row] = sources_table(at)
    assert row["files"] == 2 and row["failed"] == 0 and row["filed by last sync"] > 0 and row["last sync"] != "never"
    assert app_palace(at).count() == before + row["filed by last sync"]
    assert app_palace(at).list_wings().get("harbour") == row["filed by last sync"]  # the wing typed
    [success], errors = said(at)
    assert success.startswith("projects: 2 files, 2 new or changed") and "conversations" in success and not errors

    at.switch_page("app_pages/overview.py")
    run(at)
    assert freshness_line(at) == "Kept in sync: projects synced just now, 2 new conversations just now"


def test_a_folder_of_text_chats_files_into_the_sources_wing_or_one_wing_per_file_when_asked(settings,
                                                                                           tmp_path: Path) -> None:
    for folder in ("chats", "notes"):
        for topic in ("ferry", "tides"):
            (tmp_path / folder).mkdir(exist_ok=True)
            (tmp_path / folder / f"{topic}.txt").write_text(f"User: when does the {topic} table change?\n\n"
                                                           f"Assistant: the {topic} table changes in {folder}.\n")
    at = open_page("ingest")
    add_in_panel(at, tmp_path / "chats")
    assert said(at) == ([added("chats")], [])
    at.checkbox(key="sources_wing_per_file").check()
    add_in_panel(at, tmp_path / "notes")
    assert said(at)[0][0].endswith("Wing: chosen per conversation: a coding tool's session goes to its project's "
                                   "wing, an export to its service's or workspace's, and plain text to a wing named "
                                   "after its file.")
    assert [(r["source"], r["wing"]) for r in sources_table(at)] == [
        ("chats", "per conversation (plain text: chats)"), ("notes", "per conversation (plain text: one per file)")]
    sync_now(at)
    assert app_palace(at).list_wings() == {"chats": 2, "ferry": 1, "tides": 1}


def test_a_broken_file_is_listed_with_its_error_while_the_good_one_is_filed(settings, tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    claude_session(folder / "good.jsonl", 1)
    (folder / "broken.json").write_text('{"mapping": ', encoding="utf-8")
    at = open_page("ingest")
    add_in_panel(at, folder)
    sync_now(at)

    [row] = sources_table(at)
    assert (row["files"], row["failed"]) == (2, 1) and row["filed by last sync"] > 0
    [box] = at.main.expander
    assert box.label.replace("\\", "") == "exports: 1 file failed"
    [listed] = [t.value for t in box.text]
    assert listed.startswith(f"{folder.resolve() / 'broken.json'}: broken.json, line 1") and "invalid JSON" in listed
    sources = app_palace(at).sources()
    assert sources.get("good.jsonl", 0) > 0 and "broken.json" not in sources
    [warning] = [w.value.replace("\\", "") for w in at.main.warning]  # a sync with a failed file warns
    assert warning.endswith("1 failed.") and said(at) == ([], [])


def test_removing_a_source_keeps_its_drawers_and_the_table_goes(settings, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    claude_session(folder / "a.jsonl", 1)
    at = open_page("ingest")
    add_in_panel(at, folder)
    sync_now(at)
    filed = app_palace(at).count()
    assert filed > 0

    assert at.selectbox(key="sources_remove_name").value == "sessions"
    at.button(key="sources_remove").click()
    run(at)
    assert said(at) == (["Removed sessions; its drawers stay in the palace."], [])
    assert sources_table(at) == [] and not [b for b in at.main.button if b.key in ("sources_sync", "sources_remove")]
    assert app_palace(at).count() == filed
    assert book_of(app_palace(at)).entries() == []


def synced_then_gone(tmp_path: Path, lost_exchanges: int) -> tuple[AppTest, set[str], set[str]]:
    """A source of two sessions added and synced in the panel, then one file deleted and synced again:
    (the app on the Drawers page, the ids of the deleted file's drawers, the ids of every drawer)."""
    folder = tmp_path / "sessions"
    claude_session(folder / "kept.jsonl", 1)
    lost = claude_session(folder / "lost.jsonl", 2, exchanges=lost_exchanges)
    at = open_page("ingest")
    add_in_panel(at, folder)
    sync_now(at)
    assert not _has_toggle(goto(at, "drawers"))  # nothing gone yet: no switch

    lost.unlink()
    sync_now(goto(at, "ingest"))
    [row] = sources_table(at)
    assert (row["files"], row["gone"]) == (1, 1)
    _, everything = app_palace(at).browse(limit=100)
    from_lost = {d.id for d in everything if d.source_file == "lost.jsonl"}
    assert from_lost and len(from_lost) < len(everything)
    return goto(at, "drawers"), from_lost, {d.id for d in everything}


def test_drawers_of_a_gone_file_are_listed_by_the_gone_switch(settings, tmp_path: Path) -> None:
    at, from_lost, everything = synced_then_gone(tmp_path, lost_exchanges=6)
    assert len(from_lost) > 1
    assert _has_toggle(at) and set(cards_in(at.main, "drawers")) == everything
    at.toggle(key="drawers_gone").set_value(True)
    run(at)
    assert set(cards_in(at.main, "drawers")) == from_lost
    assert [c.value for c in at.main.caption] == [f"{len(from_lost)} drawers from files that are gone"]


def test_one_drawer_of_a_gone_file_is_counted_in_the_singular(settings, tmp_path: Path) -> None:
    at, from_lost, _ = synced_then_gone(tmp_path, lost_exchanges=1)
    at.toggle(key="drawers_gone").set_value(True)
    run(at)
    assert set(cards_in(at.main, "drawers")) == from_lost and len(from_lost) == 1
    assert [c.value for c in at.main.caption] == ["1 drawer from files that are gone"]


def _has_toggle(at: AppTest) -> bool:
    """Whether the Drawers page offers "Only drawers whose source file is gone"."""
    return any(t.key == "drawers_gone" for t in at.main.toggle)


# -- a team's palace ----------------------------------------------------------------------------------


@pytest.fixture
def team(home: Path, tmp_path: Path) -> Path:
    """A team's palace whose sources may only be under `allowed/`, with the source `shared-notes` there
    synced once, one of its files since gone; returns the `allowed` folder."""
    allowed = tmp_path / "allowed"
    home.mkdir(parents=True, exist_ok=True)
    rules = "".join(f'\n[[access]]\nwho = "{email}"\nrole = "{role}"\n' for role, email in ROLES.items())
    rules += f'\n[[access]]\nwho = "{HARBOUR_EDITOR}"\nrole = "editor"\nwings = ["harbour"]\n'
    (home / "config.toml").write_text(f"source_dirs = [{json.dumps(str(allowed))}]\n{rules}", encoding="utf-8")
    claude_session(allowed / "notes" / "standing.jsonl", 1)
    gone = claude_session(allowed / "notes" / "deleted.jsonl", 2)
    with Palace.open(settings=load_settings(home)) as palace:
        book_of(palace).add(allowed / "notes", name="shared-notes")
        sync_sources(palace)
        gone.unlink()
        sync_sources(palace)
        assert book_of(palace).gone_parents()
    return allowed


def team_app(role: str) -> AppTest:
    """The team's dashboard after its first run, signed in with the `role` rule's address (or `role` itself)."""
    at = started(AppTest.from_file(APP, default_timeout=60))
    at.secrets = {"auth": dict(AUTH)}
    at.user = {"is_logged_in": True, "email": ROLES.get(role, role), "email_verified": True,
               "exp": int(time.time()) + 3600}
    return run(at)


def in_navigation(at: AppTest, name: str) -> bool:
    """Whether the page is in this person's navigation (AppTest refuses to switch to one that is not)."""
    try:
        at.switch_page(f"app_pages/{name}.py")
    except ValueError as exc:
        assert "Could not find a navigation page" in str(exc)
        return False
    return True


def panel_controls(at: AppTest) -> set[str]:
    """The keys of the panel's widgets the page shows."""
    keys = {w.key for w in [*at.main.button, *at.main.text_input, *at.main.selectbox]}
    return {k for k in keys if k and k.startswith(("sources_", "suggest_"))}


def test_a_viewer_sees_no_sources_anywhere(team: Path) -> None:
    at = team_app("viewer")
    assert not in_navigation(at, "ingest")
    assert freshness_line(goto(at, "overview")) is None
    assert not _has_toggle(goto(at, "drawers"))  # a file is gone, but a viewer files nothing


def test_an_editor_sees_and_syncs_the_sources_but_may_not_add_or_remove(team: Path) -> None:
    at = team_app("editor")
    assert freshness_line(at).startswith("Kept in sync: shared-notes synced just now")
    assert _has_toggle(goto(at, "drawers"))
    goto(at, "ingest")
    [row] = sources_table(at)
    assert (row["source"], row["files"], row["gone"]) == ("shared-notes", 1, 1)
    assert panel_controls(at) == {"sources_sync"}

    claude_session(team / "notes" / "fresh.jsonl", 3)
    sync_now(at)
    [success], errors = said(at)
    assert success.startswith("shared-notes: 2 files, 1 new or changed") and not errors
    [row] = sources_table(at)
    assert row["files"] == 2 and row["filed by last sync"] > 0


@pytest.mark.parametrize("typed", ["elsewhere", "allowed/../elsewhere", "allowed-twin"])
def test_an_admin_may_not_add_a_folder_outside_source_dirs(team: Path, typed: str) -> None:
    outside = team.parent / typed
    claude_session(outside / "s.jsonl", 4)
    at = goto(team_app("admin"), "ingest")
    assert ADMIN_CONTROLS <= panel_controls(at)
    add_in_panel(at, outside)
    successes, [error] = said(at)
    assert not successes and NOT_ALLOWED in error and str(team) in error
    assert [r["source"] for r in sources_table(at)] == ["shared-notes"]


def test_an_admin_adds_a_folder_under_source_dirs_and_gets_no_suggestions(team: Path, empty_home: Path) -> None:
    claude_session(empty_home / ".claude" / "projects" / "p" / "s.jsonl", 5)  # a server's home is no one's
    inside = team / "more"
    claude_session(inside / "s.jsonl", 6)
    at = goto(team_app("admin"), "ingest")
    assert not {k for k in panel_controls(at) if k.startswith("suggest_")}
    add_in_panel(at, inside)
    assert said(at) == ([added("more")], [])
    assert [r["source"] for r in sources_table(at)] == ["more", "shared-notes"]
    assert book_of(app_palace(at)).entry("more").added_by == ROLES["admin"]


def test_an_editor_of_one_wing_syncs_the_sources_filing_into_it(team: Path, home: Path) -> None:
    harbour = team / "harbour"
    claude_session(harbour / "old.jsonl", 7)
    with Palace.open(settings=load_settings(home)) as palace:
        book_of(palace).add(harbour, wing="harbour", name="harbour-log")
    claude_session(team / "notes" / "fresh.jsonl", 8)  # new in shared-notes too, which files per conversation
    at = goto(team_app(HARBOUR_EDITOR), "ingest")
    assert "sources_sync" in panel_controls(at)
    sync_now(at)
    successes, errors = said(at)
    assert not errors, errors
    assert successes and successes[0].startswith("harbour-log: 1 file, 1 new or changed")
    [row] = sources_table(at)  # shared-notes files into any wing: not theirs to sync, nor to see
    assert row["source"] == "harbour-log" and row["filed by last sync"] > 0 and "path" not in row
    assert book_of(app_palace(at)).entry("shared-notes").files_seen == 1  # untouched


def test_a_link_in_a_team_source_to_a_file_outside_is_refused_and_listed(team: Path, tmp_path: Path) -> None:
    secret = claude_session(tmp_path / "private" / "secret.jsonl", 9)
    (team / "notes" / "escape.jsonl").symlink_to(secret)
    at = goto(team_app("editor"), "ingest")
    sync_now(at)
    assert not at.main.expander and any(c.value.replace("\\", "") == "shared-notes: 1 file failed; an admin sees "
                                        "which and why." for c in at.main.caption)  # no path of the server's
    at = goto(team_app("admin"), "ingest")
    [box] = at.main.expander
    assert box.label.replace("\\", "") == "shared-notes: 1 file failed"
    [listed] = [t.value for t in box.text]
    assert listed.startswith(f"{team / 'notes' / 'escape.jsonl'}: ") and "outside" in listed
    assert "escape.jsonl" not in app_palace(at).sources() and "secret.jsonl" not in app_palace(at).sources()
    assert not [d for d in app_palace(at).browse(limit=100)[1] if "pier 9" in d.content]


# -- suggestions from HOME -----------------------------------------------------------------------------


def test_a_claude_code_folder_under_home_is_suggested_and_adds_with_one_click(settings, empty_home: Path) -> None:
    projects = empty_home / ".claude" / "projects"
    claude_session(projects / "-home-ada-harbour" / "f00d.jsonl", 1)
    at = open_page("ingest")
    [button] = [b for b in at.main.button if (b.key or "").startswith("suggest_")]
    assert button.key == "suggest_claude-code"
    assert button.label.replace("\\", "") == f"Add Claude Code: {projects} (1 file)"

    button.click()
    run(at)
    assert said(at) == ([added("claude-code")], [])
    [row] = sources_table(at)
    assert (row["source"], row["path"]) == ("claude-code", str(projects))
    assert not [b for b in at.main.button if (b.key or "").startswith("suggest_")]  # added: no longer suggested


def test_a_suggestion_added_through_a_linked_home_is_no_longer_offered(settings, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    real_home = tmp_path / "real-home"
    claude_session(real_home / ".claude" / "projects" / "p" / "s.jsonl", 1)
    (tmp_path / "linked-home").symlink_to(real_home)  # as on macOS, where /var and /tmp lead into /private
    monkeypatch.setenv("HOME", str(tmp_path / "linked-home"))
    at = open_page("ingest")
    at.button(key="suggest_claude-code").click()
    run(at)
    assert said(at) == ([added("claude-code")], [])
    assert not [b for b in at.main.button if (b.key or "").startswith("suggest_")]


def test_an_empty_home_suggests_nothing(settings) -> None:
    at = open_page("ingest")
    assert not [b for b in at.main.button if (b.key or "").startswith("suggest_")]
    assert at.button(key="sources_add").disabled  # the typed path is still offered, empty
