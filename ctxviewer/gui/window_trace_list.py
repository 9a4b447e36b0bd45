"""The main window's trace list pane, as it follows its model: the filter applied, the columns fitted,
the count under the list ("counting…" until exact, re-assessed rows said), the shown trace's row
marked after a re-query and the first trace shown when the list (re)fills or nothing matches.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel

from ctxviewer.gui.tables import fit_columns_to_content
from ctxviewer.gui.trace_list_model import PAGE_ROWS
from ctxviewer.gui.window_part import WindowPart
from ctxviewer.present.columns import TRACE_COLUMNS
from ctxviewer.store import StoreError


class WindowTraceList(WindowPart):
    """The trace list pane's reactions to its model (module docstring): a part of
    :class:`~ctxviewer.gui.main_window.MainWindow`."""

    def apply_filter(self) -> None:
        """Re-query the trace list with the filter box's text now (SQL-side filter)."""
        self._filter_timer.stop()
        if self.filter_edit.error is None:  # a filter that does not parse keeps the last good one
            self.trace_model.set_filter(self.filter_edit.text())

    def _fit_columns(self, only: int | None = None) -> None:
        """Size the trace list's shown columns to their titles and the first page's cells
        (:func:`~ctxviewer.gui.tables.fit_columns_to_content`); the trace id takes the rest. Qt's
        ``sizeHintForColumn`` would read a thousand rows: 17-90 ms on the 1M database."""
        if only is None and self._widths_remembered:
            return
        fit_columns_to_content(self.trace_view, TRACE_COLUMNS, "trace_id", PAGE_ROWS, only)

    def _on_section_resized(self, col: int, old: int, new: int) -> None:
        """A column the user showed again (hidden sections have size 0) is sized to its content."""
        if old == 0 and new > 0 and self.trace_model.rowCount():
            self._fit_columns(only=col)

    def _on_list_reset(self) -> None:
        if not self._model_fitted and self.trace_model.rowCount():
            self._model_fitted = True  # once per source: measuring the columns costs 20-90 ms per reset
            self._fit_columns()
        self._show_count()
        n = self.trace_model.rowCount()
        if n == 0:  # nothing matches (once counted): never leave the previous trace on screen
            if self.trace_model.counted:
                self._show_no_match()
            return
        if self.trace is None:  # the list came back (filter cleared or changed): show its first trace
            self.select_row(0)
            return
        self._mark_shown_trace()

    def _mark_shown_trace(self) -> None:
        """Select the shown trace's row without re-showing it (after a re-query; again once every
        row key is read, when its row was not among those read first). A row selected while it
        was still empty (its key not read yet) has its trace shown once the keys are there."""
        current = self.trace_view.selectionModel().currentIndex()
        if self.trace is None and current.isValid():
            self._on_trace_row(current, current)
            return
        if self.trace is None or current.isValid():
            return
        row = self.trace_model.row_of(self.trace.trace_id)
        if row is not None:
            idx = self.trace_model.index(row, 0)
            self.trace_view.selectionModel().blockSignals(True)
            self.trace_view.selectionModel().setCurrentIndex(
                idx, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
            self.trace_view.selectionModel().blockSignals(False)
            self.trace_view.viewport().update()

    def _on_list_counted(self) -> None:
        """The model has its keys (a filter or sort read off the GUI thread has finished)."""
        self._show_count()
        if self.trace_model.rowCount() == 0:
            self._show_no_match()
        elif self.trace is None:
            self.select_row(0)

    def _on_rows_arrived(self) -> None:
        """The first page of a filter read off the GUI thread: show its first trace."""
        if self.trace is None and self.trace_model.rowCount():
            self.select_row(0)

    def _absent_rules(self) -> str | None:
        """The store's note on a filter naming a finding no trace has
        (:meth:`~ctxviewer.store.TraceStore.absent_rules_note`, as ``list --filter`` says it), or ``None``."""
        note = getattr(self.store, "absent_rules_note", None)
        try:
            return note(self.filter_edit.text()) if note is not None else None
        except StoreError:
            return None

    def _show_no_match(self) -> None:
        text = self.filter_edit.text().strip()
        absent = self._absent_rules() if text else None
        said = f"No trace matches the filter “{text}”." if text else "The database holds no traces."
        self._show_nothing(f"{said}\n{absent[0].upper()}{absent[1:]}." if absent else said)

    def _show_count(self) -> None:
        """The count under the list: exact once the model has its keys, "counting" before."""
        total = self.trace_model.total
        if not self.trace_model.counted:
            bound = self.trace_model.bound
            self.count_label.setText(f"≤ {bound:,} traces · counting…" if bound else "counting traces…")
            self.count_label.setToolTip("At most this many (the store's fast upper bound); the exact count is "
                                        "being read in the background." if bound else "")
            return
        text = f"{total:,} {'trace' if total == 1 else 'traces'}"
        fresh = self.trace_model.refreshed
        note = getattr(self.store, "filter_note", lambda _t: None)(self.filter_edit.text())
        if note:  # a filter on the assessment of a store that keeps none: it covers the assessed rows
            text += " · of the assessed rows"
        if hasattr(self.store, "assess_rows"):  # a ClickHouse store keeps no facts: rows assessed on demand
            tip = (f"{fresh:,} shown row(s) assessed in this window, as show and check assess them, and kept in "
                   "a local cache keyed by span id and rule set." if fresh else "")
            text += f" · {fresh:,} assessed" if fresh else ""
            tip = f"{tip} The filter reads the assessment: {note}." if note else tip
        else:
            text += f" · {fresh:,} re-assessed with the current settings" if fresh else ""
            tip = (f"{fresh:,} row(s) were stored with other settings (ctxviewer.toml, marks or an older ctxviewer) "
                   "and were re-assessed in this window, as show and check assess them; filters and sorts read "
                   "the stored facts until `ctxviewer upgrade DB -o NEW.db` stores them afresh." if fresh else "")
        absent = self._absent_rules()
        if absent:  # a misspelt rule keeps nothing, or everything after "!=": never silently
            text += " · " + absent.split(";", 1)[0]
            tip = f"{absent}. {tip}"
        self.count_label.setText(text)
        self.count_label.setToolTip(tip.strip())
