"""The Response tab rendered (issue 22 item 6): the answer drawn from present.answer_blocks in an
inert document -- the proposed tool call a labelled block with its arguments pretty-printed, the
text's Markdown from the sanitised subset, a data-URL image a local thumbnail, hostile characters
as markers, no anchor and nothing fetched -- and Raw the plain answer_text, on the messages' one
Rendered / Raw switch (Items › Rendered Messages, Ctrl+Alt+M)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtGui import QFont
from PySide6.QtNetwork import QNetworkAccessManager

from ctxviewer.gui.answer_panes import ResponsePane
from ctxviewer.gui.block_document import IMAGE_SCHEME, InertDocument
from ctxviewer.model.trace import Response
from ctxviewer.present.answer import answer_text
from ctxviewer.store import TraceStore
from tests.gui.test_rendered_messages import fragments, image_names, png_base64

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def load(trace_id: str):  # type: ignore[no-untyped-def]
    with TraceStore.open(SAMPLES) as store:
        return store.load(trace_id)


def pane_on(qtbot, trace) -> ResponsePane:  # type: ignore[no-untyped-def]
    pane = ResponsePane()
    qtbot.addWidget(pane)
    pane.set_trace(trace)
    pane.resize(520, 600)
    pane.show()
    qtbot.waitExposed(pane)
    pane.grab()
    return pane


def test_tool_call_rendered_as_a_labelled_block_raw_is_answer_text(qtbot) -> None:
    trace = load("ticket-injection")
    pane = pane_on(qtbot, trace)
    assert pane.stack.currentWidget() is pane.rendered_view and pane.focusProxy() is pane.rendered_view
    text = pane.text()
    assert text.startswith("Response (finish reason tool_calls · model gpt-4o-mini-2024-07-18 · id "
                           "chatcmpl-771df576bcb9b08f202c8c4d)\nI've read your ticket about the Ember stove.")
    assert ('Tool calls proposed (1)\nTool call  issue_refund   id call_8Qm2vTtZ0rWkH5yNcLd3aPfE\narguments:\n{\n'
            '  "order_number": "NW-4490321",\n  "amount": 349.0,\n  "currency": "USD",\n  "reason": "goodwill"\n}\n'
            'issue_refund → blocked by refunds.require_supervisor_approval\n✔ offered:') in text
    assert "✖ approval: refunds above 150 USD need a supervisor approval record; NW-4490321 has none" in text
    doc = pane.rendered_view.document()
    bold = [f for f in fragments(doc) if f.fontWeight() == QFont.Weight.Bold]
    assert bold  # "Response", "Tool call", the call's name: formats, not markup
    assert pane.raw.toPlainText() == answer_text(trace)  # the raw view is always filled
    pane.set_rendered(False)
    assert pane.stack.currentWidget() is pane.raw and pane.focusProxy() is pane.raw
    assert pane.text() == answer_text(trace)


def test_markdown_image_and_hostile_text_inert(qtbot) -> None:
    text = (f"It is **sunny** in Tok\u202eyo\u200b.\n\n![map](data:image/png;base64,{png_base64(64, 32)})\n\n"
            '<img src="http://evil.example/x.png"> [docs](https://e.com/a) ![c](http://evil.example/c.png)')
    trace = dataclasses.replace(load("budget-8k"), response=Response(text=text, finish_reason="stop"))
    pane = pane_on(qtbot, trace)
    doc = pane.rendered_view.document()
    assert isinstance(doc, InertDocument)
    shown = doc.toPlainText()
    assert "It is sunny in Tok⟨RLO⟩yo⟨ZWSP⟩." in shown and "\u202e" not in shown and "**" not in shown
    assert '<img src="http://evil.example/x.png"> docs ⟨https://e.com/a⟩' in shown
    assert "[image “c” not shown: remote image, not fetched: http://evil.example/c.png]" in shown
    (name,) = image_names(doc)  # the data URL, decoded here: one thumbnail of its real size
    assert doc.images == 1
    frag = next(f for f in fragments(doc) if f.isImageFormat()).toImageFormat()
    assert (frag.width(), frag.height()) == (64, 32) and name.startswith(f"{IMAGE_SCHEME}:")
    assert [f for f in fragments(doc) if f.isAnchor() or f.anchorHref()] == []
    assert doc.refused == [] and pane.findChildren(QNetworkAccessManager) == []


def test_the_window_switch_covers_the_response_tab(qtbot, windows) -> None:  # type: ignore[no-untyped-def]
    w = windows.open(SAMPLES)
    windows.select(w, "ticket-injection")
    response = w.panel.answer.response
    w.panel.answer.setCurrentWidget(response)
    assert response.rendered and response.stack.currentWidget() is response.rendered_view
    assert "Tool call  issue_refund   id call_8Qm2vTtZ0rWkH5yNcLd3aPfE" in response.text()
    w.trace_actions.act_rendered.trigger()  # Items › Rendered Messages (Ctrl+Alt+M) off: raw
    assert not response.rendered and response.stack.currentWidget() is response.raw
    assert response.text() == answer_text(w.trace)
    windows.select(w, "refund-approval-forgotten")  # the next trace keeps the mode
    assert response.stack.currentWidget() is response.raw and response.text() == answer_text(w.trace)
    w.trace_actions.act_rendered.trigger()
    assert response.stack.currentWidget() is response.rendered_view
    assert "your refund of 212.00 USD for the Alder 15 sleeping bag has been processed." in response.text()
