"""The user's marks on traces: the failure they observed (a Table 3.1 row) and the document the
answer needed. Stored beside the trace database, never in it.

The marks of ``traces.db`` live in ``traces.db.marks.json`` (:func:`marks_path`)::

    {"format": "ctxviewer.marks/1",
     "traces": {"evidence-in-middle": {"row": 3, "needed": ["KB-1008#p1"]}}}

so the database can stay read-only and shared while each engineer keeps their own reading of it.
A mark's ``row`` makes the findings panel lead with that row's first evidence
(:func:`lead_with`); ``needed`` makes those evidence items the needed documents of Table 3.1
row 3 (:func:`config_for_db`). No Qt here.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from ctxviewer.assess.config import CheckConfig, load_for_db

if TYPE_CHECKING:
    from ctxviewer.model.findings import Finding

FORMAT = "ctxviewer.marks/1"
"""Format tag written into every marks file."""


@dataclass(frozen=True)
class Mark:
    """What the user marked on one trace."""

    row: int | None = None
    """The Table 3.1 row (1-based) of the failure the user observed; ``None`` if not marked."""
    needed: tuple[str, ...] = ()
    """Evidence item ids the user marked as the document the answer needed."""


def marks_path(db_path: Path | str) -> Path:
    """``<db>.marks.json`` beside the database file."""
    p = Path(db_path)
    return p.with_name(p.name + ".marks.json")


def load_marks(db_path: Path | str) -> dict[str, Mark]:
    """Trace id -> :class:`Mark` for the database at ``db_path``; empty when there is no file.

    Raises ``ValueError`` naming the file and the trace when the file is not a marks file."""
    path = marks_path(db_path)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a marks file: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("traces"), dict):
        raise ValueError(f"{path}: not a marks file (expected format {FORMAT!r})")
    out: dict[str, Mark] = {}
    for tid, m in data["traces"].items():
        r, needed = (m or {}).get("row"), (m or {}).get("needed", [])
        if (r is not None and not isinstance(r, int)) or not isinstance(needed, list):
            raise ValueError(f"{path}: traces.{tid}: row must be a number and needed a list of item ids")
        from ctxviewer.model import table31  # only for a marked row: `list` reads the marks file too

        numbers = [t.row for t in table31.rows()]
        if r is not None and r not in numbers:  # a mark no check can read: said, as a broken file is (new-user N14)
            raise ValueError(f"{path}: traces.{tid}: row {r} is not a Table 3.1 row ({numbers[0]}-{numbers[-1]})")
        out[str(tid)] = Mark(r, tuple(str(n) for n in needed))
    return out


def save_marks(db_path: Path | str, marks: Mapping[str, Mark]) -> Path:
    """Write ``marks`` beside the database (atomically: a temporary file renamed over it).
    Empty marks are dropped. Returns the path. Raises ``OSError`` when it cannot be written."""
    path = marks_path(db_path)
    traces = {tid: {"row": m.row, "needed": list(m.needed)} for tid, m in sorted(marks.items())
              if m.row is not None or m.needed}
    text = json.dumps({"format": FORMAT, "traces": traces}, indent=1, ensure_ascii=False) + "\n"
    from ctxviewer.util.new_file import create_unique

    tmp = create_unique(path.parent, path.name)  # the umask's mode, as the file it replaces had
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def set_mark(db_path: Path | str, trace_id: str, mark: Mark) -> Path:
    """Store ``mark`` for ``trace_id`` (an empty :class:`Mark` removes it). Returns the file.
    Raises ``KeyError`` for a row Table 3.1 does not have."""
    from ctxviewer.model.table31 import row as table_row

    if mark.row is not None:
        table_row(mark.row)
    marks = load_marks(db_path)
    marks[trace_id] = mark
    return save_marks(db_path, marks)


def config_for_db(db_path: Path | str) -> CheckConfig:
    """The check config of a database: ``ctxviewer.toml`` beside it plus the user's needed marks."""
    marks = load_marks(db_path)
    cfg = load_for_db(Path(db_path))
    return cfg.with_needed({tid: m.needed for tid, m in marks.items() if m.needed})


def lead_with(findings: tuple[Finding, ...] | list[Finding], row: int | None) -> tuple[Finding, ...]:
    """``findings`` with the instances of Table 3.1 row ``row`` first (order kept otherwise)."""
    if row is None:
        return tuple(findings)
    return tuple(sorted(findings, key=lambda f: f.table_row != row))
