"""Every reader of a file someone else wrote checks its size cap before reading: a JSONL session still
being written (a sync, a tool's hook), a hook's settings file and `add --file` over their caps are
refused with a clear error and read no further than the cap. The files are sparse: they use no disk."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from mempalace import Palace
from mempalace.cli import main
from mempalace.config import load_settings
from mempalace.errors import ConfigError, SourceRefusedError
from mempalace.sources.hooks import status
from mempalace.sources.settings_file import MAX_SETTINGS_BYTES
from mempalace.sources.sync import book_of, file_transcript, sync_sources

from _cli import assert_user_error
from test_sources import drawer_count, record

CAP = 1_000_000
HUGE = 64 * 1024 * 1024  # far over every cap here; sparse, so it costs no disk
READ_BOUND = 16 * 1024 * 1024  # generous: what the palace itself reads meanwhile, and never the whole file


def sparse(path: Path, start: str, size: int = HUGE) -> Path:
    """`start` followed by zero bytes up to `size`, with no final newline (a line still being written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(start, encoding="utf-8")
    os.truncate(path, size)
    return path


@contextmanager
def bytes_read() -> Iterator[Callable[[], int]]:
    """How many bytes this process (every thread) has read since the block began, from /proc/self/io."""
    io_file = Path("/proc/self/io")
    if not io_file.exists():
        pytest.skip("counting the bytes read needs Linux's /proc/self/io")

    def rchar() -> int:
        return int(re.search(r"^rchar: (\d+)$", io_file.read_text(), re.MULTILINE)[1])  # type: ignore[index]

    start = rchar()
    yield lambda: rchar() - start


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[Palace]:
    with Palace.open(tmp_path / "capped", settings=load_settings(tmp_path / "h", max_ingest_bytes=CAP)) as palace:
        yield palace


def test_a_sync_refuses_an_unfinished_jsonl_over_the_cap_without_reading_it(capped: Palace, tmp_path: Path) -> None:
    path = sparse(tmp_path / "src" / "s.jsonl", record("user", "A question of tides", 1)
                  + record("assistant", "Tides follow the moon", 2))
    book_of(capped).add(tmp_path / "src")
    with bytes_read() as read:
        [report] = sync_sources(capped)
        assert read() < READ_BOUND
    assert report.errors == ((str(path), "s.jsonl is 67.1 MB; the limit is 1 MB (setting max_ingest_bytes)."),)
    assert drawer_count(capped) == 0
    [again] = sync_sources(capped)
    assert again.files_changed == 0  # refused once, not read again every minute


def test_a_hook_refuses_an_unfinished_transcript_over_the_cap_without_reading_it(capped: Palace,
                                                                               tmp_path: Path) -> None:
    path = sparse(tmp_path / "sessions" / "s.jsonl", record("user", "A question of tides", 1))
    with bytes_read() as read:
        with pytest.raises(SourceRefusedError, match=r"^s\.jsonl is 67\.1 MB; the limit is 1 MB \(setting max_ingest"):
            file_transcript(capped, path, "claude_code")
        assert read() < READ_BOUND
    assert drawer_count(capped) == 0


def test_an_unfinished_transcript_within_the_cap_is_filed_up_to_its_last_line(capped: Palace,
                                                                             tmp_path: Path) -> None:
    path = sparse(tmp_path / "sessions" / "s.jsonl", record("user", "A question of neap tides", 1)
                  + record("assistant", "Neap tides have the smallest range", 2), CAP)
    assert file_transcript(capped, path, "claude_code").added > 0


def test_a_settings_file_over_its_cap_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = sparse(tmp_path / "settings.json", '{"hooks": {}', MAX_SETTINGS_BYTES + 1)
    with bytes_read() as read:
        with pytest.raises(ConfigError, match=r"settings\.json is larger than .* MB: it is no settings file"):
            status("claude-code", path)
        assert read() < READ_BOUND


def test_add_file_over_the_content_limit_is_refused_without_reading_it(palace_path: Path, tmp_path: Path) -> None:
    path = sparse(tmp_path / "notes.txt", "Notes on the harbour\n")
    with bytes_read() as read:
        result = CliRunner().invoke(main, ["--palace", str(palace_path), "add", "--wing", "w", "--room", "r",
                                           "--file", str(path)])
        assert read() < READ_BOUND
    assert_user_error(result, "notes.txt is longer than the 100,000-character limit (setting max_content_chars)",
                      one_line=True)
