"""The Sessions window (**Trace › Sessions…**, Ctrl+Alt+J): the sessions of the database that have
a call the trace list's filter keeps (top, read lazily), and the selected session's calls in send
order with their states (below) -- :mod:`ctxviewer.gui.sessions_model` over the store, the words
of ``ctxviewer sessions`` / ``ctxviewer session``. **Show Call** (Enter, double click) shows the
call in the main window; **Diff with Previous Call** (Ctrl+D here, or D) opens the diff of the
call against the one before it in the session. Built by :mod:`ctxviewer.gui.sessions_controller`.
Plain text only.

Signals: ``sig_show_call(str trace_id)``; ``sig_diff(str session_id, int n)`` -- call ``n``
(counted from 1) against call ``n - 1``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelection, QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QHeaderView, QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from ctxviewer.gui.sessions_model import SessionCallsModel, SessionListModel
from ctxviewer.gui.tables import make_table
from ctxviewer.util.visible import one_line

SESSION_STRETCH = 0
"""The sessions table's column given the spare width: the session id."""


class SessionsWindow(QWidget):
    """The sessions list, the selected session's calls and their two actions (module docstring)."""

    sig_show_call = Signal(str)
    sig_diff = Signal(str, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("ctxviewer — sessions")
        self.store: Any = None
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.sessions = SessionListModel(self)
        self.calls = SessionCallsModel(self)
        self.session_view = make_table(self.sessions)
        self.call_view = make_table(self.calls)
        for view in (self.session_view, self.call_view):
            view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # the session id takes the spare width (its figures stay beside it, not across the window);
        # a call's worst finding, the text at the end of its row, takes it below
        self.session_view.horizontalHeader().setStretchLastSection(False)
        self.session_view.horizontalHeader().setSectionResizeMode(SESSION_STRETCH, QHeaderView.ResizeMode.Stretch)
        self.call_view.horizontalHeader().setStretchLastSection(True)
        self.calls_title = QLabel("Select a session to see its calls.")
        self.calls_title.setTextFormat(Qt.TextFormat.PlainText)
        self.act_show = self._action("&Show Call", [QKeySequence(Qt.Key.Key_Return), QKeySequence(Qt.Key.Key_Enter)],
                                     self._show_current, "Show the selected call in the main window")
        self.act_diff = self._action("&Diff with Previous Call", [QKeySequence("Ctrl+D"), QKeySequence("D")],
                                     self._diff_current, "What changed from the call before it in this session")
        buttons = QHBoxLayout()
        for act in (self.act_show, self.act_diff):
            b = QPushButton(act.text().replace("&", ""))
            b.clicked.connect(act.trigger)
            b.setToolTip(act.toolTip())
            act.changed.connect(lambda a=act, b=b: b.setEnabled(a.isEnabled()))
            b.setEnabled(act.isEnabled())
            buttons.addWidget(b)
        buttons.addStretch(1)
        lower = QWidget()
        low = QVBoxLayout(lower)
        low.setContentsMargins(0, 0, 0, 0)
        low.addWidget(self.calls_title)
        low.addWidget(self.call_view, 1)
        low.addLayout(buttons)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.session_view)
        split.addWidget(lower)
        split.setSizes([300, 420])
        lay = QVBoxLayout(self)
        lay.addWidget(self.note)
        lay.addWidget(split, 1)
        self.session_view.selectionModel().selectionChanged.connect(self._on_session)
        self.call_view.selectionModel().selectionChanged.connect(lambda *_: self._update_actions())
        self.call_view.doubleClicked.connect(lambda _i: self._show_current())
        self.sessions.sig_error.connect(lambda m: self.note.setText(one_line(f"cannot read the sessions: {m}")))
        self.calls.sig_error.connect(lambda m: self.calls_title.setText(one_line(f"cannot read the session: {m}")))
        self._update_actions()

    def _action(self, text: str, keys: list[QKeySequence], slot: Any, tip: str) -> QAction:
        act = QAction(text, self)
        act.setShortcuts(keys)
        act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        act.setToolTip(tip)
        act.triggered.connect(slot)
        self.addAction(act)
        return act

    def set_source(self, store: Any, filter_text: str = "", note: str | None = None) -> None:
        """Show the sessions of ``store`` with a call ``filter_text`` keeps; ``note`` replaces the
        count line (e.g. why there are none)."""
        self.store = store
        self.sessions.set_source(store, filter_text)
        self.calls.set_session(None, None)
        self.calls_title.setText("Select a session to see its calls.")
        if note is not None:
            self.note.setText(one_line(note))
        else:
            try:
                count = store.session_count(self.sessions.query) if store is not None and self.sessions.query else 0
            except Exception as exc:  # a damaged database: said, the window goes on
                self.note.setText(one_line(f"cannot count the sessions: {exc}"))
            else:
                where = f" with a call matching {filter_text}" if filter_text else ""
                self.note.setText(one_line(f"{count:,} session(s){where}, by session id"
                                           if count else f"no session{where}: no call records a session id"))
        self._update_actions()

    def select_session(self, session_id: str, trace_id: str | None = None) -> bool:
        """Select session ``session_id`` (reading pages up to it) and, in it, call ``trace_id``;
        False when the session is not listed."""
        row = self.sessions.find(session_id)
        if row is None:
            return False
        self.session_view.selectRow(row)
        self.session_view.scrollTo(self.sessions.index(row, 0))
        if trace_id is not None:
            for n, r in enumerate(self.calls.rows):
                if r.trace_id == trace_id:
                    self.call_view.selectRow(n)
                    self.call_view.scrollTo(self.calls.index(n, 0))
                    break
        return True

    def _on_session(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        rows = self.session_view.selectionModel().selectedRows()
        s = self.sessions.row(rows[0].row()) if rows else None
        self.calls.set_session(self.store, None if s is None else s.session_id)
        if s is not None:
            self.calls_title.setText(one_line(f"session {s.session_id}: {s.calls:,} call(s) in send order"))
            if self.calls.rows:
                self.call_view.selectRow(0)
        self._update_actions()

    def current_call(self) -> int | None:
        """The selected call's row (0 first), or ``None``."""
        rows = self.call_view.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def _update_actions(self) -> None:
        n = self.current_call()
        self.act_show.setEnabled(n is not None)
        self.act_diff.setEnabled(n is not None and n > 0)
        if n == 0:
            self.act_diff.setToolTip("The session's first call: there is no call before it")
        else:
            self.act_diff.setToolTip("What changed from the call before it in this session")

    def _show_current(self) -> None:
        n = self.current_call()
        row = self.calls.trace_row(n) if n is not None else None
        if row is not None:
            self.sig_show_call.emit(row.trace_id)

    def _diff_current(self) -> None:
        n = self.current_call()
        if n is not None and n > 0 and self.calls.session_id is not None:
            self.sig_diff.emit(self.calls.session_id, n + 1)

    def call_index(self, n: int) -> QModelIndex:
        """The index of call row ``n`` (tests, screenshots)."""
        return self.calls.index(n, 0)
