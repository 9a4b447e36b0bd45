"""The text table of ``ctxviewer list``: by default the columns a user needs first, fitted to a
100-column terminal; ``--wide`` every trace-list column in full.

The default columns are the window's default trace list plus the model (:data:`NARROW_KEYS`):
time, trace id, model, retained / omitted, state. When a row would be wider than
:data:`WIDTH` display columns, the trace id (elided in the middle, so an OTel id's span part
stays visible, as the window does) and the model (elided at the end) give up room, the model
first, down to :data:`MIN_WIDTH` each; an elided cell ends or breaks with "…". Widths are display
columns (``wcwidth``: a CJK character takes two), the same measure tabulate aligns by. The cells
are the core's words (:func:`ctxviewer.present.columns.row_texts`), as ``--wide`` and the window
show them. ``list --json`` is untouched.
"""

from __future__ import annotations

from typing import Any, Sequence

from tabulate import tabulate
from wcwidth import wcswidth, wcwidth

from ctxviewer.present.columns import TRACE_COLUMNS, row_texts

WIDTH = 100
"""Display columns the default table fits in (a common terminal width)."""
NARROW_KEYS: tuple[str, ...] = ("created", "trace_id", "model", "retained_omitted", "state")
"""Columns of the default table, in :data:`~ctxviewer.present.columns.TRACE_COLUMNS` order."""
ELASTIC: dict[str, str] = {"model": "end", "trace_id": "middle"}
"""Columns that give up room when the table is too wide, in the order they give it up (the model
first: the trace id is what ``show`` takes), and where each is elided."""
MIN_WIDTH = 12
"""An elastic column is never cut below this many display columns (or its header)."""
GAP = 2
"""Spaces between two columns (tabulate's ``simple`` format)."""
HEADER_PAD = 2
"""tabulate makes a column at least its header plus this wide (its ``MIN_PADDING``)."""
ELLIPSIS = "…"


def text_width(text: str) -> int:
    """Display columns of ``text`` in a terminal (``wcwidth.wcswidth``; a character it cannot
    measure counts as one column)."""
    width = wcswidth(text)
    return width if width >= 0 else sum(max(wcwidth(ch), 1) for ch in text)


def _take(text: str, width: int, from_end: bool = False) -> str:
    """The longest start (or end) of ``text`` at most ``width`` display columns wide."""
    out: list[str] = []
    used = 0
    for ch in reversed(text) if from_end else text:
        w = max(wcwidth(ch), 0)
        if used + w > width:
            break
        out.append(ch)
        used += w
    return "".join(reversed(out) if from_end else out)


def elide(text: str, width: int, where: str = "end") -> str:
    """``text`` cut to at most ``width`` display columns with :data:`ELLIPSIS` marking the cut:
    at the end (``"gpt-4o-mini-2…"``) or in the ``"middle"`` (``"7e1c0b5a…00000000000000b7"``);
    unchanged when it fits."""
    if text_width(text) <= width:
        return text
    room = max(width - 1, 0)
    if where == "middle":
        tail = _take(text, room // 2 + room % 2, from_end=True)
        return _take(text, room - text_width(tail)) + ELLIPSIS + tail
    return _take(text, room) + ELLIPSIS


def list_table(rows: Sequence[Any], current: str | None, *, wide: bool = False) -> str:
    """The ``list`` table of ``rows`` (store rows) in the context fingerprint ``current`` (stale
    rows marked, :func:`~ctxviewer.present.columns.row_texts`): every column with ``wide``, else
    :data:`NARROW_KEYS` fitted to :data:`WIDTH` display columns (module docstring)."""
    keys = [c.key for c in TRACE_COLUMNS]
    picked = list(range(len(keys))) if wide else [keys.index(k) for k in NARROW_KEYS]
    columns = [TRACE_COLUMNS[i] for i in picked]
    cells = [[texts[i] for i in picked] for texts in (row_texts(r, current) for r in rows)]
    if not wide:
        _fit(cells, [c.key for c in columns], [c.title for c in columns])
    return tabulate(cells, headers=[c.title for c in columns],
                    colalign=["right" if c.numeric else "left" for c in columns],
                    tablefmt="simple", disable_numparse=True)


def _fit(cells: list[list[str]], keys: list[str], titles: list[str]) -> None:
    """Elide the elastic columns of ``cells`` in place until a row fits :data:`WIDTH`."""
    widths = [max([text_width(t) + HEADER_PAD] + [text_width(row[j]) for row in cells]) for j, t in enumerate(titles)]
    over = sum(widths) + GAP * (len(widths) - 1) - WIDTH
    elastic = [j for j, k in enumerate(keys) if k in ELASTIC]
    floor = {j: max(MIN_WIDTH, text_width(titles[j]) + HEADER_PAD) for j in elastic}
    for j in sorted(elastic, key=lambda j: list(ELASTIC).index(keys[j])):  # the model gives way first
        step = max(min(over, widths[j] - floor[j]), 0)
        widths[j] -= step
        over -= step
    for j in elastic:
        for row in cells:
            row[j] = elide(row[j], widths[j], ELASTIC[keys[j]])
