"""Opening diff windows from the main window: "Compare", "Compare with Replay" and
"Compare with Previous Call".

:class:`CompareController` lets the trace list select several rows, adds a Compare menu, the same
actions in the list's context menu and as one-click buttons under the list, keeps them enabled only
when they apply, and opens a :class:`~ctxviewer.gui.diff_view.DiffWindow` per comparison:

* Compare (Ctrl+D): the two selected traces, the older as A;
* Compare with Replay (Ctrl+Shift+D): the current trace's ``replay_of`` original as A, it as B;
* Compare with Previous Call: the previous call of the current trace's conversation
  (:func:`ctxviewer.diff.conversation.previous_call`) as A;
* Compare with Trace in Another Database: the current trace as A, a trace of another database
  (opened read-only; by default the same trace id) as B.

The controller talks to the window through :class:`~ctxviewer.gui.window_api.WindowApi`. The two
traces are read from the window's (read-only) store on the GUI thread when an action is
triggered, as recorded (without derived omissions); the diff itself is fast (about 50 ms for
2 x 5,000 items) and large texts are diffed off-thread.

Signal: ``sig_opened(object DiffWindow)`` after a diff window is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QGridLayout,
    QInputDialog,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from ctxviewer.diff.conversation import conversation_key, earlier_call_ids, previous_call
from ctxviewer.gui.window_api import WindowApi
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.hints import open_store
from ctxviewer.store import StoreError
from ctxviewer.util.visible import one_line

if TYPE_CHECKING:
    from ctxviewer.gui.diff_view import DiffWindow  # imported when a diff opens (pyqtgraph: start-up)


class CompareController(QObject):
    """Compare actions of one main window (module docstring)."""

    sig_opened = Signal(object)

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self.windows: list[DiffWindow] = []
        """Diff windows opened and still alive (newest last)."""
        view = window.trace_view
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.act_compare = self._action("&Compare Selected Traces", "Ctrl+D", self.compare_selected,
                                        "Compare the two selected traces item by item (the older is A)")
        self.act_replay = self._action("Compare with &Replay", "Ctrl+Shift+D", self.compare_with_replay,
                                       "Compare this replay with the trace it replays (replay_of)")
        self.act_previous = self._action("Compare with &Previous Call", "Ctrl+Alt+D", self.compare_with_previous,
                                         "Compare with the previous call of the same conversation")
        self.act_other = self._action("Compare with Trace in &Another Database…", "Ctrl+Alt+Shift+D", self.compare_with_other_database,
                                      "Compare the current trace with a trace of another database (e.g. the "
                                      "same trace id exported elsewhere)")
        actions = (self.act_compare, self.act_replay, self.act_previous)
        menu = window.menu("&Compare")
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        bar = QWidget()
        row = QGridLayout(bar)  # two to a line: the trace list can be a third of a 1280 px window
        row.setContentsMargins(0, 0, 0, 0)
        for act in (*actions, self.act_other):
            menu.addAction(act)
            view.addAction(act)
        for n, act in enumerate(actions):
            view.addAction(act)
            button = QToolButton()
            button.setDefaultAction(act)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            row.addWidget(button, n // 2, n % 2)
        self.button_bar = bar
        window.add_to_list_pane(bar)
        view.selectionModel().selectionChanged.connect(lambda *_: self.update_actions())
        window.sig_trace_selected.connect(lambda _tid: self.update_actions())
        window.trace_model.modelReset.connect(self.update_actions)
        self.update_actions()

    def _action(self, text: str, shortcut: str | None, slot, tip: str) -> QAction:  # type: ignore[no-untyped-def]
        act = QAction(text, self.window.host)
        if shortcut:
            act.setShortcut(QKeySequence(shortcut))
        act.setStatusTip(tip)
        act.setToolTip(tip)
        act.triggered.connect(slot)
        return act

    # ------------------------------------------------------------------ state

    def selected_ids(self) -> list[str]:
        """trace_ids of the selected rows, in list order."""
        rows = sorted({i.row() for i in self.window.trace_view.selectionModel().selectedRows()})
        ids = [self.window.trace_model.trace_id(r) for r in rows]
        return [i for i in ids if i is not None]

    def update_actions(self) -> None:
        """Enable each action only when it applies to the selection / current trace."""
        t = self.window.trace
        self.act_compare.setEnabled(len(self.selected_ids()) == 2)
        self.act_other.setEnabled(t is not None)
        self.act_replay.setEnabled(t is not None and t.replay_of is not None)
        self._update_previous(t)
        self.act_replay.setText(f"Compare with Replay Original ({one_line(t.replay_of)})" if t is not None and t.replay_of
                                else "Compare with Replay")

    def _update_previous(self, t: RequestTrace | None) -> None:
        """Compare with Previous Call: enabled only when the current trace's conversation has an
        earlier call (:func:`ctxviewer.diff.conversation.earlier_call_ids`, narrow rows only);
        otherwise disabled, its tooltip saying why."""
        store = self.window.store
        why = None
        if t is None or store is None:
            why = "Select a trace first"
        elif conversation_key(t) is None:
            why = f"{t.trace_id} is not part of a conversation (no conversation id, not an OTel span)"
        else:
            try:
                if not earlier_call_ids(store, t):
                    why = f"{t.trace_id} is the first call of its conversation: there is no previous call"
            except StoreError as exc:
                why = str(exc)
        self.act_previous.setEnabled(why is None)
        tip = why or "Compare with the previous call of the same conversation"
        self.act_previous.setToolTip(one_line(tip))
        self.act_previous.setStatusTip(one_line(tip))

    # ------------------------------------------------------------------ actions

    def _load(self, trace_id: str) -> RequestTrace | None:
        store = self.window.store
        if store is None:
            return None
        try:
            return store.load(trace_id)
        except KeyError:
            self.window.show_error("Cannot compare", f"{store.path}: no trace with id {trace_id!r}")
        except StoreError as exc:
            self.window.show_error("Cannot compare", str(exc))
        return None

    def open_diff(self, a: RequestTrace, b: RequestTrace) -> DiffWindow:
        """Open a diff window of ``a`` (before) against ``b`` (after) and return it."""
        from ctxviewer.gui.diff_view import DiffWindow

        w = DiffWindow(a, b)
        w.destroyed.connect(lambda *_: self.windows.remove(w) if w in self.windows else None)
        self.windows.append(w)
        w.show()
        self.sig_opened.emit(w)
        return w

    def compare_selected(self) -> DiffWindow | None:
        """Compare the two selected traces, the older (by send time, then id) as A."""
        ids = self.selected_ids()
        if len(ids) != 2:
            self.window.show_error("Cannot compare", "Select exactly two traces (Ctrl+click) to compare them.")
            return None
        traces = [t for t in (self._load(i) for i in ids) if t is not None]
        if len(traces) != 2:
            return None
        a, b = sorted(traces, key=lambda t: (t.created.isoformat() if t.created else "", t.trace_id))
        return self.open_diff(a, b)

    def compare_with_replay(self) -> DiffWindow | None:
        """Compare the current trace's original (``replay_of``) as A with the trace as B."""
        t = self.window.trace
        if t is None or t.replay_of is None:
            return None
        original = self._load(t.replay_of)
        return self.open_diff(original, self._load(t.trace_id) or t) if original is not None else None

    def compare_with_previous(self) -> DiffWindow | None:
        """Compare the previous call of the current trace's conversation as A with the trace as B."""
        t = self.window.trace
        store = self.window.store
        if t is None or store is None:
            return None
        current = self._load(t.trace_id) or t  # as recorded, without derived omissions
        try:
            prev = previous_call(store, current)
        except StoreError as exc:
            self.window.show_error("Cannot compare", str(exc))
            return None
        if prev is None:
            self.window.show_error("Cannot compare", f"{t.trace_id} is the first call of its conversation.")
            return None
        return self.open_diff(prev, current)

    def compare_with_other_database(self, path: str | None = None, trace_id: str | None = None) -> DiffWindow | None:
        """Compare the current trace (A) with ``trace_id`` of the database ``path`` (B), opened
        read-only. Without ``path`` a file dialog asks; without ``trace_id`` the same id is used
        when that database has it, else a list of its traces is offered."""
        t = self.window.trace
        if t is None:
            return None
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self.window.host, "Compare with a trace in another database", "",
                                                  "Trace databases (*.db *.sqlite *.sqlite3);;All files (*)")
            if not path:
                return None
        try:
            with open_store(path) as other:
                if trace_id is None:
                    ids = [r.trace_id for r in other.list(None, 0, 5000)]
                    if t.trace_id in ids:
                        trace_id = t.trace_id
                    else:
                        trace_id, ok = QInputDialog.getItem(self.window.host, "Compare with", f"Trace in {path}:", ids, 0, False)
                        if not ok or not trace_id:
                            return None
                b = other.load(trace_id)
        except KeyError:
            self.window.show_error("Cannot compare", f"{path}: no trace with id {trace_id!r}")
            return None
        except StoreError as exc:
            self.window.show_error("Cannot compare", str(exc))
            return None
        a = self._load(t.trace_id) or t
        return self.open_diff(a, b)
