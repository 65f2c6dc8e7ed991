"""Blobs (long runs without spaces): found and named cheaply, kept verbatim in drawers of their own,
read by meaning and hall as a short description, never naming a room; a file of nothing but a blob is
refused before anything is written."""

from __future__ import annotations

import base64
import random
from pathlib import Path

from mempalace import Palace
from mempalace.text import blobs
from mempalace.formats.base import Conversation, Message
from mempalace.ingest import ingest
from mempalace.text.drawer_chunks import chunk_conversation

B64 = base64.b64encode(random.Random(7).randbytes(60_000)).decode()  # 80,000 characters
HEX = random.Random(8).randbytes(3_000).hex()


def test_runs_kinds_and_descriptions():
    text = f"see {B64} and {HEX}\nand a data URI data:image/png;base64,{B64[:2000]} end"
    assert [(e - s) for s, e in blobs.runs(text)] == [len(B64), len(HEX), 2000 + len("data:image/png;base64,")]
    assert [blobs.kind(text[s:e]) for s, e in blobs.runs(text)] == ["base64", "hex", "a data URI"]
    assert blobs.kind("function(a){return a+1;};" * 60).startswith("text without spaces")
    assert blobs.readable(text) == ("see [80,000 characters of base64] and [6,000 characters of hex]\nand a data URI "
                                    "[2,022 characters of a data URI] end")
    assert blobs.removed(text) == "see  and \nand a data URI  end"
    assert blobs.readable("a" * 999) == "a" * 999 and not blobs.runs("word " * 1000)  # words are never blobs


def test_a_source_of_nothing_but_blobs_is_told_from_a_chat_that_holds_one():
    assert blobs.only_blobs([B64]) == (len(B64), "base64")
    assert blobs.only_blobs([f"{B64}\n{HEX}", "ok"]) == (len(B64) + len(HEX), "base64")
    assert blobs.only_blobs([f"here is the screenshot {B64}"]) is None
    assert blobs.only_blobs(["no blob at all"]) is None


def test_a_blob_is_a_drawer_of_its_own_kept_verbatim_not_hundreds():
    text = f"Here is the image:\n\n{B64}\n\n    indented after it\nDone."
    conversation = Conversation((Message("User", "user", "what is this?"), Message("Claude", "assistant", text)))
    chunks = chunk_conversation(conversation, 800, 100_000)
    assert len(chunks) == 3  # the question and the reply's opening, the blob, what follows it
    blob = next(c for c in chunks if B64 in c.content)
    assert blob.content == f"Claude (continued): {B64}\n\n"
    assert chunks[-1].content == "Claude (continued):     indented after it\nDone."  # its line, indentation kept
    spans = [s for c in chunks for s in c.spans if s.message == 1]
    assert "".join(text[s.start:s.end] for s in spans) == text


def test_a_blob_longer_than_a_drawer_is_cut_only_to_the_size_limit():
    conversation = Conversation((Message("User", "user", f"dump: {B64}"),))
    pieces = [c for c in chunk_conversation(conversation, 800, 30_000) if not c.content.startswith("User: dump")]
    assert [len(c.content) for c in pieces] <= [30_000] * len(pieces) and len(pieces) == 3
    assert "".join(c.content.removeprefix("User (continued): ") for c in pieces) == B64


def test_ingest_refuses_a_file_of_nothing_but_a_blob_and_files_nothing(palace: Palace, tmp_path: Path):
    path = tmp_path / "dump.txt"
    path.write_text(B64 * 4, encoding="utf-8")
    for dry_run in (True, False):
        report = ingest(palace, path, dry_run=dry_run)
        assert report.errors == (f"dump.txt holds nothing but {4 * len(B64):,} characters of base64, with no "
                                 "conversation around them (a pasted image, a bundle or a data dump?). "
                                 "Nothing was filed.",)
        assert report.added == 0 and palace.count() == 0


def test_a_chat_with_a_blob_embeds_its_description_and_names_no_room_after_it(palace: Palace, tmp_path: Path,
                                                                             monkeypatch):
    embedded: list[str] = []
    real = palace._embed
    monkeypatch.setattr(palace, "_embed", lambda texts: embedded.extend(texts) or real(texts))
    path = tmp_path / "image.txt"
    path.write_text(f"User: what is in this screenshot of the kitchen?\n\n{B64}\n\nAssistant: a kitchen with a "
                    "blue kettle on the stove.\n", encoding="utf-8")
    report = ingest(palace, path, wing="wing_kai")
    assert not report.errors and report.added >= 2
    stored = [palace.get_drawer(i).content for i in report.drawer_ids]
    assert any(B64 in s for s in stored)  # verbatim
    assert embedded and not any(B64[:50] in t for t in embedded)  # nothing reads the blob itself
    assert "[80,000 characters of base64]" in "".join(embedded)
    assert not {"characters", "base64"} & set(palace.list_rooms("wing_kai"))


def test_indented_blobs_keep_their_indentation_and_leave_no_whitespace_drawer():
    text = "Here are the two keys we discussed:\n    " + "A" * 1200 + "\n    " + "B" * 1200 + "\n"
    for speaker in ("", "Bob"):  # no label (plain text without speakers) and a labelled message
        chunks = chunk_conversation(Conversation((Message(speaker, "user", text),)), 800, 100_000)
        bodies = [c.content.removeprefix("Bob: ").removeprefix("Bob (continued): ") for c in chunks]
        assert bodies == ["Here are the two keys we discussed:\n", "    " + "A" * 1200 + "\n",
                          "    " + "B" * 1200 + "\n"]


def test_chinese_prose_is_words_not_a_blob_and_the_scan_stays_linear():
    assert not blobs.runs("这是一个很长的中文段落没有空格" * 100) and blobs.only_blobs(["中文" * 700]) is None
    assert blobs.runs(("x" * 999 + " ") * 50) == []  # runs just under the length are no blob


def test_a_very_long_fence_is_not_repeated_in_every_label():
    text = "`" * 99_500 + "\n" + "word " * 400
    chunks = chunk_conversation(Conversation((Message("Bob", "user", text),)), 800, 100_000)
    assert max(len(c.content) for c in chunks) <= 100_000
    assert not any("in a code block" in c.content for c in chunks)
