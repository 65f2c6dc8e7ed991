"""Upstream MemPalace palace format, both ways.

Upstream MemPalace keeps drawers in a plain Chroma collection `mempalace_drawers` (cosine space,
Chroma's default embedding function) with the metadata keys wing, room, hall, source_file,
chunk_index, added_by and filed_at. A palace it made must open here, and a palace made here must
open in plain chromadb the way upstream opens it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
import pytest
from chromadb.utils.embedding_functions import DefaultEmbeddingFunction

from mempalace import Palace
from mempalace.config import Settings
from mempalace.embedding.embedders import HashEmbedder

REPO = Path(__file__).resolve().parents[1]
COLLECTION = "mempalace_drawers"
UPSTREAM_KEYS = {"wing", "room", "hall", "source_file", "chunk_index", "added_by", "filed_at"}

# Verbatim is verbatim: odd whitespace, CRLF, a decomposed accent and emoji must survive.
UPSTREAM_DRAWERS: dict[str, tuple[str, dict[str, Any]]] = {
    "drawer_wing_kai_auth-migration_0a1b2c": (
        "We decided to migrate auth to OAuth2 with PKCE.\r\n  Kai signed off on Tuesday.  \t",
        {"wing": "wing_kai", "room": "auth-migration", "hall": "hall_facts",
         "source_file": "/convos/2025-01-07.md", "chunk_index": 0, "added_by": "mempalace",
         "filed_at": "2025-01-07T10:00:00"},
    ),
    "drawer_wing_kai_preferences_3d4e5f": (
        "Kai prefers tabs over spaces; cafe\u0301 au lait 🎉 every morning.",
        {"wing": "wing_kai", "room": "preferences", "hall": "hall_preferences",
         "source_file": "/convos/2025-01-08.md", "chunk_index": 0, "added_by": "mempalace",
         "filed_at": "2025-01-08T09:30:00"},
    ),
    "drawer_wing_ops_deploys_6a7b8c": (
        "The nightly deploy failed because the build disk was full.\n\nWe added a cleanup job.",
        {"wing": "wing_ops", "room": "deploys", "hall": "hall_events",
         "source_file": "/convos/2025-01-09.md", "chunk_index": 2, "added_by": "miner",
         "filed_at": "2025-01-09T23:15:00"},
    ),
}


def _raw_client(path: Path) -> Any:
    return chromadb.PersistentClient(path=str(path))


@pytest.fixture
def upstream_palace(tmp_path: Path) -> Path:
    """A palace as upstream MemPalace writes it, made with nothing but chromadb."""
    path = tmp_path / "upstream-palace"
    client = _raw_client(path)
    try:
        collection = client.create_collection(
            COLLECTION, metadata={"hnsw:space": "cosine"}, embedding_function=DefaultEmbeddingFunction()
        )
        assert collection.configuration_json["embedding_function"]["name"] == "default"
        ids = list(UPSTREAM_DRAWERS)
        documents = [UPSTREAM_DRAWERS[i][0] for i in ids]
        collection.add(
            ids=ids, documents=documents, metadatas=[UPSTREAM_DRAWERS[i][1] for i in ids],
            embeddings=HashEmbedder().embed(documents),
        )
    finally:
        client.close()
    return path


# -- (a) upstream palace opened by MemPalace -----------------------------------------------------------


def test_upstream_palace_taxonomy_and_count(upstream_palace: Path, settings: Settings) -> None:
    with Palace.open(upstream_palace, settings=settings, create=False) as palace:
        assert palace.count() == 3
        assert palace.taxonomy() == {
            "wing_kai": {"auth-migration": 1, "preferences": 1},
            "wing_ops": {"deploys": 1},
        }
        assert palace.list_wings() == {"wing_kai": 2, "wing_ops": 1}
        assert palace.list_rooms("wing_kai") == {"auth-migration": 1, "preferences": 1}
        assert palace.hall_counts() == {"hall_events": 1, "hall_facts": 1, "hall_preferences": 1}


def test_upstream_palace_is_searchable(upstream_palace: Path, settings: Settings) -> None:
    with Palace.open(upstream_palace, settings=settings) as palace:
        for mode in ("hybrid", "vector"):
            hits = palace.search("deploy failed disk full", limit=3, mode=mode)
            assert hits[0].drawer_id == "drawer_wing_ops_deploys_6a7b8c", (mode, hits)
            assert hits[0].content == UPSTREAM_DRAWERS["drawer_wing_ops_deploys_6a7b8c"][0]
            assert (hits[0].wing, hits[0].room, hits[0].hall) == ("wing_ops", "deploys", "hall_events")
            assert hits[0].source_file == "/convos/2025-01-09.md"

        in_kai = palace.search("OAuth2 PKCE auth migration", wing="wing_kai", limit=5)
        assert in_kai[0].drawer_id == "drawer_wing_kai_auth-migration_0a1b2c"
        assert {h.wing for h in in_kai} == {"wing_kai"}
        in_room = palace.search("tabs spaces", room="preferences", limit=5)
        assert [h.drawer_id for h in in_room] == ["drawer_wing_kai_preferences_3d4e5f"]


def test_upstream_drawers_come_back_byte_for_byte(upstream_palace: Path, settings: Settings) -> None:
    with Palace.open(upstream_palace, settings=settings) as palace:
        for drawer_id, (text, meta) in UPSTREAM_DRAWERS.items():
            drawer = palace.get_drawer(drawer_id)
            assert drawer.content.encode("utf-8") == text.encode("utf-8")
            assert drawer.id == drawer_id
            assert (drawer.wing, drawer.room, drawer.hall) == (meta["wing"], meta["room"], meta["hall"])
            assert drawer.source_file == meta["source_file"]
            assert drawer.chunk_index == meta["chunk_index"]
            assert drawer.added_by == meta["added_by"]
            assert drawer.filed_at == meta["filed_at"]


def test_add_drawer_to_upstream_palace(upstream_palace: Path, settings: Settings) -> None:
    text = "Postgres vacuum settings were tuned after the bloat incident."
    with Palace.open(upstream_palace, settings=settings) as palace:
        result = palace.add_drawer(text, "wing_ops", "databases", hall="events", source_file="/convos/x.md")
        assert result.status == "added"
        assert palace.count() == 4
        assert palace.taxonomy()["wing_ops"] == {"databases": 1, "deploys": 1}
        assert palace.search("postgres vacuum bloat", limit=1)[0].drawer_id == result.drawer_ids[0]
        assert palace.get_drawer(result.drawer_ids[0]).content == text

    # upstream still sees its own rows untouched, ours in its format, and its own embedding function
    client = _raw_client(upstream_palace)
    try:
        collection = client.get_collection(COLLECTION)
        assert collection.configuration_json["embedding_function"]["name"] == "default"
        rows = collection.get(include=["documents", "metadatas"])
        by_id = dict(zip(rows["ids"], zip(rows["documents"], rows["metadatas"])))
        assert len(by_id) == 4
        for drawer_id, (original_text, original_meta) in UPSTREAM_DRAWERS.items():
            assert by_id[drawer_id] == (original_text, original_meta)
        new_text, new_meta = by_id[result.drawer_ids[0]]
        assert new_text == text
        assert UPSTREAM_KEYS <= set(new_meta)
        assert (new_meta["wing"], new_meta["room"], new_meta["hall"]) == ("wing_ops", "databases", "hall_events")
    finally:
        client.close()


# -- (b) MemPalace palace opened by plain chromadb ----------------------------------------------------

OUR_DRAWERS = [
    ("Kai chose Postgres over MySQL for the billing service.\r\n  (Tuesday standup)  ", "Wing Kai",
     "Database Choice", "facts", "/convos/standup.md"),
    ("cafe\u0301 🎉 — the launch party is on Friday.\n\n\tBring snacks.", "wing_team", "events",
     "events", "/convos/party.md"),
]


@pytest.fixture
def our_palace(palace_path: Path, settings: Settings) -> tuple[Path, dict[str, str]]:
    """A palace made by MemPalace, closed again (it holds an exclusive lock while open)."""
    texts: dict[str, str] = {}
    with Palace.open(palace_path, settings=settings) as palace:
        for text, wing, room, hall, source in OUR_DRAWERS:
            result = palace.add_drawer(text, wing, room, hall=hall, source_file=source)
            assert result.status == "added"
            texts[result.drawer_ids[0]] = text
    return palace_path, texts


def _check_upstream_view(rows: dict[str, Any], texts: dict[str, str]) -> None:
    assert sorted(rows["ids"]) == sorted(texts)
    for drawer_id, document, meta in zip(rows["ids"], rows["documents"], rows["metadatas"]):
        assert document.encode("utf-8") == texts[drawer_id].encode("utf-8")
        assert UPSTREAM_KEYS <= set(meta), sorted(meta)
        assert meta["chunk_index"] == 0
        assert meta["added_by"] == "mempalace"
        assert meta["filed_at"]
    metas = {m["source_file"]: m for m in rows["metadatas"]}
    assert (metas["/convos/standup.md"]["wing"], metas["/convos/standup.md"]["room"],
            metas["/convos/standup.md"]["hall"]) == ("wing_kai", "database-choice", "hall_facts")
    assert (metas["/convos/party.md"]["wing"], metas["/convos/party.md"]["room"],
            metas["/convos/party.md"]["hall"]) == ("wing_team", "events", "hall_events")


def test_plain_chromadb_get_collection_reads_our_palace(our_palace: tuple[Path, dict[str, str]]) -> None:
    path, texts = our_palace
    client = _raw_client(path)
    try:
        collection = client.get_collection(COLLECTION)  # upstream: chromadb's default embedding function
        assert collection.metadata["hnsw:space"] == "cosine"
        assert collection.configuration_json["hnsw"]["space"] == "cosine"
        _check_upstream_view(collection.get(include=["documents", "metadatas"]), texts)

        # explicitly passing chromadb's default embedding function is accepted too
        explicit = client.get_collection(COLLECTION, embedding_function=DefaultEmbeddingFunction())
        assert explicit.id == collection.id
        _check_upstream_view(explicit.get(include=["documents", "metadatas"]), texts)

        # vectors are cosine-comparable: a drawer's own text (same embedder) is its nearest neighbour
        drawer_id, text = next(iter(texts.items()))
        found = collection.query(query_embeddings=HashEmbedder().embed([text]), n_results=1,
                                 include=["distances"])
        assert found["ids"][0] == [drawer_id]
        assert found["distances"][0][0] == pytest.approx(0.0, abs=1e-4)
    finally:
        client.close()


def test_plain_chromadb_get_or_create_collection_reads_our_palace(
        our_palace: tuple[Path, dict[str, str]]) -> None:
    path, texts = our_palace
    client = _raw_client(path)
    try:
        collection = client.get_or_create_collection(COLLECTION, metadata={"hnsw:space": "cosine"})
        assert collection.count() == len(texts)
        assert collection.metadata["hnsw:space"] == "cosine"
        assert collection.configuration_json["hnsw"]["space"] == "cosine"
        _check_upstream_view(collection.get(include=["documents", "metadatas"]), texts)
        assert [c.name for c in client.list_collections()].count(COLLECTION) == 1
    finally:
        client.close()

    # and MemPalace still opens it afterwards, unchanged
    with Palace.open(path) as palace:
        assert palace.count() == len(texts)


_PLAIN_CHROMADB_SCRIPT = textwrap.dedent("""
    import json, sys
    import chromadb

    client = chromadb.PersistentClient(path=sys.argv[1])
    got = client.get_collection("mempalace_drawers")
    made = client.get_or_create_collection("mempalace_drawers", metadata={"hnsw:space": "cosine"})
    rows = got.get(include=["documents", "metadatas"])
    print(json.dumps({
        "same": str(got.id) == str(made.id),
        "space": got.metadata.get("hnsw:space"),
        "config_space": got.configuration_json["hnsw"]["space"],
        "rows": {"ids": rows["ids"], "documents": rows["documents"], "metadatas": rows["metadatas"]},
        "mempalace_imported": any(m == "mempalace" or m.startswith("mempalace.") for m in sys.modules),
    }))
    client.close()
""")


def test_our_palace_opens_in_a_process_that_never_imports_mempalace(
        our_palace: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """Upstream has no `mempalace` embedding function registered: opening must not need it."""
    path, texts = our_palace
    done = subprocess.run([sys.executable, "-c", _PLAIN_CHROMADB_SCRIPT, str(path)], cwd=tmp_path,
                          env=dict(os.environ), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["mempalace_imported"] is False
    assert seen["same"] is True
    assert seen["space"] == "cosine" and seen["config_space"] == "cosine"
    _check_upstream_view(seen["rows"], texts)


def test_vectors_written_by_us_are_unit_length_for_upstream(our_palace: tuple[Path, dict[str, str]]) -> None:
    path, _ = our_palace
    client = _raw_client(path)
    try:
        rows = client.get_collection(COLLECTION).get(include=["embeddings"])
        vectors = np.asarray(rows["embeddings"], dtype=np.float32)
        assert vectors.shape == (len(rows["ids"]), 384)
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    finally:
        client.close()
