"""The selected trace, top to bottom: header, budget chart, item table, and the selected item's
content beside the answer (Response | Request | Attributes, :mod:`ctxviewer.gui.answer_panes`).

:class:`TracePanel` only arranges the widgets that show one :class:`~ctxviewer.model.trace.RequestTrace`
and keeps the content view on the selected item; it never reads the store.

The item table shares its place with the diagnostics tabs (issue 9): Findings (expert-info list,
:class:`~ctxviewer.gui.findings_panel.FindingsPanel`), Tool calls and Evidence (position strip).
A trace with a warning or worse leads with its findings unless the user picked a tab by hand;
selecting a finding selects its item and highlights its span in the content view. The observed
failure the user marks is stored beside the database (:mod:`ctxviewer.assess.marks`).

A trace of :data:`ASYNC_ITEMS` items or more is assessed off the GUI thread (issue 11: the checks
take tens of milliseconds per thousand items): its items, content, conversation and answer are
shown at once, the chart says "Assessing …", and the header, chart and findings follow when the
assessment arrives (``sig_assessed``). Smaller traces are assessed on the spot.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QScrollArea, QSplitter, QVBoxLayout, QWidget

from ctxviewer.assess.assessment import Assessment, assess
from ctxviewer.gui.answer_panes import AnswerTabs
from ctxviewer.gui.budget_chart import EMPTY_TEXT, BudgetChart
from ctxviewer.gui.content_view import ContentView
from ctxviewer.gui.conversation_pane import ConversationView
from ctxviewer.gui.detail_panel import DetailPanel
from ctxviewer.gui.diagnostics_tabs import DiagnosticsTabs
from ctxviewer.gui.item_table import ItemTable
from ctxviewer.gui.item_table_model import ItemTableModel
from ctxviewer.gui.worker import Task
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.columns import item_title

ASYNC_ITEMS = 300
"""Traces with at least this many items are assessed in a worker thread (see the module docstring)."""


def assessing_text(trace: RequestTrace) -> str:
    """What the chart says while ``trace`` is assessed: ``"Assessing 600 items…"``."""
    n = len(trace.items)
    return f"Assessing {n:,} {'item' if n == 1 else 'items'}…"


class TracePanel(QWidget):
    """Header, chart, items and content of one trace (or empty). ``sig_assessed(trace_id)`` once the
    trace shown has its assessment (at once for a small trace, from the worker for a big one)."""

    sig_assessed = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, threaded: bool = True) -> None:
        super().__init__(parent)
        self.assessment: Assessment | None = None
        """The assessment of the trace shown (``None`` when empty, or while a big trace is assessed)."""
        self.threaded = threaded
        """False assesses every trace on the spot (scripts, screenshots)."""
        self.trace: RequestTrace | None = None
        self._gen = 0
        self._tasks: set[Task] = set()
        self.detail = DetailPanel()
        self.detail_scroll = QScrollArea()
        self.detail_scroll.setWidgetResizable(True)
        self.detail_scroll.setWidget(self.detail)
        self.detail_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.detail_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chart = BudgetChart()
        self.item_model = ItemTableModel(parent=self)
        self.items = ItemTable(self.item_model)  # issue 13: filter bar, sortable by any column
        self.item_view = self.items.view
        self.item_view.selectionModel().currentRowChanged.connect(self._on_item_row)
        self.conversation = ConversationView()  # issue 13: the request as the model received it
        self.conversation.sig_item_activated.connect(self.show_in_items)
        self.content_title = QLabel()
        self.content_title.setTextFormat(Qt.TextFormat.PlainText)
        self.content_title.setObjectName("contentTitle")
        self.content_title.setWordWrap(True)  # a long omission reason wraps instead of widening the pane
        self.content_title.setMinimumWidth(120)
        self.content = ContentView()
        content_box = QWidget()
        cl = QVBoxLayout(content_box)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(2)
        cl.addWidget(self.content_title)
        cl.addWidget(self.content, 1)
        self.tabs = DiagnosticsTabs(self)  # issue 9: Items | Findings | Tool calls | Evidence
        self.answer = AnswerTabs()  # issue 13: Response | Request | Attributes, beside the content
        self.bottom = QSplitter(Qt.Orientation.Horizontal)
        self.bottom.setObjectName("contentAnswerSplitter")
        self.bottom.addWidget(content_box)
        self.bottom.addWidget(self.answer)
        self.bottom.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("traceSplitter")
        for w in (self.chart, self.tabs.widget, self.bottom):
            self.splitter.addWidget(w)
        self.splitter.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.detail_scroll)
        lay.addWidget(self.splitter, 1)

    def set_trace(self, trace: RequestTrace | None, empty_text: str = EMPTY_TEXT, *,
                  assessment_pending: bool = False) -> None:
        """Show ``trace`` (``None`` clears every pane and the chart says ``empty_text``) and select
        its first item. The trace is assessed once (:func:`ctxviewer.assess.assessment.assess`); header,
        chart and findings render that assessment -- for a trace of :data:`ASYNC_ITEMS` items or
        more, when it arrives from a worker thread (:meth:`wait_assessed` waits for it).
        ``assessment_pending``: the caller assesses ``trace`` itself (off the GUI thread) and hands
        the result to :meth:`set_assessment`; until then the chart says "Assessing …"."""
        self._gen += 1
        self.trace = trace
        own_worker = (trace is not None and not assessment_pending and self.threaded
                      and len(trace.items) >= ASYNC_ITEMS)
        later = trace is not None and (assessment_pending or own_worker)
        self.assessment = assess(trace) if trace is not None and not later else None
        if later and trace is not None:
            self.detail.set_rows(())
            self.chart.set_assessment(None, assessing_text(trace))
        else:
            self._show_assessment(empty_text)
        self.item_model.set_trace(trace)
        self.content.clear_content()
        self.content_title.setText("")
        if self.items.proxy.rowCount():
            self.item_view.selectRow(0)
        self.conversation.set_trace(trace)
        self.tabs.set_trace(trace, self.assessment)  # no findings yet while the trace is assessed
        self.answer.set_trace(trace)
        if own_worker and trace is not None:
            self._assess_in_worker(trace)
        elif trace is not None and not later:
            self.sig_assessed.emit(trace.trace_id)

    def set_assessment(self, trace: RequestTrace, assessment: Assessment) -> bool:
        """Show ``assessment`` (of ``trace``, made off the GUI thread) in the header, chart and
        findings, if ``trace`` is still the trace shown; emits ``sig_assessed``. Returns whether it was."""
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
        QTimer.singleShot(0, self.fit_chart)
        self.chart.set_assessment(self.assessment, empty_text)

    def _assess_in_worker(self, trace: RequestTrace) -> None:
        gen = self._gen
        task = Task(lambda _progress, _cancelled: assess(trace), self)
        self._tasks.add(task)

        def done(result: object) -> None:
            self._tasks.discard(task)
            if gen == self._gen and isinstance(result, Assessment):  # else another trace was selected meanwhile
                self.set_assessment(trace, result)

        def failed(message: str) -> None:
            self._tasks.discard(task)
            if gen == self._gen:
                self.assessment_failed(trace, message)

        task.sig_finished.connect(done)
        task.sig_failed.connect(failed)

        def start() -> None:  # after this turn of the event loop: the items paint before the checks run
            if gen == self._gen:
                task.start()
            else:
                self._tasks.discard(task)

        QTimer.singleShot(0, self, start)

    @property
    def assessing(self) -> bool:
        """True while the trace shown waits for its assessment from the worker."""
        return self.trace is not None and self.assessment is None

    def wait_assessed(self, ms: int = 30_000) -> bool:
        """Block until the trace shown has its assessment (processing events; tests, scripts).
        Returns whether it has."""
        from PySide6.QtCore import QDeadlineTimer
        from PySide6.QtWidgets import QApplication

        deadline = QDeadlineTimer(ms)
        while self.assessing and not deadline.hasExpired():
            for task in list(self._tasks):
                task.wait(10)
            QApplication.processEvents()
        return not self.assessing

    def stop(self) -> None:
        """Wait for assessments still running (the window is closing); none starts after this."""
        self._gen += 1
        for task in list(self._tasks):
            task.wait_job()
        self._tasks.clear()

    def finish_deferred(self) -> None:
        """Do now what waits for the first paint or a worker (issue 11: a big trace's assessment,
        the chart's pyqtgraph plot, the content view's first colouring), e.g. before a screenshot."""
        self.wait_assessed()
        self.chart.ensure_plot()
        self.content.spans()

    def apply_default_sizes(self, height: int) -> None:
        """Share ``height`` pixels: the header as tall as its rows, the chart about a third of the
        rest, then the items and the content."""
        self._fit_detail()
        avail = max(300, height - self.detail_scroll.height())
        chart = max(200, min(int(avail * 0.32), 340))
        rest = max(200, avail - chart)
        self.splitter.setSizes([chart, int(rest * 0.55), rest - int(rest * 0.55)])  # findings need room too
        w = max(400, self.width())
        self.bottom.setSizes([w * 2 // 5, w - w * 2 // 5])

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit_detail()
        self.fit_chart()

    def fit_chart(self) -> None:
        """Give the chart the height its verdict (wrapped at the current width), numbers, plot and
        legend need, taken from the tabs below it: a long verdict never squeezes the bars."""
        need = self.chart.needed_height()
        sizes = self.splitter.sizes()
        if len(sizes) != 3 or sizes[0] >= need or not any(sizes):
            return
        give = min(need - sizes[0], max(0, sizes[1] - 150))
        if give > 0:
            self.splitter.setSizes([sizes[0] + give, sizes[1] - give, sizes[2]])

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
        self.tabs.widget.setCurrentWidget(self.conversation)
        self.conversation.setFocus(Qt.FocusReason.OtherFocusReason)
        return item is not None and self.conversation.show_item(item.id)

    def _on_item_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item = self.items.proxy.item(current.row()) if current.isValid() else None
        if item is None:
            self.content.clear_content()
            self.content_title.setText("")
            return
        self.content_title.setText(item_title(item))
        if not self.conversation.isVisible():
            self.conversation.show_item(item.id)  # follow the table while the tab is in the back
        self.content.set_content(item.content)
        self.content.mark_spans(None, [])
