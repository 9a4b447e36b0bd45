"""The Items menu of the main window: moving through what the selected trace holds.

Next / previous omitted item (F8 / Shift+F8), "Omitted Items Only" (Ctrl+Shift+O), Filter Items
(Ctrl+Shift+F), Rendered Messages (Ctrl+Alt+M: tool calls, Markdown and thumbnails, or the raw stored
text; remembered, :mod:`ctxviewer.gui.message_pane`), and the answer panes: Show Response
(Ctrl+Shift+R), Show Request (Ctrl+Shift+Q), and the budget chart's Zoom Chart to the Items
(Ctrl+Shift+B, :attr:`~ctxviewer.gui.budget_chart.BudgetChart.act_zoom`).
Each action sits in the menu, so Help › Keyboard Shortcuts lists it with its shortcut. The actions
reach the window through :class:`~ctxviewer.gui.window_api.WindowApi`.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from ctxviewer.gui.answer_panes import REQUEST, RESPONSE
from ctxviewer.gui.message_pane import SETTINGS_KEY, SHORTCUT, remembered
from ctxviewer.gui.window_api import WindowApi


class TraceActions(QObject):
    """Builds the Items menu of ``window`` and keeps its actions."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        panel = window.panel
        menu = window.menu("&Items", before="&Compare")
        self.menu = menu

        def act(text: str, key: str | None, slot: Callable[..., Any], tip: str) -> QAction:
            a = QAction(text, window.host)
            if key:
                a.setShortcut(QKeySequence(key))
            a.setStatusTip(tip)
            a.triggered.connect(slot)
            menu.addAction(a)
            return a

        self.act_next_omitted = act("&Next Omitted Item", "F8", lambda: self._step(1),
                                    "Select the next omitted item in the item table")
        self.act_prev_omitted = act("&Previous Omitted Item", "Shift+F8", lambda: self._step(-1),
                                    "Select the previous omitted item in the item table")
        self.act_omitted_only = act("&Omitted Items Only", "Ctrl+Shift+O", lambda: None,
                                    "Show only the items that were left out of the request")
        self.act_omitted_only.setCheckable(True)
        self.act_omitted_only.toggled.connect(panel.items.omitted_only.setChecked)
        panel.items.omitted_only.toggled.connect(self.act_omitted_only.setChecked)
        self.act_filter_items = act("&Filter Items", "Ctrl+Shift+F", self.focus_item_filter,
                                    "Filter the items by id, source or omission reason")
        self.act_conversation = act("Show Item in &Conversation", "Ctrl+Shift+M", window.panel.show_in_conversation,
                                    "Show the request as the model received it, at the current item")
        self.act_rendered = act("Rendered &Messages", SHORTCUT, lambda: None,
                                "Show messages rendered (tool calls, Markdown, images) or as the raw stored text")
        self.act_rendered.setCheckable(True)
        self.act_rendered.setChecked(remembered(window.settings))
        panel.set_rendered(self.act_rendered.isChecked())
        self.act_rendered.toggled.connect(self.set_rendered)
        panel.item_pane.sig_rendered.connect(self.act_rendered.setChecked)
        menu.addSeparator()
        self.act_response = act("Show &Response", "Ctrl+Shift+R", lambda: self._answer(RESPONSE),
                                "Show the model's response, tool calls and validations")
        self.act_request = act("Show Re&quest", "Ctrl+Shift+Q", lambda: self._answer(REQUEST),
                               "Show the serialized request as sent")
        menu.addSeparator()
        self.act_zoom = panel.chart.act_zoom  # the chart's own action: its button and this entry agree
        menu.addAction(self.act_zoom)

    def set_rendered(self, on: bool) -> None:
        """Show messages rendered or raw, and remember the choice (QSettings)."""
        self.window.panel.set_rendered(on)
        self.window.settings.setValue(SETTINGS_KEY, on)

    def _step(self, step: int) -> None:
        self.window.panel.tabs.widget.setCurrentWidget(self.window.panel.items)
        item = self.window.panel.items.step_omitted(step)
        if item is None:
            self.window.show_status("No omitted item in the table", 3000)

    def focus_item_filter(self) -> None:
        """Show the Items tab and focus its text filter."""
        self.window.panel.tabs.widget.setCurrentWidget(self.window.panel.items)
        self.window.panel.items.text.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.window.panel.items.text.selectAll()

    def _answer(self, tab: int) -> None:
        self.window.panel.answer.setCurrentIndex(tab)
        self.window.panel.answer.currentWidget().setFocus(Qt.FocusReason.ShortcutFocusReason)
