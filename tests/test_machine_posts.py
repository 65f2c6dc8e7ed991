"""Posts by bots and integrations (commit notices, CI messages) are kept verbatim in drawers but never
name a room, in ingest and in a rebuild alike."""

from __future__ import annotations

import json
from pathlib import Path

from _shared import sample
from mempalace import Palace
from mempalace.formats import slack
from mempalace.formats.base import Source
from mempalace.ingest import ingest
from mempalace.ingest.reroom import reroom
from mempalace.ingest.room_alternatives import name_alternatives
from mempalace.text.drawer_chunks import chunk_conversation, prose
from mempalace.rooms.words import people_words

USERS = [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}, {"id": "U2", "name": "alan", "real_name": "Alan Turing"}]


def _notice(n: int) -> dict:
    return {"type": "message", "subtype": "bot_message", "bot_id": "B1", "username": "github", "text": "",
            "ts": f"{n}.0", "attachments": [{"pretext": f"[annealer:master] {n} new commits by Ada Lovelace",
                                             "text": f"Merge pull request #{n} from ada/pipeline-webhook\n"
                                                     "Merge pull request: webhook pipeline notices"}]}


def _export(root: Path) -> Path:
    days = {}
    for day in range(1, 10):  # people on odd days, only the integration's notices on even days
        said = [{"type": "message", "user": "U1", "ts": f"{day}00.0",
                 "text": f"Day {day}: the cooling schedule of the simulated annealing keeps the tour too long."},
                {"type": "message", "user": "U2", "ts": f"{day}01.0",
                 "text": "Try a slower cooling schedule for the annealing, then compare the tour lengths."}]
        days[f"annealer/2016-03-0{day}.json"] = said if day % 2 else [_notice(day * 10 + k) for k in range(4)]
    files = {"users.json": USERS, "channels.json": [{"id": "C1", "name": "annealer"}], **days}
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content), encoding="utf-8")
    return root


def test_bot_posts_are_machine_posts_and_their_speakers_machines(tmp_path):
    conversations = slack.parse(Source.from_path(_export(tmp_path / "export")))
    first = conversations[0]
    notices = conversations[1]
    assert [m.machine for m in first.messages] == [False, False] and first.machines == ()
    assert [m.machine for m in notices.messages] == [True] * 4
    assert notices.machines == ("github",) and notices.speakers == ("github",)


def _same(text: str) -> str:
    return " ".join(text.split())


def test_a_rebuild_reads_each_stored_drawer_as_ingest_read_it(tmp_path):
    """Ingest drops a machine's posts by each message's own flag; a rebuild reads the stored drawer by
    its speakers' labels. Both must give the same words, for the shared Slack export (bots' long posts
    cut into pieces, code blocks) and for this one."""
    for source in (sample("slack_export/hfaran_testarchive"), _export(tmp_path / "export")):
        for conversation in slack.parse(Source.from_path(source)):
            for chunk in chunk_conversation(conversation):
                stored = people_words(chunk.content, conversation.speakers, conversation.machines)
                assert _same(stored) == _same(prose(chunk, conversation, machines=False)), chunk.content[:200]


def test_a_machines_messages_are_not_read_for_room_names():
    content = ("Ada: The cooling schedule is too fast.\n\ngithub: [annealer] Merge pull request #3\n"
               "Merge pull request from ada/webhook\n\nAlan: Slow the cooling down.")
    assert people_words(content, ["Ada", "Alan", "github"], ["github"]) == (
        "The cooling schedule is too fast.\n\nSlow the cooling down.")
    assert "pull request" in people_words(content, ["Ada", "Alan", "github"])


def test_commit_notices_name_no_room_in_ingest_or_a_rebuild(palace: Palace, tmp_path):
    report = ingest(palace, _export(tmp_path / "export"))
    assert report.ok and report.added
    rooms = set(palace.list_rooms())
    assert rooms and not any(word in room for room in rooms for word in ("pull", "request", "merge", "commit", "webhook"))
    drawers = [palace.get_drawer(i) for i in report.drawer_ids]
    assert any("Merge pull request #" in d.content for d in drawers)  # kept verbatim
    assert {d.extra.get("machines") for d in drawers} == {"github", None}
    offered = {name for room in rooms for name in name_alternatives(palace, room, count=20)}
    assert offered and not any(word in name for name in offered for word in ("pull", "request", "merge", "webhook"))
    moves = reroom(palace, dry_run=True).moves
    assert not any(word in m.new_room for m in moves for word in ("pull", "request", "merge", "commit", "webhook"))
