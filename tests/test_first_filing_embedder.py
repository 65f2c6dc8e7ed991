"""A new palace picks its embedder by the languages of its first filing: English keeps MiniLM (the
better English room names, and the cheaper model), a filing much of which is not in English moves the
still-empty palace to the multilingual embedder, so that a question in one language finds answers in
another. A choice made in config or the environment, or a palace that holds drawers of its own, is
never changed: they are told how to move instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from mempalace.access.rules import full_grant
from mempalace.config import load_settings
from mempalace.ingest.demo import load_demo
from mempalace.ingest.pipeline import ingest
from mempalace.palace.embedder_move import move_embedder
from mempalace.palace.palace import Palace
from mempalace.scoped.palace import ScopedPalace

pytestmark = pytest.mark.model

UPGRADE = ["我们下周要做数据库升级，从 MySQL 5.7 升到 8.0。你觉得数据库升级之前要准备什么？",
           "数据库升级之前一定要先做全量备份，然后在测试环境演练一遍，确认回滚方案。",
           "业务要停机两个小时，所以我们定在周六晚上做数据库升级。"]
STANDUP = ["We moved the standup to ten, and Kai owns the release notes now.",
           "Fine by me: the release notes go out on Thursdays after the standup."]


def _chat(folder: Path, name: str, lines: list[str]) -> Path:
    path = folder / name
    path.write_text("\n\n".join(f"{'User' if n % 2 == 0 else 'Assistant'}: {line}" for n, line in enumerate(lines)),
                    encoding="utf-8")
    return path


@pytest.fixture
def unchosen(home: Path, monkeypatch: pytest.MonkeyPatch):
    """Settings as a new user has them: no embedder in config.toml or the environment."""
    monkeypatch.delenv("MEMPALACE_EMBEDDER")
    settings = load_settings(home)
    assert (settings.embedder, settings.embedder_chosen) == ("minilm-int8", False)
    return settings


def test_a_new_palace_whose_first_filing_is_chinese_moves_to_the_multilingual_embedder(
        tmp_path: Path, unchosen) -> None:
    with Palace.open(tmp_path / "p", settings=unchosen) as palace:
        report = ingest(palace, _chat(tmp_path, "upgrade.txt", UPGRADE))
        assert report.ok and report.added
        assert any("now uses the multilingual embedder (use-m3)" in note for note in report.notes), report.notes
        assert palace.settings.embedder == "use-m3" and palace.status().embedder == "use-m3"
        hit = palace.search("how do we prepare for the database upgrade", limit=1)[0]  # asked in English
        assert "数据库升级" in hit.content
    with Palace.open(tmp_path / "p", settings=unchosen) as again:
        assert again.settings.embedder == "use-m3"  # recorded: it stays
        assert again.count() == report.added


def test_an_english_first_filing_keeps_minilm_and_a_later_chinese_one_is_only_told(tmp_path: Path, unchosen) -> None:
    with Palace.open(tmp_path / "p", settings=unchosen) as palace:
        first = ingest(palace, _chat(tmp_path, "standup.txt", STANDUP))
        assert first.ok and not [n for n in first.notes if "embedder" in n]
        assert palace.settings.embedder == "minilm-int8"
        later = ingest(palace, _chat(tmp_path, "upgrade.txt", UPGRADE))  # the palace holds drawers of its own now
        assert palace.settings.embedder == "minilm-int8"
        assert any("mempalace embedder --to use-m3" in note for note in later.notes), later.notes


def test_an_embedder_chosen_in_the_environment_is_kept_and_a_dry_run_moves_nothing(
        tmp_path: Path, home: Path, unchosen, monkeypatch: pytest.MonkeyPatch) -> None:
    chat = _chat(tmp_path, "upgrade.txt", UPGRADE)
    with Palace.open(tmp_path / "p", settings=unchosen) as palace:
        preview = ingest(palace, chat, dry_run=True)
        assert preview.ok and palace.settings.embedder == "minilm-int8" and palace.count() == 0
        assert any("would now use the multilingual embedder" in note for note in preview.notes), preview.notes
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "minilm-int8")
    with Palace.open(tmp_path / "q", settings=load_settings(home)) as chosen:
        report = ingest(chosen, chat)
        assert report.ok and chosen.settings.embedder == "minilm-int8"
        assert any("mempalace embedder --to use-m3" in note for note in report.notes), report.notes


def test_a_palace_holding_only_the_demo_moves_through_a_scoped_view_and_keeps_the_demo(
        tmp_path: Path, unchosen) -> None:
    with Palace.open(tmp_path / "p", settings=unchosen) as palace:
        load_demo(palace)
        demo = {d.id: d.content for d in palace.browse(limit=1_000)[1]}
        assert demo and palace.settings.embedder == "minilm-int8"
        view = ScopedPalace(palace, full_grant("ana", "dashboard"))
        report = ingest(view, _chat(tmp_path, "upgrade.txt", UPGRADE))
        assert report.ok and palace.settings.embedder == "use-m3"
        kept = {d.id: d.content for d in palace.browse(limit=1_000)[1]}
        assert {i: kept[i] for i in demo} == demo
        audit = palace.access.entries(action="embedder")
        assert [(e.who, e.detail.get("before"), e.detail.get("after")) for e in audit] == [("ana", "minilm-int8", "use-m3")]


def test_a_palace_opened_before_another_process_moved_it_files_with_the_new_embedder(tmp_path: Path, unchosen) -> None:
    from test_first_open import _stop_host

    folder, adoption = tmp_path / "shared", ["我们想领养一只退役的灰狗，它怕冷吗？", "灰狗体脂低，冬天出门要穿衣服，晚上睡觉要有软垫。"]
    try:
        with Palace.open(folder, settings=unchosen, private=False) as late, \
                Palace.open(folder, settings=unchosen, private=False) as first:
            move_embedder(first, "use-m3")  # still empty: `mempalace embedder --to use-m3` in another terminal
            report = ingest(late, _chat(tmp_path, "greyhound.txt", adoption))  # its first filing, as it saw
            assert report.ok and report.added and late.settings.embedder == "use-m3", report.errors
            hit = late.search("is a greyhound afraid of the cold", limit=1)[0]
            assert "灰狗" in hit.content
    finally:
        _stop_host(folder)
