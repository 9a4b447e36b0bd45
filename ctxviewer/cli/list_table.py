"""The text table of ``ctxviewer list``: by default the columns a user needs first, fitted to a
100-column terminal; ``--wide`` every trace-list column in full.

The default columns are the window's default trace list plus the model (:data:`NARROW_KEYS`):
time, trace id, model, retained / omitted, state. When a row would be wider than
:data:`WIDTH` display columns, the trace id (elided in the middle, so an OTel id's span part
stays visible, as the window does) and the model (elided at the end) give up room, the model
first, down to :data:`MIN_WIDTH` each; an elided cell ends or breaks with "…". Widths are display
columns (``wcwidth``: a CJK character takes two), the same measure tabulate aligns by. The cells
are the core's words (:func:`ctxviewer.present.columns.row_texts`), as ``--wide`` and the window
show them. ``list --json`` is untouched. The table is tabulate's ``simple`` format, laid out by
:mod:`ctxviewer.cli.simple_table` one row at a time (:func:`list_lines`).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Sequence

from ctxviewer.cli.cells import elide, text_width
from ctxviewer.cli.simple_table import MIN_PADDING, Widths, header_lines, row_line, simple_table, wcswidth
from ctxviewer.present.columns import TRACE_COLUMNS, Column, row_texts

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


def _columns(wide: bool) -> list[Column[Any]]:
    keys = [c.key for c in TRACE_COLUMNS]
    picked = list(range(len(keys))) if wide else [keys.index(k) for k in NARROW_KEYS]
    return [TRACE_COLUMNS[i] for i in picked]


def list_table(rows: Sequence[Any], current: str | None, *, wide: bool = False) -> str:
    """The ``list`` table of ``rows`` (store rows) in the context fingerprint ``current`` (stale
    rows marked, :func:`~ctxviewer.present.columns.row_texts`): every column with ``wide``, else
    :data:`NARROW_KEYS` fitted to :data:`WIDTH` display columns (module docstring)."""
    return "\n".join(list_lines(lambda: rows, current, wide=wide))


ODD_TEXTS = 4096
"""Distinct elastic cells that are not plain ASCII the measuring pass keeps; past this a table
takes one more pass over its rows to measure them elided."""


def list_lines(rows: Callable[[], Iterable[Any]], current: str | None, *, wide: bool = False) -> Iterator[str]:
    """The lines of :func:`list_table`, made one row at a time: ``rows()`` gives the rows afresh
    for each pass over them -- one measures every column (and what the elastic ones will be
    once elided), one prints -- so a table of a million rows never holds them. ``rows()`` must
    give the same rows each time (read them in one transaction)."""
    columns = _columns(wide)
    titles = [c.title for c in columns]
    right = [c.numeric for c in columns]
    elastic_at = [] if wide else [j for j, c in enumerate(columns) if c.key in ELASTIC]
    raw = [text_width(t) + HEADER_PAD for t in titles]
    measured = Widths(titles)  # every column as is: right for all but the elastic ones
    plain = dict.fromkeys(elastic_at, 0)  # an elastic column's widest plain-ASCII cell
    odd: dict[int, set[str]] = {j: set() for j in elastic_at}  # its other cells, to measure elided
    overflow = False
    for r in rows():
        texts = row_texts(r, current, columns)
        measured.add(texts)
        if not elastic_at:
            continue
        for j, t in enumerate(texts):
            raw[j] = max(raw[j], text_width(t))
        for j in elastic_at:
            t = texts[j]
            if t.isascii() and t.isprintable() and t == t.strip():
                plain[j] = max(plain[j], len(t))
            elif len(odd[j]) < ODD_TEXTS:
                odd[j].add(t)
            else:
                overflow = True
    cut = _fit_widths(raw, [c.key for c in columns], titles) if elastic_at else {}
    elastic = {j: ELASTIC[columns[j].key] for j in cut}

    def cells(r: Any) -> list[str]:
        texts = list(row_texts(r, current, columns))
        for j, where in elastic.items():
            texts[j] = elide(texts[j], cut[j], where)
        return texts

    widths = measured
    if overflow or not measured.exact:  # measure the elided cells in a pass of their own
        widths = Widths(titles)
        for r in rows():
            widths.add(cells(r))
    else:  # a plain-ASCII cell elided is as wide as the cut (or itself when it fits)
        for j in elastic:
            fitted = [min(plain[j], cut[j]), *(wcswidth(elide(t, cut[j], elastic[j]).strip()) for t in odd[j])]
            widths.widths[j] = max(wcswidth(titles[j]) + MIN_PADDING, *fitted)
    if not widths.exact:  # a cell only tabulate lays out right: the whole table, held
        yield simple_table([cells(r) for r in rows()], titles, right)
        return
    yield from header_lines(widths, right)
    for r in rows():
        yield row_line(cells(r), widths, right)


def _fit_widths(widths: list[int], keys: list[str], titles: list[str]) -> dict[int, int]:
    """The width each elastic column is elided to, from the columns' widest cells ``widths``
    (headers included), so that a row fits :data:`WIDTH`: the model gives way first."""
    widths = list(widths)
    over = sum(widths) + GAP * (len(widths) - 1) - WIDTH
    elastic = [j for j, k in enumerate(keys) if k in ELASTIC]
    floor = {j: max(MIN_WIDTH, text_width(titles[j]) + HEADER_PAD) for j in elastic}
    for j in sorted(elastic, key=lambda j: list(ELASTIC).index(keys[j])):  # the model gives way first
        step = max(min(over, widths[j] - floor[j]), 0)
        widths[j] -= step
        over -= step
    return {j: widths[j] for j in elastic}
