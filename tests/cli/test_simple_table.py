"""``ctxviewer list``'s table layout (:mod:`ctxviewer.cli.simple_table`) is tabulate's ``simple``
format byte for byte (issue 25: ``list`` no longer imports tabulate): any cells, headers and
alignments, wide (CJK) and zero-width characters, blanks around cells, empty tables; cells only
tabulate lays out (escapes, line breaks) are handed to it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tabulate import tabulate

from ctxviewer.cli.simple_table import Widths, fast_path, header_lines, row_line, simple_table, wcswidth

CELL = st.lists(st.sampled_from([*"ab Z09-_./…—·中文é😀", "e\u0301", "\u200b"]), max_size=12).map("".join)


def _tabulate(rows: list[list[str]], headers: list[str], right: list[bool]) -> str:
    return tabulate(rows, headers=headers, colalign=["right" if r else "left" for r in right],
                    tablefmt="simple", disable_numparse=True)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(CELL.filter(lambda h: h.strip() != ""), min_size=n, max_size=n),
    st.lists(st.lists(CELL, min_size=n, max_size=n), max_size=6),
    st.lists(st.booleans(), min_size=n, max_size=n))))
def test_the_table_is_tabulates(case: tuple[list[str], list[list[str]], list[bool]]) -> None:
    headers, rows, right = case
    assert simple_table(rows, headers, right) == _tabulate(rows, headers, right)


def test_rows_one_at_a_time_make_the_same_lines() -> None:
    headers, right = ["Time (UTC)", "Trace id", "Retained / omitted"], [False, False, True]
    rows = [["2026-11-09 16:42:31", "budget-8k", "25 / 0"], ["2026-11-09 16:44:05", "中文-trace", "125 / 6"]]
    widths = Widths(headers)
    for r in rows:
        widths.add(r)
    lines = [*header_lines(widths, right), *(row_line(r, widths, right) for r in rows)]
    assert "\n".join(lines) == _tabulate(rows, headers, right)
    assert lines[3] == "2026-11-09 16:44:05  中文-trace               125 / 6"


def test_cells_tabulate_treats_specially_go_to_it() -> None:
    assert not fast_path("a\x1b[31mred") and not fast_path("two\nlines") and fast_path("中文 …")
    rows = [["a\x1b[31mred\x1b[0m", "x"], ["two\nlines", "y"]]
    assert simple_table(rows, ["A", "B"], [False, True]) == _tabulate(rows, ["A", "B"], [False, True])


def test_ascii_width_without_wcwidth_is_wcwidths() -> None:
    from wcwidth import wcswidth as real

    for text in ["", "plain", " x ", "tab\there", "del\x7f", "nul\x00", "~!@#$%^&*()"]:
        assert wcswidth(text) == real(text), text
