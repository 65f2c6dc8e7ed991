"""Wake-up context (mempalace.palace.wakeup): the rules that choose its lines, its budget, its scope, and its
delivery by the CLI, MCP (tool and prompt, through the official SDK client) and Claude Code's
SessionStart hook."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client

from mempalace import Palace
from mempalace.access.rules import grant_for, parse_rules
from mempalace.cli import main
from mempalace.cli.mcp import build_server
from mempalace.errors import InvalidInputError, PlaceNotFoundError
from mempalace.models import DrawerDraft
from mempalace.scoped.palace import ScopedPalace
from mempalace.palace.wakeup import approx_tokens, compose, write_identity
from test_mcp import threaded

ROOT = Path(__file__).resolve().parents[1]


def draft(n: int, wing: str, room: str, hall: str | None, day: str, text: str) -> DrawerDraft:
    return DrawerDraft(f"d-{n:02}", text, wing, room, hall, "s.md", 0, f"p-{n}", {"conversation_date": day})


DRAFTS = [
    draft(1, "wing_shop", "checkout", "hall_facts", "2026-05-01", "Decision: we keep Stripe for checkout."),
    draft(2, "wing_shop", "checkout", "hall_facts", "2026-05-20", "Decision: move checkout to the new API in June."),
    draft(3, "wing_shop", "checkout", "hall_events", "2026-05-21", "The checkout outage on Tuesday lasted 40 minutes."),
    draft(4, "wing_shop", "search", "hall_preferences", "2026-05-18", "I prefer Postgres full-text over Elastic."),
    draft(5, "wing_shop", "search", "hall_advice", "2026-05-19", "Add a trigram index before the launch."),
    draft(6, "wing_shop", "hiring", None, "2026-05-15", "Two interviews for the backend role this week."),
    draft(7, "wing_shop", "legacy", "hall_facts", "2025-01-10", "The old PHP shop was retired in 2025."),
    draft(8, "wing_home", "checkout", "hall_facts", "2026-05-22", "Grocery checkout at the new store is faster."),
    draft(9, "wing_secret", "search", "hall_facts", "2026-05-23", "Secret: acquisition talks with Zebracorp."),
]


def seed(palace: Palace) -> None:
    palace.file_drawers(DRAFTS)


def test_the_wake_up_names_the_active_rooms_their_tunnels_and_the_newest_facts_by_rule(palace, settings):
    seed(palace)
    woken = palace.wake_up("wing_shop")
    lines = woken.text.splitlines()
    assert lines[0] == "# Wake-up: wing_shop (newest drawer 2026-05-21)"
    rooms = [line for line in lines if line.startswith("- ") and ", newest" in line]
    assert rooms == ["- checkout: 3 drawers, newest 2026-05-21; tunnel to wing_home",
                     "- search: 2 drawers, newest 2026-05-19; tunnel to wing_secret",
                     "- hiring: 1 drawer, newest 2026-05-15"]
    facts = woken.text.split("## Facts and decisions\n")[1].split("\n\n")[0].splitlines()
    assert facts[0] == "- 2026-05-20 · checkout · Decision: move checkout to the new API in June. [d-02]"
    assert "legacy" not in "\n".join(rooms)  # its drawer is older than 30 days before the newest
    assert "## Preferences" in woken.text and "## Advice" in woken.text and "## Open threads" in woken.text
    assert "d-08" not in woken.drawer_ids and "Zebracorp" not in woken.text  # other wings' drawers stay out
    assert palace.wake_up("wing_shop") is woken  # remembered until the palace changes
    palace.update_drawer("d-06", room="recruiting")
    assert "recruiting" in palace.wake_up("wing_shop").text


def test_it_keeps_to_its_budget_identity_first_and_takes_lines_from_every_section(palace, settings):
    seed(palace)
    write_identity(settings.home, "I am Ana, the shop's only backend engineer. " * 40)
    for budget in (60, 150, 300, 800):
        woken = palace.wake_up("wing_shop", budget)
        assert woken.tokens <= budget and woken.text.startswith("# Wake-up: wing_shop")
    small = palace.wake_up("wing_shop", 300)
    assert "I am Ana" in small.text and small.text.count("I am Ana") < 40  # cut to half the budget
    write_identity(settings.home, "")
    plenty = palace.wake_up("wing_shop", 2000)
    assert set(plenty.drawer_ids) == {"d-01", "d-02", "d-03", "d-04", "d-05", "d-07"}
    with pytest.raises(InvalidInputError):
        palace.wake_up("wing_shop", 10)
    with pytest.raises(PlaceNotFoundError):
        palace.wake_up("wing_nowhere")


def test_compose_counts_cjk_characters_one_token_each_and_is_deterministic():
    assert approx_tokens("数据库升级") == 5 and approx_tokens("abcd" * 10) == 10
    halls = {"hall_facts": [("z-1", "w", "数据库升级", "2026-01-02", "决定：周六晚上升级数据库。" * 3)]}
    first = compose("", ("w",), "2026-01-02", [("数据库升级", 1, "2026-01-02", [])], halls, 120)
    assert first == compose("", ("w",), "2026-01-02", [("数据库升级", 1, "2026-01-02", [])], halls, 120)
    assert "数据库升级" in first.text and first.tokens <= 120


def test_a_scoped_view_wakes_up_from_its_own_wings_alone(palace):
    seed(palace)
    rules = parse_rules([{"who": "ana@example.com", "role": "viewer", "wings": ["wing_shop"]}])
    view = ScopedPalace(palace, grant_for(rules, "ana@example.com", "dashboard"))
    woken = view.wake_up()
    assert woken.wings == ("wing_shop",) and "wing_secret" not in woken.text and "wing_home" not in woken.text
    with pytest.raises(PlaceNotFoundError):
        view.wake_up("wing_secret")


def test_the_cli_wakes_up_for_a_project_folder(palace_path, settings, tmp_path):
    with Palace.open(palace_path, settings=settings) as palace:
        seed(palace)
    shown = CliRunner().invoke(main, ["--palace", str(palace_path), "wake-up", "--project",
                                      str(tmp_path / "code" / "wing_shop"), "--tokens", "400"])
    assert shown.exit_code == 0 and shown.output.startswith("# Wake-up: wing_shop")
    every = CliRunner().invoke(main, ["--palace", str(palace_path), "wake-up", "--json"])
    assert json.loads(every.output)["wings"] == ["wing_home", "wing_secret", "wing_shop"]


def test_the_session_start_hook_gives_claude_code_and_gemini_the_projects_wake_up_and_never_fails(
        palace_path, settings, home):
    with Palace.open(palace_path, settings=settings) as palace:
        seed(palace)
    payload = json.dumps({"hook_event_name": "SessionStart", "cwd": "/work/wing_shop/.claude/worktrees/x",
                          "session_id": "s", "source": "startup"})
    ran = subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(palace_path), "hooks", "run",
                          "claude-code"], input=payload, capture_output=True, text=True, timeout=60, cwd=ROOT)
    said = json.loads(ran.stdout)["hookSpecificOutput"]
    assert ran.returncode == 0 and said["hookEventName"] == "SessionStart"
    assert said["additionalContext"].startswith("# Wake-up: wing_shop")
    gemini = subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(palace_path), "hooks", "run",
                             "gemini-cli"], input=payload, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert json.loads(gemini.stdout)["hookSpecificOutput"]["additionalContext"] == said["additionalContext"]
    gone = subprocess.run([sys.executable, "-m", "mempalace", "--palace", str(palace_path / "missing"), "hooks", "run",
                           "claude-code"], input=payload, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert gone.returncode == 0 and gone.stdout == "" and "no palace" in gone.stderr


@threaded
async def test_the_mcp_tool_and_prompt_give_the_wake_up(palace):
    seed(palace)
    async with Client(build_server(palace)) as client:
        result = await client.call_tool("mempalace_wake_up", {"wing": "wing_shop", "tokens": 300})
        assert not result.is_error and result.structured_content["text"].startswith("# Wake-up: wing_shop")
        prompt = await client.get_prompt("mempalace_wake_up", {"wing": "wing_shop"})
        assert prompt.messages[0].content.text == palace.wake_up("wing_shop").text


def test_the_wake_up_page_shows_what_an_agent_gets_and_saves_the_identity(settings):
    from _apptest import start

    with Palace.open(settings=settings) as palace:
        seed(palace)
    at = start()
    at.switch_page("app_pages/wakeup.py").run()
    assert not at.exception and at.code[0].value.startswith("# Wake-up: wing_home, wing_secret, wing_shop")
    at.selectbox(key="wakeup_wing").select("wing_shop").run()
    assert at.code[0].value == at.session_state["palace"].wake_up("wing_shop").text.rstrip("\n")
    at.text_area(key="wakeup_identity").input("I am Ana <b>not markup</b>.").run()
    at.button(key="wakeup_save").click().run()
    assert not at.exception and "I am Ana <b>not markup</b>." in at.code[0].value
    assert (settings.home / "identity.md").read_text() == "I am Ana <b>not markup</b>.\n"


@threaded
async def test_agents_keep_a_diary_list_drawers_read_several_and_follow_tunnels(palace):
    seed(palace)
    async with Client(build_server(palace)) as client:
        async def call(tool: str, **arguments):
            result = await client.call_tool(f"mempalace_{tool}", arguments)
            assert not result.is_error, result.content
            return result.structured_content

        written = await call("diary_write", agent_name="Claude", entry="Fixed the checkout retry bug today.",
                             topic="checkout")
        assert written["status"] == "added"
        await call("diary_write", agent_name="claude", entry="Tomorrow: write the migration for search tables.")
        diary = await call("diary_read", agent_name="Claude", last_n=5)
        assert diary["wing"] == "wing_claude" and diary["total"] == 2
        assert {e["content"] for e in diary["entries"]} == {"Fixed the checkout retry bug today.",
                                                            "Tomorrow: write the migration for search tables."}
        page = await call("list_drawers", wing="wing_shop", limit=2, newest=True)
        assert page["total"] == 7 and [d["id"] for d in page["drawers"]] == ["d-03", "d-02"]
        both = await call("get_drawers", drawer_ids=["d-01", "nope"])
        assert [d["id"] for d in both["drawers"]] == ["d-01"] and both["missing"] == ["nope"]
        tunnel = await call("follow_tunnels", room="checkout", wing="wing_shop")
        assert list(tunnel["wings"]) == ["wing_home"] and tunnel["wings"]["wing_home"][0]["id"] == "d-08"


def test_the_drawer_ids_are_the_drawers_named_even_when_a_text_holds_brackets(palace):
    palace.file_drawers([draft(1, "wing_x", "bash", "hall_facts", "2026-05-01", "Decision: test with if [ -f x ]; then [")])
    woken = palace.wake_up("wing_x")
    assert woken.drawer_ids == ("d-01",) and woken.text.count("[d-01]") == 1
