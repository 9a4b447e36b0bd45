"""The diff view: what changed between request A and request B, at a glance.

Top: the headline, first point of divergence, policy and the eq. 3.1 verdict before and after
(:mod:`ctxviewer.diff.render`, the same words as ``ctxviewer diff``). Middle: the aligned items side
by side (:class:`~ctxviewer.gui.diff_model.DiffItemModel`: a symbol and a colour per change, moves
numbered) beside the per-category token chart (:class:`~ctxviewer.gui.diff_chart.DeltaChart`).
Bottom tabs: the selected pair's word diff, the evidence order (each document's rank and position
before and after), the response's word diff, the two policy texts' word diff, and the full text summary (as ``ctxviewer diff``). Keyboard: F7 / Alt+Down next change, Shift+F7 / Alt+Up previous.

The view only paints a core :class:`~ctxviewer.diff.TraceDiff`; it never reads a store.
:class:`DiffWindow` is the top-level window the main window opens.

Signal: ``sig_row_selected(int row)`` when the selected aligned row changes.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.diff import Change, ItemDiff, TraceDiff, diff_traces
from ctxviewer.diff.cells import DIFF_COLUMNS, EVIDENCE_COLUMNS
from ctxviewer.diff.render import (
    CHANGE_LABELS,
    CHANGE_SYMBOLS,
    describe,
    diff_json,
    evidence_moves,
    findings_line,
    format_diff_text,
    headline,
    needed_lines,
)
from ctxviewer.gui.diff_chart import DeltaChart
from ctxviewer.gui.diff_model import DiffItemModel, EvidenceOrderModel
from ctxviewer.gui.diff_text import TextDiffPane
from ctxviewer.gui.tables import make_table, size_columns
from ctxviewer.gui.window_keys import add_close_keys, close_sequences
from ctxviewer.gui.worker import Task
from ctxviewer.model.trace import RequestTrace
from ctxviewer.util.visible import one_line, reveal

NEXT_KEYS = ("F7", "Alt+Down")
PREVIOUS_KEYS = ("Shift+F7", "Alt+Up")


def summary_lines(diff: TraceDiff) -> str:
    """The lines above the table: headline, first divergence, policy, verdict A -> B, the needed
    document's place before and after (did the replay fix it?) and the findings fixed / new."""
    fd = diff.first_divergence
    p = diff.policy
    pol = (f"{p.id_a or '?'} {p.version_a or 'version not recorded'} → {p.id_b or '?'} {p.version_b or 'version not recorded'}"
           if p.changed else f"{p.id_b or 'not recorded'} {p.version_b or ''} (unchanged)".replace("  ", " "))
    verdict = (f"{diff.verdict_a}  →  {diff.verdict_b}" if diff.verdict_a != diff.verdict_b
               else f"{diff.verdict_b} (unchanged)")
    ev = evidence_moves(diff)
    needed = needed_lines(diff)
    return "\n".join([
        f"A {diff.trace_a}   ↔   B {diff.trace_b}:  {headline(diff)}",
        "First divergence: " + ("none, same content in the same order" if fd is None else
                                fd.words())
        + (f"    Evidence moved (rank): {ev}" if ev else ""),
        f"Policy: {pol}    eq. 3.1: {verdict}",
        ("Needed document: " + "; ".join(needed) if needed
         else "Needed document: " + ("none matches the question" if diff.evidence else "no evidence in either"))
        + f"    Findings: {findings_line(diff)}",
    ])


def legend_text() -> str:
    """``"= unchanged   + added   - removed   ↕ moved (numbered) ..."``: every change symbol in words."""
    return "   ".join(f"{CHANGE_SYMBOLS[c]} {CHANGE_LABELS[c]}" + (" (numbered)" if c is Change.MOVED else "")
                       for c in (Change.UNCHANGED, Change.ADDED, Change.REMOVED, Change.MOVED,
                                 Change.CONTENT_CHANGED, Change.STATUS_CHANGED, Change.PRIORITY_CHANGED,
                                 Change.RETOKENIZED)) + "      F7 / Shift+F7: next / previous change"


class DiffView(QWidget):
    """Paints one :class:`~ctxviewer.diff.TraceDiff` (see the module docstring)."""

    sig_row_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.diff: TraceDiff | None = None
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setObjectName("diffHeader")
        self.header.setWordWrap(True)
        self.model = DiffItemModel(parent=self)
        self.table = make_table(self.model)
        size_columns(self.table, DIFF_COLUMNS, "what")
        self.table.selectionModel().currentRowChanged.connect(self._on_row)
        self.chart = DeltaChart()
        self.item_diff = TextDiffPane()
        self.response_diff = TextDiffPane()
        self.policy_diff = TextDiffPane()
        self.summary = QPlainTextEdit()
        self.summary.setReadOnly(True)
        self.summary.setFont(self.item_diff.view_a.font())
        self.tabs = QTabWidget()
        self.tabs.addTab(self.item_diff, "Selected item")
        self.evidence_model = EvidenceOrderModel(parent=self)
        self.evidence_view = make_table(self.evidence_model)
        size_columns(self.evidence_view, EVIDENCE_COLUMNS, "move")
        self.tabs.addTab(self.evidence_view, "Evidence order")
        self.tabs.addTab(self.response_diff, "Response")
        self.tabs.addTab(self.policy_diff, "Policy")
        self.tabs.addTab(self.summary, "Summary")
        self.tabs.currentChanged.connect(lambda _index: self._show_needed())
        self.legend = QLabel(legend_text())
        self.legend.setTextFormat(Qt.TextFormat.PlainText)
        self.legend.setObjectName("diffLegend")
        table_box = QWidget()
        tl = QVBoxLayout(table_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.setSpacing(2)
        tl.addWidget(self.table, 1)
        tl.addWidget(self.legend)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.tabs)
        bottom.addWidget(self.chart)
        bottom.setStretchFactor(0, 3)
        bottom.setStretchFactor(1, 1)
        bottom.setChildrenCollapsible(False)
        self.bottom_splitter = bottom
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(table_box)
        self.splitter.addWidget(bottom)
        self.splitter.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.header)
        lay.addWidget(self.splitter, 1)
        self.act_next = self._shortcut("Next Change", NEXT_KEYS, self.next_change)
        self.act_previous = self._shortcut("Previous Change", PREVIOUS_KEYS, self.previous_change)

    def _shortcut(self, text: str, keys: tuple[str, ...], slot) -> QAction:  # type: ignore[no-untyped-def]
        act = QAction(text, self)
        act.setShortcuts([QKeySequence(k) for k in keys])
        act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        act.triggered.connect(slot)
        self.addAction(act)
        return act

    # ------------------------------------------------------------------ public API

    def set_diff(self, diff: TraceDiff | None) -> None:
        """Show ``diff`` (``None`` clears) and select its first change (or its first row)."""
        self.diff = diff
        self.model.set_diff(diff)
        self.evidence_model.set_diff(diff)
        self.chart.set_diff(diff)
        self.header.setText(reveal(summary_lines(diff)).text if diff is not None else "")  # trace text inert
        self.summary.setPlainText(reveal(format_diff_text(diff)).text if diff is not None else "")
        if diff is not None:
            self.response_diff.set_texts(diff.response_a, diff.response_b,
                                         f"A response ({diff.finish_reason_a or 'finish reason not recorded'})",
                                         f"B response ({diff.finish_reason_b or 'finish reason not recorded'})")
            p = diff.policy
            self.policy_diff.set_texts(p.text_a, p.text_b,
                                       f"A policy {p.id_a or '?'} {p.version_a or 'version not recorded'}",
                                       f"B policy {p.id_b or '?'} {p.version_b or 'version not recorded'}")
        else:
            self.response_diff.set_texts(None, None)
            self.policy_diff.set_texts(None, None)
        lay = self.layout()
        if lay is not None:
            lay.activate()  # the header's height is known before the table scrolls to the change
        changes = self.model.change_rows()
        self.select_row(changes[0] if changes else 0)
        self._show_needed()

    def _show_needed(self) -> None:
        """Scroll the Evidence order tab to the document the answer needed (when it is showing)."""
        if self.diff is None or self.tabs.currentWidget() is not self.evidence_view:
            return
        needed = [n for n, e in enumerate(self.diff.evidence) if e.needed]
        if needed:
            self.evidence_view.scrollTo(self.evidence_model.index(needed[0], 0),
                                        QAbstractItemView.ScrollHint.PositionAtCenter)

    def set_traces(self, a: RequestTrace, b: RequestTrace) -> None:
        """Diff ``a`` against ``b`` (core :func:`~ctxviewer.diff.diff_traces`) and show it."""
        self.set_diff(diff_traces(a, b))

    def select_row(self, row: int) -> None:
        """Select aligned row ``row`` (no-op when out of range)."""
        if 0 <= row < self.model.rowCount():
            idx = self.model.index(row, 0)
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            self.table.selectionModel().setCurrentIndex(idx, flags)
            self.table.scrollTo(idx, QAbstractItemView.ScrollHint.PositionAtCenter)

    def current_row(self) -> int:
        """The selected row, or -1."""
        idx = self.table.selectionModel().currentIndex()
        return idx.row() if idx.isValid() else -1

    def next_change(self) -> None:
        """Select the next changed row after the current one (wraps to the first)."""
        rows = self.model.change_rows()
        if rows:
            cur = self.current_row()
            self.select_row(next((r for r in rows if r > cur), rows[0]))

    def previous_change(self) -> None:
        """Select the previous changed row before the current one (wraps to the last)."""
        rows = self.model.change_rows()
        if rows:
            cur = self.current_row()
            self.select_row(next((r for r in reversed(rows) if r < cur), rows[-1]))

    def cancel(self) -> None:
        """Stop background diffs (before closing)."""
        self.item_diff.cancel()
        self.response_diff.cancel()

    # ------------------------------------------------------------------ internals

    def _on_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        d: ItemDiff | None = self.model.row_diff(current.row()) if current.isValid() else None
        if d is None:
            self.item_diff.set_texts(None, None)
            return
        ta = f"A: {d.a.id} ({d.a.kind.value})" if d.a else "A: absent"
        tb = f"B: {d.b.id} ({d.b.kind.value}) — {describe(d)}" if d.b else f"B: absent — {describe(d)}"
        self.item_diff.set_texts(d.a.content if d.a else None, d.b.content if d.b else None, ta, tb)
        self.tabs.setCurrentWidget(self.item_diff)
        self.sig_row_selected.emit(current.row())


class DiffWindow(QMainWindow):
    """A top-level window holding one :class:`DiffView` of ``a`` (before) against ``b`` (after).

    The diff (which assesses both traces: every check runs) is computed off the GUI thread
    through :class:`~ctxviewer.gui.worker.Task`; the view fills in when it arrives.

    Signal: ``sig_ready(object TraceDiff)`` once the diff is shown.
    """

    sig_ready = Signal(object)

    def __init__(self, a: RequestTrace, b: RequestTrace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(one_line(f"ctxviewer — compare {a.trace_id} ↔ {b.trace_id}"))
        self.view = DiffView()
        self.setCentralWidget(self.view)
        file_menu = self.menuBar().addMenu("&File")
        self.act_save = file_menu.addAction("&Save Diff as JSON…", QKeySequence.StandardKey.Save)
        self.act_save.triggered.connect(self.choose_and_save)
        self.act_copy = file_menu.addAction("&Copy Summary", QKeySequence("Ctrl+Shift+C"))
        self.act_copy.triggered.connect(self.copy_summary)
        file_menu.addSeparator()
        act_close = file_menu.addAction("&Close")
        act_close.setShortcuts(close_sequences())  # Ctrl+W (and Ctrl+F4 where that is Close)
        act_close.triggered.connect(self.close)
        menu = self.menuBar().addMenu("&Go")
        menu.addAction(self.view.act_next)
        menu.addAction(self.view.act_previous)
        add_close_keys(self, esc=True, ctrl_w=False)  # Esc closes too (Ctrl+W: File > Close)
        self.resize(1280, 800)
        self.view.splitter.setSizes([400, 330])
        self.view.bottom_splitter.setSizes([930, 340])
        self.view.header.setText(one_line(f"Comparing {a.trace_id} ({len(a.items):,} items) with "
                                          f"{b.trace_id} ({len(b.items):,} items)…"))
        self.task = Task(lambda _progress, _cancelled: diff_traces(a, b), self)
        self.task.sig_finished.connect(self._on_diff)
        self.task.sig_failed.connect(lambda msg: self.view.header.setText(f"Cannot compare: {msg}"))
        self.task.start()

    def save_json(self, path: str) -> None:
        """Write the diff as the ``ctxviewer diff --json`` object to ``path`` (UTF-8). Raises
        ``OSError`` when the file cannot be written; does nothing before the diff is ready."""
        if self.view.diff is not None:
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(diff_json(self.view.diff), fh, indent=2, ensure_ascii=False)

    def choose_and_save(self) -> None:
        """File › Save: ask for a file and write the JSON there (errors in a message box)."""
        if self.view.diff is None:
            return
        name = f"diff-{self.view.diff.trace_a}-{self.view.diff.trace_b}.json".replace(":", "_").replace("/", "_")
        path, _ = QFileDialog.getSaveFileName(self, "Save diff as JSON", name, "JSON (*.json)")
        if path:
            try:
                self.save_json(path)
            except OSError as exc:
                QMessageBox.warning(self, "Cannot save the diff", f"{path}: {exc}")

    def copy_summary(self) -> None:
        """Copy the text summary (what ``ctxviewer diff`` prints) to the clipboard."""
        if self.view.diff is not None:
            QGuiApplication.clipboard().setText(format_diff_text(self.view.diff))

    def _on_diff(self, diff: TraceDiff) -> None:
        self.view.set_diff(diff)
        self.sig_ready.emit(diff)

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self.view.cancel()
        if not self.task.done:
            self.task.cancel()
            self.task.wait()
        super().closeEvent(event)
