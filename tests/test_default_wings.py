"""The wing a conversation files into when none is given, and the reason the preview shows: a
service's export files into the service's wing, a Slack export into its workspace's, a coding
tool's session into its project (a worktree or sub-agent of it included); a file's name only last."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mempalace.formats.registry import parse
from mempalace.formats.base import Source
from mempalace.ingest import ingest
from mempalace.ingest.wings import CHOSEN, EARLIER, default_wing

from _shared import sample


def _wings(source: Source) -> set[tuple[str, str]]:
    fmt, conversations = parse(source)
    return {(choice.wing, choice.reason) for choice in (default_wing(c, source, fmt) for c in conversations)}


def _chatgpt_export() -> list[dict]:
    mapping = {"root": {"id": "root", "parent": None, "children": ["u"], "message": None},
               "u": {"id": "u", "parent": "root", "children": ["a"], "message": {
                   "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["How do I read Gmail?"]}}},
               "a": {"id": "a", "parent": "u", "children": [], "message": {
                   "author": {"role": "assistant"}, "content": {"content_type": "text", "parts": ["Use the API."]}}}}
    return [{"id": "c1", "title": "Gmail", "mapping": mapping, "current_node": "a"}]


@pytest.mark.parametrize("name", ["conversations_wrapped_list.json", "my-export (3).json"])
def test_a_chatgpt_export_files_into_chatgpt_whatever_its_file_is_called(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(json.dumps(_chatgpt_export()), encoding="utf-8")
    assert _wings(Source.from_path(path)) == {("chatgpt", "ChatGPT export")}


@pytest.mark.parametrize("relative, wing, reason", [
    ("claude_code/spotter_short.jsonl", "spotter", "project folder spotter"),
    ("claude_code/spotter_subagent_agent-a881341.jsonl", "spotter", "project folder spotter"),  # a worktree's sub-agent
    ("codex_cli/daaain_rollout_synthetic.jsonl", "synthetic_project", "project folder synthetic-project"),
    ("codex_cli/polylogue_codex-session_minimal.jsonl", "codex_cli", "Codex CLI session, no project folder recorded"),
    ("gemini_cli/polylogue_gemini-cli-session.json", "gemini_cli", "Gemini CLI session, no project folder recorded"),
    ("plain_text/spotter_short.terminal.stripped.txt", "spotter", "project folder spotter"),  # from the banner
    ("slack_export/hfaran_testarchive", "slack_hfaran_testarchive", "workspace hfaran_testarchive"),
])
def test_the_shared_samples_file_into_their_project_or_workspace(relative: str, wing: str, reason: str) -> None:
    assert _wings(Source.from_path(sample(relative))) == {(wing, reason)}


def test_plain_text_is_named_after_its_file_only_as_the_last_resort(tmp_path: Path) -> None:
    named, generic = tmp_path / "kitchen-remodel.md", tmp_path / "transcript.txt"
    for path in (named, generic):
        path.write_text("User: what tiles?\nAssistant: Porcelain.\n", encoding="utf-8")
    assert _wings(Source.from_path(named)) == {("kitchen_remodel", "file name")}
    assert _wings(Source.from_path(generic)) == {("plain_text", "Plain text or Markdown")}


def test_the_preview_says_where_each_wing_came_from(palace, tmp_path: Path) -> None:
    path = tmp_path / "conversations_wrapped_list.json"
    path.write_text(json.dumps(_chatgpt_export()), encoding="utf-8")
    preview = ingest(palace, path, dry_run=True)
    assert {(d.wing, d.wing_from) for d in preview.drawers} == {("chatgpt", "ChatGPT export")}
    chosen = ingest(palace, path, dry_run=True, wing="inbox")
    assert {(d.wing, d.wing_from) for d in chosen.drawers} == {("inbox", CHOSEN)}


def test_a_grown_conversation_stays_where_its_earlier_drawers_were_moved(palace, tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    export = _chatgpt_export()
    path.write_text(json.dumps(export), encoding="utf-8")
    first = ingest(palace, path)
    palace.move_drawers(list(first.drawer_ids), wing="mail")
    export[0]["mapping"]["a"]["children"] = ["u2"]
    export[0]["mapping"]["u2"] = {"id": "u2", "parent": "a", "children": [], "message": {
        "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["And labels? " * 80]}}}
    export[0]["current_node"] = "u2"
    path.write_text(json.dumps(export), encoding="utf-8")
    grown = ingest(palace, path, dry_run=True)
    assert {(d.wing, d.wing_from) for d in grown.drawers if d.status == "new"} == {("mail", EARLIER)}
