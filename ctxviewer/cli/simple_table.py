"""tabulate's ``simple`` table, written here so ``ctxviewer list`` neither imports tabulate (about
40 ms a run) nor holds every row to print one: the column widths are measured in one pass over
the rows and the lines are made one row at a time in a second.

The lines are those of ``tabulate(cells, headers, colalign=..., tablefmt="simple",
disable_numparse=True)``: a column is as wide as its widest cell or its header plus
:data:`MIN_PADDING`, cells stripped of surrounding blanks and padded left or right, columns
joined by two spaces, every line right-stripped; the header row, then a row of ``-``. Widths are
display columns (``wcwidth.wcswidth``), as tabulate measures them when wcwidth is installed. A
cell that tabulate would treat specially -- an ANSI escape, a line break, a character wcwidth
cannot measure -- makes :func:`fast_path` refuse the table, and the caller gives it to tabulate
(``tests/cli/test_simple_table.py`` holds both to the same bytes). No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def wcswidth(text: str) -> int:
    """``wcwidth.wcswidth(text)``: printable ASCII (and :data:`ELLIPSIS`) is one column a character
    without importing wcwidth (its tables take about 14 ms to load); anything else asks wcwidth."""
    if text.replace(ELLIPSIS, "").isascii() and text.isprintable():
        return len(text)  # "…" (U+2026, an elided cell's mark) is one column too
    from wcwidth import wcswidth as measure

    return int(measure(text))

MIN_PADDING = 2
"""tabulate's ``MIN_PADDING``: a column is at least its header plus this wide."""
GAP = "  "
"""Between two columns (tabulate ``simple``)."""
ELLIPSIS = "\u2026"
"""The mark of an elided cell: one display column (wcwidth's answer too)."""
_SPECIAL = ("\x1b", "\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def fast_path(text: str) -> bool:
    """True when ``text`` is a cell this module lays out exactly as tabulate does: no escape
    sequence, no line break, every character measurable by wcwidth."""
    if text.isascii() and text.isprintable():
        return True  # printable ASCII holds none of _SPECIAL and is one column a character
    return not any(c in text for c in _SPECIAL) and wcswidth(text.strip()) >= 0


class Widths:
    """Column widths of a table, grown row by row (:meth:`add`), in display columns."""

    def __init__(self, headers: Sequence[str]) -> None:
        """Start from the headers (each at least its width plus :data:`MIN_PADDING`)."""
        self.headers = list(headers)
        self.widths = [wcswidth(h) + MIN_PADDING for h in headers]
        self.exact = all(fast_path(h) for h in headers)
        """False once a header or cell needs tabulate (:func:`fast_path`)."""
        self.rows = 0
        """Rows added."""

    def add(self, cells: Sequence[str]) -> None:
        """Widen the columns for one row of cells."""
        self.rows += 1
        widths = self.widths
        for j, cell in enumerate(cells):
            if cell.isascii() and cell.isprintable():  # the common cell: its length is its width
                w = len(cell.strip())
            elif fast_path(cell):
                w = wcswidth(cell.strip())
            else:
                self.exact = False
                return
            if w > widths[j]:
                widths[j] = w


def _pad(text: str, width: int, right: bool) -> str:
    if text.isascii() and text.isprintable():
        return text.rjust(width) if right else text.ljust(width)
    fill = " " * max(width - wcswidth(text), 0)
    return fill + text if right else text + fill


def header_lines(widths: Widths, right: Sequence[bool]) -> list[str]:
    """The header row and the ``-`` rule under it (with no row, tabulate left-aligns every header)."""
    right = right if widths.rows else [False] * len(right)
    head = GAP.join(_pad(h, w, r) for h, w, r in zip(widths.headers, widths.widths, right)).rstrip()
    return [head, GAP.join("-" * w for w in widths.widths).rstrip()]


def row_line(cells: Sequence[str], widths: Widths, right: Sequence[bool]) -> str:
    """One data row, every cell stripped and padded to its column (``widths`` measured over every
    row printed with it, all :func:`fast_path`)."""
    return GAP.join(_pad(c.strip(), w, r) for c, w, r in zip(cells, widths.widths, right)).rstrip()


def simple_table(rows: Iterable[Sequence[str]], headers: Sequence[str], right: Sequence[bool]) -> str:
    """The whole table of ``rows`` as one string (lines joined by ``\\n``), tabulate's bytes;
    ``right[j]`` right-aligns column ``j``. Rows held in memory: for a table too long to hold,
    measure with :class:`Widths` and print :func:`row_line` per row."""
    rows = [list(r) for r in rows]
    widths = Widths(headers)
    for r in rows:
        widths.add(r)
    if not widths.exact:
        from tabulate import tabulate

        return tabulate(rows, headers=list(headers), colalign=["right" if r else "left" for r in right],
                        tablefmt="simple", disable_numparse=True)
    return "\n".join([*header_lines(widths, right), *(row_line(r, widths, right) for r in rows)])
