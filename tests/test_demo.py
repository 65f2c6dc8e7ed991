"""The demo palace: one story across three wings, so tunnels, halls and search all have something to show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from _cli import assert_user_error, ok
from mempalace import Palace
from mempalace.ingest import demo as demo_module
from mempalace.cli import main
from mempalace.config import load_settings
from mempalace.ingest.demo import DEMO_WINGS, DemoConversation, demo_conversations, load_demo
from mempalace.formats import plain_text
from mempalace.formats.base import Source
from mempalace.graph import find_tunnels
from mempalace.ingest import IngestReport

PLANNED_TUNNELS = {
    "auth-migration": ("wing_driftwood", "wing_kai", "wing_priya"),
    "gpu-pricing": ("wing_kai", "wing_priya"),
    "deploy-pipeline": ("wing_driftwood", "wing_kai"),
}
SINGLE_WING_ROOMS = {"onboarding": "wing_driftwood", "team-offsite": "wing_priya"}


def parsed(conversation: DemoConversation):
    [parsed] = plain_text.parse(Source.from_bytes(conversation.text.encode("utf-8"), conversation.filename))
    return parsed


def test_the_demo_is_eight_to_twelve_dated_transcripts_of_six_to_fourteen_turns() -> None:
    conversations = demo_conversations()
    assert 8 <= len(conversations) <= 12
    assert len({c.filename for c in conversations}) == len(conversations)
    assert {c.wing for c in conversations} == set(DEMO_WINGS)
    for conversation in conversations:
        transcript = parsed(conversation)
        turns = [m for m in transcript.messages if m.speaker]  # the title line is the only unlabelled text
        assert 6 <= len(turns) <= 14, conversation.filename
        assert len(transcript.speakers) >= 2, conversation.filename
        assert "2026" in (transcript.title or ""), conversation.filename


def test_load_gives_the_planned_tunnels_and_single_wing_rooms(palace: Palace) -> None:
    reports = load_demo(palace)
    assert all(r.ok and r.format == "plain_text" and r.added for r in reports), [r.summary() for r in reports]
    assert palace.count() == sum(r.added for r in reports)
    assert {t.room: t.wings for t in find_tunnels(palace)} == PLANNED_TUNNELS
    tunnel = find_tunnels(palace, "wing_kai", "wing_priya")
    assert [t.room for t in tunnel][:1] == ["auth-migration"]
    taxonomy = palace.taxonomy()
    for room, wing in SINGLE_WING_ROOMS.items():
        assert [w for w, rooms in taxonomy.items() if room in rooms] == [wing]
    assert len([h for h, n in palace.hall_counts().items() if h and n]) >= 4


def test_every_drawer_is_verbatim_text_of_its_conversation(palace: Palace) -> None:
    reports = load_demo(palace)
    for conversation, report in zip(demo_conversations(), reports):
        drawers = palace.find_drawers(list(report.drawer_ids))
        assert len(drawers) == report.added > 0
        for drawer in drawers.values():
            assert drawer.content in conversation.text, drawer.content
            assert (drawer.wing, drawer.room) == (conversation.wing, conversation.room)
            assert drawer.source_file == conversation.filename


def test_a_specific_search_finds_the_token_refresh_bug(palace: Palace) -> None:
    load_demo(palace)
    [hit] = palace.search("token refresh bug", limit=1)
    assert hit.room == "auth-migration" and "refresh" in hit.content


def test_loading_again_adds_nothing_and_progress_counts_conversations(palace: Palace) -> None:
    load_demo(palace)
    count, places = palace.count(), palace.places()
    calls: list[tuple[int, int]] = []
    again = load_demo(palace, progress=lambda done, total: calls.append((done, total)))
    total = len(demo_conversations())
    assert calls == [(done, total) for done in range(1, total + 1)]
    assert all(r.ok and r.added == 0 and r.already_present == r.planned > 0 for r in again)
    assert palace.count() == count and palace.places() == places


def test_conversations_are_read_once_and_immutable() -> None:
    first = demo_conversations()
    assert demo_conversations() is first
    with pytest.raises(AttributeError):
        first[0].room = "elsewhere"  # type: ignore[misc]


def run(palace_dir: Path, *args: str):
    return CliRunner().invoke(main, ["--palace", str(palace_dir), *args])


def test_cli_demo_loads_once_prints_one_line_and_json(tmp_path: Path) -> None:
    first = ok(run(tmp_path / "p", "demo"))
    total = len(demo_conversations())
    assert first.stdout.count("\n") == 1 and first.stderr == ""
    assert f"{total} conversations in wing_kai, wing_driftwood, wing_priya; added " in first.stdout
    assert ", 0 already in the palace." in first.stdout
    again = json.loads(ok(run(tmp_path / "p", "demo", "--json")).stdout)
    assert [r["source"] for r in again] == [c.filename for c in demo_conversations()]
    assert all(r["added"] == 0 and r["already_present"] == r["planned"] > 0 and not r["errors"] for r in again)
    assert "drawers" not in again[0] and again[0]["new"] == 0
    tunnels = json.loads(ok(run(tmp_path / "p", "--json", "tunnels")).stdout)
    assert {t["room"] for t in tunnels} == set(PLANNED_TUNNELS)


def test_cli_demo_reports_a_failed_conversation_and_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(palace, data, filename, **_):
        return IngestReport(source=filename, errors=(f"{filename}: the disk is full.",))

    monkeypatch.setattr(demo_module, "ingest", failing)
    result = run(tmp_path / "p", "demo")
    assert result.exit_code == 1 and "Error: priya-kai-1on1-auth-plan.txt: the disk is full." in result.stderr
    assert f", {len(demo_conversations())} failed." in result.stdout


def test_cli_demo_uses_the_palaces_embedder_not_the_configured_one(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ok(run(tmp_path / "p", "init"))
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "minilm-int8")
    ok(run(tmp_path / "p", "demo"))
    assert "embedder hash" in ok(run(tmp_path / "p", "status")).stdout


QUESTIONS = [
    ("What token lifetimes did we settle on?", "refresh tokens 14 days"),
    ("What did Priya advise about rolling out the new login?", "one client at a time"),
    ("Which client should switch to OIDC first?", "Start with the web dashboard"),
    ("How do I make the PKCE challenge from the verifier?", "base64url-encoded SHA-256"),
    ("what should we watch while the rollout ramps up", "Login success rate"),
]


@pytest.mark.model
def test_demo_on_the_real_model_fills_the_halls_and_answers_a_paraphrase(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "minilm-int8")
    with Palace.open(tmp_path / "palace", settings=load_settings(tmp_path / "home")) as palace:
        reports = load_demo(palace)
        assert all(r.ok for r in reports)
        assert {"hall_facts", "hall_events", "hall_advice"} <= set(palace.hall_counts())
        assert {t.room: t.wings for t in find_tunnels(palace)} == PLANNED_TUNNELS
        hits = palace.search("why did logins break after the switch", limit=3)
        assert any(h.room == "auth-migration" for h in hits), [(h.wing, h.room, h.content[:60]) for h in hits]
        for question, answer in QUESTIONS:  # asked the way people ask: the default search finds the answer
            hits = palace.search(question, limit=3)
            assert any(answer in h.content for h in hits), (question, [h.content[:60] for h in hits])
