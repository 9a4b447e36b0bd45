"""The preview of a huge item (util.large_text): what a 408,000-character prompt shows first."""

from __future__ import annotations

from ctxviewer.util.large_text import LINE_LIMIT, SHOW_LIMIT, preview


def test_a_short_first_line_then_a_huge_one_shows_the_start_of_the_huge_one() -> None:
    """A new user's 408,011-character "Summarise:\\n<one long line>" showed "Summarise:" alone (10
    characters): the cut was the last line break before the limit. It is where the long line
    reaches LINE_LIMIT: the first line whole, then 4,000 characters of the second."""
    text = "Summarise:\n" + "word " * 81_400
    p = preview(text)
    assert len(p.text) == 11 + LINE_LIMIT == 4_011
    assert p.text.startswith("Summarise:\nword word")
    assert p.notice == "Large item: 397.5 KB, text, 407,011 characters; showing the first 4,011 characters"


def test_many_short_lines_are_cut_at_a_line_break_and_a_small_text_is_whole() -> None:
    lines = "".join(f"line {i:06d}\n" for i in range(30_000))  # 12 characters each: 360,000
    p = preview(lines)
    assert len(p.text) == SHOW_LIMIT // 12 * 12 - 1 and p.text.endswith("line 016665")
    assert preview("Summarise:\nshort").notice is None
