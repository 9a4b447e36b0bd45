"""**Trace › Sessions…** (Ctrl+Alt+J) and **Trace › Session of This Call** (Ctrl+Alt+Shift+J, also in
the trace list's context menu): the Sessions window (:class:`~ctxviewer.gui.sessions_view.SessionsWindow`)
over the window's store and the trace list's filter. Showing a call selects it in the main window;
a call's diff against the call before it (:func:`ctxviewer.diff.session_pair.call_pair`, what
``ctxviewer session --diff N`` prints) opens a diff window. The controller talks to the window
through :class:`~ctxviewer.gui.window_api.WindowApi`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from ctxviewer.diff.session_pair import call_pair
from ctxviewer.gui.window_api import WindowApi
from ctxviewer.gui.window_keys import add_close_keys
from ctxviewer.store import StoreError

if TYPE_CHECKING:
    from ctxviewer.gui.diff_view import DiffWindow
    from ctxviewer.gui.sessions_view import SessionsWindow


class SessionsController(QObject):
    """The Sessions actions of one main window (module docstring)."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self.view: SessionsWindow | None = None
        self.diffs: list[DiffWindow] = []
        """Diff windows opened from the Sessions window and still alive."""
        menu = window.menu("&Trace")
        self.act_open = QAction("Sess&ions…", window.host)
        self.act_open.setShortcut(QKeySequence("Ctrl+Alt+J"))
        self.act_open.setToolTip("The sessions (conversations) with a call the list's filter keeps, and their calls")
        self.act_open.triggered.connect(lambda: self.open())
        self.act_this = QAction("Session of This &Call", window.host)
        self.act_this.setShortcut(QKeySequence("Ctrl+Alt+Shift+J"))
        self.act_this.setToolTip("The session of the current call, with the call selected")
        self.act_this.triggered.connect(self.open_current)
        menu.addAction(self.act_open)
        menu.addAction(self.act_this)
        window.trace_view.addAction(self.act_this)  # the list's context menu (ActionsContextMenu)

    def _store(self) -> Any:
        """The window's store when it can list sessions (a SQLite database), else ``None``."""
        store = self.window.store
        return store if store is not None and hasattr(store, "sessions") else None

    def open(self) -> SessionsWindow | None:
        """Show the Sessions window over the current store and filter (built on first use)."""
        if self.window.store is None:
            self.window.show_status("Open a database first.")
            return None
        if self.view is None:
            from ctxviewer.gui.sessions_view import SessionsWindow

            self.view = SessionsWindow(self.window.host)
            self.view.resize(1100, 720)
            add_close_keys(self.view)
            self.view.sig_show_call.connect(self.show_call)
            self.view.sig_diff.connect(self.open_diff)
        store = self._store()
        note = None if store is not None else "Sessions are listed for a trace database (SQLite) only."
        self.view.set_source(store, self.window.filter_text, note)
        self.view.show()
        self.view.raise_()
        self.view.activateWindow()
        return self.view

    def open_current(self) -> SessionsWindow | None:
        """Open the window on the current call's session, the call selected (said in the status
        bar when the call records no session id)."""
        t = self.window.trace
        if t is None:
            self.window.show_status("Select a call first.")
            return None
        if not t.session_id:
            self.window.show_status(f"{t.trace_id} records no session id: it is part of no session.")
            return None
        view = self.open()
        if view is not None and not view.select_session(t.session_id, t.trace_id):
            view.set_source(self._store(), "")  # the filter hides it: list every session
            view.select_session(t.session_id, t.trace_id)
        return view

    def show_call(self, trace_id: str) -> None:
        """Show ``trace_id`` in the main window."""
        try:
            self.window.select_trace(trace_id)
        except KeyError:
            self.window.show_error("Cannot show the call", f"no trace with id {trace_id!r}")
        self.window.host.raise_()

    def open_diff(self, session_id: str, n: int) -> DiffWindow | None:
        """Open the diff of call ``n`` of ``session_id`` against call ``n - 1``."""
        store = self._store()
        if store is None:
            return None
        try:
            a, b = call_pair(store, session_id, n)
        except (ValueError, KeyError, StoreError) as exc:
            self.window.show_error("Cannot compare", str(exc))
            return None
        from ctxviewer.gui.diff_view import DiffWindow

        w = DiffWindow(a, b)
        w.destroyed.connect(lambda *_: self.diffs.remove(w) if w in self.diffs else None)
        self.diffs.append(w)
        w.show()
        return w
