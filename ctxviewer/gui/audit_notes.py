"""The audit view's notes: saved with Enter, kept when they cannot be, discarded only on the
reviewer's word.

:class:`NoteKeeping` is the part of :class:`~ctxviewer.gui.audit_view.AuditView` that handles the
note field: ``N`` puts the focus there, ``Enter`` saves (:meth:`NoteKeeping.save_note`). A note
that cannot be saved (the review file's folder read-only at that moment, a file that is not a
review file) stays in the field, and is kept (:class:`ctxviewer.review.pending.PendingNotes`) when
the reviewer goes to another finding, and comes back with it; so does a note typed and left
without Enter. **Discard unsaved note** beside the field forgets it; ``Esc`` drops an edit not yet
kept. When the window closes with notes pending, the controller asks Save / Discard / Cancel
(:mod:`~ctxviewer.gui.audit_dock`) and calls :meth:`NoteKeeping.save_pending` on Save.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLineEdit, QTableView

from ctxviewer.gui.audit_detail import FindingDetail, review_line
from ctxviewer.gui.review_model import ReviewTableModel
from ctxviewer.review import ReviewEntry, ReviewQueue, ReviewVerdict
from ctxviewer.review.location import ReviewLocation
from ctxviewer.review.pending import PendingNotes
from ctxviewer.review.reviewer import Reviewer

NOTE_NOT_SAVED = " — the note was not saved; it stays in the note field"


class NoteKeeping:
    """The note field's behaviour (module docstring); mixed into the audit view, whose members
    it uses are declared here."""

    db_path: Path | None
    location: ReviewLocation | None
    reviewer: Reviewer
    queue: ReviewQueue | None
    pending: PendingNotes
    detail: FindingDetail
    note_edit: QLineEdit
    table: QTableView
    model: ReviewTableModel

    if TYPE_CHECKING:
        def current_entry(self) -> ReviewEntry | None: ...
        def current_row(self) -> int: ...
        def show_entry(self, entry: ReviewEntry | None) -> None: ...
        def show_error(self, text: str) -> None: ...
        def _update_counts(self) -> None: ...
        def _save(self, entry: ReviewEntry, verdict: ReviewVerdict | None, note: str | None, failed: str) -> bool: ...

    def keep_typed_note(self, entry: ReviewEntry | None = None) -> None:
        """Keep the note typed in the field for ``entry`` (default: the selected one) as pending
        when it was edited and differs from the saved one (the selection moves, the window closes)."""
        entry = entry or self.current_entry()
        if entry is None or self.queue is None or not self.note_edit.isModified():
            return
        review, text = self.queue.review(entry), self.note_edit.text()
        if text != (review.note if review else "") or self.pending.get(self.db_path, entry.key) is not None:
            self.pending.keep(self.db_path, self.location, entry.key, text)
        self.note_edit.setModified(False)

    def discard_note(self) -> None:
        """Forget the selected finding's unsaved note (the reviewer's word) and show the saved one."""
        entry = self.current_entry()
        if entry is not None:
            self.pending.discard(self.db_path, entry.key)
            self.show_entry(entry)
            self.table.setFocus()

    def save_pending(self) -> list[str]:
        """Save every pending note (:meth:`~ctxviewer.review.pending.PendingNotes.save_all`);
        returns why each one that could not be saved failed (shown on the error line)."""
        self.keep_typed_note()
        failed = self.pending.save_all(self.db_path, self.queue, self.reviewer.name)
        self.show_error(failed[0] + NOTE_NOT_SAVED if failed else "")
        self.model.row_changed(self.current_row())
        self.show_entry(self.current_entry())
        self._update_counts()
        return failed

    def edit_note(self) -> None:
        """Put the focus in the note field."""
        if self.current_entry() is not None:
            self.note_edit.setFocus()
            self.note_edit.selectAll()

    def save_note(self) -> None:
        """Store the note of the selected finding and return to the table. When it cannot be
        stored, the error line says why and the note stays in the field (with the focus)."""
        entry = self.current_entry()
        if entry is not None and self.queue is not None:
            text = self.note_edit.text()
            old = self.queue.review(entry)
            if not self._save(entry, old.verdict if old else None, text, NOTE_NOT_SAVED):
                self.pending.keep(self.db_path, self.location, entry.key, text)
                self.note_edit.setModified(False)
                self.detail.discard_button.show()
                self.note_edit.setFocus()
                return
            self.pending.discard(self.db_path, entry.key)
            self.note_edit.setModified(False)
            self.detail.discard_button.hide()
            self.model.row_changed(self.current_row())
            self.detail.review_label.setText(review_line(self.queue.review(entry)))
            self._update_counts()
        self.table.setFocus()
