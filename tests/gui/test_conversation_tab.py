"""Issue 13: the Conversation tab shows the request as the model received it, omitted messages in
place, greyed, with their reason; it and the item table jump to each other."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from ctxviewer.gui.conversation_pane import OMITTED_COLOR
from ctxviewer.gui.diagnostics_tabs import CONVERSATION

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def test_conversation_greys_omitted_turns_and_jumps_both_ways(qtbot, windows) -> None:
    w = windows.open(SAMPLES, remember=True)
    w.trace_actions.act_rendered.setChecked(False)  # the raw conversation: the stored text as it is
    windows.select(w, "refund-approval-forgotten")
    conv = w.panel.conversation
    assert w.panel.tabs.widget.tabText(CONVERSATION) == "Conversation"
    assert conv.toPlainText() == ""  # built when its tab is shown
    w.panel.tabs.widget.setCurrentIndex(CONVERSATION)
    text = conv.toPlainText()
    assert text.startswith("1 · system · policy policy · 800 tokens\nYou are the customer support assistant")
    i = text.index("omitted (window) · assistant · history turn-01 · 134 tokens")
    assert text.index("omitted (window) · user · history turn-00") < i < text.index("5 · user · history turn-04")
    cur = QTextCursor(conv.document())
    cur.setPosition(i + 1)
    fmt = cur.charFormat()
    assert fmt.foreground().color() == OMITTED_COLOR and fmt.fontItalic()
    cur.setPosition(text.index("5 · user · history turn-04") + 1)
    assert cur.charFormat().foreground().color() != OMITTED_COLOR
    # conversation -> item table
    cur.setPosition(i + 5)
    conv.setTextCursor(cur)
    w.panel.tabs.widget.setCurrentIndex(CONVERSATION)
    qtbot.keyClick(conv, Qt.Key.Key_Return)
    assert w.panel.tabs.widget.currentWidget() is w.panel.items
    assert w.panel.items.current_item().id == "turn-01"
    # item table -> conversation (Items > Show Item in Conversation, Ctrl+Shift+M)
    w.panel.select_item("KB-1009")
    w.trace_actions.act_conversation.trigger()
    assert w.panel.tabs.widget.currentIndex() == CONVERSATION
    t = conv.current_turn()
    assert t is not None and t.item_id == "KB-1009" and t.heading.startswith("omitted (rank) · user · evidence KB-1009")
    assert w.trace_actions.act_conversation.shortcut().toString() == "Ctrl+Shift+M"
