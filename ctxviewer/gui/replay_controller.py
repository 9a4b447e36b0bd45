"""**Trace › Replay…** (Ctrl+Alt+R): send the selected trace's request again to a configured
endpoint, off the GUI thread, and open the diff of the original against the replay.

The user picks the endpoint among the ``[endpoint.NAME]`` tables configured for the database
(:func:`ctxviewer.replay.endpoints.load_endpoints`; none: a message says where to add one, and
nothing is sent) and the database the replay is stored in (default ``DB.replays.db`` beside it,
never the open database). The request is sent in a :class:`~ctxviewer.gui.worker.Task` with a
progress dialog whose Cancel stops waiting (a 429's Retry-After included); the work is
:func:`ctxviewer.replay.run.replay` and :func:`~ctxviewer.replay.run.save`, the same the CLI
calls. A failure is shown in one plain-text message (refused, 401, 429, timeout, a wrong answer).

**Trace › Position Test…** (Ctrl+Alt+P) opens :class:`~ctxviewer.gui.position_panel.PositionPanel` on the
selected trace (built on first use).

Signal: ``sig_replayed(object original, object replay)`` after the replay is stored; the window
connects it to the Compare controller's diff window.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QInputDialog, QProgressDialog

from ctxviewer.gui.window_api import WindowApi
from ctxviewer.gui.worker import Task
from ctxviewer.util.visible import one_line

if TYPE_CHECKING:  # the endpoints are read when Replay is chosen, not when the window opens
    from ctxviewer.replay.endpoints import EndpointConfig


def replay_job(db: str, trace_id: str, ep: EndpointConfig, target: str, transport: Any = None,
               trace: Any = None):
    """The worker's job: load ``trace_id`` from ``db`` (its own read-only connection) -- or take
    ``trace``, a what-if trace in memory, rebuilt from its items (its re-trimmed request) -- replay
    it on ``ep`` and store the replay in ``target``; returns ``(original, replay trace)``."""
    def job(progress, cancelled):
        from ctxviewer.pipeline.hints import open_store
        from ctxviewer.replay.run import replay, save

        original = trace
        if original is None:
            with open_store(db) as store:
                original = store.load(trace_id)
        progress(0, 1)
        result = replay(original, ep, transport=transport, cancelled=cancelled, from_items=trace is not None)
        save(target, [result.trace], db)
        progress(1, 1)
        return original, result.trace
    return job


class ReplayController(QObject):
    """**Trace › Replay…** on one main window (module docstring)."""

    sig_replayed = Signal(object, object)

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self.task: Task | None = None
        self.progress: QProgressDialog | None = None
        self.act = QAction("&Replay…", window.host)
        self.act.setShortcut(QKeySequence("Ctrl+Alt+R"))
        self.act.setStatusTip("Send this trace's request again to an endpoint of ctxviewer.toml and diff the answer")
        self.act.triggered.connect(self.choose_and_replay)
        window.menu("&Trace").addAction(self.act)
        self.act_positions = QAction("&Position Test…", window.host)
        self.act_positions.setShortcut(QKeySequence("Ctrl+Alt+P"))
        self.act_positions.setStatusTip("Move one item of this trace, run the variants, and chart accuracy per position")
        self.act_positions.triggered.connect(self.open_positions)
        window.menu("&Trace").addAction(self.act_positions)
        self._panel: Any = None

    @property
    def panel(self) -> Any:
        """The Position Test window (:class:`~ctxviewer.gui.position_panel.PositionPanel`), built on first use."""
        if self._panel is None:
            from ctxviewer.gui.position_panel import PositionPanel
            from ctxviewer.gui.window_keys import add_close_keys

            self._panel = PositionPanel()
            self._panel.setWindowTitle("ctxviewer — position test")
            self._panel.resize(1000, 760)
            add_close_keys(self._panel)
        return self._panel

    def open_positions(self) -> None:
        """Show the Position Test window on the selected trace."""
        db, trace = self._db(), self.window.trace
        if db is None or trace is None:
            self.window.show_status("Select a trace first.")
            return
        self.panel.set_trace(trace, db)
        self.panel.show()
        self.panel.raise_()

    def _db(self) -> str | None:
        store = self.window.store
        return str(store.path) if store is not None and getattr(store, "path", None) else None

    def choose_and_replay(self) -> None:
        """Ask for the endpoint and the target database, then :meth:`start`."""
        self._choose(self.window.trace, in_memory=False)

    def choose_and_replay_trace(self, trace: Any) -> None:
        """The what-if window's Replay…: as :meth:`choose_and_replay`, for ``trace`` (the what-if,
        in memory), whose request is rebuilt from its re-trimmed items."""
        self._choose(trace, in_memory=True)

    def _choose(self, trace: Any, *, in_memory: bool) -> None:
        db = self._db()
        if db is None or trace is None:
            self.window.show_status("Select a trace first.")
            return
        from ctxviewer.replay.endpoints import EndpointError, config_files, load_endpoints

        try:
            endpoints = load_endpoints(db)
        except EndpointError as exc:
            self.window.show_error("Cannot replay", str(exc))
            return
        if not endpoints:
            files = " or ".join(str(p) for p in config_files(db))
            self.window.show_error("Cannot replay", "No endpoint is configured, so nothing is sent. Add an "
                                   f"[endpoint.NAME] table (kind, base_url, model, api_key_env) to {files}.")
            return
        labels = [ep.describe() for ep in endpoints.values()]
        label, ok = QInputDialog.getItem(self.window.host, "Replay", f"Send {one_line(trace.trace_id)} to:", labels, 0, False)
        if not ok:
            return
        ep = list(endpoints.values())[labels.index(label)]
        from ctxviewer.replay.run import default_save_path

        target, _ = QFileDialog.getSaveFileName(self.window.host, "Store the replay in", str(default_save_path(db)),
                                                "Trace databases (*.db);;All files (*)",
                                                options=QFileDialog.Option.DontConfirmOverwrite)
        if target:
            self.start(db, trace.trace_id, ep, target, trace=trace if in_memory else None)

    def start(self, db: str, trace_id: str, ep: EndpointConfig, target: str, transport: Any = None,
              trace: Any = None) -> Task | None:
        """Replay ``trace_id`` of ``db`` (or ``trace``, a what-if in memory: :func:`replay_job`) on
        ``ep`` into ``target`` in a background task."""
        if Path(target).resolve() == Path(db).resolve():
            self.window.show_error("Cannot replay", f"{target}: the open database is never written; choose another file")
            return None
        dlg = QProgressDialog(f"Sending {one_line(trace_id)} to {one_line(ep.describe())}…", "Cancel", 0, 1, self.window.host)
        dlg.setWindowTitle("Replay")
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(0)
        task = Task(replay_job(db, trace_id, ep, target, transport, trace), self)
        dlg.canceled.connect(task.cancel)
        task.sig_progress.connect(lambda done, total: dlg.setValue(done))
        task.sig_finished.connect(self._finished)
        task.sig_failed.connect(self._failed)
        self.task, self.progress = task, dlg
        task.start()
        return task

    def _close_progress(self) -> None:
        if self.progress is not None:
            self.progress.reset()
            self.progress.deleteLater()
            self.progress = None

    def _finished(self, result: tuple[Any, Any]) -> None:
        self._close_progress()
        original, new = result
        self.window.show_status(f"Replay stored as {one_line(new.trace_id)}", 10_000)
        self.sig_replayed.emit(original, new)

    def _failed(self, message: str) -> None:
        self._close_progress()
        self.window.show_error("Replay failed", message)
