"""Dates written the local way in a transcript's date header: `2025年3月1日` (Chinese, Japanese),
`1 de marzo de 2025` (Spanish), `1 марта 2025` (Russian), `1. März 2025` (German), `1er mars 2025`
(French), and the header's own name in those languages (`日期`, `日付`, `Fecha`, `Дата`, `Datum`).

A table of month names per language, not a date library: the header says a whole date, so no
relative reading (and no clock or locale) is needed, and the result is the same on every machine.
"""

from __future__ import annotations

import re

HEADER_NAMES = frozenset({"date", "datum", "fecha", "дата", "日期", "日付"})
HEADER = re.compile(r"^(?:date|datum|fecha|дата|日期|日付)[ \t]*[:：][ \t]*(?P<value>[^\n]+)", re.I | re.M)

_MONTH_NAMES = (  # January to December; several spellings of a month share its number
    "enero janvier januar jänner января январь",
    "febrero février fevrier februar февраля февраль",
    "marzo mars märz maerz марта март",
    "abril avril april апреля апрель",
    "mayo mai мая май",
    "junio juin juni июня июнь",
    "julio juillet juli июля июль",
    "agosto août aout august августа август",
    "septiembre setiembre septembre september сентября сентябрь",
    "octubre octobre oktober октября октябрь",
    "noviembre novembre november ноября ноябрь",
    "diciembre décembre decembre dezember декабря декабрь",
)
MONTHS = {name: number for number, names in enumerate(_MONTH_NAMES, start=1) for name in names.split()}
_CJK_DATE = re.compile(r"(?P<year>\d{4})\s*年\s*(?P<month>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*[日号號]?")
_DAY_MONTH_YEAR = re.compile(
    r"(?<!\d)(?P<day>\d{1,2})(?:er|\.|º|°)?\s+(?:de\s+)?(?P<month>[^\W\d_]+)\.?,?\s+(?:de\s+|del\s+)?(?P<year>\d{4})")


def local_date(value: str) -> tuple[int, int, int] | None:
    """(year, month, day) of the first local date written in `value`, or None (unchecked: 31 February
    reads, the caller refuses it)."""
    if found := _CJK_DATE.search(value):
        return int(found["year"]), int(found["month"]), int(found["day"])
    for found in _DAY_MONTH_YEAR.finditer(value):
        if (month := MONTHS.get(found["month"].lower())) is not None:
            return int(found["year"]), month, int(found["day"])
    return None
