"""The tabs that share the item table's place: Items, Conversation, Findings, Tool
calls, Evidence, Run (the run the call belongs to: :mod:`ctxviewer.gui.run_panel`).

:class:`DiagnosticsTabs` owns the findings, tool-calls and evidence panels and puts them in one
tab widget beside the pages it is given (the item table and the conversation of the trace panel);
it wires them to the item table and the content view it is given: selecting a finding selects its
item in the item table (which drives the content view) and highlights the finding's spans there;
clicking an evidence bar selects that item. A trace whose state is warning or failure leads with
the Findings tab unless the user has picked a tab by hand (then their choice stays). The observed
failure (a Table 3.1 row) the user marks is written beside the database with
:func:`ctxviewer.assess.marks.set_mark`; ``sig_status(str)`` reports where (or why not).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from ctxviewer.assess.assessment import Assessment
from ctxviewer.assess.config import marked_documents
from ctxviewer.assess.evidence_positions import evidence_map
from ctxviewer.assess.marks import Mark, load_marks, set_mark
from ctxviewer.gui.content_view import ContentView
from ctxviewer.gui.evidence_strip import EvidencePanel
from ctxviewer.gui.findings_panel import FindingsPanel
from ctxviewer.gui.item_table import ItemTable
from ctxviewer.gui.run_panel import RunPanel
from ctxviewer.gui.tool_calls_panel import ToolCallsPanel
from ctxviewer.model.findings import Finding, State
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.finding_view import summary

ITEMS, CONVERSATION, FINDINGS, TOOLS, EVIDENCE, RUN = range(6)
"""Tab indexes."""


class DiagnosticsTabs(QObject):
    """The tab widget (:attr:`widget`) and its wiring (see module docstring): ``items`` and
    ``conversation`` are its first two pages, ``content`` the view a selected finding's spans are
    highlighted in; ``parent`` owns it (the trace panel). ``sig_status(str)`` says where a mark was
    saved, or why not."""

    sig_status = Signal(str)

    def __init__(self, items: ItemTable, conversation: QWidget, content: ContentView, parent: QObject) -> None:
        super().__init__(parent)
        self.items = items
        self.content = content
        self.widget = QTabWidget()
        self.findings = FindingsPanel()
        self.tool_calls = ToolCallsPanel()
        self.evidence = EvidencePanel()
        self.run = RunPanel()
        for w, title in ((items, "Items"), (conversation, "Conversation"), (self.findings, "Findings"),
                         (self.tool_calls, "Tool calls"), (self.evidence, "Evidence"), (self.run, "Run")):
            self.widget.addTab(w, title)
        self.pinned = False
        """True once the user picked a tab by hand (then traces no longer switch it)."""
        self.widget.tabBar().tabBarClicked.connect(self._on_tab_clicked)
        self.findings.sig_finding_selected.connect(self.show_finding)
        self.findings.sig_observed_changed.connect(self._on_observed)
        self.evidence.strip.sig_item_clicked.connect(self.select_item)
        self.db_path: Path | None = None
        self.marks: dict[str, Mark] = {}
        self.trace: RequestTrace | None = None

    def set_database(self, path: Path | str | None) -> None:
        """Read the user's marks of the database at ``path`` (``None``: no database)."""
        self.db_path = Path(path) if path is not None else None
        self.run.set_database(self.db_path)
        try:
            self.marks = load_marks(self.db_path) if self.db_path is not None else {}
        except ValueError as exc:
            self.marks = {}
            self.sig_status.emit(f"marks ignored: {exc}")

    def set_trace(self, trace: RequestTrace | None, assessment: Assessment | None) -> None:
        """Show the diagnostics of ``trace`` (``None`` clears); ``assessment`` ``None`` while it is
        still being made (no findings yet: :meth:`set_assessment` adds them)."""
        self.trace = trace
        self.tool_calls.set_trace(trace)
        self.run.show_trace(trace.trace_id if trace is not None else None)
        items = len(trace.items) if trace is not None else 0
        self.widget.setTabText(ITEMS, f"Items ({items})")
        self.widget.setTabText(TOOLS, f"Tool calls ({len(trace.tool_calls) if trace is not None else 0})")
        self.set_assessment(assessment)

    def set_assessment(self, assessment: Assessment | None) -> None:
        """Show the findings and the evidence map of the trace shown's ``assessment`` (``None``:
        none, or not yet); a warning or worse brings the Findings tab forward unless the user picked
        a tab. The evidence map is the one the assessment's evidence check made (memoised per trace:
        never computed again here, where a trace of thousands of documents would take a second)."""
        t = self.trace
        m = evidence_map(t, marked_documents(t.trace_id)) if t is not None and assessment is not None else None
        self.evidence.set_map(m)
        self.widget.setTabText(EVIDENCE, f"Evidence ({m.retained_count if m else 0})")
        findings = assessment.findings if assessment is not None else ()
        mark = self.marks.get(self.trace.trace_id) if self.trace is not None else None
        self.findings.set_findings(findings, mark.row if mark else None)
        self.widget.setTabText(FINDINGS, f"Findings  {summary(findings)}" if findings else "Findings (0)")
        if not self.pinned:
            bad = assessment is not None and assessment.state is not State.OK
            self.widget.setCurrentIndex(FINDINGS if bad else ITEMS)
        if self.widget.currentIndex() == FINDINGS:
            first = self.findings.model.finding(self.findings.model.first_finding())
            if first is not None:
                self.show_finding(first)

    def show_finding(self, f: Finding) -> None:
        """Select the item ``f`` points at (its first span's item, else its first item) and
        highlight its spans in the content view."""
        ev = f.evidence
        target = ev.spans[0].item_id if ev.spans else (ev.item_ids[0] if ev.item_ids else None)
        if target is None or self.trace is None:
            return
        if not self.select_item(target):
            return
        spans = [(s.start, s.end) for s in ev.spans if s.item_id == target]
        self.content.mark_spans(self.trace.item(target).content, spans)

    def select_item(self, item_id: str) -> bool:
        """Make ``item_id`` the current item (its content shows). False if the trace has none."""
        return self.items.select_item(item_id)

    def _on_tab_clicked(self, _index: int) -> None:
        self.pinned = True

    def _on_observed(self, row: int | None) -> None:
        if self.trace is None:
            return
        tid = self.trace.trace_id
        old = self.marks.get(tid, Mark())
        mark = Mark(row, old.needed)
        if self.db_path is None:
            self.sig_status.emit("open a database to keep marks")
            return
        try:
            path = set_mark(self.db_path, tid, mark)
        except OSError as exc:
            self.sig_status.emit(f"cannot save the mark beside the database: {exc}")
            return
        self.marks[tid] = mark
        self.sig_status.emit(f"marked {tid}: " + (f"Table 3.1 row {row}" if row else "not marked") + f" (saved in {path})")
