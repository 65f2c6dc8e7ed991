"""ChatGPT export format: branch following, skipped turns, verbatim text, strict errors, cheap detection.
Fixtures are synthetic, built from the export's documented shape."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from mempalace.errors import MalformedSourceError
from mempalace.formats import chatgpt
from mempalace.formats.base import Source

from _shared import sample as shared
VERBATIM = "Ünïcödé ✓ — 日本語 🐍\n\n    indented line\n\n\n```python\ndef f():\n    return 1\n```\n  trailing  \n"
T0 = 1_700_000_000.5


def msg(role: str, parts: Any, at: float | None = None, hidden: bool = False, name: str | None = None,
        content: dict[str, Any] | None = None) -> dict[str, Any]:
    """A message node's `message`: text parts, or an explicit `content` object (code, tool output)."""
    body = content or {"content_type": "text", "parts": parts if isinstance(parts, list) else [parts]}
    meta = {"is_visually_hidden_from_conversation": True} if hidden else {}
    return {"id": "m", "author": {"role": role, "name": name}, "create_time": at, "content": body, "metadata": meta}


def tree(*nodes: tuple[str, str | None, dict[str, Any] | None]) -> dict[str, Any]:
    """A mapping from (id, parent, message) triples; children are derived in the given order."""
    mapping = {nid: {"id": nid, "parent": parent, "children": [], "message": m} for nid, parent, m in nodes}
    for nid, parent, _ in nodes:
        if parent:
            mapping[parent]["children"].append(nid)
    return mapping


def convo(cid: str = "c1", title: str = "Edited chat", current: str | None = "a2_new", **extra: Any) -> dict[str, Any]:
    mapping = tree(
        ("root", None, None),
        ("sys", "root", msg("system", "You are ChatGPT.")),
        ("ctx", "sys", msg("user", "custom instructions", hidden=True)),
        ("u1", "ctx", msg("user", "First question", T0)),
        ("a1", "u1", msg("assistant", "First answer", T0 + 5)),
        ("blank", "a1", msg("assistant", "", T0 + 6)),
        ("u2_new", "blank", msg("user", "Edited question", T0 + 10)),
        ("a2_new", "u2_new", msg("assistant", "Answer to the edit", T0 + 12)),
        ("u2_old", "blank", msg("user", "Original question", T0 + 8)),
        ("a2_old", "u2_old", msg("assistant", "Answer to the original", T0 + 9)),
    )
    return {"id": cid, "title": title, "create_time": T0, "mapping": mapping, "current_node": current, **extra}


def write(tmp_path: Path, data: Any, name: str = "conversations.json") -> Source:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return Source.from_path(path)


def texts(conversation: Any) -> list[str]:
    return [m.text for m in conversation.messages]



def test_follows_the_branch_ending_at_current_node_skipping_hidden_system_and_empty(tmp_path: Path) -> None:
    (only,) = chatgpt.parse(write(tmp_path, [convo()]))  # the system, hidden and blank nodes are on the branch
    assert texts(only) == ["First question", "First answer", "Edited question", "Answer to the edit"]
    assert [(m.speaker, m.role) for m in only.messages] == [("User", "user"), ("ChatGPT", "assistant")] * 2


def test_current_node_can_select_the_older_branch(tmp_path: Path) -> None:
    (only,) = chatgpt.parse(write(tmp_path, [convo(current="a2_old")]))
    assert texts(only)[2:] == ["Original question", "Answer to the original"]


def test_without_current_node_follows_last_children(tmp_path: Path) -> None:
    data = convo()
    del data["current_node"]
    (only,) = chatgpt.parse(write(tmp_path, data))
    assert texts(only)[2:] == ["Original question", "Answer to the original"]


def test_single_object_export_is_accepted(tmp_path: Path) -> None:
    source = write(tmp_path, convo())
    assert chatgpt.accept(source)
    (only,) = chatgpt.parse(source)
    assert only.id == "c1" and only.title == "Edited chat"


def test_ids_titles_and_create_times_are_kept(tmp_path: Path) -> None:
    second = convo("c2", "Second", conversation_id="ignored")
    third = convo("", "Third", conversation_id="c3")
    parsed = chatgpt.parse(write(tmp_path, [convo(), second, third]))
    assert [(c.id, c.title, c.place) for c in parsed] == [
        ("c1", "Edited chat", None), ("c2", "Second", None), ("c3", "Third", None)
    ]
    assert parsed[0].started == "2023-11-14T22:13:20Z"
    assert parsed[0].messages[1].timestamp == "2023-11-14T22:13:25Z"


def test_text_is_verbatim(tmp_path: Path) -> None:
    mapping = tree(
        ("root", None, None),
        ("u", "root", msg("user", VERBATIM, T0)),
        ("a", "u", msg("assistant", [VERBATIM, {"content_type": "image_asset_pointer"}, "  second part\n"])),
        ("c", "a", msg("assistant", None, content={"content_type": "code", "language": "python", "text": "  x = 1\n\n"})),
    )
    (only,) = chatgpt.parse(write(tmp_path, [{"id": "v", "title": "V", "mapping": mapping, "current_node": "c"}]))
    assert texts(only) == [VERBATIM, VERBATIM + "\n\n" + "  second part\n", "  x = 1\n\n"]
    assert all(m.verbatim for m in only.messages)


def test_tool_turns_become_one_line_summaries(tmp_path: Path) -> None:
    output = "line one\n" + "x" * 500
    mapping = tree(
        ("root", None, None),
        ("u", "root", msg("user", "run it")),
        ("t", "u", msg("tool", None, name="python", content={"content_type": "execution_output", "text": output})),
    )
    (only,) = chatgpt.parse(write(tmp_path, [{"id": "t", "mapping": mapping, "current_node": "t"}]))
    tool = only.messages[-1]
    assert (tool.speaker, tool.role, tool.verbatim) == ("Tool", "tool", False)
    assert tool.text.startswith("python: line one x") and len(tool.text) <= 200 and "\n" not in tool.text


def test_conversations_stay_separate_and_empty_ones_are_dropped(tmp_path: Path) -> None:
    empty = {"id": "e", "title": "Empty", "mapping": tree(("root", None, None)), "current_node": "root"}
    parsed = chatgpt.parse(write(tmp_path, [convo("a", "A"), empty, convo("b", "B")]))
    assert [c.id for c in parsed] == ["a", "b"]
    assert all(len(c.messages) == 4 for c in parsed)


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    source = write(tmp_path, '[\n  {"title": "x",\n   "mapping": {,}}\n]')
    with pytest.raises(MalformedSourceError, match=r"conversations\.json, line 3, column"):
        chatgpt.parse(source)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: c.pop("mapping"), r"conversation 2 \('Broken'\) has no mapping"),
        (lambda c: c["mapping"].update(u1="oops"), r"conversation 2 \('Broken'\): mapping node 'u1' is not an object"),
        (lambda c: c.update(current_node="nowhere"), r"current_node 'nowhere' is not in the mapping"),
        (lambda c: c["mapping"]["root"].update(parent="a1"), r"loop"),
        (lambda c: c["mapping"]["a1"].update(parent="ghost"), r"names parent 'ghost'"),
        (lambda c: c["mapping"]["a1"].update(message=["x"]), r"node 'a1': message is not an object"),
        (lambda c: c["mapping"]["a1"]["message"]["content"].update(parts="x"), r"parts is not a list"),
    ],
)
def test_wrong_structure_is_a_clear_error(tmp_path: Path, change: Any, expected: str) -> None:
    broken = convo("b", "Broken")
    change(broken)
    with pytest.raises(MalformedSourceError, match=r"conversations\.json: .*" + expected):
        chatgpt.parse(write(tmp_path, [convo(), broken]))


def test_top_level_must_be_a_list_or_a_conversation(tmp_path: Path) -> None:
    with pytest.raises(MalformedSourceError, match="expected a list"):
        chatgpt.parse(write(tmp_path, {"conversations": []}))


def test_accept_recognises_exports_by_content_not_name(tmp_path: Path) -> None:
    assert chatgpt.accept(write(tmp_path, [convo()], "export.json"))
    assert chatgpt.accept(Source.from_bytes(json.dumps([convo()]).encode(), "conversations.json"))
    claude = [{"uuid": "u", "name": "n", "chat_messages": [{"sender": "human", "text": "hi"}]}]
    assert not chatgpt.accept(write(tmp_path, claude))
    assert not chatgpt.accept(write(tmp_path, json.dumps([convo()]), "conversations.txt"))


def test_accept_sees_a_long_first_conversation(tmp_path: Path) -> None:
    """current_node follows the mapping, so a long first conversation pushes it past the 64 KB head."""
    long = convo()
    long["mapping"]["u1"]["message"]["content"]["parts"] = ["word " * 30_000]
    assert chatgpt.accept(write(tmp_path, [long]))


def test_accept_refuses_zips_and_folders(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "export.json", "w") as archive:
        archive.writestr("conversations.json", json.dumps([convo()]))
    assert not chatgpt.accept(Source.from_path(tmp_path / "export.json"))
    (tmp_path / "folder.json").mkdir()
    assert not chatgpt.accept(Source.from_path(tmp_path / "folder.json"))


@pytest.mark.parametrize("relative", ["claude_code/spotter_short.jsonl", "gemini_cli/polylogue_gemini-cli-session.json"])
def test_accept_refuses_other_tools_transcripts(relative: str) -> None:
    assert not chatgpt.accept(Source.from_path(shared(relative)))
