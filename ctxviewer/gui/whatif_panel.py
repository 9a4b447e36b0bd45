"""The what-if panel: re-trim the selected trace under other limits and priorities, live.

Edit capacity C, reserved output B_out, per-category caps (empty: "declared 3,000" or "no cap"), an
item's priority (double-click it) or pin, move an item, or add a hypothetical item (its text, or
only its size in tokens: "what if this tool output had arrived?"). Every edit re-trims with :func:`ctxviewer.builder.whatif.run` -- on a worker thread when the
trace has more than :data:`~ctxviewer.gui.thresholds.WHATIF_WORKER_ITEMS` items -- and shows the assessment of the recording and of
the what-if (state and verdict, coloured by the state, never by its words), eq. 3.1 before trimming,
the rules re-run and what each pin overrides ("turn-01 was omitted by the history window; pinned,
it is kept"), which items changed status (bold in the "what-if" column), each category's tokens
(the assessment's category map), and the recorded trace's accounting (:class:`~.accounting_box.AccountingBox`: content per category +
framing + tool-definition overhead = counted total, beside the provider-reported input).
**Save as trace…** stores the what-if as a new trace (``replay_of`` the original) in a database the
user chooses (never the source); **Replay…** asks the window to send its re-trimmed request.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.assess.budget import CATEGORY_LABELS, CATEGORY_ORDER
from ctxviewer.assess.context import EMPTY, AssessContext, context_for_db
from ctxviewer.builder import Candidate
from ctxviewer.builder.whatif import Outcome, Scenario, describe, filler, run
from ctxviewer.gui import thresholds
from ctxviewer.gui.accounting_box import AccountingBox
from ctxviewer.gui.tables import make_table
from ctxviewer.gui.whatif_model import CategoryDeltaModel, WhatIfItemModel
from ctxviewer.gui.worker import Task
from ctxviewer.model.findings import State
from ctxviewer.model.trace import Category, Kind, RequestTrace
from ctxviewer.present.finding_view import state_headline
from ctxviewer.store import StoreError
from ctxviewer.util.visible import one_line

NO_CAP = -1
CAPPABLE = tuple(c for c in CATEGORY_ORDER if c not in (Category.SYS, Category.USER))
"""Categories with optional items: the policy and the current user request are never trimmed, so
a cap on them would do nothing and is not offered."""
STATE_COLOR = {State.OK: "#047857", State.WARNING: "#92400e", State.FAILURE: "#b91c1c"}
"""The verdict's colour by the assessment's state (the main window's, ``ctxviewer/resources/app.qss``); a
scenario that cannot be built is shown as a failure."""


def _label(text: str = "", name: str | None = None) -> QLabel:
    lab = QLabel(text)
    lab.setTextFormat(Qt.TextFormat.PlainText)  # trace text is untrusted
    lab.setWordWrap(True)
    if name:
        lab.setObjectName(name)
    return lab


def _tokens_box(maximum: int = 10_000_000) -> QSpinBox:
    box = QSpinBox()
    box.setRange(0, maximum)
    box.setSingleStep(100)
    box.setGroupSeparatorShown(True)
    box.setSuffix(" tokens")
    box.setKeyboardTracking(False)
    return box


class WhatIfPanel(QWidget):
    """What-if on one trace (see the module docstring). ``source_path`` is the read-only source DB."""

    sig_replay = Signal(object)
    """``RequestTrace``: the what-if trace to replay (Replay…), sent with ``from_items`` (re-trimmed)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trace: RequestTrace | None = None
        self.source_path: Path | None = None
        self.context: AssessContext = EMPTY
        """The source database's context: the what-if is assessed as the recording was."""
        self.scenario = Scenario()
        self.outcome: Outcome | None = None
        self.task: Task | None = None
        self._loading = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(30)
        self._timer.timeout.connect(self.retrim)

        self.title = _label(name="whatifTitle")
        self.title.setStyleSheet("font-weight: bold;")
        self._select_after: str | None = None
        self.capacity = _tokens_box()
        self.reserve = _tokens_box()
        self.caps: dict[Category, QSpinBox] = {}
        limits = QFormLayout()
        limits.addRow("Capacity C", self.capacity)
        limits.addRow("Reserved output", self.reserve)
        caps_box = QGroupBox("Per-category caps (before the global limit)")
        caps_form = QFormLayout(caps_box)
        for cat in CAPPABLE:
            box = _tokens_box()
            box.setMinimum(NO_CAP)
            box.setSpecialValueText("no cap")
            box.setValue(NO_CAP)
            box.valueChanged.connect(self._on_limits)
            self.caps[cat] = box
            caps_form.addRow(CATEGORY_LABELS[cat], box)
        self.capacity.valueChanged.connect(self._on_limits)
        self.reserve.valueChanged.connect(self._on_limits)

        add_box = QGroupBox("Add a hypothetical item")
        add = QGridLayout(add_box)
        self.add_text = QPlainTextEdit()
        self.add_text.setPlaceholderText("Paste the item's text here, or leave empty and give its size below")
        self.add_text.setMaximumHeight(70)
        self.add_kind = QComboBox()
        for k in Kind:
            if not k.required:
                self.add_kind.addItem(k.value)
        self.add_kind.setCurrentText(Kind.EVIDENCE.value)
        self.add_priority = QDoubleSpinBox()
        self.add_priority.setRange(-1e6, 1e6)
        self.add_priority.setDecimals(2)
        self.add_size = _tokens_box(2_000_000)
        self.add_button = QPushButton("Add item")
        self.add_button.clicked.connect(self.add_item)
        add.addWidget(self.add_text, 0, 0, 1, 4)
        add.addWidget(QLabel("kind"), 1, 0)
        add.addWidget(self.add_kind, 1, 1)
        add.addWidget(QLabel("priority"), 1, 2)
        add.addWidget(self.add_priority, 1, 3)
        add.addWidget(QLabel("or size"), 2, 0)
        add.addWidget(self.add_size, 2, 1)
        add.addWidget(self.add_button, 2, 3)

        self.up = QPushButton("Move up")
        self.down = QPushButton("Move down")
        self.reset = QPushButton("Reset")
        self.save = QPushButton("Save as trace…")
        self.replay = QPushButton("Replay…")
        self.replay.setToolTip("Send the re-trimmed request to an endpoint of your ctxviewer.toml: what would the "
                               "model have answered with this budget? (nothing is sent without an endpoint)")
        self.replay.clicked.connect(self._ask_replay)
        self.up.clicked.connect(lambda: self.move_selected(-1))
        self.down.clicked.connect(lambda: self.move_selected(+1))
        self.reset.clicked.connect(self.reset_scenario)
        self.save.clicked.connect(self.choose_save)
        buttons = QHBoxLayout()
        for b in (self.up, self.down, self.reset):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.replay)
        buttons.addWidget(self.save)

        left = QWidget()
        left_lay = QVBoxLayout(left)
        left_lay.setContentsMargins(0, 0, 6, 0)
        left_lay.addLayout(limits)
        left_lay.addWidget(caps_box)
        left_lay.addWidget(add_box)
        self.accounting = AccountingBox()
        left_lay.addWidget(self.accounting)
        left_lay.addStretch(1)
        left.setMaximumWidth(470)

        self.verdict = _label(name="whatifVerdict")
        self.notes = _label(name="whatifNotes")
        self.before = _label(name="whatifBefore")
        self.summary = _label(name="whatifSummary")
        self.cat_model = CategoryDeltaModel(self)
        self.cat_view = make_table(self.cat_model)
        self.cat_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self._fit_categories(len(CATEGORY_ORDER))
        self.item_model = WhatIfItemModel(self)
        self.item_model.sig_priority.connect(self.set_priority)
        self.item_model.sig_pin.connect(self.set_pin)
        self.item_view = make_table(self.item_model)
        self.item_view.setEditTriggers(self.item_view.EditTrigger.DoubleClicked | self.item_view.EditTrigger.EditKeyPressed)
        header = self.item_view.horizontalHeader()
        for col, width in enumerate((36, 200, 72, 72, 64, 64, 150, 150)):
            header.resizeSection(col, width)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)

        right = QWidget()
        right_lay = QVBoxLayout(right)
        right_lay.setContentsMargins(6, 0, 0, 0)
        right_lay.addWidget(self.verdict)
        right_lay.addWidget(self.notes)
        right_lay.addWidget(self.before)
        right_lay.addWidget(self.summary)
        right_lay.addWidget(self.cat_view)
        right_lay.addWidget(self.item_view, 1)
        right_lay.addLayout(buttons)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([360, 900])
        self.status = _label(name="whatifStatus")
        lay = QVBoxLayout(self)
        lay.addWidget(self.title)
        lay.addWidget(split, 1)
        lay.addWidget(self.status)

    # ---------------------------------------------------------------- state
    def set_trace(self, trace: RequestTrace | None, source_path: Path | None = None) -> None:
        """Start a what-if on ``trace`` (``None`` clears) from the read-only DB ``source_path``."""
        self.trace, self.source_path = trace, source_path
        self.context = _context_of(source_path)
        self.scenario = Scenario()
        self._loading = True
        self.accounting.set_trace(trace)
        if trace is not None:
            self.capacity.setValue(trace.endpoint.capacity or 0)
            self.reserve.setValue(trace.reserved_output_tokens or 0)
            for cat, box in self.caps.items():  # empty is not "no limit": a declared budget B_x says so
                declared = trace.budget.get(cat)
                box.setSpecialValueText(f"declared {declared:,}" if declared is not None else "no cap")
                box.setValue(NO_CAP)
            self.title.setText(f"What-if on {one_line(trace.trace_id)} — "
                               f"{one_line(trace.endpoint.model) or 'model not recorded'}")
        else:
            self.title.setText("Select a trace to run a what-if on it.")
        self._loading = False
        self.retrim()

    def _on_limits(self) -> None:
        if self._loading or self.trace is None:
            return
        caps = {c: b.value() for c, b in self.caps.items() if b.value() != NO_CAP}
        capacity, reserve = self.capacity.value(), self.reserve.value()
        # only what differs from the recording is a change (a limit not recorded shows as 0)
        self.scenario = replace(
            self.scenario, caps=caps,
            capacity=None if capacity == (self.trace.endpoint.capacity or 0) else capacity,
            reserve=None if reserve == (self.trace.reserved_output_tokens or 0) else reserve)
        self._timer.start()

    def set_priority(self, item_id: str, value: float) -> None:
        """Give ``item_id`` priority ``value`` in the scenario and re-trim."""
        self.scenario = replace(self.scenario, priorities={**self.scenario.priorities, item_id: value})
        self._timer.start()

    def set_pin(self, item_id: str, pinned: bool) -> None:
        """Pin (never trim) or unpin ``item_id`` and re-trim."""
        pins = set(self.scenario.pinned)
        (pins.add if pinned else pins.discard)(item_id)
        self.scenario = replace(self.scenario, pinned=frozenset(pins))
        self._timer.start()

    def move_selected(self, step: int) -> None:
        """Move the selected item ``step`` places among the candidates and re-trim."""
        row = self.item_view.currentIndex().row()
        item_id = self.item_model.item_id(row)
        if item_id is None or row + step < 0:
            return
        self.scenario = replace(self.scenario, moves=(*self.scenario.moves, (item_id, row + step)))
        self._select_after = item_id
        self._timer.start()

    def add_item(self) -> None:
        """Add the hypothetical item described in the "Add" box and re-trim."""
        text = self.add_text.toPlainText()
        if not text and self.add_size.value() == 0:
            self._say("Paste the item's text or give its size in tokens first.")
            return
        n = len(self.scenario.added) + 1
        kind = Kind(self.add_kind.currentText())
        cand = Candidate(kind, f"what-if-{n}", text or filler(self.add_size.value()), self.add_priority.value())
        self.scenario = replace(self.scenario, added=(*self.scenario.added, cand))
        self._select_after = cand.id
        self.add_text.clear()
        self.add_size.setValue(0)
        self._timer.start()

    def reset_scenario(self) -> None:
        """Back to the trace as recorded."""
        self.set_trace(self.trace, self.source_path)

    # ---------------------------------------------------------------- re-trim
    def retrim(self) -> None:
        """Re-trim now (on a worker thread for large traces)."""
        if self.trace is None:
            self._show(None)
            return
        trace, scenario = self.trace, self.scenario
        if len(trace.items) <= thresholds.WHATIF_WORKER_ITEMS:
            self._show(run(trace, scenario, context=self.context))
            return
        if self.task is not None and not self.task.done:
            self.task.cancel()
        self._say("re-trimming…")
        context = self.context
        self.task = Task(lambda _progress, _cancelled: run(trace, scenario, context=context), self)
        self.task.sig_finished.connect(lambda o: self._show(o) if o.scenario is self.scenario else None)
        self.task.sig_failed.connect(lambda msg: self._say(f"what-if failed: {msg}"))
        self.task.start()

    def _show(self, outcome: Outcome | None) -> None:
        self.outcome = outcome
        self.item_model.set_outcome(outcome, self.scenario.pinned)
        self.cat_model.set_outcome(outcome)
        self._fit_categories(max(1, self.cat_model.rowCount()))
        if outcome is None:
            for lab in (self.verdict, self.notes, self.before, self.summary):
                lab.setText("")
            self.save.setEnabled(False)
            return
        rec = outcome.recorded
        self.title.setText(f"What-if on {one_line(outcome.original.trace_id)} — "
                           f"{one_line(outcome.original.endpoint.model) or 'model not recorded'}; recorded: "
                           f"{state_headline(rec.state)} — {one_line(rec.verdict)}")
        state = outcome.state or State.FAILURE  # not built: nothing could be sent
        same = " (as recorded)" if outcome.same_as_recorded else ""
        self.verdict.setText(f"what-if: {state_headline(state)} — {one_line(outcome.verdict)}{same}")
        self.verdict.setStyleSheet(f"font-weight: bold; font-size: 11pt; color: {STATE_COLOR[state]};")
        self.notes.setText("\n".join(one_line(n) for n in (*outcome.notes, *outcome.rules)))
        self.before.setText(outcome.before_trim or "")
        t = outcome.trace
        if t is not None:
            changed = len(outcome.changes)
            self.summary.setText(
                f"{one_line(describe(outcome.scenario))} → input {t.input_tokens or 0:,} tokens + reserved "
                f"{t.reserved_output_tokens or 0:,}, {outcome.capacity_words()}; retained {len(t.retained)}, "
                f"omitted {len(t.omitted)}; {changed} item(s) changed against the recording")
        else:
            self.summary.setText(one_line(describe(outcome.scenario)))
        self.save.setEnabled(t is not None)
        self.replay.setEnabled(t is not None)
        target = self._select_after
        if target is not None:
            rows = [r for r in range(self.item_model.rowCount()) if self.item_model.item_id(r) == target]
            if rows:
                self.item_view.selectRow(rows[0])
                self.item_view.scrollTo(self.item_model.index(rows[0], 0))
            self._select_after = None

    def _fit_categories(self, rows: int) -> None:
        self.cat_view.setFixedHeight(self.cat_view.verticalHeader().defaultSectionSize() * rows
                                     + self.cat_view.horizontalHeader().sizeHint().height() + 4)

    # ---------------------------------------------------------------- save
    def _ask_replay(self) -> None:
        if self.outcome is not None and self.outcome.trace is not None:
            self.sig_replay.emit(self.outcome.trace)

    def choose_save(self) -> None:
        """Ask for a database file and save the what-if trace there."""
        start = str(self.source_path.with_name("whatif.db")) if self.source_path else "whatif.db"
        path, _ = QFileDialog.getSaveFileName(self, "Save what-if as trace", start,
                                              "Trace databases (*.db);;All files (*)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        """Store the what-if trace in ``path`` (created if new; assessed in its context, as an
        import would: :func:`ctxviewer.replay.run.save`). Never the source database."""
        if self.outcome is None or self.outcome.trace is None:
            return False
        from ctxviewer.replay.run import save

        try:
            save(path, [self.outcome.trace], self.source_path)
        except (ValueError, StoreError, OSError) as exc:  # the source itself, a broken ctxviewer.toml, a refusal
            self._say(f"Cannot save the what-if: {exc}")
            return False
        self._say(f"Saved as trace {self.outcome.trace.trace_id} in {path}")
        return True

    def _say(self, text: str) -> None:
        self.status.setText(text)


def _context_of(source_path: Path | None) -> AssessContext:
    """The context of the source database (the one the window's header was assessed in); the
    empty one without a database or when its ``ctxviewer.toml`` or marks file is broken (the window
    said so when it opened the database)."""
    if source_path is None:
        return EMPTY
    try:
        return context_for_db(source_path)
    except ValueError:
        return EMPTY
