"""File › Listen for Traces…: the live OTLP receiver in the window.

Starts :class:`ctxviewer.pipeline.otlp_receiver.Receiver` (the one ``ctxviewer serve`` runs; its
own threads, so the window never waits for it) into a database the user chooses, on 127.0.0.1
port 4318 (a free port when that one is taken), and opens that database. After each commit
(at most every :data:`REFRESH_MS`) the list is read again -- the filter kept, the selected trace
selected again (:meth:`ctxviewer.gui.reload.ReloadController.reload`) -- and a bar above the list
says where it listens, how many traces are new since the user last looked ("3 new"; Mark seen
clears it) and how many batches were refused (back-pressure). Choosing the action again, closing
the window or quitting stops the receiver: what is queued is written first. Plain text only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from ctxviewer.gui.reload import ReloadController
from ctxviewer.gui.window_api import WindowApi

if TYPE_CHECKING:  # the receiver and its writer load when the user starts listening, not at start-up
    from ctxviewer.pipeline.live_writer import LiveCounts
    from ctxviewer.pipeline.otlp_receiver import Receiver

REFRESH_MS = 1000
"""Least time between two re-reads of the list while spans arrive (milliseconds)."""
START_TEXT = "&Listen for Traces…"
STOP_TEXT = "Stop &Listening"


class _CommitRelay(QObject):
    """Carries the writer thread's "committed" to the GUI thread (a queued signal)."""

    committed = Signal()


class ListenController(QObject):
    """The Listen for Traces action, the receiver it runs and the bar above the trace list."""

    def __init__(self, window: WindowApi, reloader: ReloadController) -> None:
        super().__init__(window.host)
        self.window = window
        self.reloader = reloader
        self.receiver: Receiver | None = None
        self.seen = 0  # new_trace_ids when the user last marked them seen
        self._relay = _CommitRelay(self)
        self._relay.committed.connect(self._on_committed, Qt.ConnectionType.QueuedConnection)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        self.act_listen = QAction(START_TEXT, window.host)
        self.act_listen.setShortcut(QKeySequence("Ctrl+Shift+L"))  # every action has a key (Help › Keyboard Shortcuts)
        self.act_listen.setStatusTip("Receive OpenTelemetry spans over OTLP/HTTP on 127.0.0.1 into a database")
        self.act_listen.triggered.connect(self.toggle)
        window.menu("&File").insertAction(window.act_quit, self.act_listen)

        self.bar = QWidget()
        self.bar.setObjectName("listening")
        row = QHBoxLayout(self.bar)
        row.setContentsMargins(4, 2, 4, 2)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.seen_button = QPushButton("Mark seen")
        self.seen_button.clicked.connect(self.mark_seen)
        stop = QPushButton("Stop")
        stop.clicked.connect(self.stop)
        row.addWidget(self.label, 1)
        row.addWidget(self.seen_button)
        row.addWidget(stop)
        self.bar.hide()
        window.add_to_list_pane(self.bar, above=True)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)
        window.host.destroyed.connect(self.stop)

    def toggle(self) -> None:
        """Stop listening, or choose a database and start."""
        if self.receiver is not None:
            self.stop()
            return
        start = str(self.window.store.path) if self.window.store is not None else "traces.db"
        path, _ = QFileDialog.getSaveFileName(self.window.host, "Listen for Traces into Database", start,
                                              "Trace databases (*.db);;All files (*)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.start(path)

    def start(self, path: str | Path, port: int | None = None) -> bool:
        """Listen on 127.0.0.1 ``port`` (a free port when it is taken) into ``path`` and open it.
        False (with an error dialog) when the database cannot be written. ``port`` ``None``: the
        OTLP/HTTP default (:data:`ctxviewer.pipeline.otlp_receiver.DEFAULT_PORT`, 4318)."""
        from ctxviewer.pipeline.otlp_receiver import DEFAULT_PORT, Receiver
        from ctxviewer.store import StoreError

        port = DEFAULT_PORT if port is None else port
        self.stop()
        receiver = None
        for p in (port, 0):
            candidate = Receiver(path, p, on_written=self._written)
            try:
                candidate.start()
            except StoreError as exc:
                self.window.show_error("Listen for Traces", str(exc))
                return False
            except OSError:
                continue  # the port is taken: any free one
            receiver = candidate
            break
        if receiver is None:
            self.window.show_error("Listen for Traces", "cannot listen on 127.0.0.1")
            return False
        self.receiver = receiver
        self.seen = 0
        self.act_listen.setText(STOP_TEXT)
        self.window.open_database(path)
        self._show_counts()
        self.bar.show()
        return True

    def stop(self) -> None:
        """Stop the receiver (queued batches are written) and hide the bar; read the list once more."""
        receiver, self.receiver = self.receiver, None
        if receiver is None:
            return
        self._timer.stop()
        receiver.stop()
        try:
            self.act_listen.setText(START_TEXT)
            self.bar.hide()
            self.reloader.reload()
            self.window.show_status(f"Stopped listening: {receiver.counts.new_trace_ids:,} trace(s) received", 5000)
        except RuntimeError:  # the window is already gone (quit)
            pass

    def mark_seen(self) -> None:
        """Clear the "N new" count."""
        if self.receiver is not None:
            self.seen = self.receiver.counts.new_trace_ids
        self._show_counts()

    def new_count(self) -> int:
        """Traces received since the user last marked them seen."""
        return 0 if self.receiver is None else self.receiver.counts.new_trace_ids - self.seen

    def _written(self, _counts: LiveCounts) -> None:  # the writer thread
        self._relay.committed.emit()

    def _on_committed(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def refresh(self) -> None:
        """Read the list again (filter and selection kept) and update the bar."""
        if self.receiver is None:
            return
        self.reloader.reload()
        self._show_counts()

    def _show_counts(self) -> None:
        r = self.receiver
        if r is None:
            return
        c = r.counts
        text = (f"Listening on {r.url} (OTLP/HTTP) into {r.writer.path.name}: {self.new_count():,} new · "
                f"{c.new_trace_ids:,} received · {c.refused:,} batch(es) refused")
        self.label.setText(text)
        self.seen_button.setEnabled(self.new_count() > 0)
