"""Table 3.1 of the reference chapter as data: observed failure -> first evidence -> typical repair.

The words live in ``ctxviewer/resources/table_3_1.json`` (editable, translatable); checks that
report an instance of a row take its ``first_evidence`` and ``repair`` from here. No Qt here.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

from ctxviewer.util import assets


@dataclass(frozen=True)
class TableRow:
    """One row of Table 3.1."""

    row: int
    """1-based row number."""
    failure: str
    """The observed failure, e.g. ``"Correct policy omitted"``."""
    first_evidence: str
    """The first evidence to inspect, e.g. ``"Policy loader and version pin"``."""
    repair: str
    """The typical repair."""


@functools.cache
def rows() -> tuple[TableRow, ...]:
    """All rows in table order. Raises ``FileNotFoundError`` / ``ValueError`` if the data file is
    missing or malformed (a packaging error)."""
    data = json.loads(assets.read_text("table_3_1.json"))
    return tuple(TableRow(**r) for r in data["rows"])


def row(number: int) -> TableRow:
    """Row ``number`` (1-based). Raises ``KeyError`` for a row the table does not have."""
    for r in rows():
        if r.row == number:
            return r
    raise KeyError(number)
