"""The Run tab: the run the shown model call belongs to, as a tree beside a timeline.

Every step the file held (agents, model calls, tools, retrievers, an Inspect sample's solvers and
scorers) under its parent, with duration, status, a model call's reported tokens and cost
(:mod:`ctxviewer.present.run_tree`'s words), and a waterfall bar placing the step on the run's
time line; an error's row is red. Children are read from the store when a row is expanded
(:meth:`ctxviewer.store.TraceStore.children`: one index range), so a run of 30,000 steps opens
with its roots and the branch down to the call shown. Activating a model call's row
(double click, Enter) asks the window to show that call (``sig_trace_selected``). Plain text only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter
from PySide6.QtWidgets import (
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.model.words import fmt_int
from ctxviewer.present.run_tree import Node, step_line
from ctxviewer.store import StoreError, TraceStore
from ctxviewer.tokens.cost import fmt_cost
from ctxviewer.util.visible import one_line

COLUMNS = ("Step", "ms", "Status", "Tokens in / out", "Cost", "Timeline")
"""Column titles (``ms``: the step's duration); the last is the waterfall."""
TIMELINE = len(COLUMNS) - 1
STEP_ROLE = Qt.ItemDataRole.UserRole + 1
"""Item data: the stored step (:class:`ctxviewer.store.runs.RunStep`)."""
LOADED_ROLE = Qt.ItemDataRole.UserRole + 2
"""Item data: True once the row's children were read."""
ERROR_RED = QColor("#b91c1c")
_Index = QModelIndex | QPersistentModelIndex


class _Waterfall(QStyledItemDelegate):
    """Paints a step's bar: from its start to its end on the run's time line (a thin mark when it
    has a start and no end)."""

    def __init__(self, panel: RunPanel) -> None:
        super().__init__(panel)
        self.panel = panel

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        super().paint(painter, option, index)
        step = index.siblingAtColumn(0).data(STEP_ROLE)
        bounds = self.panel.bounds
        if step is None or bounds is None or step.span.start is None:
            return
        t0, t1 = bounds
        span = max((t1 - t0).total_seconds(), 1e-9)
        r = option.rect.adjusted(2, 4, -2, -4)
        x0 = r.left() + int(r.width() * max((step.span.start - t0).total_seconds(), 0.0) / span)
        end = step.span.end or step.span.start
        x1 = r.left() + int(r.width() * max((end - t0).total_seconds(), 0.0) / span)
        color = ERROR_RED if step.span.status == "error" else (QColor("#2563eb") if step.span.trace_id else QColor("#64748b"))
        painter.save()
        painter.fillRect(QRect(x0, r.top(), max(x1 - x0, 2), r.height()), color)
        painter.restore()


class RunPanel(QWidget):
    """The Run tab (see module docstring). :meth:`set_database` names the database; :meth:`show_trace`
    shows the run of a trace. ``sig_trace_selected(trace_id)``: a model call's row was activated."""

    sig_trace_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setUniformRowHeights(True)
        self.tree.setItemDelegateForColumn(TIMELINE, _Waterfall(self))
        for col, width in enumerate((220, 60, 56, 104, 76)):  # the timeline takes the rest
            self.tree.setColumnWidth(col, width)
        self.note = QLabel("no run: this call was imported without one (OTel GenAI, OpenInference, Langfuse, "
                           "LangSmith, MLflow and Inspect AI files record their runs)")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.note)
        lay.addWidget(self.tree, 1)
        self.store: TraceStore | None = None
        self.path: Path | None = None
        self.run_id: str | None = None
        self.bounds: tuple[Any, Any] | None = None
        """The run's first start and last end (aware UTC), the timeline's ends."""
        self.tree.itemExpanded.connect(self._load_children)
        self.tree.itemActivated.connect(self._on_activated)

    def set_database(self, path: Path | str | None) -> None:
        """Read runs from the database at ``path`` (opened read-only on first use; ``None``: none)."""
        self.close_store()
        self.path = Path(path) if path is not None else None
        self._clear()

    def close_store(self) -> None:
        """Close the panel's read-only connection (the window closes or opens another database)."""
        if self.store is not None:
            self.store.close()
        self.store = None

    def _store(self) -> TraceStore | None:
        if self.store is None and self.path is not None:
            try:
                self.store = TraceStore.open(self.path)
            except (StoreError, OSError):
                self.path = None  # an older schema or a damaged file: no runs to show, said in the note
        return self.store

    def _clear(self) -> None:
        self.tree.clear()
        self.run_id = None
        self.bounds = None

    def show_trace(self, trace_id: str | None) -> None:
        """Show the run ``trace_id`` belongs to, opened down to its step and that step selected;
        the note says when there is none."""
        store = self._store() if trace_id is not None else None
        found = None
        try:
            found = store.step_path(trace_id) if store is not None and trace_id is not None else None
        except StoreError:
            found = None
        self.note.setVisible(found is None)
        self.tree.setVisible(found is not None)
        if found is None or store is None:
            self._clear()
            return
        run_id, path = found
        if run_id != self.run_id:
            self._clear()
            self.run_id = run_id
            roots = store.children(run_id, None)
            starts = [s.span.start for s in roots if s.span.start is not None]
            ends = [t for t in (s.span.end or s.span.start for s in roots) if t is not None]
            self.bounds = (min(starts), max(ends)) if starts and ends else None
            self.tree.addTopLevelItems([self._item(s) for s in roots])
        item: QTreeWidgetItem | None = None
        for span_id in path:
            items = ([self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())] if item is None
                     else [item.child(i) for i in range(item.childCount())])
            nxt = next((c for c in items if c.data(0, STEP_ROLE).span.span_id == span_id), None)
            if nxt is None:
                break
            item = nxt
            if span_id != path[-1]:
                item.setExpanded(True)  # reads its children (_load_children)
        if item is not None:
            self.tree.setCurrentItem(item)
            self.tree.scrollToItem(item)

    def _item(self, step: Any) -> QTreeWidgetItem:
        sp = step.span
        title = f"{sp.kind} {one_line(sp.name)}" if sp.name else sp.kind
        duration = "not recorded" if step.duration_ms is None else f"{step.duration_ms:,.0f}"
        status = "ERROR" if sp.status == "error" else (sp.status or ("end not recorded" if sp.end is None else ""))
        tokens = f"{fmt_int(step.input_tokens)} / {fmt_int(step.output_tokens)}" if sp.trace_id else ""
        cost = fmt_cost(step.cost) if sp.trace_id else ""
        item = QTreeWidgetItem([title, duration, status, tokens, cost, ""])
        item.setData(0, STEP_ROLE, step)
        item.setData(0, LOADED_ROLE, False)
        item.setToolTip(0, step_line(Node(step)))
        for col in (1, 3, 4):
            item.setTextAlignment(col, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if sp.status == "error":
            for col in range(len(COLUMNS)):
                item.setForeground(col, QBrush(ERROR_RED))
            if sp.status_message:
                item.setToolTip(2, one_line(sp.status_message))
        item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
        return item

    def _load_children(self, item: QTreeWidgetItem) -> None:
        if item.data(0, LOADED_ROLE) or self.store is None or self.run_id is None:
            return
        item.setData(0, LOADED_ROLE, True)
        try:
            children = self.store.children(self.run_id, item.data(0, STEP_ROLE).span.span_id)
        except StoreError:
            children = []
        item.addChildren([self._item(s) for s in children])
        if not children:
            item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.DontShowIndicator)

    def _on_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        step = item.data(0, STEP_ROLE)
        if step is not None and step.span.trace_id:
            self.sig_trace_selected.emit(step.span.trace_id)
