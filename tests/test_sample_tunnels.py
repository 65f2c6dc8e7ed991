"""The shared real samples in one palace with the real model: tunnels only where two wings share the
concept (the same parser claim told to Codex and to Gemini), none from a part without topic words
(a one-drawer synthetic session once joined a Phoenix server chat by meaning alone), no room
named by GitHub's commit notices, and no room named by a word of another room's name in its wing
(`sailor` beside `traveling-sailor`: one project in two rooms)."""

from __future__ import annotations

import pytest

from _shared import sample
from mempalace import Palace
from mempalace.config import load_settings
from mempalace.graph import find_tunnels
from mempalace.ingest import ingest_paths

SAMPLES = ("claude_code", "slack_export/hfaran_testarchive", "codex_cli", "gemini_cli", "plain_text")


@pytest.mark.model
def test_the_samples_tunnel_only_where_wings_share_a_concept(tmp_path, home, monkeypatch):
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "minilm-int8")
    paths = [sample(name) for name in SAMPLES]
    with Palace.open(tmp_path / "palace", settings=load_settings(home)) as palace:
        reports = ingest_paths(palace, paths)
        assert all(r.ok for r in reports)
        places = palace.places()
        rooms = {room for _, room, _, _ in places}
        tunnels = {t.room: set(t.wings) for t in find_tunnels(palace)}  # as the graph shows them: no `general`
    assert tunnels == {"parser-claim": {"codex_cli", "gemini_cli"}}
    assert not any(word in room for room in rooms for word in ("pull", "request", "merge", "commit"))
    by_wing: dict[str, set[str]] = {}
    for wing, room, _, _ in places:
        by_wing.setdefault(wing, set()).add(room)
    assert not [(wing, a, b) for wing, held in by_wing.items() for a in held for b in held
                if a != b and a in b.split("-")]
