"""The audit view: work through every injection and tool-call finding of a database to a verdict.

Keyboard-driven (focus on the table): ``J`` / ``Down`` next finding, ``K`` / ``Up`` previous,
``C`` confirmed injection, ``F`` false positive, ``U`` needs follow-up (each verdict moves to the
next finding while the check box **Advance after verdict** is on; ``A`` switches it, and its state
is remembered in the settings), ``X`` clears the verdict, ``N`` edits the note (``Enter`` saves it and
returns to the table, ``Esc`` drops the edit; :mod:`~ctxviewer.gui.audit_notes`). Selecting a
finding shows it (:mod:`~ctxviewer.gui.audit_detail`): its item with the span highlighted and
invisible characters made visible, the tool call it is linked to, and who reviewed it when.

The findings are collected off the GUI thread (:class:`~ctxviewer.gui.worker.Task`, its own
store connection) with progress and Cancel. Verdicts go to the database's review file
(:class:`~ctxviewer.review.ReviewFile`), never to the database: beside it when its folder is
writable, else in the user data directory, or the launch's ``--review-file``
(:mod:`ctxviewer.review.location`); the line above the queue (``auditLocation``) names the file
and why it is there.

When a verdict or note cannot be saved (the folder is read-only, the review file is not one), the
error line above the queue (``auditError``, plain text, control characters revealed) says which
file and why, and stays until a save succeeds; the row keeps its status, and a note that was not
saved is kept until it is saved or the reviewer discards it (:mod:`~ctxviewer.gui.audit_notes`;
closing the window asks). A review file that cannot be read is reported on the same line; the
findings are still shown.

Signals: ``sig_loaded(int count)`` -- the queue is ready.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PySide6.QtCore import QEvent, QModelIndex, QObject, QSettings, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.gui.audit_detail import FindingDetail, review_line
from ctxviewer.gui.audit_notes import NoteKeeping
from ctxviewer.gui.audit_queue import QueueBar, review_table
from ctxviewer.gui.review_model import EntryRole, ReviewTableModel
from ctxviewer.gui.worker import Task
from ctxviewer.pipeline.hints import open_store
from ctxviewer.review import ReviewEntry, ReviewFile, ReviewQueue, ReviewVerdict, collect
from ctxviewer.review.location import ReviewLocation, review_location
from ctxviewer.review.pending import PendingNotes
from ctxviewer.review.queue import STATUSES, status_label
from ctxviewer.review.reviewer import Reviewer, reviewer_for
from ctxviewer.review.verdicts import ReviewFileError
from ctxviewer.util.visible import one_line

_VERDICT_KEYS: dict[int, ReviewVerdict] = {
    int(Qt.Key.Key_C): ReviewVerdict.CONFIRMED, int(Qt.Key.Key_F): ReviewVerdict.FALSE_POSITIVE,
    int(Qt.Key.Key_U): ReviewVerdict.FOLLOW_UP,
}
VERDICT_NOT_SAVED = " — the verdict was not saved"
ADVANCE_KEY = "review/advance_after_verdict"
"""QSettings key of the "Advance after verdict" switch (default on)."""
NOT_LOADED = " — verdicts and notes cannot be shown or saved"


class AuditView(NoteKeeping, QWidget):
    """The review queue of one trace database (see the module docstring)."""

    sig_loaded = Signal(int)

    def __init__(self, parent: QWidget | None = None, settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        """Where "Advance after verdict" is remembered (``None``: not remembered)."""
        self.db_path: Path | None = None
        self.location: ReviewLocation | None = None
        """Where the review file of :attr:`db_path` is (set by :meth:`load`)."""
        self.reviewer = Reviewer(None, "no database")
        """Who the verdicts are recorded as (:mod:`ctxviewer.review.reviewer`), named above the queue."""
        self.queue: ReviewQueue | None = None
        self.task: Task | None = None
        self.file_error = ""
        """Why the review file could not be read ("" when it could), shown on every save attempt."""
        self.pending = PendingNotes()
        """Notes not in the review file (the save failed, or typed and left), by database and
        finding: kept until saved or discarded (:mod:`ctxviewer.review.pending`)."""
        self.model = ReviewTableModel(self)
        self.table = review_table(self.model)
        self.table.installEventFilter(self)
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        self.bar = QueueBar()
        bar = self.bar
        self.rule_box, self.trace_box, self.status_box = bar.rule_box, bar.trace_box, bar.status_box
        for box in (self.rule_box, self.trace_box, self.status_box):
            box.currentIndexChanged.connect(self.apply_filter)
        self.count_label, self.cancel_button = bar.count_label, bar.cancel_button
        self.cancel_button.clicked.connect(self.cancel)
        self.location_label, self.reviewer_label, self.error_label = bar.location_label, bar.reviewer_label, bar.error_label

        self.detail = FindingDetail()
        self.message, self.calls, self.content = self.detail.message, self.detail.calls, self.detail.content
        self.note_edit = self.detail.note_edit
        self.note_edit.returnPressed.connect(self.save_note)
        self.note_edit.installEventFilter(self)
        self.detail.discard_button.clicked.connect(self.discard_note)
        detail = self.detail
        self.advance_box = QCheckBox("Advance after verdict")
        self.advance_box.setObjectName("auditAdvance")
        self.advance_box.setToolTip("C, F and U move to the next finding after the verdict (A switches this)")
        self.advance_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay with the table
        on = settings.value(ADVANCE_KEY, True, type=bool) if settings is not None else True
        self.advance_box.setChecked(bool(on))
        self.advance_box.toggled.connect(self._on_advance)
        detail.help_row.addWidget(self.advance_box)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(detail)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 2)  # the queue gets the larger share; the item below scrolls
        split.setStretchFactor(1, 3)
        self.splitter = split
        lay = QVBoxLayout(self)
        lay.addWidget(bar)
        lay.addWidget(split, 1)

    # ------------------------------------------------------------------ loading
    def load(self, db_path: str | Path, review_file: str | Path | None = None) -> None:
        """Collect the findings of ``db_path`` in the background, then show the queue with the
        verdicts of its review file (``review_file``: ``--review-file``; else found by
        :func:`~ctxviewer.review.location.review_location`)."""
        self.cancel()
        self.db_path = Path(db_path)
        self.location = review_location(self.db_path, review_file)
        self.location_label.setText(one_line(self.location.describe()))
        self.reviewer = reviewer_for(self.db_path)
        self.reviewer_label.setText(one_line(self.reviewer.describe()))
        self.queue = None
        self.file_error = ""
        self.show_error("")
        self.model.set_rows(None, [])
        self.count_label.setText("collecting findings…")
        self.cancel_button.show()
        path = self.db_path

        def job(progress, cancelled):  # type: ignore[no-untyped-def]
            with open_store(path) as store:
                return collect(store, progress, cancelled)

        task = Task(job, self)
        task.sig_progress.connect(lambda done, total: self.count_label.setText(f"collecting findings… {done} of {total} traces"))
        task.sig_finished.connect(self._on_collected)
        task.sig_failed.connect(lambda msg: self._on_failed(msg))
        self.task = task
        task.start()

    def cancel(self) -> None:
        """Stop collecting; the findings read so far are shown."""
        if self.task is not None and not self.task.done:
            self.task.cancel()

    def _on_failed(self, message: str) -> None:
        self.cancel_button.hide()
        self.count_label.setText(f"cannot collect findings: {message}")

    def _on_collected(self, entries: list[ReviewEntry]) -> None:
        self.cancel_button.hide()
        assert self.db_path is not None and self.location is not None
        review_file: ReviewFile | None = None
        try:
            review_file = self.location.open()
            queue = ReviewQueue(entries, review_file, self.reviewer.name)
        except (ReviewFileError, OSError, sqlite3.Error) as exc:  # the findings are still worth showing
            if review_file is not None:
                review_file.close()
            self.file_error = str(exc) if isinstance(exc, ReviewFileError) else f"{self.location.path}: {exc}"
            queue = ReviewQueue(entries, None)
            self.show_error(self.file_error + NOT_LOADED)
        if self.queue is not None and self.queue.file is not None:
            self.queue.file.close()
        self.queue = queue
        self._fill_filters()
        self.apply_filter()
        self.table.setFocus()
        if self.model.rows:
            self.select(0)
        self.sig_loaded.emit(len(self.queue.entries))

    def _fill_filters(self) -> None:
        assert self.queue is not None
        for box, values, labels in (
            (self.rule_box, self.queue.rules(), None),
            (self.trace_box, self.queue.trace_ids(), None),
            (self.status_box, list(STATUSES), [status_label(s) for s in STATUSES]),
        ):
            box.blockSignals(True)
            box.clear()
            box.addItem("all", None)
            for n, v in enumerate(values):
                box.addItem(labels[n] if labels else v, v)
            box.blockSignals(False)

    # ------------------------------------------------------------------ filter and selection
    def apply_filter(self) -> None:
        """Show the entries matching the three filters; the counts follow."""
        if self.queue is None:
            return
        rows = self.queue.filtered(self.rule_box.currentData(), self.trace_box.currentData(),
                                   self.status_box.currentData())
        self.model.set_rows(self.queue, rows)
        self._update_counts()
        if rows:
            self.select(0)

    def _update_counts(self) -> None:
        if self.queue is None:
            return
        text = self.queue.counts_text()
        if len(self.model.rows) != len(self.queue.entries):
            text += f" · {len(self.model.rows)} shown"
        self.count_label.setText(text)

    def current_row(self) -> int:
        """The selected row, ``-1`` when none."""
        return self.table.currentIndex().row()

    def current_entry(self) -> ReviewEntry | None:
        """The selected entry, if any."""
        row = self.current_row()
        return self.model.rows[row] if 0 <= row < len(self.model.rows) else None

    def select(self, row: int) -> None:
        """Select ``row`` (clipped to the table)."""
        if not self.model.rows:
            return
        row = max(0, min(row, len(self.model.rows) - 1))
        self.table.setCurrentIndex(self.model.index(row, 0))

    def next(self) -> None:
        """Select the next finding."""
        self.select(self.current_row() + 1)

    def previous(self) -> None:
        """Select the previous finding."""
        self.select(self.current_row() - 1)

    def _on_current(self, current: QModelIndex, previous: QModelIndex) -> None:
        left = previous.data(EntryRole) if previous.isValid() else None
        if isinstance(left, ReviewEntry):
            self.keep_typed_note(left)
        entry = current.data(EntryRole) if current.isValid() else None
        self.show_entry(entry)

    def show_entry(self, entry: ReviewEntry | None) -> None:
        """Show ``entry``: message, linked tool calls, the item with the span highlighted, the note."""
        if entry is None or self.queue is None:
            self.detail.clear()
            return
        review = self.queue.review(entry)
        unsaved = self.pending.get(self.db_path, entry.key)
        self.detail.show_entry(entry, review, unsaved if unsaved is not None else review.note if review else "")
        self.detail.discard_button.setVisible(unsaved is not None)

    def _on_advance(self, on: bool) -> None:
        if self.settings is not None:
            self.settings.setValue(ADVANCE_KEY, on)

    # ------------------------------------------------------------------ verdicts and notes
    def show_error(self, text: str) -> None:
        """Show ``text`` on the error line (one line, control characters revealed); ``""`` hides it."""
        self.bar.show_error(text)

    def _save(self, entry: ReviewEntry, verdict: ReviewVerdict | None, note: str | None, failed: str) -> bool:
        """Write through the queue; on failure show why (with ``failed`` after it) and return False."""
        assert self.queue is not None
        if self.queue.file is None:
            self.show_error(self.file_error + failed)
            return False
        try:
            self.queue.record(entry, verdict, note)
        except ReviewFileError as exc:
            self.show_error(str(exc) + failed)
            return False
        self.show_error("")
        return True

    def give_verdict(self, verdict: ReviewVerdict | None) -> None:
        """Record ``verdict`` on the selected finding (``None`` clears it) and move to the next
        (while **Advance after verdict** is on).
        A note that could not be saved before is saved with it. When the verdict cannot be saved
        the error line says why and the selection stays."""
        entry, row = self.current_entry(), self.current_row()
        if entry is None or self.queue is None:
            return
        if verdict is None and self.queue.review(entry) is None:
            return
        if not self._save(entry, verdict, self.pending.get(self.db_path, entry.key), VERDICT_NOT_SAVED):
            return
        self.pending.discard(self.db_path, entry.key)
        self.detail.discard_button.hide()
        self.model.row_changed(row)
        self.detail.review_label.setText(review_line(self.queue.review(entry)))
        self._update_counts()
        if verdict is not None and self.advance_box.isChecked():
            self.next()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = int(event.key())
            if obj is self.note_edit and key == int(Qt.Key.Key_Escape):
                self.show_entry(self.current_entry())  # the edit dropped; a pending note stays
                self.table.setFocus()
                return True
            if obj is self.table and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
                if key == int(Qt.Key.Key_J):
                    self.next()
                    return True
                if key == int(Qt.Key.Key_K):
                    self.previous()
                    return True
                if key in _VERDICT_KEYS:
                    self.give_verdict(_VERDICT_KEYS[key])
                    return True
                if key == int(Qt.Key.Key_X):
                    self.give_verdict(None)
                    return True
                if key == int(Qt.Key.Key_N):
                    self.edit_note()
                    return True
                if key == int(Qt.Key.Key_A):
                    self.advance_box.toggle()
                    return True
        return super().eventFilter(obj, event)

    def close_review(self) -> None:
        """Stop collecting and close the review file (the window is closing)."""
        self.cancel()
        if self.task is not None:
            self.task.wait()
        if self.queue is not None and self.queue.file is not None:
            self.queue.file.close()
