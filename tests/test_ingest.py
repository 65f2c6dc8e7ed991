"""The ingest pipeline: idempotent, previewable, all-or-nothing per file, and clear about bad input."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from mempalace import Palace
from mempalace.config import load_settings
from mempalace.ingest import ingest, ingest_paths
from mempalace.ingest import pipeline

TOPIC = [
    ("How do we migrate the auth service to OAuth without logging everyone out?",
     "Run both token validators side by side during the auth migration, then flip the default.\n\n"
     "```python\nif legacy_token(request):\n    return validate_legacy(request)\n```"),
    ("What about the refresh tokens in the auth migration?",
     "Keep the refresh tokens valid for one rotation cycle; the auth migration then retires them."),
]


def _session(path: Path, exchanges: list[tuple[str, str]], session: str = "s-1") -> Path:
    """A Claude Code session file with one record per turn."""
    lines = []
    for n, (question, answer) in enumerate(exchanges):
        stamp = f"2026-01-0{1 + n % 9}T10:00:00Z"
        lines.append({"type": "user", "sessionId": session, "cwd": "/home/kai/driftwood", "timestamp": stamp,
                      "message": {"role": "user", "content": question}})
        lines.append({"type": "assistant", "sessionId": session, "cwd": "/home/kai/driftwood", "timestamp": stamp,
                      "message": {"role": "assistant", "content": [{"type": "text", "text": answer}]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _long_exchanges(n: int, steps: int = 25) -> list[tuple[str, str]]:
    return [(f"Question {i}: how should the ledger service handle case {i}?",
             f"Answer {i}: " + " ".join(f"step{i}-{j} keeps the ledger balanced." for j in range(steps)))
            for i in range(n)]


def test_ingest_files_every_drawer_with_its_place_and_provenance(palace: Palace, tmp_path: Path) -> None:
    report = ingest(palace, _session(tmp_path / "abc.jsonl", TOPIC))
    assert report.ok and report.format == "claude_code" and report.conversations == 1
    assert report.rooms[0] in {"auth-migration", "auth-service"}
    assert report.added == report.planned > 0 and report.wings == ("driftwood",)
    drawer = palace.get_drawer(report.drawer_ids[0])
    assert drawer.wing == "driftwood" and drawer.room == report.rooms[0] and drawer.hall in {
        "hall_facts", "hall_events", "hall_discoveries", "hall_preferences", "hall_advice"}
    assert drawer.source_file == "abc.jsonl" and drawer.filed_at
    assert drawer.extra["format"] == "claude_code" and drawer.extra["conversation_id"] == "s-1"
    assert drawer.extra["speakers"] == "User, Claude" and drawer.extra["conversation_date"] == "2026-01-01T10:00:00Z"
    assert len(drawer.extra["content_hash"]) == 64
    assert "User: How do we migrate the auth service" in drawer.content


def test_reingesting_the_same_or_a_renamed_file_adds_nothing(palace: Palace, tmp_path: Path) -> None:
    path = _session(tmp_path / "a.jsonl", TOPIC)
    first = ingest(palace, path)
    count = palace.count()
    again = ingest(palace, path)
    renamed = ingest(palace, path.read_bytes(), filename="renamed.jsonl")
    assert again.added == renamed.added == 0
    assert again.already_present == renamed.already_present == first.planned
    assert palace.count() == count


def test_a_chat_that_repeats_itself_files_the_repeated_drawer_once(palace: Palace, tmp_path: Path) -> None:
    pair = ("User: Quiero hablar de la migración de la base de datos con José y María.\n"
            "Assistant: Claro, la migración de la base de datos es importante.\n")
    path = tmp_path / "repite.txt"
    path.write_text(pair * 24, encoding="utf-8")  # Chroma refused the whole file: the same drawer id twice
    report = ingest(palace, path)
    assert report.ok and report.added == palace.count() >= 1
    assert report.added + report.already_present == report.planned
    assert ingest(palace, path).added == 0


def test_a_grown_session_adds_only_its_new_part(palace: Palace, tmp_path: Path, settings) -> None:
    exchanges = _long_exchanges(6, steps=5)  # small exchanges: several share a drawer
    path = _session(tmp_path / "grow.jsonl", exchanges[:2])
    ingest(palace, path)
    grown = ingest(palace, _session(path, exchanges))
    assert grown.ok and grown.added == grown.planned == 2 and grown.replaced == 1  # first drawer grew
    with Palace.open(tmp_path / "fresh", settings=settings) as fresh:
        ingest(fresh, path)
        expected = {d.content for d in fresh.find_drawers(_all_ids(fresh)).values()}
    stored = {d.content for d in palace.find_drawers(_all_ids(palace)).values()}
    assert stored == expected  # the old, shorter last drawer was replaced, not kept beside the new one


def test_an_older_version_left_by_an_interrupted_replacement_goes_at_the_next_ingest(
        palace: Palace, tmp_path: Path, settings, monkeypatch: pytest.MonkeyPatch) -> None:
    exchanges = _long_exchanges(6, steps=5)
    path = _session(tmp_path / "grow.jsonl", exchanges[:2])
    ingest(palace, path)
    with monkeypatch.context() as patch:  # killed after the new drawers were written, before the old went
        patch.setattr(pipeline, "_replace", lambda palace, plan: (0, ()))
        assert ingest(palace, _session(path, exchanges)).added == 2
    again = ingest(palace, path)
    assert (again.added, again.replaced) == (0, 1)  # the older version left behind is removed now
    with Palace.open(tmp_path / "fresh", settings=settings) as fresh:
        ingest(fresh, path)
        expected = {d.content for d in fresh.find_drawers(_all_ids(fresh)).values()}
    assert {d.content for d in palace.find_drawers(_all_ids(palace)).values()} == expected


def test_a_grown_session_stays_where_its_drawers_were_moved(palace: Palace, tmp_path: Path) -> None:
    exchanges = _long_exchanges(6, steps=5)
    path = _session(tmp_path / "grow.jsonl", exchanges[:2])
    ingest(palace, path)
    palace.move_drawers(_all_ids(palace), wing="wing_kai", room="ledger-rules")
    grown = ingest(palace, _session(path, exchanges))
    assert grown.ok and grown.added == 2 and grown.replaced == 1
    places = {(d.wing, d.room) for d in palace.find_drawers(_all_ids(palace)).values()}
    assert places == {("wing_kai", "ledger-rules")}  # the grown part joins the moved one, nothing is left behind


def test_a_grown_session_keeps_the_hall_a_person_gave_the_drawer_it_replaces(palace: Palace, tmp_path: Path) -> None:
    exchanges = _long_exchanges(6, steps=5)
    path = _session(tmp_path / "grow.jsonl", exchanges[:2])
    [first] = ingest(palace, path).drawer_ids
    palace.update_drawer(first, hall="hall_preferences")  # a person's choice
    grown = ingest(palace, _session(path, exchanges))
    assert grown.ok and grown.replaced == 1 and first not in _all_ids(palace)
    longer = min(palace.find_drawers(_all_ids(palace)).values(), key=lambda d: d.chunk_index)
    assert longer.chunk_index == 0 and longer.hall == "hall_preferences"
    assert palace.hall_choosers([longer.id]) == {longer.id: "person"}


def test_a_long_growth_stays_in_the_moved_wing(palace: Palace, tmp_path: Path) -> None:
    exchanges = _long_exchanges(30, steps=25)
    path = _session(tmp_path / "grow.jsonl", exchanges[:3])
    ingest(palace, path)
    palace.move_drawers(_all_ids(palace), wing="wing_kai", room="ledger-rules")
    before = len(_all_ids(palace))
    ingest(palace, _session(path, exchanges))
    drawers = list(palace.find_drawers(_all_ids(palace)).values())
    assert len(drawers) > before + 8 + 2 and {d.wing for d in drawers} == {"wing_kai"}
    by_index = sorted((d.chunk_index, d.room, d.id) for d in drawers)
    last_stored = before - 1
    assert {room for index, room, _ in by_index if index <= last_stored + 8} == {"ledger-rules"}
    beyond = [palace.get_drawer(i).room_by for index, _, i in by_index if index > last_stored + 8]
    assert beyond and set(beyond) == {"ingest"}  # new segments: rooms chosen by meaning


def test_conversations_that_only_share_a_first_line_keep_their_own_places(palace: Palace, tmp_path: Path) -> None:
    pottery = tmp_path / "pottery.txt"
    pottery.write_text("User: Hi!\nAssistant: Hello.\nUser: My pottery glaze cracked. Pottery glaze tips?\n"
                       "Assistant: Fire the pottery glaze slower.\n", encoding="utf-8")
    taxes = tmp_path / "taxes.txt"
    taxes.write_text("User: Hi!\nAssistant: Hello.\nUser: Which tax forms do I file? The tax forms confuse me.\n"
                     "Assistant: Start with the tax forms your employer sent.\n", encoding="utf-8")
    first, second = ingest(palace, pottery), ingest(palace, taxes)
    assert first.wings == ("pottery",) and second.wings == ("taxes",)
    assert first.rooms != second.rooms


def test_a_forced_wing_alone_keeps_the_stored_room(palace: Palace, tmp_path: Path) -> None:
    exchanges = _long_exchanges(6, steps=5)
    path = _session(tmp_path / "grow.jsonl", exchanges[:2])
    ingest(palace, path)
    palace.move_drawers(_all_ids(palace), room="ledger-rules")
    ingest(palace, _session(path, exchanges), wing="archive")
    new = [d for d in palace.find_drawers(_all_ids(palace)).values() if d.wing == "archive"]
    assert len(new) == 2 and {d.room for d in new} == {"ledger-rules"}


def test_a_grown_session_goes_where_the_command_says(palace: Palace, tmp_path: Path) -> None:
    exchanges = _long_exchanges(6, steps=5)
    path = _session(tmp_path / "grow.jsonl", exchanges[:2])
    ingest(palace, path)
    palace.move_drawers(_all_ids(palace), wing="wing_kai", room="ledger-rules")
    ingest(palace, _session(path, exchanges), room="ledger-v2")
    new = [d for d in palace.find_drawers(_all_ids(palace)).values() if d.room != "ledger-rules"]
    assert len(new) == 2 and {(d.wing, d.room) for d in new} == {("wing_kai", "ledger-v2")}


def _all_ids(palace: Palace) -> list[str]:
    return [hit.drawer_id for hit in palace.search("ledger auth token", limit=1000, mode="vector")]


def test_a_later_export_that_contains_an_earlier_one_adds_only_the_new_conversation(
        palace: Palace, tmp_path: Path) -> None:
    def conversation(cid: str, title: str, question: str) -> dict:
        return {"uuid": cid, "name": title, "created_at": "2026-02-01T09:00:00Z", "chat_messages": [
            {"sender": "human", "text": question, "created_at": "2026-02-01T09:00:00Z"},
            {"sender": "assistant", "text": "Use a sourdough starter fed twice a day.", "created_at": "2026-02-01T09:01:00Z"},
        ]}

    first = [conversation("c1", "Bread", "How do I bake sourdough bread at home?")]
    (tmp_path / "conversations.json").write_text(json.dumps(first), encoding="utf-8")
    one = ingest(palace, tmp_path / "conversations.json")
    later = first + [conversation("c2", "Pasta", "How long do I boil fresh pasta?")]
    (tmp_path / "conversations.json").write_text(json.dumps(later), encoding="utf-8")
    two = ingest(palace, tmp_path / "conversations.json")
    assert one.added == 1 and two.conversations == 2 and two.added == 1 and two.already_present == 1
    assert one.wings == ("claude_ai",)  # the export's generic file name gives way to the format's name


def test_dry_run_previews_without_writing_and_matches_the_real_run(palace: Palace, tmp_path: Path) -> None:
    path = _session(tmp_path / "p.jsonl", TOPIC)
    preview = ingest(palace, path, dry_run=True)
    assert preview.dry_run and preview.added == 0 and palace.count() == 0
    assert preview.new == preview.planned == len(preview.drawers)
    assert all(d.status == "new" and d.hall.startswith("hall_") for d in preview.drawers)
    real = ingest(palace, path)
    stored = palace.find_drawers(list(real.drawer_ids))
    assert [(d.id, d.wing, d.room, d.hall) for d in preview.drawers] == [
        (i, stored[i].wing, stored[i].room, stored[i].hall) for i in real.drawer_ids]
    again = ingest(palace, path, dry_run=True)
    assert again.new == 0 and all(d.status == "present" for d in again.drawers)


def test_caller_can_force_wing_and_room(palace: Palace, tmp_path: Path) -> None:
    report = ingest(palace, _session(tmp_path / "f.jsonl", TOPIC), wing="Wing Kai", room="Auth Migration")
    assert report.wings == ("wing_kai",) and report.rooms == ("auth-migration",)
    assert palace.list_rooms("wing_kai") == {"auth-migration": report.added}


def test_near_duplicates_are_kept_and_counted(palace: Palace, tmp_path: Path) -> None:
    text = "User: " + "the quarterly gpu pricing review covers spot instances and reserved capacity " * 5
    (tmp_path / "one.txt").write_text(text, encoding="utf-8")
    (tmp_path / "two.txt").write_text(text.replace("quarterly", "yearly"), encoding="utf-8")
    ingest(palace, tmp_path / "one.txt")
    second = ingest(palace, tmp_path / "two.txt")
    assert second.added == 1 and second.near_duplicates == 1 and palace.count() == 2


def test_what_ingest_reads_aside_is_as_if_read_in_turn(palace: Palace, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.errors import PalaceUnavailableError
    from mempalace.ingest import planning

    ingest(palace, _session(tmp_path / "first.jsonl", TOPIC))
    palace.add_drawer("A note filed by hand: the last ingest's room choice no longer holds.", "wing_kai", "notes")
    stored = palace.count()

    def gone(_palace: Palace) -> None:
        raise PalaceUnavailableError("The Chroma server went away.")

    monkeypatch.setattr(planning, "topic_rooms", gone)  # read on a thread while the model embeds
    failed = ingest(palace, _session(tmp_path / "second.jsonl", _long_exchanges(3), session="s-2"))
    assert failed.errors == ("The Chroma server went away.",) and failed.transient and failed.added == 0
    assert palace.count() == stored  # nothing filed
    monkeypatch.undo()
    again = ingest(palace, _session(tmp_path / "second.jsonl", _long_exchanges(3), session="s-2"))
    assert again.added > 0 and again.near_duplicates == 0 and palace.count() == stored + again.added


@pytest.mark.parametrize("name, data, message", [
    ("notes.csv", b"a,b\n1,2\n", "not a transcript format MemPalace knows (tried Claude Code session"),
    ("conversations.json", b'[{"uuid": "x", "chat_messages": [ }', "conversations.json, line 1"),
    ("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00", "looks like a binary file"),
    ("empty.txt", b"   \n\n", "no conversations with any text"),
])
def test_bad_input_is_reported_clearly_and_writes_nothing(palace: Palace, name: str, data: bytes,
                                                         message: str) -> None:
    report = ingest(palace, data, filename=name)
    assert not report.ok and message in report.errors[0] and palace.count() == 0


def test_size_caps_and_unsafe_zips_are_refused(tmp_path: Path) -> None:
    small = load_settings(tmp_path / "h", max_ingest_bytes=100)
    with Palace.open(tmp_path / "p", settings=small) as palace:
        big = ingest(palace, b"User: hello\n" * 50, filename="big.txt")
        assert "limit is" in big.errors[0] and "max_ingest_bytes" in big.errors[0]
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("users.json", "[]")
        archive.writestr("channels.json", "[]")
        archive.writestr("../escape/2020-01-01.json", "[]")
    with Palace.open(tmp_path / "q", settings=load_settings(tmp_path / "h")) as palace:
        report = ingest(palace, evil)
        assert "escapes its folder" in report.errors[0] and palace.count() == 0


def test_one_bad_file_does_not_stop_the_others(palace: Palace, tmp_path: Path) -> None:
    _session(tmp_path / "good.jsonl", TOPIC)
    (tmp_path / "bad.jsonl").write_text(
        '{"type": "user", "sessionId": "x", "message": {"role": "user", "content": "hi"}}\n{oops\n', encoding="utf-8")
    (tmp_path / "picture.png").write_bytes(b"\x89PNG")  # not a transcript type: folders skip it
    reports = {r.source: r for r in ingest_paths(palace, [tmp_path])}
    assert set(reports) == {"good.jsonl", "bad.jsonl"}
    assert reports["good.jsonl"].added > 0 and "bad.jsonl, line 2" in reports["bad.jsonl"].errors[0]


def test_a_failure_part_way_leaves_nothing_and_a_rerun_completes(palace: Palace, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = _session(tmp_path / "big.jsonl", _long_exchanges(8))
    monkeypatch.setattr(pipeline, "WRITE_BATCH", 2)
    real_file = Palace.file_drawers
    calls = {"n": 0}

    def flaky(self, drafts, vectors=None):
        calls["n"] += 1
        if calls["n"] == 3:
            from mempalace.errors import PalaceUnavailableError
            raise PalaceUnavailableError("the disk is full")
        return real_file(self, drafts, vectors)

    monkeypatch.setattr(Palace, "file_drawers", flaky)
    failed = ingest(palace, path)
    assert "the disk is full" in failed.errors[0] and "nothing from this file was kept" in failed.errors[0]
    assert palace.count() == 0
    done = ingest(palace, path)
    assert done.ok and done.added == done.planned == palace.count()
    assert ingest(palace, path).added == 0


GPU = "User: " + "the quarterly gpu pricing review covers spot instances and reserved capacity " * 5
TIDES = "User: " + "the harbour tide table moved two hours later after the spring storms " * 5


def _group_of_four(palace: Palace, folder: Path, fail_first_write: bool,
                   monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[int, int, int]]:
    """Ingest a session and a note, then one group: the session grown, a near copy of the note, a
    new note and a near copy of that new note. Each file's (added, near duplicates, replaced)."""
    folder.mkdir()
    session = _session(folder / "grow.jsonl", _long_exchanges(2, steps=5))
    (folder / "a-note.txt").write_text(GPU, encoding="utf-8")
    ingest_paths(palace, [session, folder / "a-note.txt"])
    _session(session, _long_exchanges(6, steps=5))
    (folder / "b-copy.txt").write_text(GPU.replace("quarterly", "yearly"), encoding="utf-8")
    (folder / "c-new.txt").write_text(TIDES, encoding="utf-8")
    (folder / "d-copy.txt").write_text(TIDES.replace("spring", "autumn"), encoding="utf-8")
    real_file, calls = Palace.file_drawers, {"n": 0}

    def first_fails(self, drafts, vectors=None):
        calls["n"] += 1
        if fail_first_write and calls["n"] == 1:
            from mempalace.errors import PalaceUnavailableError
            raise PalaceUnavailableError("the disk is full")
        return real_file(self, drafts, vectors)

    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "WRITE_BATCH", 1)
        patch.setattr(Palace, "file_drawers", first_fails)
        reports = ingest_paths(palace, [session, *sorted(folder.glob("?-*.txt"))[1:]])
    return {r.source: (r.added, r.near_duplicates, r.replaced) for r in reports}


@pytest.mark.parametrize(("fail_first_write", "embed_batch"), [(False, 256), (True, 256), (False, 1)],
                         ids=["in-one-go", "file-by-file-after-a-failure", "asked-part-by-part-while-embedding"])
def test_near_duplicates_asked_for_before_filing_count_as_drawer_by_drawer(
        settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_first_write: bool, embed_batch: int) -> None:
    from mempalace.ingest import planning

    asked: list[int] = []
    steps: list[str] = []  # the ingest's own thread: each batch embedded, each part's query asked
    real_nearest, real_ask, real_embed = Palace.nearest_existing, pipeline._NearestAsked.ask, Palace.embed

    def counted(self, vectors, exclude=(), within=None):
        asked.append(len(vectors))
        return real_nearest(self, vectors, exclude, within)

    with Palace.open(tmp_path / "aside", settings=settings) as palace, monkeypatch.context() as patch:
        patch.setattr(planning, "EMBED_BATCH", embed_batch)
        patch.setattr(Palace, "nearest_existing", counted)
        patch.setattr(Palace, "embed", lambda self, texts: steps.append("embed") or real_embed(self, texts))
        patch.setattr(pipeline._NearestAsked, "ask", lambda self, rows, v: steps.append("ask") or real_ask(self, rows, v))
        aside = _group_of_four(palace, tmp_path / "a", fail_first_write, monkeypatch)
    if embed_batch == 1:  # the last group's drafts: one query each, as the model gives their vectors
        drafts = sum(added for added, _, _ in aside.values())
        assert asked[-drafts:] == [1] * drafts
        last = steps[-2 * drafts:]  # asked while the model still embeds the rest, not after
        assert last == ["embed", "ask"] * drafts
    with Palace.open(tmp_path / "in-turn", settings=settings) as palace, monkeypatch.context() as patch:
        patch.setattr(pipeline, "_asking_nearest", lambda *args: None)  # asked batch by batch while filing
        in_turn = _group_of_four(palace, tmp_path / "b", False, monkeypatch)
    assert aside == in_turn
    assert aside["grow.jsonl"][0] > 0 and aside["grow.jsonl"][2] == 1  # grown: its old last drawer replaced
    assert aside["b-copy.txt"] == (1, 1, 0)  # a near copy of a drawer stored before
    assert aside["c-new.txt"] == aside["d-copy.txt"] == (1, 0, 0)  # a near copy of its group's own: not counted


def test_a_room_choice_read_aside_is_kept_when_the_group_fails(palace: Palace, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.errors import EmbeddingModelError
    from mempalace.ingest import planning

    ingest(palace, _session(tmp_path / "first.jsonl", TOPIC))
    palace.add_drawer("A note filed by hand: the last ingest's room choice no longer holds.", "wing_kai", "notes")
    made = {"n": 0}
    real_topic_rooms = planning.topic_rooms

    def counted(palace: Palace):
        made["n"] += 1
        return real_topic_rooms(palace)

    def broken(*args, **kwargs):
        raise EmbeddingModelError("The model failed.")

    monkeypatch.setattr(planning, "topic_rooms", counted)
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "classify", broken)
        failed = ingest(palace, _session(tmp_path / "second.jsonl", _long_exchanges(3), session="s-2"))
    assert failed.errors == ("The model failed.",) and made["n"] == 1
    again = ingest(palace, _session(tmp_path / "second.jsonl", _long_exchanges(3), session="s-2"))
    assert again.added > 0 and made["n"] == 1  # the choice read while the model failed was used


@pytest.mark.parametrize("interrupted", [False, True], ids=["the-model-fails", "interrupted"])
def test_a_group_that_fails_after_asking_for_near_duplicates_leaves_no_query_running(
        palace: Palace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, interrupted: bool) -> None:
    import threading
    import time

    from mempalace.errors import EmbeddingModelError
    from mempalace.ingest import planning

    ingest(palace, _session(tmp_path / "first.jsonl", TOPIC))
    real_nearest, real_ask, parts, begun, ended = Palace.nearest_existing, pipeline._NearestAsked.ask, [], [], []
    querying, failing = threading.Event(), threading.Event()

    def slow(self, vectors, exclude=(), within=None):
        begun.append(len(vectors))
        querying.set()
        failing.wait(5)
        time.sleep(0.2)  # a query at a million drawers, still under way when the group fails
        found = real_nearest(self, vectors, exclude, within)
        ended.append(len(vectors))
        return found

    def fails(*args, **kwargs):
        querying.wait(5)  # the first query has begun; the others wait their turn
        failing.set()
        raise KeyboardInterrupt if interrupted else EmbeddingModelError("The model failed.")

    with monkeypatch.context() as patch:
        patch.setattr(planning, "EMBED_BATCH", 1)  # one query per drawer, queued faster than answered
        patch.setattr(Palace, "nearest_existing", slow)
        patch.setattr(pipeline._NearestAsked, "ask", lambda self, rows, v: parts.append(rows) or real_ask(self, rows, v))
        patch.setattr(pipeline, "assign_rooms", fails)
        second = _session(tmp_path / "second.jsonl", _long_exchanges(3), session="s-2")
        if interrupted:
            with pytest.raises(KeyboardInterrupt):
                ingest(palace, second)
        else:
            assert ingest(palace, second).errors == ("The model failed.",)
        at_return = len(ended)
    time.sleep(0.3)
    assert len(parts) > 2 and 0 < len(begun) < len(parts)  # queries not begun were dropped
    assert len(ended) == len(begun) == at_return  # the one under way ended before ingest did; none after
    assert not [t for t in threading.enumerate() if t.name.startswith("mempalace-")]
