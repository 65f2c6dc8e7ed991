"""A palace on a real Chroma server (`chroma run` on loopback), through `Palace` and the CLI.

One server serves the whole module, so every test uses its own wings and compares palace-wide
counts against the count it saw when it started.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _processes import chroma_run, free_port
from click.testing import CliRunner, Result

from mempalace import Palace
from mempalace.cli import main
from mempalace.config import load_settings
from mempalace.errors import DrawerNotFoundError, PalaceUnavailableError, PlaceNotFoundError

pytestmark = pytest.mark.server

STARTUP_SECONDS = 30


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Chroma server on a free loopback port, with its data in a temporary directory."""
    root = tmp_path_factory.mktemp("chroma-server")
    with chroma_run(root / "data", root / "server.log", STARTUP_SECONDS) as port:
        yield f"http://127.0.0.1:{port}"


def client(url: str, home: Path) -> Palace:
    """A palace client with its own MEMPALACE_HOME, hence its own catalog cache.

    The periodic foreign-write count check is pushed out of reach so that only the marker and
    write-stamp logic of mempalace/catalog/sync.py can bring one client up to date with the other's writes.
    """
    return Palace.open(url=url, settings=load_settings(home, foreign_check_seconds=3600))


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
    return result


def as_json(result: Result):
    return json.loads(ok(result).stdout)


# -- one client --------------------------------------------------------------------------------


def test_palace_over_url_round_trip(server_url: str, home: Path) -> None:
    with Palace.open(url=server_url) as palace:
        assert palace.mode == "server"
        assert palace.location == server_url
        status = palace.status()
        assert (status.mode, status.location, status.embedder) == ("server", server_url, "hash")
        start = palace.count()

        first = palace.add_drawer("The nightly backup copies the ledger to cold storage", "srv_round",
                                  "Backups", hall="facts", source_file="ops.md")
        second = palace.add_drawer("Kai prefers tabs over spaces in Makefiles", "srv_round", "style")
        assert first.status == second.status == "added"
        (backup_id,), (style_id,) = first.drawer_ids, second.drawer_ids
        assert palace.count() == start + 2
        assert palace.taxonomy()["srv_round"] == {"backups": 1, "style": 1}
        assert palace.list_rooms("srv_round") == {"backups": 1, "style": 1}

        again = palace.add_drawer("The nightly backup copies the ledger to cold storage", "srv_round", "backups")
        assert again.status == "exists" and again.drawer_ids == (backup_id,)
        assert palace.count() == start + 2

        hits = palace.search("ledger backup cold storage", wing="srv_round")
        assert hits[0].drawer_id == backup_id
        assert (hits[0].room, hits[0].hall, hits[0].source_file) == ("backups", "hall_facts", "ops.md")
        assert [h.drawer_id for h in palace.search("tabs", wing="srv_round", room="style")] == [style_id]

        drawer = palace.get_drawer(backup_id)
        assert drawer.content == "The nightly backup copies the ledger to cold storage"
        assert (drawer.wing, drawer.room, drawer.hall) == ("srv_round", "backups", "hall_facts")

        moved = palace.update_drawer(backup_id, room="Archive")
        assert (moved.room, moved.hall, moved.content) == ("archive", "hall_facts", drawer.content)
        assert palace.get_drawer(backup_id).room == "archive"
        assert palace.taxonomy()["srv_round"] == {"archive": 1, "style": 1}
        assert [h.drawer_id for h in palace.search("ledger", wing="srv_round", room="archive")] == [backup_id]
        with pytest.raises(PlaceNotFoundError, match="No room 'backups'"):  # moved away: the room is gone
            palace.search("ledger", wing="srv_round", room="backups")

        deleted = palace.delete_drawer(style_id)
        assert deleted.id == style_id
        with pytest.raises(DrawerNotFoundError):
            palace.get_drawer(style_id)
        assert palace.taxonomy()["srv_round"] == {"archive": 1}
        assert palace.count() == start + 1
        palace.delete_drawer(backup_id)
        assert "srv_round" not in palace.taxonomy()
        assert palace.count() == start


def test_long_content_over_url_joins_verbatim(server_url: str) -> None:
    content = "\r\n\r\n".join(f"Section {i}\t" + "lorem ipsum dolor sit amet " * 12 for i in range(6)) + "\r\n"
    with Palace.open(url=server_url) as palace:
        result = palace.add_drawer(content, "srv_long", "chunks")
        assert len(result.drawer_ids) > 1
        assert "".join(palace.get_drawer(i).content for i in result.drawer_ids) == content
        assert palace.taxonomy()["srv_long"] == {"chunks": len(result.drawer_ids)}


def test_cli_with_url(server_url: str, tmp_path: Path) -> None:
    status = as_json(invoke("--url", server_url, "init", "--json"))
    assert (status["mode"], status["location"]) == ("server", server_url)
    start = status["drawers"]

    added = as_json(invoke("--url", server_url, "add", "--wing", "srv_cli", "--room", "inbox", "--hall", "events",
                           "--json", "The deploy on Friday rolled back twice"))
    assert added["status"] == "added"
    (drawer_id,) = added["drawer_ids"]

    source = tmp_path / "note.txt"
    source.write_bytes("CRLF note\r\n\tüñíçødé ✓\r\n\r\n".encode("utf-8"))
    from_file = as_json(invoke("--url", server_url, "add", "--wing", "srv_cli", "--room", "inbox", "--file",
                               str(source), "--json"))
    (file_id,) = from_file["drawer_ids"]
    assert as_json(invoke("--url", server_url, "get", file_id, "--json"))["content"].encode() == source.read_bytes()

    assert as_json(invoke("--url", server_url, "taxonomy", "--json"))["srv_cli"] == {"inbox": 2}
    assert as_json(invoke("--url", server_url, "rooms", "--wing", "srv_cli", "--json")) == {"inbox": 2}
    assert as_json(invoke("--url", server_url, "wings", "--json"))["srv_cli"] == 2
    assert as_json(invoke("--url", server_url, "status", "--json"))["drawers"] == start + 2

    hits = as_json(invoke("--url", server_url, "search", "deploy rolled back", "--wing", "srv_cli", "--json"))
    assert hits[0]["drawer_id"] == drawer_id
    assert hits[0]["hall"] == "hall_events"

    moved = as_json(invoke("--url", server_url, "move", drawer_id, "--room", "postmortems", "--json"))
    assert moved["room"] == "postmortems"
    assert as_json(invoke("--url", server_url, "taxonomy", "--json"))["srv_cli"] == {"inbox": 1, "postmortems": 1}

    assert as_json(invoke("--url", server_url, "delete", drawer_id, "--json"))["id"] == drawer_id
    missing = invoke("--url", server_url, "get", drawer_id)
    assert missing.exit_code == 1 and missing.stderr.startswith("Error: No drawer")
    assert as_json(invoke("--url", server_url, "reindex", "--json")) == {"drawers": start + 1}
    assert as_json(invoke("--url", server_url, "taxonomy", "--json"))["srv_cli"] == {"inbox": 1}


# -- two clients -------------------------------------------------------------------------------


@pytest.fixture
def two_clients(server_url: str, tmp_path: Path) -> Iterator[tuple[Palace, Palace]]:
    home_a, home_b = tmp_path / "home-a", tmp_path / "home-b"
    a = client(server_url, home_a)
    b = client(server_url, home_b)
    try:
        yield a, b
    finally:
        a.close()
        b.close()
    # Each client really kept its own catalog cache.
    assert list((home_a / "cache").glob("*.sqlite3"))
    assert list((home_b / "cache").glob("*.sqlite3"))


def test_second_client_sees_adds_moves_and_deletes_at_once(two_clients: tuple[Palace, Palace]) -> None:
    a, b = two_clients
    start = b.count()  # B's first read: its catalog is current from here on
    assert a.count() == start
    assert "srv_sync" not in b.taxonomy()

    ids = [a.add_drawer(text, "srv_sync", "Room One").drawer_ids[0] for text in (
        "alpha bravo charlie delta", "echo foxtrot golf hotel", "india juliet kilo lima")]
    assert b.taxonomy()["srv_sync"] == {"room-one": 3}
    assert b.count() == start + 3
    assert {h.drawer_id for h in b.search("juliet kilo", wing="srv_sync")} >= {ids[2]}

    a.update_drawer(ids[0], room="Room Two")
    assert b.taxonomy()["srv_sync"] == {"room-one": 2, "room-two": 1}
    assert b.count() == start + 3
    assert [h.drawer_id for h in b.search("alpha bravo", wing="srv_sync", room="room-two")] == [ids[0]]

    a.update_drawer(ids[1], wing="srv_sync_other", hall="advice")
    assert b.taxonomy()["srv_sync"] == {"room-one": 1, "room-two": 1}
    assert b.taxonomy()["srv_sync_other"] == {"room-one": 1}
    assert b.hall_counts("srv_sync_other") == {"hall_advice": 1}

    a.delete_drawer(ids[2])
    assert b.taxonomy()["srv_sync"] == {"room-two": 1}
    assert b.count() == start + 2
    assert b.search("juliet kilo", wing="srv_sync", room="room-one") == []

    a.delete_drawer(ids[0])
    a.delete_drawer(ids[1])
    assert "srv_sync" not in b.taxonomy()
    assert "srv_sync_other" not in b.taxonomy()
    assert b.count() == start

    # and the other way round
    added = b.add_drawer("mike november oscar papa", "srv_sync_b", "inbox").drawer_ids[0]
    assert a.taxonomy()["srv_sync_b"] == {"inbox": 1}
    assert a.count() == start + 1
    b.update_drawer(added, room="done")
    assert a.taxonomy()["srv_sync_b"] == {"done": 1}
    b.delete_drawer(added)
    assert "srv_sync_b" not in a.taxonomy()
    assert a.count() == start


def test_own_move_does_not_hide_other_clients_move(two_clients: tuple[Palace, Palace]) -> None:
    """B moves a drawer right after A moved another: B must still see A's move."""
    a, b = two_clients
    first = a.add_drawer("quebec romeo sierra tango", "srv_race_move", "start").drawer_ids[0]
    second = a.add_drawer("uniform victor whiskey xray", "srv_race_move", "start").drawer_ids[0]
    start = b.count()
    assert b.taxonomy()["srv_race_move"] == {"start": 2}

    a.update_drawer(first, room="moved-by-a")
    b.update_drawer(second, room="moved-by-b")
    expected = {"moved-by-a": 1, "moved-by-b": 1}
    assert a.taxonomy()["srv_race_move"] == expected
    assert b.taxonomy()["srv_race_move"] == expected
    assert a.count() == b.count() == start


def test_own_delete_does_not_hide_other_clients_add(two_clients: tuple[Palace, Palace]) -> None:
    """B deletes a drawer right after A filed a new one: B must still see A's new drawer."""
    a, b = two_clients
    first = a.add_drawer("yankee zulu alpha two", "srv_race_delete", "start").drawer_ids[0]
    start = b.count()
    assert b.taxonomy()["srv_race_delete"] == {"start": 1}

    late = a.add_drawer("bravo three charlie four", "srv_race_delete", "late").drawer_ids[0]
    b.delete_drawer(first)
    assert a.taxonomy()["srv_race_delete"] == {"late": 1}
    assert b.taxonomy()["srv_race_delete"] == {"late": 1}
    assert a.count() == b.count() == start
    assert [h.drawer_id for h in b.search("bravo charlie", wing="srv_race_delete")] == [late]


# -- no server ---------------------------------------------------------------------------------


def test_unreachable_url_raises_palace_unavailable() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(PalaceUnavailableError) as caught:
        Palace.open(url=url)
    assert str(caught.value).startswith(f"No Chroma server answers at {url}")


def test_url_that_is_not_http_raises_palace_unavailable() -> None:
    with pytest.raises(PalaceUnavailableError, match="is not a Chroma server URL"):
        Palace.open(url="ftp://127.0.0.1:21")


def test_cli_with_unreachable_url_fails_cleanly() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = invoke("--url", url, "status")
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    assert result.stdout == ""
    assert result.stderr.startswith(f"Error: No Chroma server answers at {url}")
    assert "Traceback" not in result.output


# -- the graph across clients and processes ------------------------------------------------------


def test_graph_notices_other_clients_and_other_processes(two_clients: tuple[Palace, Palace], server_url: str,
                                                         tmp_path: Path) -> None:
    from mempalace.graph import build_graph, find_tunnels, graph_stats, merge_rooms

    a, b = two_clients
    a.add_drawer("graph test: the link room seen from wing one", "srv_graph_one", "srv-graph-link")
    before = graph_stats(b)  # warm B's graph cache
    assert "srv_graph_one" in before.rooms_per_wing
    assert "srv-graph-link" not in {t.room for t in find_tunnels(b)}

    env = {**os.environ, "MEMPALACE_HOME": str(tmp_path / "home-cli")}
    done = subprocess.run([sys.executable, "-c", "from mempalace.cli import main; main()", "--url", server_url,
                           "add", "graph test: the same link room, from another process", "--wing", "srv_graph_two",
                           "--room", "srv graph link"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    tunnel = next(t for t in find_tunnels(b) if t.room == "srv-graph-link")
    assert tunnel.wings == ("srv_graph_one", "srv_graph_two") and tunnel.count == 2
    assert graph_stats(b).tunnel_rooms == before.tunnel_rooms + 1

    b.add_drawer("graph test: an oddly named twin room", "srv_graph_three", "srv-graph-twin")
    assert merge_rooms(b, "srv-graph-twin", "srv-graph-link").moved == 1
    assert build_graph(a)[0]["srv-graph-link"].wings == ("srv_graph_one", "srv_graph_three", "srv_graph_two")
    for wing in ("srv_graph_one", "srv_graph_two", "srv_graph_three"):
        a.delete_drawers(a.drawer_ids(wing=wing))
    assert "srv-graph-link" not in build_graph(b)[0]
