"""Slack exports: real names, skipped system lines, bot attachments, verbatim text, zips, strict errors."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from mempalace.errors import MalformedSourceError
from mempalace.formats import slack
from mempalace.formats.base import Source

from _shared import SHARED
REAL_EXPORT = SHARED / "data/transcripts/slack_export/hfaran_testarchive"
CLAUDE_CODE_SAMPLE = SHARED / "data/transcripts/claude_code/spotter_short.jsonl"

VERBATIM = (
    "  two leading spaces, then blank lines\n\n\n"
    "naïve café — 日本語 🎉 <@U1> &lt;kept&gt;\r\n"
    "```python\ndef f():\n    return \"<@U2>\"\n```\n"
    "trailing tab and spaces \t  "
)

USERS = [
    {"id": "U1", "name": "ada", "real_name": "Ada Lovelace", "profile": {"real_name": "Ada L.", "display_name": "ada"}},
    {"id": "U2", "name": "grace", "real_name": "", "profile": {"real_name": "Grace Hopper", "display_name": "gh"}},
    {"id": "U3", "name": "linus", "profile": {"real_name": "", "display_name": "Linus T"}},
    {"id": "U4", "name": "ken"},
]
CHANNELS = [{"id": "C1", "name": "general"}, {"id": "C2", "name": "random"}]


def msg(user: str, text: str, ts: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": user, "text": text, "ts": ts, **extra}


def export_files(**day_files: Any) -> dict[str, Any]:
    """A minimal export: users.json, channels.json and the given `<channel>/<day>.json` files."""
    return {"users.json": USERS, "channels.json": CHANNELS, **day_files}


def encode(content: Any) -> bytes:
    text = content if isinstance(content, str) else json.dumps(content, indent=4, ensure_ascii=False)
    return text.encode("utf-8")


def write_folder(root: Path, files: dict[str, Any]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(encode(content))
    return root


def write_zip(path: Path, files: dict[str, Any], prefix: str = "") -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in files.items():
            archive.writestr(prefix + name, encode(content))
    return path


@pytest.fixture(params=["folder", "zip"])
def make_source(request: pytest.FixtureRequest, tmp_path: Path):
    """Builds the same files as an unzipped folder or as a downloaded zip."""

    def make(files: dict[str, Any]) -> Source:
        if request.param == "folder":
            return Source.from_path(write_folder(tmp_path / "export", files))
        return Source.from_path(write_zip(tmp_path / "export.zip", files))

    return make


def by_id(conversations: list) -> dict[str, Any]:
    return {conversation.id: conversation for conversation in conversations}


def test_real_names_are_resolved_through_users_json(make_source):
    day = [
        msg("U1", "from ada", "1452845865.000008"),
        msg("U2", "from grace", "1452845866"),
        msg("U3", "from linus", "1452845867"),
        msg("U4", "from ken", "1452845868"),
        msg("U9", "from a guest", "1452845869", user_profile={"real_name": "Guest Person"}),
        msg("U8", "from nobody known", "1452845870"),
    ]
    [conversation] = slack.parse(make_source(export_files(**{"general/2016-01-15.json": day})))
    assert [m.speaker for m in conversation.messages] == [
        "Ada Lovelace", "Grace Hopper", "Linus T", "ken", "Guest Person", "U8"]
    assert {m.role for m in conversation.messages} == {"other"}
    assert conversation.messages[0].timestamp == "2016-01-15T08:17:45Z"
    assert (conversation.id, conversation.title, conversation.place) == (
        "general/2016-01-15", "#general 2016-01-15", None)  # "export" names no workspace


@pytest.mark.parametrize("name, workspace", [
    ("Acme Corp Slack export Jan 1 2024 - Feb 2 2024.zip", "Acme Corp"), ("hfaran_testarchive", "hfaran_testarchive"),
    ("slack_export.zip", None), ("slack-export-2024-05.zip", None),
])
def test_the_workspace_is_named_by_the_export(tmp_path: Path, name: str, workspace: str | None) -> None:
    files = export_files(**{"general/2016-01-15.json": [msg("U1", "hello", "1452845865")]})
    writer = write_zip if name.endswith(".zip") else write_folder
    [conversation] = slack.parse(Source.from_path(writer(tmp_path / name, files)))
    assert conversation.place == workspace


def test_join_leave_and_other_system_lines_are_skipped(make_source):
    day = [
        msg("U1", "<@U1> has joined the channel", "1", subtype="channel_join"),
        msg("U1", "set the channel topic: x", "2", subtype="channel_topic"),
        msg("U2", "real words", "3"),
        msg("U2", "pinned a message", "4", subtype="pinned_item"),
        msg("U2", "", "5"),
        msg("U2", "<@U2> has left the channel", "6", subtype="channel_leave"),
    ]
    only_system = [msg("U1", "<@U1> has joined the channel", "7", subtype="channel_join")]
    files = export_files(**{"general/2016-01-14.json": day, "random/2016-01-14.json": only_system})
    [conversation] = slack.parse(make_source(files))
    assert [m.text for m in conversation.messages] == ["real words"]


def test_attachment_only_bot_post_is_kept_piece_by_piece(make_source):
    bot_post = {
        "type": "message", "subtype": "bot_message", "bot_id": "B1", "username": "deploybot", "text": "",
        "ts": "10", "attachments": [
            {"pretext": "Deploy finished:", "title": "v1.2 ", "text": "  all *green*", "fallback": "unused"},
            {"fallback": "only a fallback here", "text": ""},
        ],
    }
    profiled_bot = {"type": "message", "subtype": "bot_message", "bot_id": "B2", "text": "CI says:",
                    "bot_profile": {"name": "Travis CI"}, "ts": "11", "attachments": [{"text": "build passed"}]}
    [conversation] = slack.parse(make_source(export_files(**{"general/2016-01-14.json": [bot_post, profiled_bot]})))
    first, second = conversation.messages
    assert first.speaker == "deploybot"
    assert first.text == "Deploy finished:\n\nv1.2 \n\n  all *green*\n\nonly a fallback here"
    assert (second.speaker, second.text) == ("Travis CI", "CI says:\n\nbuild passed")


def test_a_nameless_bot_is_named_by_the_line_that_added_it(make_source):
    added = {"type": "message", "subtype": "bot_add", "bot_id": "B7", "user": "U1", "ts": "1",
             "text": "added an integration to this channel: <https://team.slack.com/services/B7|github>"}
    post = {"type": "message", "subtype": "bot_message", "bot_id": "B7", "text": "", "ts": "2",
            "attachments": [{"pretext": "[repo:main] 1 new commit", "text": "abc123: fix"}]}
    files = export_files(**{"general/2016-01-14.json": [added], "random/2016-02-01.json": [post]})
    [conversation] = slack.parse(make_source(files))
    assert [m.speaker for m in conversation.messages] == ["github"]


def test_a_persons_message_keeps_only_its_own_text_not_link_previews(make_source):
    shared_link = msg("U1", "look <https://example.com>", "1",
                      attachments=[{"title": "Example", "text": "preview blurb", "fallback": "Example"}])
    bare_share = msg("U2", "", "2", attachments=[{"title": "Shared post", "text": "its words"}])
    [conversation] = slack.parse(make_source(export_files(**{"general/2016-01-14.json": [shared_link, bare_share]})))
    assert [m.text for m in conversation.messages] == ["look <https://example.com>", "Shared post\n\nits words"]


def test_text_survives_verbatim(make_source):
    files = export_files(**{"general/2016-01-14.json": [msg("U1", VERBATIM, "1"), msg("U2", "<@U1> ok", "2")]})
    [conversation] = slack.parse(make_source(files))
    assert conversation.messages[0].text == VERBATIM
    assert conversation.messages[1].text == "<@U1> ok"
    assert all(m.verbatim for m in conversation.messages)


def test_conversations_in_channel_then_date_order_and_messages_in_file_order(make_source):
    files = export_files(**{
        "zeta/2016-01-02.json": [msg("U1", "z", "5")],
        "general/2016-01-03.json": [msg("U1", "later in file, earlier ts", "9"), msg("U2", "second", "3")],
        "general/2016-01-01.json": [msg("U1", "first day", "1")],
    })
    conversations = slack.parse(make_source(files))
    assert [c.id for c in conversations] == ["general/2016-01-01", "general/2016-01-03", "zeta/2016-01-02"]
    assert [m.text for m in conversations[1].messages] == ["later in file, earlier ts", "second"]
    assert conversations[2].title == "#zeta 2016-01-02"  # not in channels.json, still read under its folder name


def test_files_that_are_not_channel_day_files_are_ignored(make_source):
    files = export_files(**{
        "integration_logs.json": "this is not JSON and is never read",
        "general/canvas.json": "{broken",
        "general/2016-01-01.json": [msg("U1", "kept", "1")],
        "notes.txt": "hello",
    })
    assert [c.id for c in slack.parse(make_source(files))] == ["general/2016-01-01"]


def test_an_export_without_messages_parses_to_nothing(make_source):
    only_joins = [msg("U1", "<@U1> has joined the channel", "1", subtype="channel_join")]
    assert slack.parse(make_source(export_files())) == []
    assert slack.parse(make_source(export_files(**{"general/2016-01-01.json": only_joins}))) == []


def test_zip_with_a_wrapping_top_folder(tmp_path):
    files = export_files(**{"general/2016-01-14.json": [msg("U1", VERBATIM, "1")]})
    path = write_zip(tmp_path / "Team Slack export.zip", files, prefix="Team Slack export Jan 1 2016/")
    with zipfile.ZipFile(path, "a") as archive:  # what macOS adds when it re-zips a folder
        archive.writestr("__MACOSX/Team Slack export Jan 1 2016/._users.json", b"\x00\x05junk")
    source = Source.from_path(path)
    assert slack.accept(source)
    [conversation] = slack.parse(source)
    assert (conversation.id, conversation.messages[0].speaker) == ("general/2016-01-14", "Ada Lovelace")
    assert conversation.messages[0].text == VERBATIM


def test_an_uploaded_zip_is_accepted_and_parsed(tmp_path):
    path = write_zip(tmp_path / "x.zip", export_files(**{"general/2016-01-14.json": [msg("U4", "hi", "1")]}))
    source = Source.from_bytes(path.read_bytes(), "slack.zip")
    assert slack.accept(source)
    assert slack.parse(source)[0].messages[0].speaker == "ken"


def test_malformed_day_file_names_the_member_and_line(tmp_path):
    broken = '[\n    {\n        "type": "message",\n        "text": oops\n    }\n]'
    path = write_zip(tmp_path / "export.zip", export_files(**{"general/2016-01-14.json": broken}))
    with pytest.raises(MalformedSourceError) as caught:
        slack.parse(Source.from_path(path))
    assert str(caught.value).startswith("export.zip: general/2016-01-14.json, line 4, column ")


def test_malformed_day_file_in_a_wrapped_folder_names_the_full_member(tmp_path):
    broken = '[\n  {"type": "message", "text": "a", "ts": "1"},\n  {"type": "message" "text": "b"}\n]'
    files = export_files(**{"general/2016-01-14.json": broken})
    write_folder(tmp_path / "unzipped" / "my export", files)
    source = Source.from_path(tmp_path / "unzipped")
    assert slack.accept(source)
    with pytest.raises(MalformedSourceError, match=r"^unzipped: my export/general/2016-01-14\.json, line 3, "):
        slack.parse(source)


@pytest.mark.parametrize("day, expected", [
    ({"messages": []}, r"general/2016-01-14\.json: expected a JSON list of messages, found dict"),
    ([msg("U1", "ok", "1"), "not an object"], r"general/2016-01-14\.json: message 2 is not an object"),
    ([msg("U1", 42, "1")], r"general/2016-01-14\.json: message 1 has a text that is not a string"),
    ([msg("U1", "", "1", attachments={"text": "x"})], r"message 1 has attachments that are not a list"),
])
def test_wrong_structure_is_malformed(make_source, day, expected):
    with pytest.raises(MalformedSourceError, match=expected):
        slack.parse(make_source(export_files(**{"general/2016-01-14.json": day})))


def test_bad_users_json_is_malformed(make_source):
    files = {"users.json": [{"name": "no id"}], "channels.json": CHANNELS}
    with pytest.raises(MalformedSourceError, match=r"users\.json: user 1 has no id"):
        slack.parse(make_source(files))


def test_accept_looks_at_names_only_and_parse_is_strict(tmp_path):
    files = {"users.json": "garbage {", "channels.json": CHANNELS}
    source = Source.from_path(write_zip(tmp_path / "export.zip", files))
    assert slack.accept(source)
    with pytest.raises(MalformedSourceError, match=r"^export\.zip: users\.json, line 1, column 1"):
        slack.parse(source)


def test_a_zip_holding_two_exports_is_refused_clearly(tmp_path):
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for prefix in ("one/", "two/"):
            for name, content in export_files().items():
                archive.writestr(prefix + name, encode(content))
    with pytest.raises(MalformedSourceError, match=r"several Slack exports \(one, two\)"):
        slack.parse(Source.from_path(path))


def test_accept_is_true_for_an_export_folder_and_zip(make_source):
    assert slack.accept(make_source(export_files()))


def test_accept_is_false_for_other_things(tmp_path):
    text_file = tmp_path / "notes.txt"
    text_file.write_text("users.json channels.json\nhello\n")
    chatgpt = tmp_path / "conversations.json"
    chatgpt.write_text('[{"title":"x","mapping":{},"current_node":null}]')
    no_users = write_folder(tmp_path / "no_users", {"channels.json": CHANNELS, "general/2016-01-01.json": []})
    chatgpt_zip = write_zip(tmp_path / "chatgpt.zip", {"conversations.json": [], "user.json": {}})
    for path in (text_file, chatgpt, no_users, chatgpt_zip, tmp_path / "no_users" / "channels.json"):
        assert not slack.accept(Source.from_path(path)), path
    assert not slack.accept(Source.from_bytes(b'[{"title":"x","mapping":{},"current_node":null}]', "c.json"))


def test_accept_is_false_for_a_claude_code_session():
    if not CLAUDE_CODE_SAMPLE.exists():
        pytest.skip(f"shared sample not found at {CLAUDE_CODE_SAMPLE} (../shared is absent)")
    assert not slack.accept(Source.from_path(CLAUDE_CODE_SAMPLE))


def test_the_real_shared_export():
    if not REAL_EXPORT.is_dir():
        pytest.skip(f"shared Slack sample not found at {REAL_EXPORT} (../shared is absent)")
    source = Source.from_path(REAL_EXPORT)
    assert slack.accept(source)
    conversations = by_id(slack.parse(source))
    # 17 day files hold 158 lines; 8 channel_join and 3 bot_add lines are skipped, and the one
    # day file of nothing but those (traveling-sailor/2016-01-16) makes no conversation.
    assert len(conversations) == 16
    assert sum(len(c.messages) for c in conversations.values()) == 147
    assert "traveling-sailor/2016-01-16" not in conversations
    assert conversations["enrique/2016-01-15"].speakers == ("Harry Potter", "Hamza Faran")
    assert conversations["enrique/2016-01-15"].started == "2016-01-15T08:17:45Z"
    commented = conversations["traveling-sailor/2016-03-27"].messages[1]  # file_comment: user only inside "comment"
    assert commented.speaker == "Hermione Granger"
    assert commented.text.startswith("<@U0BMS113R> commented on <@U0BMS113R>\u2019s file <https://")
    speakers = {m.speaker for c in conversations.values() for m in c.messages}
    assert speakers == {"Hamza Faran", "Hermione Granger", "Harry Potter", "heroeshannibal", "github"}


def test_the_real_shared_export_keeps_every_persons_text_exactly():
    if not REAL_EXPORT.is_dir():
        pytest.skip(f"shared Slack sample not found at {REAL_EXPORT} (../shared is absent)")
    conversations = by_id(slack.parse(Source.from_path(REAL_EXPORT)))
    for day_file in sorted(REAL_EXPORT.glob("*/*.json")):
        raw = json.loads(day_file.read_text(encoding="utf-8"))
        people = [item for item in raw if item.get("subtype") in (None, "file_share", "file_comment")]
        expected = [item["text"] for item in people]
        conversation = conversations.get(f"{day_file.parent.name}/{day_file.stem}")
        kept = [m.text for m in conversation.messages if m.speaker != "github"] if conversation else []
        assert kept == expected, day_file


def test_mentioned_users_are_named_per_drawer_and_the_text_is_kept(make_source):
    day = [msg("U1", "ask <@U2> and <@U9>, not U3", "1"), msg("U2", "ok <@U1|ada>", "2")]
    [conversation] = slack.parse(make_source(export_files(**{"general/2016-01-14.json": day})))
    assert conversation.names == {"U1": "Ada Lovelace", "U2": "Grace Hopper", "U3": "Linus T", "U4": "ken"}
    assert json.loads(conversation.mentions(day[0]["text"])) == {"U2": "Grace Hopper"}  # U9 unknown, U3 not a mention
    assert conversation.mentions("nobody here") is None
    assert [m.text for m in conversation.messages] == ["ask <@U2> and <@U9>, not U3", "ok <@U1|ada>"]


def test_ingested_drawers_keep_the_names_they_mention_and_their_text(palace, tmp_path):
    from dashboard.text import display_text, mentions_of
    from mempalace.ingest import ingest

    day = [msg("U1", "ask <@U2> about &lt;b&gt;", "1"), msg("U3", "ok", "2")]
    root = write_folder(tmp_path / "export", export_files(**{"general/2016-01-14.json": day}))
    [drawer] = [palace.get_drawer(i) for i in ingest(palace, root).drawer_ids]
    assert drawer.content == "Ada Lovelace: ask <@U2> about &lt;b&gt;\n\nLinus T: ok"  # stored as exported
    assert json.loads(drawer.extra["mentions"]) == {"U2": "Grace Hopper"}
    shown = display_text(drawer.content, mentions_of(drawer.extra))
    assert shown == "Ada Lovelace: ask @Grace Hopper about <b>\n\nLinus T: ok"


def test_the_real_exports_users_name_its_mentions():
    if not REAL_EXPORT.is_dir():
        pytest.skip(f"shared Slack sample not found at {REAL_EXPORT} (../shared is absent)")
    conversations = by_id(slack.parse(Source.from_path(REAL_EXPORT)))
    first = conversations["enrique/2016-01-14"]
    assert json.loads(first.mentions(" ".join(m.text for m in first.messages))) == {"U0BMYT2FL": "Harry Potter"}


def test_a_day_files_conversation_is_dated_the_day_its_title_names(palace, tmp_path):
    """Day files are the workspace's local days: a message at 23:30 in California is 07:30 the next
    day in UTC, yet it belongs to (and is shown on) the day its file and title name."""
    from mempalace.ingest import ingest

    late_evening = msg("U1", "shipping the release tonight", "1452843000")  # 2016-01-15T07:30:00Z
    root = write_folder(tmp_path / "export", export_files(**{"general/2016-01-14.json": [late_evening]}))
    [conversation] = slack.parse(Source.from_path(root))
    assert conversation.title == "#general 2016-01-14"
    assert conversation.messages[0].timestamp == "2016-01-15T07:30:00Z"  # the moment itself stays exact
    [drawer] = [palace.get_drawer(i) for i in ingest(palace, root).drawer_ids]
    assert drawer.conversation_date == "2016-01-14"
    assert [d.conversation_date for d in palace.browse(drawer.wing)[1]] == ["2016-01-14"]
