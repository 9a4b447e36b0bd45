"""ContentView: plain text only, pygments spans painted at the right UTF-16 places."""

from __future__ import annotations

from PySide6.QtGui import QTextCursor

from ctxviewer.gui.content_view import ContentView


def formats_at(view: ContentView, block_no: int) -> list[tuple[int, int, str]]:
    block = view.document().findBlockByNumber(block_no)
    return [(r.start, r.length, r.format.foreground().color().name()) for r in block.layout().formats()]


def test_json_shown_plain_with_spans(qtbot) -> None:
    view = ContentView()
    qtbot.addWidget(view)
    text = '{\n  "refund": true,\n  "amount": 120\n}'
    view.set_content(text)
    assert view.toPlainText() == text
    assert view.isReadOnly()
    spans = view.spans()
    assert any(text[s : s + n] == '"refund"' and t == "Name.Tag" for s, n, t in spans)
    # block 1 is '  "refund": true,'; the key is at 2..10 in that block and painted
    fmts = formats_at(view, 1)
    assert (2, 8, "#1d4ed8") in fmts


def test_markup_stays_literal_text(qtbot) -> None:
    view = ContentView()
    qtbot.addWidget(view)
    view.set_content("<b>not bold</b> <script>alert(1)</script>")
    assert view.toPlainText() == "<b>not bold</b> <script>alert(1)</script>"
    cursor = QTextCursor(view.document())
    cursor.setPosition(5)
    assert not cursor.charFormat().font().bold()
    assert view.spans() == []


def test_emoji_before_span_shifts_qt_offsets(qtbot) -> None:
    view = ContentView()
    qtbot.addWidget(view)
    text = '["😀", {"a": 1}]'
    view.set_content(text)
    spans = {t: (s, n) for s, n, t in view.spans()}
    s, n = spans["Name.Tag"]
    assert (s, n) == (text.index('"a"') + 1, 3)  # one extra UTF-16 unit for the emoji
    assert view.toPlainText()[text.index('"a"') : text.index('"a"') + 3] == '"a"'
    assert (s, 3, "#1d4ed8") in formats_at(view, 0)


def test_none_and_crlf(qtbot) -> None:
    view = ContentView()
    qtbot.addWidget(view)
    view.set_content(None)
    assert view.toPlainText() == "" and "not recorded" in view.placeholderText()
    view.set_content('{"a":\r\n 1}')
    assert view.toPlainText() == '{"a":\n 1}'
    assert formats_at(view, 1)  # the number on the second line is painted
