"""Selection in the main window: a trace-list row or a trace id selected, loaded off the GUI thread
(:class:`~ctxviewer.gui.trace_loader.TraceLoader`, a newer selection wins), its items painted, then
its assessment; ``then`` callbacks once it is shown; the panes cleared when nothing is.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QItemSelectionModel, QModelIndex

from ctxviewer.assess.assessment import Assessment
from ctxviewer.gui.window_part import WindowPart
from ctxviewer.model.trace import RequestTrace
from ctxviewer.util.visible import one_line


class WindowSelection(WindowPart):
    """Selecting and showing a trace (module docstring): a part of
    :class:`~ctxviewer.gui.main_window.MainWindow`."""

    def select_row(self, row: int) -> None:
        """Select trace-list row ``row`` (its trace is then loaded and shown); out of range, the
        panes are cleared."""
        if 0 <= row < self.trace_model.rowCount():
            idx = self.trace_model.index(row, 0)
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            self.trace_view.selectionModel().setCurrentIndex(idx, flags)
            self.trace_view.scrollTo(idx)
        else:
            self._show_nothing()

    def select_trace(self, trace_id: str, then: Callable[[RequestTrace], None] | None = None) -> None:
        """Select ``trace_id`` (its row too, if loaded) and show it once loaded; ``then(trace)``
        once it is shown with its assessment (at once when it is shown already; never if a newer
        selection wins). Raises ``KeyError`` if the store has none."""
        if self.store is None:
            raise KeyError(trace_id)
        row = self.trace_model.row_of(trace_id)
        if row is None and self.store.key_of(trace_id) is None:
            raise KeyError(trace_id)
        self._then = (trace_id, then) if then is not None else None
        if row is not None:
            self.select_row(row)
        if self.loader.wanted is None and self.trace is not None and self.trace.trace_id == trace_id:
            self._call_then(self.trace)  # shown already
        else:
            self._load_later(trace_id)

    def _call_then(self, trace: RequestTrace) -> None:
        if self._then is not None and self._then[0] == trace.trace_id:
            then = self._then[1]
            self._then = None
            then(trace)

    def _show_nothing(self, empty_text: str = "No trace selected.") -> None:
        """Clear the right-hand panels (the chart says ``empty_text``); a selection still being
        loaded is dropped."""
        self.loader.cancel()
        self.trace = None
        self.panel.set_trace(None, None, empty_text)

    def wait_shown(self, ms: int = 30_000) -> bool:
        """Block until the selected trace is shown with its assessment, processing events (for a
        caller without an event loop of its own: the screenshot command), its run read too (the
        Run tab). Returns whether it is."""
        return self.loader.wait(ms) and self.panel.tabs.run.wait(ms)

    def _on_trace_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        trace_id = self.trace_model.trace_id(current.row()) if current.isValid() else None
        if trace_id is not None and self.store is not None:
            self._load_later(trace_id)

    def _load_later(self, trace_id: str) -> None:
        """Ask the loader for ``trace_id``; the trace shown stays until it arrives (an empty panel
        says what it waits for)."""
        if self.loader.wanted == trace_id:
            return
        self.loader.request(trace_id)
        if self.trace is None:
            self.chart.set_assessment(None, f"Loading {one_line(trace_id)}…")

    def _on_loaded(self, trace: RequestTrace) -> None:
        """A selected trace is read: its items are painted, the assessment follows."""
        self.trace = trace
        self.panel.set_trace(trace, None)
        self.sig_trace_selected.emit(trace.trace_id)

    def _on_assessed(self, trace: RequestTrace, assessment: Assessment) -> None:
        if self.panel.set_assessment(trace, assessment):
            self._call_then(trace)
            self.sig_trace_shown.emit(trace.trace_id)

    def _on_load_failed(self, trace_id: str, message: str) -> None:
        self._then = None
        if self.trace is not None and self.trace.trace_id == trace_id and self.panel.assessing:
            self.panel.assessment_failed(self.trace, message)  # read, but the checks failed
            self.sig_trace_shown.emit(trace_id)
            return
        where = self.store.path if self.store is not None else "the trace database"
        text = one_line(f"{where}: trace {trace_id}: {message}")
        self._show_nothing(f"Cannot load trace: {text}")  # never "Loading…" behind the dialog
        self.show_error("Cannot load trace", text)

    def _select_from_run(self, trace_id: str) -> None:
        """A model call's row of the Run tab was activated: show that call (said when not stored)."""
        try:
            self.select_trace(trace_id)
        except KeyError:
            self.show_status(f"trace {trace_id} is not in this database", 5000)
