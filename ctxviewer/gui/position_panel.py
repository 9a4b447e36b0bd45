"""**Trace › Position Test…**: the window that moves one item of the selected trace, runs the variants
against a configured endpoint, and shows accuracy per position with its interval.

The form names the item (the retained items of the trace; the evidence the user marked as needed,
else the first evidence, preselected), the endpoint (the ``[endpoint.NAME]`` tables configured for
the database), the positions, the repeats, the score rule and the database the runs are stored in
(default ``DB.replays.db``). **Run** starts :func:`ctxviewer.replay.positions.run_position_test` in a
:class:`~ctxviewer.gui.worker.Task` (progress and Cancel below the form); the result is the chart
(:class:`~ctxviewer.gui.position_chart.PositionChart`, error bars = Wilson 95 %) and the report of
:func:`ctxviewer.replay.position_report.render_analysis` as plain text -- the same text
``ctxviewer position-test`` prints. **Open Harness Results…** reads Lost in the Middle, NIAH or
RULER rows (:func:`ctxviewer.replay.harness_rows.read_harness`) into the same chart and report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.gui.position_chart import PositionChart
from ctxviewer.gui.worker import Task
from ctxviewer.model.trace import Kind, RequestTrace
from ctxviewer.replay.endpoints import EndpointConfig, EndpointError, load_endpoints
from ctxviewer.replay.harness_rows import HARNESSES, read_harness
from ctxviewer.replay.position_report import render_analysis
from ctxviewer.replay.positions import parse_positions
from ctxviewer.replay.scoring import parse_rule
from ctxviewer.replay.stats import analyse
from ctxviewer.util.visible import one_line


def position_job(db: str, trace_id: str, item: str, ep: EndpointConfig, positions: list[int], repeats: int,
                 rule_text: str, target: str, transport: Any = None):
    """The worker's job: load ``trace_id`` as recorded (its own read-only connection), run the test
    and store its runs in ``target``; returns the :class:`~ctxviewer.replay.positions.PositionTestResult`."""
    def job(progress, cancelled):
        from ctxviewer.pipeline.hints import open_store
        from ctxviewer.replay.positions import run_position_test
        from ctxviewer.replay.run import save

        with open_store(db) as store:
            trace = store.load(trace_id)
        result = run_position_test([(trace, item)], ep, positions, repeats, parse_rule(rule_text),
                                   transport=transport, progress=progress, cancelled=cancelled)
        if result.traces:
            save(target, result.traces, db)
        return result
    return job


class PositionPanel(QWidget):
    """The position-test window (module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.db: str | None = None
        self.trace: RequestTrace | None = None
        self.endpoints: dict[str, EndpointConfig] = {}
        self.task: Task | None = None
        self.result: Any = None
        self.item = QComboBox()
        self.endpoint = QComboBox()
        self.positions = QLineEdit("1,5,10")
        self.repeats = QSpinBox()
        self.repeats.setRange(1, 1000)
        self.repeats.setValue(5)
        self.score = QLineEdit()
        self.score.setPlaceholderText('contains:"gift cards cannot be refunded"')
        self.target = QLineEdit()
        form = QFormLayout()
        for label, w in (("Item to move", self.item), ("Endpoint", self.endpoint), ("Positions", self.positions),
                         ("Repeats", self.repeats), ("Score rule", self.score), ("Store runs in", self.target)):
            form.addRow(label, w)
        self.run_button = QPushButton("Run")
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(lambda: self.task is not None and self.task.cancel())
        self.harness_button = QPushButton("Open Harness Results…")
        self.harness_button.clicked.connect(self.choose_harness)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        buttons = QHBoxLayout()
        for b in (self.run_button, self.cancel_button, self.harness_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.chart = PositionChart()
        self.report = QPlainTextEdit()  # plain text: trace ids and item ids are untrusted
        self.report.setReadOnly(True)
        self.report.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.report.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))  # the table's columns line up
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addLayout(buttons)
        lay.addWidget(self.progress)
        lay.addWidget(self.chart.widget, 3)
        lay.addWidget(self.report, 2)

    def set_trace(self, trace: RequestTrace | None, db: str | None) -> None:
        """Show the form for ``trace`` of database ``db``: its retained items, the endpoints configured."""
        self.trace, self.db = trace, db
        self.item.clear()
        self.endpoint.clear()
        if trace is None or db is None:
            return
        for it in trace.retained:
            if it.kind is not Kind.TOOL:
                self.item.addItem(f"{one_line(it.id)} ({it.kind.value})", it.id)
        evidence = [n for n in range(self.item.count()) if self.item.itemText(n).endswith("(evidence)")]
        if evidence:
            self.item.setCurrentIndex(evidence[0])
        try:
            self.endpoints = load_endpoints(db)
        except EndpointError as exc:
            self.endpoints = {}
            self.report.setPlainText(str(exc))
        for name, ep in self.endpoints.items():
            self.endpoint.addItem(ep.describe(), name)
        if not self.endpoints:
            self.report.setPlainText("No endpoint is configured, so nothing can be sent: add an [endpoint.NAME] "
                                     "table to ctxviewer.toml (beside the database or your own). Harness results "
                                     "can still be opened.")
        from ctxviewer.replay.run import default_save_path

        self.target.setText(str(default_save_path(db)))

    def run(self, transport: Any = None) -> Task | None:
        """Start the test from the form; a form mistake is said in the report and nothing is sent."""
        if self.trace is None or self.db is None:
            return None
        try:
            if not self.endpoints:
                raise ValueError("No endpoint is configured, so nothing is sent.")
            ep = self.endpoints[self.endpoint.currentData()]
            positions = parse_positions(self.positions.text())
            parse_rule(self.score.text())
            if Path(self.target.text()).resolve() == Path(self.db).resolve():
                raise ValueError(f"{self.target.text()}: the open database is never written; choose another file")
        except ValueError as exc:
            self.report.setPlainText(str(exc))
            return None
        item = self.item.currentData()
        task = Task(position_job(self.db, self.trace.trace_id, item, ep, positions, self.repeats.value(), self.score.text(),
                                 self.target.text(), transport), self)
        self.progress.setRange(0, len(positions) * self.repeats.value())
        self.progress.setValue(0)
        self.progress.setVisible(True)
        task.sig_progress.connect(lambda done, total: self.progress.setValue(done))
        task.sig_finished.connect(self._finished)
        task.sig_failed.connect(self._failed)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.task = task
        task.start()
        return task

    def _done(self) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)

    def _finished(self, result: Any) -> None:
        self._done()
        self.result = result
        if result.analysis is None:
            self.report.setPlainText(f"cancelled after {len(result.traces)} runs (stored in {self.target.text()})")
            return
        self.chart.draw(result.analysis, f"position test {result.test_id}")
        self.report.setPlainText(f"position test {result.test_id}: {len(result.traces)} runs stored in "
                                 f"{self.target.text()}\nchecked: {result.checked}\n" + render_analysis(result.analysis))

    def _failed(self, message: str) -> None:
        self._done()
        self.report.setPlainText(f"position test failed: {message}")

    def show_harness(self, paths: list[str], harness: str) -> None:
        """Read harness result rows and show them in the chart and report."""
        rows = read_harness(paths, harness)
        lines = [f"skipped {one_line(p)}" for p in rows.problems]
        try:
            a = analyse(rows.scores, drop_unpaired=True)
        except ValueError as exc:
            self.chart.draw(None)
            self.report.setPlainText("\n".join([*lines, f"no {harness} result to show: {exc}"]))
            return
        self.chart.draw(a, f"{harness}: {len(rows.scores):,} rows")
        self.report.setPlainText("\n".join([*lines, render_analysis(a), *(f"note: {n}" for n in rows.notes)]))

    def choose_harness(self) -> None:
        harness, ok = QInputDialog.getItem(self, "Harness results", "Rows of:", list(HARNESSES), 0, False)
        if not ok:
            return
        paths, _ = QFileDialog.getOpenFileNames(self, "Open harness results", "", "JSON (*.json *.jsonl *.gz);;All files (*)")
        if paths:
            self.show_harness(paths, harness)
