"""Word-level text diff (issue 8): changed words, spans in code points, long texts by line blocks."""

from __future__ import annotations

from ctxviewer.diff import word_diff, words


def test_changed_words_and_spans() -> None:
    a = "Refunds above $50 require supervisor approval."
    b = "Refunds above $80 require a manager's approval."
    wd = word_diff(a, b)
    assert [(s.op, s.text) for s in wd.segments if s.op != "equal"] == [
        ("delete", "50"), ("insert", "80"), ("delete", "supervisor"), ("insert", "a manager's")]
    assert [a[s:e] for s, e in wd.spans_a] == ["50", "supervisor"]
    assert [b[s:e] for s, e in wd.spans_b] == ["80", "a manager's"]
    assert (wd.words_deleted, wd.words_inserted) == (2, 4)
    assert wd.text_a() == a and wd.text_b() == b


def test_emoji_offsets_are_code_points() -> None:
    wd = word_diff("ok 👍 done", "ok 👎 done")
    assert wd.spans_a == ((3, 4),) and wd.spans_b == ((3, 4),)


def test_equal_and_none() -> None:
    assert not word_diff("same", "same").changed
    wd = word_diff(None, "new text")
    assert wd.spans_b == ((0, 8),) and wd.spans_a == ()


def test_long_texts_line_blocks(monkeypatch) -> None:
    monkeypatch.setattr(words, "WORD_LEVEL_MAX_TOKENS", 50)
    lines = [f"line {n} says something about order {n}.\n" for n in range(40)]
    a = "".join(lines)
    lines[20] = "line 20 says nothing about order 20.\n"
    b = "".join(lines)
    wd = word_diff(a, b)
    assert [(s.op, s.text) for s in wd.segments if s.op != "equal"] == [("delete", "something"), ("insert", "nothing")]
    assert wd.text_a() == a and wd.text_b() == b


def test_cancel_keeps_result_consistent(monkeypatch) -> None:
    monkeypatch.setattr(words, "WORD_LEVEL_MAX_TOKENS", 50)
    a = "".join(f"a line {n}\n" for n in range(100))
    b = "".join(f"b line {n}\n" for n in range(100))
    wd = word_diff(a, b, cancelled=lambda: True)
    assert wd.text_a() == a and wd.text_b() == b
    assert [s.op for s in wd.segments] == ["delete", "insert"]
