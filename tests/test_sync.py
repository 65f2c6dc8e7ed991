"""The catalog must be exact after our writes and notice writes made by other clients or tools."""

import numpy as np
import pytest

from mempalace import Palace
from mempalace.config import load_settings
from mempalace.embedding.embedders import HashEmbedder
from mempalace.palace.opening import CATALOG_FILE
from mempalace.store.chroma import SEQ_KEY
from mempalace.catalog.sync import new_stamp


def _vector(text):
    return HashEmbedder().embed([text])


def _other_client_adds(store, drawer_id, text, wing, room, stamped=True):
    meta = {"wing": wing, "room": room, **({SEQ_KEY: new_stamp()} if stamped else {})}
    store.add([drawer_id], [text], [meta], _vector(text))
    if stamped:
        store.bump_marker()


@pytest.fixture
def watchful(palace_path, home):
    """A palace that looks for other clients' writes on every read, as a server palace does."""
    with Palace.open(palace_path, settings=load_settings(home, foreign_check_seconds=0)) as palace:
        yield palace


def test_writes_by_another_client_are_noticed_on_the_next_read(watchful):
    palace = watchful
    palace.add_drawer("ours", "wing_a", "r1")
    assert palace.count() == 1
    store = palace._store  # another MemPalace client writing through Chroma, not through this Palace
    _other_client_adds(store, "drawer_other", "theirs about zebras", "wing_b", "r2")
    assert palace.taxonomy() == {"wing_a": {"r1": 1}, "wing_b": {"r2": 1}}
    assert palace.search("zebras")[0].drawer_id == "drawer_other"

    store.update_metadata(["drawer_other"], [{"room": "r3", SEQ_KEY: new_stamp()}])
    store.bump_marker()
    assert palace.taxonomy() == {"wing_a": {"r1": 1}, "wing_b": {"r3": 1}}

    store.delete(["drawer_other"])
    store.bump_marker()
    assert palace.taxonomy() == {"wing_a": {"r1": 1}} and palace.count() == 1


def test_unstamped_foreign_adds_are_caught_by_the_count_check(watchful):
    watchful.add_drawer("ours", "wing_a", "r1")
    _other_client_adds(watchful._store, "foreign_1", "upstream wrote this", "wing_up", "general", stamped=False)
    assert watchful.list_wings() == {"wing_a": 1, "wing_up": 1}


def test_foreign_changes_made_while_closed_are_seen_on_open(palace, palace_path, settings):
    import chromadb

    palace.add_drawer("first drawer", "wing_a", "r1")
    second = palace.add_drawer("second drawer", "wing_a", "r1").drawer_ids[0]
    palace.close()
    client = chromadb.PersistentClient(str(palace_path))
    collection = client.get_collection("mempalace_drawers", embedding_function=None)
    collection.delete(ids=[second])
    collection.add(ids=["up_1", "up_2"], documents=["u1", "u2"], embeddings=_vector("u1").repeat(2, axis=0),
                   metadatas=[{"wing": "wing_up", "room": "x"}, {"wing": "wing_up", "room": "y"}])
    client.close()
    with Palace.open(palace_path, settings=settings) as again:
        assert again.taxonomy() == {"wing_a": {"r1": 1}, "wing_up": {"x": 1, "y": 1}}


def test_unstamped_moves_need_a_reindex(palace, palace_path, settings):
    import chromadb

    drawer_id = palace.add_drawer("movable", "wing_a", "r1").drawer_ids[0]
    palace.close()
    client = chromadb.PersistentClient(str(palace_path))
    client.get_collection("mempalace_drawers", embedding_function=None).update(
        ids=[drawer_id], metadatas=[{"room": "r2", SEQ_KEY: 0}])
    client.close()
    with Palace.open(palace_path, settings=settings) as again:
        assert again.rebuild_index() == 1
        assert again.taxonomy() == {"wing_a": {"r2": 1}}


def test_a_lost_catalog_is_rebuilt_from_chroma(palace, palace_path, settings):
    text = "verbatim  \n\ttext ✓"
    palace.add_drawer(text, "wing_a", "r1", hall="facts")
    palace.close()
    for suffix in ("", "-wal", "-shm"):
        (palace_path / (CATALOG_FILE + suffix)).unlink(missing_ok=True)
    with Palace.open(palace_path, settings=settings) as again:
        assert again.taxonomy() == {"wing_a": {"r1": 1}}
        hit = again.search("verbatim", wing="wing_a")[0]
        assert hit.content == text and hit.similarity > 0.5


def test_catalog_vectors_match_chroma(palace):
    drawer_id = palace.add_drawer("vector parity check", "wing_a", "r1").drawer_ids[0]
    stored = palace._store.get([drawer_id], embeddings=True)[0].embedding
    cataloged = palace._catalog.rows([drawer_id])[drawer_id].vector
    assert np.allclose(stored, cataloged, atol=1e-6)
