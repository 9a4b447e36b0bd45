"""Rendered messages, still inert: the document is built from typed blocks with plain-text inserts,
holds no anchor, loads no resource (nothing fetched), shows data-URL images as locally decoded
thumbnails and bad ones as labelled placeholders; the window switches Rendered / Raw (Ctrl+Alt+M,
remembered) and real corpus traces show their tool calls, results and image."""

from __future__ import annotations

import base64
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument
from PySide6.QtNetwork import QNetworkAccessManager

from ctxviewer.gui.block_document import IMAGE_SCHEME, THUMB_SIDE, InertDocument
from ctxviewer.gui.diagnostics_tabs import CONVERSATION
from ctxviewer.gui.message_pane import MARKED_NOTE, RAW, RENDERED, SETTINGS_KEY
from ctxviewer.gui.rendered_view import RenderedView
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
IMAGE_TRACE = "msg_01DijAsAzrH5wFcik1mPQjPn"
TOOLS_TRACE = "chatcmpl-DD5NFnwbig885vzBzWKxq6GtDvWda"


def png_base64(width: int, height: int) -> str:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#2563eb"))
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buf, "PNG")
    return base64.b64encode(bytes(data.data())).decode()


def fragments(doc: QTextDocument) -> list:  # type: ignore[type-arg]
    """Every text fragment's char format in ``doc`` (table cells included)."""
    out = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            out.append(it.fragment().charFormat())
            it += 1
        block = block.next()
    return out


def image_names(doc: QTextDocument) -> list[str]:
    return [f.toImageFormat().name() for f in fragments(doc) if f.isImageFormat()]


def shown(qtbot, view: RenderedView) -> None:  # type: ignore[no-untyped-def]
    view.resize(500, 600)
    view.show()
    qtbot.waitExposed(view)
    view.grab()  # lays out and paints the whole document: any resource it wanted would be asked for now


def test_no_anchor_no_fetch_and_hostile_text_visible(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = RenderedView()
    qtbot.addWidget(view)
    view.set_message('# Hi\n\n[docs](https://e.com/a) <img src="http://evil.example/x.png"> '
                     "![cat](http://evil.example/cat.png) <a href='http://e.com'>x</a> ev\u202eil zero\u200bwidth\x00")
    shown(qtbot, view)
    doc = view.document()
    assert isinstance(doc, InertDocument)
    assert [f for f in fragments(doc) if f.isAnchor() or f.anchorHref() or f.anchorNames()] == []
    assert image_names(doc) == []  # the remote image is a placeholder, never an image reference
    assert doc.refused == []  # the document never asked to load anything
    assert view.findChildren(QNetworkAccessManager) == []
    text = doc.toPlainText()
    assert "docs ⟨https://e.com/a⟩" in text
    assert '<img src="http://evil.example/x.png">' in text and "<a href='http://e.com'>x</a>" in text
    assert "[image “cat” not shown: remote image, not fetched: http://evil.example/cat.png]" in text
    assert "ev⟨RLO⟩il zero⟨ZWSP⟩width␀" in text and "\u202e" not in text and "\u200b" not in text
    # asked for a resource anyway, the document refuses and records it
    assert doc.resource(QTextDocument.ResourceType.ImageResource, QUrl("http://evil.example/x.png")) is None
    assert doc.refused == ["http://evil.example/x.png"]


def test_data_url_png_becomes_a_thumbnail_of_its_size(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = RenderedView()
    qtbot.addWidget(view)
    view.set_message(f"small ![s](data:image/png;base64,{png_base64(64, 32)})\n\n"
                     f"big ![b](data:image/png;base64,{png_base64(640, 320)})")
    shown(qtbot, view)
    doc = view.document()
    assert image_names(doc) == [f"{IMAGE_SCHEME}:1", f"{IMAGE_SCHEME}:2"]
    sizes = [doc.resource(QTextDocument.ResourceType.ImageResource, QUrl(n)).size().toTuple() for n in image_names(doc)]
    assert sizes == [(64, 32), (THUMB_SIDE, THUMB_SIDE // 2)]  # the big one scaled down while decoding
    assert doc.refused == []
    assert "[image “s”: image/png 64×32" in doc.toPlainText()


def test_garbage_and_huge_base64_give_placeholders_not_a_crash(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = RenderedView()
    qtbot.addWidget(view)
    not_image = base64.b64encode(b"hello, not an image").decode()
    huge = "A" * (12 * 1024 * 1024)
    view.set_message(f"![a](data:image/png;base64,{not_image})\n\n![b](data:image/png;base64,{huge})\n\n"
                     "![c](data:image/png;base64,@@@@)")
    shown(qtbot, view)
    text = view.document().toPlainText()
    assert image_names(view.document()) == []
    assert ("[image “a” not shown: image/png, 19 bytes (from a data: URL in the text); not shown: "
            "the data is not an image Qt can read]") in text
    assert "[image “b” not shown: image/png image of 9.0 MiB, over the 8.0 MiB shown: not decoded" in text
    assert "[image “c” not shown: image/png image whose data is not valid base64: not shown" in text


def _corpus_db(shared: Path, tmp_path: Path) -> Path:
    db = tmp_path / "corpus.db"
    with TraceStore.create(db) as store:
        report = import_files([shared / "corpus" / "provider-api" / p for p in (
            "anthropic/messages-image-input-base64.vcr.yaml", "openai/chat-completions-parallel-tool-calls.vcr.yaml")],
            store)
        assert report.problems == []
    return db


def test_corpus_image_and_tool_calls_rendered_in_the_window(qtbot, windows, shared: Path,  # type: ignore[no-untyped-def]
                                                            tmp_path: Path) -> None:
    w = windows.open(_corpus_db(shared, tmp_path))
    windows.select(w, IMAGE_TRACE)
    pane = w.panel.item_pane
    assert pane.stack.currentIndex() == RENDERED and pane.item is not None and pane.item.id == "msg-0"
    doc = w.panel.rendered.document()
    assert image_names(doc) == [f"{IMAGE_SCHEME}:1"]
    image = doc.resource(QTextDocument.ResourceType.ImageResource, QUrl(f"{IMAGE_SCHEME}:1"))
    assert image.size().toTuple() == (THUMB_SIDE, 148 * THUMB_SIDE // 228)  # the 228×148 image as a thumbnail
    assert "[image: image/png 228×148, 6.8 KiB (from the recorded request)]" in doc.toPlainText()
    assert w.panel.content.toPlainText().endswith("[image/png blob, 228×148, 9,240 bytes base64]")  # raw: as stored

    windows.select(w, TOOLS_TRACE)
    w.panel.tabs.widget.setCurrentIndex(CONVERSATION)
    conv = w.panel.rendered_conversation
    assert conv.isVisible()
    text = conv.document().toPlainText()
    assert text.startswith("1 · assistant · history msg-0 · 18 tokens\nTool call  get_weather   id call_62136355\n"
                           'arguments:\n{\n  "city": "New York"\n}\nTool call  get_population   id call_62136356\n')
    assert ('2 · tool · history (tool result) msg-1 · 13 tokens\nTool result  for get_weather (call call_62136355)\n'
            'result (JSON, re-indented):\n{\n  "city": "New York",\n  "weather": "fine"\n}') in text
    assert text.rstrip().endswith('Tool call  get_population   id call_ZfEORmbRGEJZ4b7dAuVSPnaf\narguments:\n{\n'
                                  '  "city": "San Francisco"\n}')  # the response's proposed calls close it
    assert conv.document().refused == []


def test_switch_rendered_raw_is_remembered_and_has_a_shortcut(qtbot, windows, settings) -> None:  # type: ignore[no-untyped-def]
    w = windows.open(SAMPLES)
    windows.select(w, "budget-8k")  # state ok: no finding marks its spans at once
    act = w.trace_actions.act_rendered
    assert act.shortcut().toString() == "Ctrl+Alt+M" and act.isChecked()
    pane = w.panel.item_pane
    assert pane.stack.currentIndex() == RENDERED
    act.trigger()
    assert pane.stack.currentIndex() == RAW and w.panel.conversation_pages.currentIndex() == RAW
    assert pane.switch.text() == "Raw" and not pane.switch.isChecked()
    assert settings.value(SETTINGS_KEY) in (False, "false")
    w2 = windows.open(SAMPLES)
    assert not w2.trace_actions.act_rendered.isChecked() and w2.panel.item_pane.stack.currentIndex() == RAW
    pane.switch.click()  # the pane's own button does the same
    assert act.isChecked() and pane.stack.currentIndex() == RENDERED


def test_a_marked_finding_shows_the_stored_text_raw(qtbot, windows) -> None:  # type: ignore[no-untyped-def]
    w = windows.open(SAMPLES)
    windows.select(w, "ticket-injection")
    f = w.panel.tabs.findings.model.finding(w.panel.tabs.findings.model.first_finding())
    assert f is not None and f.evidence.spans
    w.panel.tabs.show_finding(f)
    pane = w.panel.item_pane
    assert pane.stack.currentIndex() == RAW and pane.note.text() == MARKED_NOTE
    assert w.panel.content.extraSelections()
    w.panel.items.select_item(next(i.id for i in w.trace.items if i.id != pane.item.id))
    assert pane.stack.currentIndex() == RENDERED and pane.note.isHidden()


def test_no_gui_module_passes_markup_to_qt() -> None:
    """Text from traces reaches Qt only through plain-text inserts: no gui module calls an HTML or
    Markdown setter, asks for rich text, or uses a link-following browser (docstrings aside)."""
    import ast

    banned = {"setHtml", "insertHtml", "setMarkdown", "appendHtml", "QTextBrowser", "RichText", "MarkdownText",
              "setOpenExternalLinks", "setOpenLinks", "AutoText"}
    hits = []
    for path in sorted((Path(__file__).resolve().parents[2] / "ctxviewer" / "gui").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
            if name in banned:
                hits.append(f"{path.name}:{node.lineno}: {name}")
    assert hits == []


def test_too_long_texts_are_shown_raw_under_a_note(qtbot) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from ctxviewer.gui.message_pane import ConversationPages, ItemPane

    with TraceStore.open(SAMPLES) as store:
        trace = store.load("budget-8k")
    long_item = replace(trace.items[0], content="**x** " * 50_000)  # 300,000 characters
    pane = ItemPane()
    qtbot.addWidget(pane)
    pane.set_trace(trace)
    pane.show_item(long_item, "long")
    assert pane.stack.currentIndex() == RAW and pane.note.text() == "shown raw: over the 200,000 characters rendered"
    assert pane.raw.toPlainText().startswith("**x** **x**")
    pages = ConversationPages()
    qtbot.addWidget(pages)
    pages.set_trace(replace(trace, items=(long_item, replace(long_item, id="again"))))
    assert pages.currentIndex() == RAW
    assert pages.note.text() == "shown raw: 600,000 characters, over the 500,000 rendered"
    pages.set_trace(trace)
    assert pages.currentIndex() == RENDERED and pages.note.isHidden()


def test_copy_from_the_rendered_view_is_plain_text(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QGuiApplication

    view = RenderedView()
    qtbot.addWidget(view)
    view.set_message("**bold** <b>x</b>\nnext")
    view.selectAll()
    view.copy()
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.text() == "bold <b>x</b>\nnext" and not mime.hasHtml()


_COPY_THEN_EXIT = """
import sys
from PySide6.QtWidgets import QApplication
from ctxviewer.gui.rendered_view import RenderedView, settle_clipboard
app = QApplication([])
view = RenderedView()
view.set_message("**bold** next")
view.selectAll()
view.copy()
if sys.argv[1] == "settled":
    settle_clipboard()
print(QApplication.clipboard().text())
"""


def test_a_copy_left_on_the_clipboard_is_settled_before_exit() -> None:
    # PySide6 frees a Python-made QMimeData on the clipboard twice when the application goes
    # (SIGSEGV, status -11, with "left" instead of "settled"); settle_clipboard, called by the app
    # after exec(), swaps it for a Qt-made copy holding the same text
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _COPY_THEN_EXIT, "settled"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert (proc.returncode, proc.stdout) == (0, "bold next\n")


def test_only_raster_images_are_decoded() -> None:
    from ctxviewer.gui.block_document import thumbnail

    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="http://x.example/a.png"/></svg>'
    image, why = thumbnail(svg)
    assert image is None and why == "svg images are not decoded"  # Qt has an SVG reader; it is never used
    image, why = thumbnail(base64.b64decode(png_base64(8, 4)))
    assert image is not None and image.size().toTuple() == (8, 4) and why == ""


def test_a_markdown_table_is_a_text_table_of_plain_cells(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QTextTable

    view = RenderedView()
    qtbot.addWidget(view)
    view.set_message("| col | val |\n|-----|-----|\n| <b>a</b> | 1 |\n| b\u202e | 2 |")
    tables = [f for f in view.document().rootFrame().childFrames() if isinstance(f, QTextTable)]
    assert len(tables) == 1 and (tables[0].rows(), tables[0].columns()) == (3, 2)
    cells = [tables[0].cellAt(r, c).firstCursorPosition().block().text() for r in range(3) for c in range(2)]
    assert cells == ["col", "val", "<b>a</b>", "1", "b⟨RLO⟩", "2"]
