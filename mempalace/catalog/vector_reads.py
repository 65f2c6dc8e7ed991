"""The catalog's vector reads: the vectors of a filtered set, of rooms and wings, and a fixed
sample of the palace (a mixin of `Catalog`, which provides `_db`); and their one wholesale write,
when the palace moves to another embedder."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping

import numpy as np

from .filters import FILING_ORDER, where_clause


_SPREAD = "(rowid * 2654435761) % 4294967291"  # a row's place in a fixed pseudo-random order (Knuth's hash)


class VectorReads:
    """Stacked float32 vectors read from the catalog's `drawers` table."""

    _db: sqlite3.Connection

    def replace_vectors(self, pairs: Iterable[tuple[str, np.ndarray]], state: Mapping[str, object]) -> None:
        """Give drawers new vectors and set `state`, in one transaction: another process reads the old
        vectors with the old state, or the new with the new, never a mix."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("UPDATE drawers SET vector = ? WHERE id = ?",
                                 ((np.asarray(v, np.float32).tobytes(), i) for i, v in pairs))
            self._db.executemany("INSERT OR REPLACE INTO state VALUES (?, ?)", ((k, str(v)) for k, v in state.items()))
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def vectors(self, filters: Mapping[str, str | None]) -> tuple[list[str], np.ndarray]:
        """Ids and stacked vectors of the drawers matching the filters."""
        sql, args = where_clause(filters)
        pairs = self._db.execute(  # in table order: a wing's rows lie scattered, and reading them in
            # index order jumps about the file (a 31k-drawer wing of a million: 245 ms cold, 74 ms so)
            f"SELECT id, vector FROM drawers WHERE rowid IN (SELECT d.rowid FROM drawers d WHERE {sql})"
            " AND vector IS NOT NULL ORDER BY rowid", args).fetchall()
        if not pairs:
            return [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(p[1] for p in pairs), dtype=np.float32).reshape(len(pairs), -1)
        return [p[0] for p in pairs], matrix

    def room_vectors(self, per_room: int) -> dict[str, np.ndarray]:
        """{room: the vectors of up to `per_room` of its drawers}, for comparing what rooms hold."""
        picked: dict[str, list[int]] = {}
        for room, rowid in self._db.execute("SELECT room, rowid FROM drawers ORDER BY room, rowid"):
            rowids = picked.setdefault(room, [])
            if len(rowids) < per_room:
                rowids.append(rowid)
        wanted = [r for rowids in picked.values() for r in rowids]
        vectors: dict[str, list[bytes]] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            for room, blob in self._db.execute(
                    f"SELECT room, vector FROM drawers WHERE vector IS NOT NULL AND rowid IN ({','.join('?' * len(chunk))})",
                    chunk):
                vectors.setdefault(room, []).append(blob)
        return {room: np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
                for room, blobs in vectors.items()}

    def room_samples(self, per_room: int, wings: tuple[str, ...] | None = None
                     ) -> dict[str, list[tuple[str, str, str, np.ndarray]]]:
        """{room: (wing, parent id, text, vector) of up to `per_room` of its drawers (in `wings`, when
        given), first filed first}: each room's first drawers from its index in filing order (a
        window over every drawer of a million read them all: 1.2 s)."""
        found: dict[str, list[tuple[str, str, str, np.ndarray]]] = {}
        sql, args = where_clause({"wing": wings})
        rooms = [room for (room,) in self._db.execute("SELECT DISTINCT room FROM room_counts ORDER BY room")]
        for room in rooms:
            rows = self._db.execute(f"SELECT wing, parent_id, content, vector FROM drawers d"
                                    f" WHERE room = ? AND {sql} ORDER BY {FILING_ORDER} LIMIT ?", (room, *args, per_room))
            picked = [(wing, parent, content, np.frombuffer(blob, dtype=np.float32))
                      for wing, parent, content, blob in rows if blob is not None]
            if picked:
                found[room] = picked
        return found

    def wing_vectors(self, per_wing: int) -> dict[str, np.ndarray]:
        """{wing: the vectors of about `per_wing` of its drawers, spread over it by a hash of their row
        (a wing's every k-th drawer in filing order meant counting through a million index entries)}."""
        counts = dict(self._db.execute("SELECT wing, SUM(n) FROM room_counts GROUP BY wing").fetchall())
        found: dict[str, np.ndarray] = {}
        for wing, total in counts.items():
            step = max(1, -(-int(total) // per_wing))
            blobs = [blob for (blob,) in self._db.execute(
                "SELECT vector FROM drawers WHERE wing = ? AND vector IS NOT NULL"
                f" AND {_SPREAD} % ? = 0 ORDER BY rowid", (wing, step))]
            if blobs:
                found[wing] = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
        return found

    def sample_vectors(self, size: int) -> np.ndarray:
        """The vectors of up to `size` drawers spread evenly over the table (the same ones until it
        changes): what a query scores against drawers picked without regard to it."""
        top = self._db.execute("SELECT max(rowid) FROM drawers").fetchone()[0] or 0
        step = max(1, top // size)
        wanted = list(range(step, top + 1, step))[:size]
        blobs: list[bytes] = []
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            blobs += [b for (b,) in self._db.execute(
                f"SELECT vector FROM drawers WHERE vector IS NOT NULL AND rowid IN ({','.join('?' * len(chunk))})",
                chunk)]
        if not blobs:
            return np.zeros((0, 0), dtype=np.float32)
        return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
