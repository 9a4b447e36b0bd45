"""The tool-calls panel: each proposed call, its arguments, every check on it and the verdict.

The tree (:class:`ToolCallsModel`) has one row per proposed call (name, verdict, the rule that
decided it) with one child row per check -- ctxviewer's (offered, arguments JSON, schema,
destructive patterns; :mod:`ctxviewer.assess.tool_review`) then the application's recorded ones -- each
with ✔ / ✖ / ? and its detail. Beside it, the selected call's arguments exactly as the model sent
them, pretty-printed when they are valid JSON (never repaired when they are not). Plain text only.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSplitter, QTreeView, QVBoxLayout, QWidget

from ctxviewer.assess.tool_review import ToolCallReview, review_calls
from ctxviewer.gui.tables import plain_tooltip
from ctxviewer.gui.two_level_model import TwoLevelModel
from ctxviewer.model.trace import RequestTrace, ToolVerdict
from ctxviewer.present.finding_view import CHECK_SYMBOL
from ctxviewer.present.tool_arguments import arguments_view
from ctxviewer.util.visible import one_line, reveal

COLUMNS = ("Call / check", "Outcome", "Detail")
"""Column titles."""
_VERDICT_COLOR = {ToolVerdict.PERMITTED: "#047857", ToolVerdict.BLOCKED: "#b91c1c", ToolVerdict.NEEDS_APPROVAL: "#92400e"}
_Index = QModelIndex | QPersistentModelIndex


def verdict_text(r: ToolCallReview) -> str:
    """``"blocked"``, ``"permitted"``, ``"needs approval"`` or ``"no verdict recorded"``."""
    return r.verdict.value.replace("_", " ") if r.verdict else "no verdict recorded"


class ToolCallsModel(TwoLevelModel):
    """Calls (top level) and their checks (children). ``data()`` never raises."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.reviews: tuple[ToolCallReview, ...] = ()

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Review the calls of ``trace`` (``None`` clears)."""
        self.beginResetModel()
        self.reviews = review_calls(trace) if trace is not None else ()
        self.endResetModel()

    def review(self, index: _Index) -> ToolCallReview | None:
        """The call of a call row or of a check row's parent."""
        if not index.isValid():
            return None
        n = index.row() if index.internalId() == 0 else index.internalId() - 1
        return self.reviews[n] if 0 <= n < len(self.reviews) else None

    def group_count(self) -> int:
        return len(self.reviews)

    def child_count(self, group: int) -> int:
        return len(self.reviews[group].checks)

    def column_total(self) -> int:
        return len(COLUMNS)

    def _data(self, index: _Index, role: int) -> Any:
        r = self.review(index)
        if r is None:
            return None
        col = index.column()
        if index.internalId() == 0:
            failed = len(r.failed)
            if role == Qt.ItemDataRole.DisplayRole:
                by = f"decided by {r.call.decided_by}" if r.call.decided_by else ""
                return (f"{one_line(r.call.name)}  ({r.ref})", verdict_text(r),
                        "; ".join(x for x in (f"{failed} check(s) failed" if failed else "all checks passed", by) if x))[col]
            if role == Qt.ItemDataRole.ForegroundRole and col == 1 and r.verdict in _VERDICT_COLOR:
                return QBrush(QColor(_VERDICT_COLOR[r.verdict]))
            return None
        if not 0 <= index.row() < len(r.checks):
            return None
        c = r.checks[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            outcome = {True: "passed", False: "failed", None: "not decided"}[c.passed]
            return (f"{CHECK_SYMBOL[c.passed]} {c.name}", f"{outcome} ({c.source})", one_line(c.detail))[col]
        if role == Qt.ItemDataRole.ForegroundRole and c.passed is False:
            return QBrush(QColor("#b91c1c"))
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(c.detail)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None


def arguments_text(r: ToolCallReview) -> str:
    """The call's arguments for display (:func:`ctxviewer.present.tool_arguments.arguments_view`):
    pretty JSON of an object; otherwise first a line saying what they are ("arguments not
    recorded", "arguments: a JSON string, not an object:", "arguments: not valid JSON, shown
    exactly as sent:"), invisible characters revealed."""
    view = arguments_view(r.call.arguments)
    if view.body is None:
        return view.heading
    body = reveal(view.body).text
    return body if view.is_object and view.heading == "arguments:" else f"{view.heading}\n{body}"


class ToolCallsPanel(QWidget):
    """Tree of calls and checks, and the selected call's arguments (see module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ToolCallsModel(self)
        self.view = QTreeView()
        self.view.setModel(self.model)
        self.view.setAlternatingRowColors(True)
        self.view.setUniformRowHeights(True)
        self.view.selectionModel().currentRowChanged.connect(self._on_row)
        self.arguments = QPlainTextEdit()
        self.arguments.setReadOnly(True)
        self.arguments.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.empty = QLabel("No tool calls were proposed in this response.")
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(self.arguments)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.empty)
        lay.addWidget(split, 1)

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show the proposed calls of ``trace`` (``None`` clears); selects the first call."""
        self.model.set_trace(trace)
        self.view.expandAll()
        for c, w in enumerate((220, 150)):
            self.view.setColumnWidth(c, w)
        self.empty.setVisible(not self.model.reviews)
        self.arguments.setPlainText("")
        if self.model.reviews:
            self.view.setCurrentIndex(self.model.index(0, 0))

    def _on_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        r = self.model.review(current)
        self.arguments.setPlainText(arguments_text(r) if r is not None else "")
