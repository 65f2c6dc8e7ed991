"""Drawers as portable JSON Lines: one drawer per line (id, text, place, hall, dates, all its metadata,
and optionally its vector with the embedder that made it), which another palace, or one with another
embedder, imports. A line's top-level place wins over its metadata's (a hand-edited file)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from ..catalog.sync import UNSORTED_WING
from ..errors import InvalidInputError
from ..store.chroma import SEQ_KEY, Record
from ..text.names import hall_name, room_slug, wing_name

BATCH = 1_000
PLACE = ("wing", "room", "hall", "source_file", "filed_at")


@dataclass(frozen=True)
class ImportReport:
    """What an import did: drawers added, already present (same id, left as they are), and embedded anew."""

    added: int
    present: int
    embedded: int


def export_lines(palace: Any, out: TextIO, wing: str | None = None, room: str | None = None,
                 vectors: bool = False) -> int:
    """Write the palace's drawers (of `wing`, `room`) to `out`, one JSON object per line; returns how many."""
    written = 0
    for page in palace.all_records():
        for r in page:
            meta = {k: v for k, v in r.metadata.items() if k != SEQ_KEY}
            if (wing and meta.get("wing") != wing) or (room and meta.get("room") != room):
                continue
            line: dict[str, Any] = {"id": r.id, "content": r.document, **{k: meta.get(k) for k in PLACE},
                                    "conversation_date": meta.get("conversation_date"), "metadata": meta}
            if vectors:
                line |= {"embedder": palace.settings.embedder, "vector": [float(x) for x in r.embedding]}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            written += 1
    return written


def read_lines(lines: Iterable[str], wing: str | None = None) -> list[tuple[str, Record]]:
    """Every line as (embedder, record), checked before anything is filed: a bad line is an error naming it."""
    found = []
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
            if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not isinstance(row.get("content"), str):
                raise ValueError("it needs an \"id\" and a \"content\" string")
            if row["id"] != row["id"].strip() or not row["id"] or len(row["id"]) > 512:
                raise ValueError("its id is empty, too long, or starts or ends with a space")
            meta = dict(row.get("metadata") or {})
            meta.update({k: row[k] for k in PLACE if row.get(k) is not None})
            meta["wing"] = wing_name(wing or meta.get("wing") or UNSORTED_WING)
            meta["room"] = room_slug(meta.get("room") or "general")
            if meta.get("hall"):
                meta["hall"] = hall_name(meta["hall"])
            meta = {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool)) and k != SEQ_KEY
                    and not k.startswith("chroma:") and (not isinstance(v, float) or math.isfinite(v))}
            vector = row.get("vector")
            found.append((str(row.get("embedder") or ""), Record(row["id"], row["content"], meta,
                                                                 _vector(vector) if vector is not None else None)))
        except (ValueError, TypeError, InvalidInputError) as exc:
            raise InvalidInputError(f"Line {number} is not a drawer: {exc}. Nothing was imported.") from None
    return found


def _vector(value: Any) -> Any:
    import numpy as np

    vector = np.asarray(value, dtype=np.float32)
    if vector.ndim != 1 or not len(vector) or not np.isfinite(vector).all():
        raise ValueError("its vector is not a list of finite numbers")
    return vector


def import_lines(palace: Any, lines: Iterable[str], wing: str | None = None) -> ImportReport:
    """File the drawers of `lines` exactly as written; ids already in the palace are left alone, and
    vectors of another embedder (or of another width, or none) are made anew."""
    rows = read_lines(lines, wing)
    present = set(palace.find_drawers([r.id for _, r in rows]))
    fresh = [(e, r) for e, r in {r.id: (e, r) for e, r in rows}.values() if r.id not in present]
    width = palace.embed(["width"]).shape[1]
    fresh = [(e, r) if e == palace.settings.embedder and r.embedding is not None and r.embedding.shape == (width,)
             else ("", Record(r.id, r.document, r.metadata)) for e, r in fresh]
    for start in range(0, len(fresh), BATCH):
        palace.put_records(fresh[start : start + BATCH])
    return ImportReport(len(fresh), len(present), sum(1 for e, _ in fresh if not e))
