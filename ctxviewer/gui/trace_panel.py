"""The selected trace, top to bottom: header, budget chart, item table, and the selected item's
content beside the answer (Response | Request | Attributes, :mod:`ctxviewer.gui.answer_panes`).

:class:`TracePanel` only arranges the widgets that show one :class:`~ctxviewer.model.trace.RequestTrace`
and keeps the content view on the selected item; it never reads the store.

The item table shares its place with the diagnostics tabs: Findings (expert-info list,
:class:`~ctxviewer.gui.findings_panel.FindingsPanel`), Tool calls and Evidence (position strip).
A trace with a warning or worse leads with its findings unless the user picked a tab by hand;
selecting a finding selects its item and highlights its span in the content view. The observed
failure the user marks is stored beside the database (:mod:`ctxviewer.assess.marks`).

The panel renders what it is given, ``(trace, assessment | None)``, and computes nothing: the
window's :class:`~ctxviewer.gui.trace_loader.TraceLoader` loads, derives and assesses the selected
trace off the GUI thread. A trace arrives first without its assessment (its items, content,
conversation and answer are shown, the chart says "Assessing …") and the header, chart and findings
follow with :meth:`TracePanel.set_assessment` (``sig_assessed``).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QScrollArea, QSplitter, QVBoxLayout, QWidget

from ctxviewer.assess.assessment import Assessment
from ctxviewer.assess.truncated import truncation
from ctxviewer.gui.answer_panes import AnswerTabs
from ctxviewer.gui.budget_chart import EMPTY_TEXT, BudgetChart
from ctxviewer.gui.detail_panel import DetailPanel
from ctxviewer.gui.diagnostics_tabs import DiagnosticsTabs
from ctxviewer.gui.item_table import ItemTable
from ctxviewer.gui.item_table_model import ItemTableModel
from ctxviewer.gui.message_pane import ConversationPages, ItemPane
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.item_title import item_title

TABS_SHARE = 0.45
"""The diagnostics tabs' default share of the height below the chart (at least their
:data:`TABS_MIN_ROWS` rows); the item content and the answer get the rest (55 %: 1920x1080 gives
the content about 360 px). Sizes the user dragged are remembered (:mod:`.layout_memory`)."""
CONTENT_WIDTH_SHARE = 50
"""The item content's default share of the width beside the answer, per cent (at 1280 px its
heading fits one line, so its text gets that line)."""
TABS_MIN_ROWS = 5
"""Rows of the Findings list the default layout keeps visible (a group and four findings)."""


def assessing_text(trace: RequestTrace) -> str:
    """What the chart says while ``trace`` is assessed: ``"Assessing 600 items…"``."""
    n = len(trace.items)
    return f"Assessing {n:,} {'item' if n == 1 else 'items'}…"


class TracePanel(QWidget):
    """Header, chart, items and content of one trace (or empty). ``sig_assessed(trace_id)`` once the
    trace shown has its assessment (given with it, or later to :meth:`set_assessment`)."""

    sig_assessed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.assessment: Assessment | None = None
        """The assessment of the trace shown (``None`` when empty, or while it is still being made)."""
        self.trace: RequestTrace | None = None
        self.detail = DetailPanel()
        self.detail_scroll = QScrollArea()
        self.detail_scroll.setWidgetResizable(True)
        self.detail_scroll.setWidget(self.detail)
        self.detail_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.detail_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chart = BudgetChart()
        self.item_model = ItemTableModel(parent=self)
        self.items = ItemTable(self.item_model)  # filter bar, sortable by any column
        self.item_view = self.items.view
        self.item_view.selectionModel().currentRowChanged.connect(self._on_item_row)
        self.conversation_pages = ConversationPages()  # the request as the model received it: raw or rendered
        self.conversation = self.conversation_pages.raw
        self.rendered_conversation = self.conversation_pages.rendered_view
        for conv in (self.conversation, self.rendered_conversation):
            conv.sig_item_activated.connect(self.show_in_items)
        content_box = self.item_pane = ItemPane()  # the item's title, the Rendered switch, raw | rendered
        self.content_title = self.item_pane.title
        self.content = self.item_pane.raw  # today's plain text (always filled; evidence is marked here)
        self.rendered = self.item_pane.rendered_view
        self.tabs = DiagnosticsTabs(self.items, self.conversation_pages, self.content, self)  # Items | Findings | Tool calls | Evidence
        self.answer = AnswerTabs()  # Response | Request | Attributes, beside the content
        self.bottom = QSplitter(Qt.Orientation.Horizontal)
        self.bottom.setObjectName("contentAnswerSplitter")
        self.bottom.addWidget(content_box)
        self.bottom.addWidget(self.answer)
        self.bottom.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("traceSplitter")
        for w in (self.tabs.widget, self.bottom):
            self.splitter.addWidget(w)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.installEventFilter(self)  # a taller header takes from the content, not the findings
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.detail_scroll)
        lay.addWidget(self.chart)  # a fixed height (fit_chart): the same for every trace
        lay.addWidget(self.splitter, 1)

    def set_trace(self, trace: RequestTrace | None, assessment: Assessment | None = None,
                  empty_text: str = EMPTY_TEXT) -> None:
        """Show ``trace`` with its ``assessment`` and select its first item. ``trace`` ``None`` clears
        every pane (the chart then says ``empty_text``); ``assessment`` ``None`` with a trace: it is
        still being made (the header is empty, the chart says "Assessing N items…" and no finding
        is listed until :meth:`set_assessment` brings it). Assesses nothing itself."""
        self.trace = trace
        self.assessment = assessment if trace is not None else None
        if trace is not None and assessment is None:
            self.detail.set_rows(())
            self.chart.set_assessment(None, assessing_text(trace))
        else:
            self._show_assessment(empty_text)
        self.item_model.set_trace(trace)
        self.item_pane.set_trace(trace)
        if self.items.proxy.rowCount():
            self.item_view.selectRow(0)
        self.conversation_pages.set_trace(trace)
        self.tabs.set_trace(trace, self.assessment)
        self.answer.set_trace(trace)
        if trace is not None and self.assessment is not None:
            self.sig_assessed.emit(trace.trace_id)

    def set_assessment(self, trace: RequestTrace, assessment: Assessment) -> bool:
        """Show ``assessment`` (of ``trace``) in the header, chart and findings, if ``trace`` is the
        trace shown and still waits for it; emits ``sig_assessed``. Returns whether it was shown."""
        if trace is not self.trace or self.assessment is not None:
            return False
        self.assessment = assessment
        self._show_assessment()
        self.tabs.set_assessment(assessment)
        self.sig_assessed.emit(trace.trace_id)
        return True

    def assessment_failed(self, trace: RequestTrace | None, message: str) -> None:
        """The assessment of ``trace`` (the trace shown) failed: the chart says so."""
        if trace is self.trace and self.assessment is None:
            self.chart.set_assessment(None, f"Cannot assess this trace: {message}")

    def _show_assessment(self, empty_text: str = EMPTY_TEXT) -> None:
        self.detail.set_rows(self.assessment.header if self.assessment is not None else ())
        self._fit_detail()
        QTimer.singleShot(0, self._fit_detail)  # again once the new labels are laid out
        self.chart.set_assessment(self.assessment, empty_text)

    @property
    def assessing(self) -> bool:
        """True while the trace shown waits for its assessment."""
        return self.trace is not None and self.assessment is None

    def finish_deferred(self) -> None:
        """Do now what waits for the first paint (the chart's pyqtgraph plot, the content
        view's first colouring), e.g. before a screenshot."""
        self.chart.ensure_plot()
        self.content.spans()

    def apply_default_sizes(self, height: int) -> None:
        """Share ``height`` pixels: the header as tall as its rows, the chart its fixed height, then
        the diagnostics tabs (at least :data:`TABS_MIN_ROWS` rows of findings) and the content."""
        self._fit_detail()
        self.fit_chart()
        avail = max(300, height - self.detail_scroll.height() - self.chart.height())
        tabs = min(max(self.tabs_min_height(), int(avail * TABS_SHARE)), avail - 120)
        self.splitter.setSizes([tabs, avail - tabs])
        w = max(400, self.width())
        self.bottom.setSizes([w * CONTENT_WIDTH_SHARE // 100, w - w * CONTENT_WIDTH_SHARE // 100])

    def tabs_min_height(self) -> int:
        """Pixels the diagnostics tabs need for :data:`TABS_MIN_ROWS` rows of the Findings list, the
        observed-failure bar and three lines of the selected finding."""
        line = self.fontMetrics().lineSpacing()
        row = line + 4
        return 30 + 30 + (TABS_MIN_ROWS + 2) * row + 3 * line + 24

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit_detail()
        self.fit_chart()
        self.keep_tabs_rows()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        """When the tabs-and-content splitter is resized (the header above grew or shrank, the
        window was resized), keep the findings' rows (:meth:`keep_tabs_rows`)."""
        if watched is self.splitter and event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self.keep_tabs_rows)  # once the splitter has laid out its panes
        return False

    def keep_tabs_rows(self) -> None:
        """Give the diagnostics tabs back the height of :meth:`tabs_min_height` when the header
        grew (or the window shrank) into them, taken from the content below while it has more
        than a third of its own height to give; a split the user dragged is kept otherwise."""
        sizes = self.splitter.sizes()
        if len(sizes) != 2 or not any(sizes):
            return
        want = self.tabs_min_height()
        give = min(want - sizes[0], sizes[1] - max(120, sizes[1] // 3))
        if give > 0:
            self.splitter.setSizes([sizes[0] + give, sizes[1] - give])

    def fit_chart(self) -> None:
        """Give the chart its height for the current width (:meth:`BudgetChart.fixed_height`):
        it never changes from one trace to the next."""
        self.chart.setFixedHeight(self.chart.fixed_height(self.width()))

    def _fit_detail(self) -> None:
        """Make the header as tall as its rows, but at most a quarter of the window (then it scrolls)."""
        lay = self.detail.layout()
        width = self.detail_scroll.viewport().width()
        hint = (lay.heightForWidth(width) if lay.hasHeightForWidth() and width > 100
                else self.detail.sizeHint().height()) + 2
        limit = max(80, (self.window().height() if self.window() else 800) // 4)
        self.detail_scroll.setFixedHeight(max(40, min(hint, limit)))

    def select_item(self, item_id: str) -> bool:
        """Make item ``item_id`` current in the item table (its content shows), clearing an item
        filter that hides it. False if the trace has no such item."""
        return self.items.select_item(item_id)

    def show_in_items(self, item_id: str) -> bool:
        """Select ``item_id`` in the item table and bring the Items tab forward (from the
        conversation). False if the trace has no such item."""
        if not self.select_item(item_id):
            return False
        self.tabs.widget.setCurrentWidget(self.items)
        self.item_view.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    def show_in_conversation(self) -> bool:
        """Bring the Conversation tab forward at the current item's turn. False without one."""
        item = self.items.current_item()
        self.tabs.widget.setCurrentWidget(self.conversation_pages)
        view = self.conversation_pages.active()
        view.setFocus(Qt.FocusReason.OtherFocusReason)
        return item is not None and view.show_item(item.id)

    def set_rendered(self, on: bool) -> None:
        """Show messages rendered (``on``: tool calls, Markdown, thumbnails) or as raw stored text,
        in the item pane, the Conversation tab (:mod:`ctxviewer.gui.message_pane`) and the
        Response tab (:class:`ctxviewer.gui.answer_panes.ResponsePane`)."""
        self.item_pane.set_rendered(on)
        self.conversation_pages.set_rendered(on)
        self.answer.response.set_rendered(on)

    @property
    def rendered_mode(self) -> bool:
        """Whether messages are shown rendered."""
        return self.item_pane.rendered

    def _on_item_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item = self.items.proxy.item(current.row()) if current.isValid() else None
        if item is None:
            self.item_pane.clear()
            return
        cut = self.trace is not None and item.id in truncation(self.trace).item_ids
        if not self.conversation_pages.isVisible():
            self.conversation_pages.show_item(item.id)  # follow the table while the tab is in the back
        self.item_pane.show_item(item, item_title(item, truncated=cut))
