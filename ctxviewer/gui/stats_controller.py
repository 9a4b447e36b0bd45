"""**Trace › Statistics…** (Ctrl+Alt+S): the menu entry, and the statistics window
(:class:`~ctxviewer.gui.stats_view.StatsView`, built on first use) over the trace list's current
filter. The controller talks to the window through :class:`~ctxviewer.gui.window_api.WindowApi`;
the aggregate (:meth:`ctxviewer.store.TraceStore.aggregate_top`: the total and the groups the window
shows; every group, :meth:`~ctxviewer.store.TraceStore.aggregate`, only for Export CSV) runs off the GUI thread
(:class:`~ctxviewer.gui.worker.Task`) on a read-only connection of its own, the window saying
"computing…" with a Cancel button meanwhile: a new grouping, Cancel or closing the window stops the
statement still running (:meth:`~ctxviewer.store.TraceStore.stop_when`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from ctxviewer.gui.window_api import WindowApi
from ctxviewer.gui.window_keys import add_close_keys
from ctxviewer.gui.worker import Task
from ctxviewer.pipeline.model_calls import left_out_words, model_calls_filter
from ctxviewer.store import TraceQuery, TraceStore
from ctxviewer.util.visible import one_line

if TYPE_CHECKING:
    from ctxviewer.gui.stats_view import StatsView


class StatsController(QObject):
    """**Trace › Statistics…** (Ctrl+Alt+S): the statistics window over the list's current filter."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self.view: StatsView | None = None
        self.task: Task | None = None
        """The aggregate running (``None``: none)."""
        self.shown_from: tuple[str, str, Path] | None = None
        """``(filter text, grouping, database)`` of the figures the window shows (Export CSV reads those)."""
        self.act = QAction("&Statistics…", window.host)
        self.act.setShortcut(QKeySequence("Ctrl+Alt+S"))
        self.act.triggered.connect(self.open)
        window.menu("&Trace").addAction(self.act)

    def open(self) -> None:
        """Compute and show the statistics of the current filter (grouped as the window's picker says)."""
        source = self.window.store
        if source is None:
            self.window.show_status("Open a database first.")
            return
        if self.view is None:
            from ctxviewer.gui.stats_view import StatsView  # pyqtgraph: on first use, not at start-up

            self.view = StatsView()
            self.view.resize(1100, 700)
            add_close_keys(self.view)
            self.view.by.currentTextChanged.connect(lambda _t: self.refresh())
            self.view.cancel.clicked.connect(self.stop)
            self.view.closed.connect(self.stop)
            self.view.export_all.connect(self.export_all)
        self.refresh()
        self.view.show()
        self.view.raise_()

    def refresh(self) -> None:
        """Recompute the statistics (the filter box's text, the picked grouping) in the background,
        stopping a computation still running."""
        source, view = self.window.store, self.view
        if source is None or view is None:
            return
        self.stop()
        if not hasattr(source, "aggregate"):  # a team store read in place: sums are SQL over a database file
            view.stopped("Statistics sum a database file, and this store is read in place: pull its window "
                         "into one first (ctxviewer import URL -o local.db; README, Team store)")
            return
        text, by, path = self.window.filter_text, view.by.currentText(), Path(source.path)

        def job(_progress: Any, cancelled: Any) -> Any:
            from ctxviewer.assess.context import context_for_db
            from ctxviewer.gui.stats_view import SHOWN_GROUPS

            with TraceStore.open(path) as store:
                store.stop_when(cancelled)  # Cancel stops the statement itself, not only the next one
                calls, lone = model_calls_filter(store, text)  # a tool run imported on its own: no call (nu3 #10)
                total, groups, n = store.aggregate_top(TraceQuery(text=calls), by, SHOWN_GROUPS)
                try:  # states stored with other settings (ctxviewer.toml edited since): said, as the CLI says
                    stale = store.stale_count(TraceQuery(text=calls), context_for_db(path).fingerprint)
                except ValueError:  # a broken ctxviewer.toml: the window says so where it opens the file
                    stale = 0
                return total, groups, n, stale, lone

        task = Task(job, self)
        self.task = task
        task.sig_finished.connect(lambda result, t=task: self._done(t, result, text, source, by))
        task.sig_failed.connect(lambda message, t=task: self._failed(t, message))
        view.computing(one_line(f"computing by {by}…" + (f" ({text})" if text else "")))
        task.start()

    def stop(self) -> None:
        """Cancel the computation running, if any, stopping its statement; the window keeps what it
        showed and says so."""
        task, self.task = self.task, None
        if task is None:
            return
        task.cancel()  # the worker's statement stops at its next progress check (TraceStore.stop_when)
        if self.view is not None:
            self.view.stopped("cancelled: the figures shown are from before")

    def _done(self, task: Task, result: Any, text: str, source: Any, by: str = "") -> None:
        task.deleteLater()
        if task is not self.task or self.view is None or result is None:
            return  # cancelled, or a newer computation is running
        self.task = None
        if self.window.store is not source:  # the window opened another database meanwhile
            self.view.stopped("the database changed: pick the grouping again to compute its statistics")
            return
        total, groups, n, stale, lone = result
        self.shown_from = (text, by, Path(source.path))  # what Export CSV reads again: the table's own computation
        what = f"{total.calls:,} traces" + (f" matching {text}" if text else "")
        if lone:
            what += f"; {left_out_words(lone)}"
        if stale:
            what += (f"; {stale:,} of them assessed with other settings or an older ctxviewer: their states and "
                     "bands are as stored at import")
        self.view.show_groups(total, groups, one_line(what), n)

    def export_all(self, out: Path) -> None:
        """Export CSV of every group (the window holds only the ones it shows): read them all from
        the database in the background with the filter, grouping and database of the table shown
        (not the list's filter of now, which the window does not follow), then write ``out``;
        the note says when it is written, or why not. Cancel stops it."""
        view = self.view
        if view is None or self.shown_from is None:
            return
        self.stop()
        text, by, path = self.shown_from  # the filter, grouping and database of the table shown, not of now

        def job(_progress: Any, cancelled: Any) -> Any:
            from ctxviewer.gui.stats_view import write_groups_csv

            with TraceStore.open(path) as store:
                store.stop_when(cancelled)
                total, groups = store.aggregate(TraceQuery(text=model_calls_filter(store, text)[0]), by)
            write_groups_csv(out, total, groups)  # OSError: the task fails with its message
            return len(groups)

        task = Task(job, self)
        self.task = task
        task.sig_finished.connect(lambda n, t=task: self._exported(t, n, out))
        task.sig_failed.connect(lambda message, t=task: self._failed(t, message, f"cannot write {out}"))
        view.computing(one_line(f"writing every group by {by} to {out}…"))
        task.start()

    def _exported(self, task: Task, n: Any, out: Path) -> None:
        task.deleteLater()
        if task is not self.task or self.view is None or n is None:
            return
        self.task = None
        self.view.stopped(one_line(f"wrote {n:,} groups and the total to {out}"))

    def _failed(self, task: Task, message: str, what: str = "cannot compute") -> None:
        task.deleteLater()
        if task is not self.task or self.view is None:
            return  # a cancelled computation's interrupted statement
        self.task = None
        self.view.stopped(one_line(f"{what}: {message}"))
