"""Cursor `state.vscdb` stores for tests, built from the JSON fixtures in tests/data/formats/cursor/."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "formats" / "cursor"


def fixture(name: str) -> dict[str, dict[str, Any]]:
    """A fixture's tables: {table: {key: JSON value}}."""
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def build(path: Path, tables: dict[str, dict[str, Any]], wal: bool = False) -> Path:
    """An SQLite store shaped as Cursor's: ItemTable values as TEXT, cursorDiskKV values as BLOBs."""
    con = sqlite3.connect(path)
    if wal:
        con.execute("PRAGMA journal_mode=WAL")
    for table, rows in tables.items():
        con.execute(f"CREATE TABLE {table} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        for key, value in rows.items():
            text = json.dumps(value, ensure_ascii=False)
            con.execute(f"INSERT INTO {table} (key, value) VALUES (?, ?)",
                        (key, text.encode("utf-8") if table == "cursorDiskKV" else text))
    con.commit()
    con.close()
    return path
