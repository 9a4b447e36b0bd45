"""The Run tab: the run the shown model call belongs to, as a tree beside a timeline.

Every step the file held (agents, model calls, tools, retrievers, an Inspect sample's solvers and
scorers) under its parent, with duration, status, a model call's reported tokens and cost
(:mod:`ctxviewer.present.run_tree`'s words), and a waterfall bar placing the step on the run's
time line; an error's row is red. Every read runs off the GUI thread
(:mod:`ctxviewer.gui.run_reads`), whatever the source: while the run is read the tab says
"reading the run…" (the tree shown before stays, greyed), a newer trace cancels the older read
(its late result is never shown), and a failure is one line in the tab. The run opens with its
roots and the branch down to the call shown; other rows' children are read when the row is
expanded (:meth:`ctxviewer.store.TraceStore.children`: one index range; a ``reading…`` row
until they come), so a run of 30,000 steps opens at once -- a ClickHouse store reads the run
whole anyway, and gives every level with the first read. Activating a model call's row
(double click, Enter) asks the window to show that call (``sig_trace_selected``). Only a step with
stored children has an expand arrow. The timeline's header is its axis: ms from the run's first
start to its last end (over every step), with tick lines behind the bars. Plain text only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionHeader,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.gui.run_reads import RunRead, RunReads
from ctxviewer.model.words import fmt_int
from ctxviewer.present.run_tree import Node, step_line, tick_label, time_ticks
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
GRID = QColor("#e2e8f0")
"""The timeline's tick lines behind the bars."""
TICK_PX = 56
"""Pixels of timeline per tick at most (a label such as ``12,000 ms`` fits)."""
NO_RUN = ("no run: this call was imported without one (OTel GenAI, OpenInference, Langfuse, "
          "LangSmith, MLflow and Inspect AI files record their runs)")
"""The note when no run holds the call shown."""
READING = "reading the run…"
"""The note while the run is read (off the GUI thread)."""
READING_STEPS = "reading…"
"""The placeholder row under an expanded step until its children are read."""
_Index = QModelIndex | QPersistentModelIndex


def _bar_rect(rect: QRect) -> QRect:
    """Where the timeline is drawn in a cell or header section of ``rect`` (the same in both)."""
    return rect.adjusted(4, 4, -6, -4)


def _x(r: QRect, ms: float, span_ms: float) -> int:
    return r.left() + int(r.width() * min(max(ms, 0.0), span_ms) / span_ms) if span_ms > 0 else r.left()


class _TimelineHeader(QHeaderView):
    """The tree's header; the timeline's section is its axis: tick labels in ms from the run's
    start (:meth:`RunPanel.ticks`), the last one with the unit."""

    def __init__(self, panel: RunPanel) -> None:
        super().__init__(Qt.Orientation.Horizontal, panel)
        self.panel = panel
        self.setSectionsClickable(False)
        self.setStretchLastSection(True)
        self.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)

    def paintSection(self, painter: QPainter, rect: QRect, logical: int) -> None:
        if logical != TIMELINE or self.panel.span_ms() is None:
            super().paintSection(painter, rect, logical)
            return
        opt = QStyleOptionHeader()
        self.initStyleOption(opt)
        opt.rect = rect
        opt.section = logical
        opt.text = ""
        painter.save()
        self.style().drawControl(QStyle.ControlElement.CE_Header, opt, painter, self)
        r = _bar_rect(rect)
        span = self.panel.span_ms() or 0.0
        ticks = self.panel.ticks(r.width())
        fm = painter.fontMetrics()
        painter.setPen(self.palette().color(self.foregroundRole()))
        for i, t in enumerate(ticks):
            text = tick_label(t) + (" ms" if i == len(ticks) - 1 else "")
            x = _x(r, t, span)
            w = fm.horizontalAdvance(text)
            left = min(max(x - (0 if i == 0 else w // 2), rect.left() + 2), rect.right() - w - 2)
            painter.drawText(QRect(left, rect.top(), w + 1, rect.height()), int(Qt.AlignmentFlag.AlignVCenter), text)
            painter.drawLine(x, rect.bottom() - 3, x, rect.bottom())
        painter.restore()


class _Waterfall(QStyledItemDelegate):
    """Paints a step's bar: from its start to its end on the run's time line (a thin mark when it
    has a start and no end)."""

    def __init__(self, panel: RunPanel) -> None:
        super().__init__(panel)
        self.panel = panel

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        super().paint(painter, option, index)
        step = index.siblingAtColumn(0).data(STEP_ROLE)
        bounds, span = self.panel.bounds, self.panel.span_ms()
        if bounds is None or span is None:
            return
        r = _bar_rect(option.rect)
        painter.save()
        painter.setPen(GRID)
        for t in self.panel.ticks(r.width()):
            x = _x(r, t, span)
            painter.drawLine(x, option.rect.top(), x, option.rect.bottom())
        if step is not None and step.span.start is not None:
            t0 = bounds[0]
            x0 = _x(r, (step.span.start - t0).total_seconds() * 1000, span)
            end = step.span.end or step.span.start
            x1 = _x(r, (end - t0).total_seconds() * 1000, span)
            color = ERROR_RED if step.span.status == "error" else (QColor("#2563eb") if step.span.trace_id
                                                                   else QColor("#64748b"))
            painter.fillRect(QRect(x0, r.top(), max(x1 - x0, 2), r.height()), color)
        painter.restore()


class RunPanel(QWidget):
    """The Run tab (see module docstring). :meth:`set_database` names the database; :meth:`show_trace`
    shows the run of a trace. ``sig_trace_selected(trace_id)``: a model call's row was activated."""

    sig_trace_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tree = QTreeWidget()
        self.tree.setHeader(_TimelineHeader(self))
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setUniformRowHeights(True)
        self.tree.setItemDelegateForColumn(TIMELINE, _Waterfall(self))
        for col, width in enumerate((220, 60, 56, 104, 76)):  # the timeline takes the rest
            self.tree.setColumnWidth(col, width)
        self.note = QLabel(NO_RUN)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.note)
        lay.addWidget(self.tree, 1)
        self.store: Any = None
        """The window's source when the runs are read from it (:meth:`set_runs`), else ``None``."""
        self.path: Path | None = None
        self.borrowed = False
        """True when :attr:`store` is the window's source (:meth:`set_runs`), never closed here."""
        self.reads = RunReads(self)
        """The reads, off the GUI thread (:mod:`ctxviewer.gui.run_reads`)."""
        self.reads.sig_run.connect(self._on_run)
        self.reads.sig_failed.connect(self._on_failed)
        self.reads.sig_children.connect(self._on_children)
        self.reads.sig_children_failed.connect(self._on_children_failed)
        self._levels: dict[str | None, list[Any]] = {}  # children read so far, by parent span id
        self._waiting: dict[str, QTreeWidgetItem] = {}  # expanded rows whose children are being read
        self._tree_gen = 0  # which tree a children read was asked for (cleared trees drop theirs)
        self.run_id: str | None = None
        self.bounds: tuple[Any, Any] | None = None
        """The run's first start and last end over all its steps (aware UTC), the timeline's ends
        (:meth:`ctxviewer.store.TraceStore.run_bounds`)."""
        self.tree.itemExpanded.connect(self._load_children)
        self.tree.itemActivated.connect(self._on_activated)

    def set_database(self, path: Path | str | None) -> None:
        """Read runs from the database at ``path`` (opened read-only by the first read, in its
        worker; ``None``: none)."""
        self.close_store()
        self.path = Path(path) if path is not None else None
        self.reads.set_path(self.path)
        self._clear()

    def set_runs(self, source: Any) -> None:
        """Read runs from ``source`` -- the window's own source when it has the run reads
        (``run_of``, ``children``, ``run_bounds``, ``step_path``: a ClickHouse store,
        :mod:`ctxviewer.pipeline.clickhouse.runs`) -- through its ``reader()`` in the worker;
        borrowed: never closed by the panel."""
        self.close_store()
        self.path = None
        self.store, self.borrowed = source, True
        self.reads.set_source(source)
        self._clear()

    def close_store(self) -> None:
        """Let the source go (the window opens another database): a running read is cancelled and
        the panel's own handle closed once it has returned; a borrowed source is never closed."""
        self.reads.set_path(None)
        self.store, self.borrowed = None, False

    def stop(self) -> None:
        """Cancel and wait for the running read, close the panel's handle (the window closes)."""
        self.reads.stop()
        self.store, self.borrowed, self.path = None, False, None

    @property
    def reading(self) -> bool:
        """True while a read runs or waits (the run asked for, a row's children)."""
        return self.reads.busy

    def wait(self, ms: int = 30_000) -> bool:
        """Block until no read runs or waits, processing events (tests, the screenshot command).
        Returns whether none does."""
        return self.reads.wait(ms)

    def _clear(self) -> None:
        self.tree.clear()
        self.run_id = None
        self.bounds = None
        self._levels = {}
        self._waiting = {}
        self._tree_gen += 1

    def _say(self, text: str | None) -> None:
        """Show ``text`` in the note and hide the tree (``None``: the tree, no note)."""
        self.tree.setEnabled(True)
        self.note.setVisible(text is not None)
        self.tree.setVisible(text is None)
        if text is not None:
            self.note.setText(text)

    def show_trace(self, trace_id: str | None) -> None:
        """Show the run ``trace_id`` belongs to, opened down to its step and that step selected,
        once it is read (off the GUI thread: the note says it is reading meanwhile); the note says
        when there is none."""
        if trace_id is None or (self.path is None and self.store is None):
            self.reads.cancel()
            self._clear()
            self._say(NO_RUN)
            return
        self.note.setText(READING)
        self.note.setVisible(True)
        self.tree.setEnabled(False)  # the run shown before stays, greyed, until the new one is read
        self.reads.request_run(trace_id)

    def _on_failed(self, message: str) -> None:
        self._clear()
        self._say(one_line(f"cannot read the run: {message}"))

    def _on_run(self, found: RunRead | None) -> None:
        if found is None:
            self._clear()
            self._say(NO_RUN)
            return
        self._say(None)
        if found.run_id != self.run_id:
            self._clear()
            self.run_id = found.run_id
            self.bounds = found.bounds
            self._levels = dict(found.levels)
            self.tree.addTopLevelItems([self._item(s) for s in self._levels.get(None, [])])
            span = self.span_ms()
            self.tree.headerItem().setToolTip(
                TIMELINE, "not recorded: no step has a start time" if span is None else
                f"the run's time line: 0 at its first start, {span:,.0f} ms at its last end")
            self.tree.header().viewport().update()
        else:
            for parent, steps in found.levels.items():
                self._levels.setdefault(parent, steps)
        path = list(found.path)
        item: QTreeWidgetItem | None = None
        for span_id in path:
            items = ([self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())] if item is None
                     else [item.child(i) for i in range(item.childCount())])
            nxt = next((c for c in items if c.data(0, STEP_ROLE) is not None
                        and c.data(0, STEP_ROLE).span.span_id == span_id), None)
            if nxt is None:
                break
            item = nxt
            if span_id in self._waiting and span_id in found.levels:  # read meanwhile with the branch
                self._fill(self._waiting.pop(span_id), found.levels[span_id])
            if span_id != path[-1]:
                item.setExpanded(True)  # its children: from the read's levels (_load_children)
        if item is not None:
            self.tree.setCurrentItem(item)
            self.tree.scrollToItem(item)

    def span_ms(self) -> float | None:
        """The timeline's length: the run's last end minus its first start, ms (``None``: no run
        shown, or no step has a start)."""
        if self.bounds is None:
            return None
        return max((self.bounds[1] - self.bounds[0]).total_seconds() * 1000, 0.0)

    def axis_range(self) -> tuple[float, float] | None:
        """The timeline axis, ms from the run's first start: ``(0, span_ms())``."""
        span = self.span_ms()
        return None if span is None else (0.0, span)

    def ticks(self, width_px: int | None = None) -> list[float]:
        """The axis ticks (ms from the run's start) for a timeline ``width_px`` pixels wide
        (default: the column's width): :func:`ctxviewer.present.run_tree.time_ticks`, one per
        :data:`TICK_PX` pixels at most."""
        span = self.span_ms()
        if span is None:
            return []
        width = _bar_rect(QRect(0, 0, self.tree.columnWidth(TIMELINE), 10)).width() if width_px is None else width_px
        return time_ticks(span, max(width // TICK_PX, 2))

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
        item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator if step.has_children
                                     else QTreeWidgetItem.ChildIndicatorPolicy.DontShowIndicator)
        return item

    def _load_children(self, item: QTreeWidgetItem) -> None:
        step = item.data(0, STEP_ROLE)
        if step is None or item.data(0, LOADED_ROLE) or self.run_id is None:
            return
        item.setData(0, LOADED_ROLE, True)
        span_id = step.span.span_id
        if span_id in self._levels or not step.has_children:
            self._fill(item, self._levels.get(span_id, []))
            return
        placeholder = QTreeWidgetItem([READING_STEPS])
        placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
        item.addChild(placeholder)
        self._waiting[span_id] = item
        self.reads.request_children(self._tree_gen, self.run_id, span_id)

    def _fill(self, item: QTreeWidgetItem, children: list[Any]) -> None:
        item.takeChildren()  # the placeholder, if any
        item.addChildren([self._item(s) for s in children])
        if not children:
            item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.DontShowIndicator)

    def _on_children(self, token: object, parent_id: str, children: list[Any]) -> None:
        if token != self._tree_gen:
            return  # read for a tree since cleared
        self._levels[parent_id] = children
        item = self._waiting.pop(parent_id, None)
        if item is not None:
            self._fill(item, children)

    def _on_children_failed(self, token: object, parent_id: str, message: str) -> None:
        item = self._waiting.pop(parent_id, None) if token == self._tree_gen else None
        if item is not None and item.childCount():
            item.child(0).setText(0, one_line(f"cannot read the steps: {message}"))

    def _on_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        step = item.data(0, STEP_ROLE)
        if step is not None and step.span.trace_id:
            self.sig_trace_selected.emit(step.span.trace_id)
