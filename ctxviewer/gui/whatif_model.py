"""Table models of the what-if panel: the candidate items (editable priority and pin) and the
per-category token moves. They show a :class:`ctxviewer.builder.whatif.Outcome`; edits go back to the
panel as a changed :class:`~ctxviewer.builder.whatif.Scenario` through ``sig_edited``."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from ctxviewer.assess.budget import CATEGORY_LABELS
from ctxviewer.builder.whatif import Outcome
from ctxviewer.model.trace import NOT_RECORDED, ContextItem, Status
from ctxviewer.util.visible import one_line

Index = QModelIndex | QPersistentModelIndex


def _tokens(v: int | None) -> str:
    return NOT_RECORDED if v is None else f"{v:,}"

ITEM_HEADERS = ("#", "item", "kind", "tokens", "priority", "pin", "recorded", "what-if")
PRIORITY, PIN = 4, 5


class WhatIfItemModel(QAbstractTableModel):
    """One row per item of the what-if trace, in final order. Priority is editable; pin checkable.

    ``sig_priority(item_id, value)`` and ``sig_pin(item_id, pinned)`` report edits.
    """

    sig_priority = Signal(str, float)
    sig_pin = Signal(str, bool)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.items: list[ContextItem] = []
        self.recorded: dict[str, ContextItem] = {}
        self.pinned: frozenset[str] = frozenset()
        self.changed: dict[str, str] = {}
        self.why: dict[str, str] = {}
        """Item id -> why an item nobody pinned is kept (``"kept with tool call turn-01, pinned"``)."""

    def set_outcome(self, outcome: Outcome | None, pinned: frozenset[str]) -> None:
        """Show ``outcome`` (``None`` clears); ``pinned`` are the item ids pinned in the scenario."""
        self.beginResetModel()
        self.items = list(outcome.trace.items) if outcome and outcome.trace else (
            list(outcome.original.items) if outcome else [])
        self.recorded = {i.id: i for i in outcome.original.items} if outcome else {}
        self.changed = {c.id: c.after for c in outcome.changes} if outcome else {}
        self.why = {c.id: c.why for c in outcome.changes if c.why} if outcome else {}  # "kept with tool call …"
        self.pinned = pinned
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(ITEM_HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return ITEM_HEADERS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        f = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        it = self.items[index.row()]
        if index.column() == PRIORITY and not it.kind.required:
            f |= Qt.ItemFlag.ItemIsEditable
        if index.column() == PIN and self.pinnable(it):
            f |= Qt.ItemFlag.ItemIsUserCheckable
        return f

    def pinnable(self, it: ContextItem) -> bool:
        """Whether ``it`` has a pin box: an optional item, or a required one (policy, user request)
        the recording omitted (a pin overrides the rule that omitted it)."""
        rec = self.recorded.get(it.id)
        return not it.kind.required or (rec is not None and rec.status is Status.OMITTED)

    def _status(self, it: ContextItem | None) -> str:
        if it is None:
            return "hypothetical"
        if it.status is Status.RETAINED:
            return f"retained #{it.position}" if it.position else "retained"
        return f"omitted: {it.omission_reason or 'reason not recorded'}"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.items):
            return None
        it, col = self.items[index.row()], index.column()
        if role == Qt.ItemDataRole.CheckStateRole and col == PIN:
            if not self.pinnable(it):
                return None
            return Qt.CheckState.Checked if it.id in self.pinned else Qt.CheckState.Unchecked
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            values = (index.row() + 1, one_line(it.id), it.kind.value,
                      None if it.tokens is None else f"{it.tokens:,}",
                      None if it.priority is None else (it.priority if role == Qt.ItemDataRole.EditRole
                                                        else f"{it.priority:g}"),
                      "required" if not self.pinnable(it) else None,
                      self._status(self.recorded.get(it.id)),
                      self._status(it) + (f" ({one_line(self.why[it.id])})" if it.id in self.why else ""))
            return values[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 3, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and col == 7 and it.id in self.changed:
            from PySide6.QtGui import QFont

            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and col == 7 and it.id in self.changed:
            why = self.why.get(it.id)
            return "changed against the recorded trace" + (f": {one_line(why)}" if why else "")
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid():
            return False
        it = self.items[index.row()]
        if index.column() == PRIORITY and role == Qt.ItemDataRole.EditRole:
            try:
                prio = float(value)
            except (TypeError, ValueError):
                return False
            self.sig_priority.emit(it.id, prio)
            return True
        if index.column() == PIN and role == Qt.ItemDataRole.CheckStateRole:
            self.sig_pin.emit(it.id, Qt.CheckState(value) == Qt.CheckState.Checked)
            return True
        return False

    def item_id(self, row: int) -> str | None:
        """Id of the item on ``row``, or ``None``."""
        return self.items[row].id if 0 <= row < len(self.items) else None


class CategoryDeltaModel(QAbstractTableModel):
    """Rows: category, recorded tokens, what-if tokens, change (eq. 3.1 categories)."""

    HEADERS = ("category", "recorded", "what-if", "change")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, int | None, int | None]] = []

    def set_outcome(self, outcome: Outcome | None) -> None:
        """Show ``outcome``'s category moves in tokens (``None`` clears), by the assessment's
        category map (:attr:`~ctxviewer.builder.whatif.Outcome.category_delta`)."""
        self.beginResetModel()
        self.rows = [(CATEGORY_LABELS[c], b, a) for c, (b, a) in outcome.category_delta.items()] if outcome else []
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 4

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        name, before, after = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            change = NOT_RECORDED if before is None or after is None else f"{after - before:+,}"
            return (name, _tokens(before), _tokens(after), change)[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
