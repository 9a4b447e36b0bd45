"""The Items tab: the item table behind a filter bar, sortable by any column.

:class:`ItemProxy` (a :class:`QSortFilterProxyModel`) sits between
:class:`~ctxviewer.gui.item_table_model.ItemTableModel` and the view: it keeps the rows a core
:class:`~ctxviewer.present.item_filter.ItemFilter` accepts and sorts by each column's ``sort_value``
(:data:`ctxviewer.present.columns.ITEM_COLUMNS`) -- unsorted, rows keep the request's final order. The bar
offers kind, status, "Omitted only", a text filter and previous / next omitted item (Shift+F8 / F8,
wired as window actions). Ids elide in the middle; every cell's tooltip has its full text.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QToolButton, QVBoxLayout, QWidget

from ctxviewer.gui.column_menu import install_column_menu
from ctxviewer.gui.item_table_model import ItemTableModel
from ctxviewer.gui.tables import elide_right, make_table, size_columns
from ctxviewer.model.trace import ContextItem, Kind, Status
from ctxviewer.model.words import omitted_phrase
from ctxviewer.present.columns import ITEM_COLUMNS
from ctxviewer.present.item_filter import ItemFilter, step_to

_Index = QModelIndex | QPersistentModelIndex
FIT_KEYS = frozenset({"kind", "id", "priority", "tokens", "status"})
"""Item-table columns widened to their content when a trace is shown (``not…ded``, ``hist…ult)``
for "history (tool result)")."""
FIT_ROWS = 1000
"""Fitting looks at the first this many items (a 100,000-item trace must not stall the window)."""
FIT_PAD_PX = 16
"""Cell margins added to the text width when fitting, in pixels."""
FIT_MAX_CHARS = 24
"""The widest a fitted column gets, in average characters; longer text is in the tooltip (and
the Source column keeps room to stretch)."""


class ItemProxy(QSortFilterProxyModel):
    """Filter (:class:`ItemFilter`) and sort (``Column.sort_value``) over an :class:`ItemTableModel`."""

    def __init__(self, source: ItemTableModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSourceModel(source)
        self.item_filter = ItemFilter()

    def set_filter(self, f: ItemFilter) -> None:
        """Keep only the rows ``f`` accepts."""
        self.beginFilterChange()
        self.item_filter = f
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def source_items(self) -> ItemTableModel:
        """The source model (typed)."""
        model = self.sourceModel()
        assert isinstance(model, ItemTableModel)
        return model

    def item(self, row: int) -> ContextItem | None:
        """The item shown in proxy row ``row``."""
        src = self.mapToSource(self.index(row, 0))
        return self.source_items().item(src.row()) if src.isValid() else None

    def row_of(self, item_id: str) -> int | None:
        """Proxy row of ``item_id``, ``None`` when it is filtered out or absent."""
        r = self.source_items().row_of(item_id)
        if r is None:
            return None
        idx = self.mapFromSource(self.source_items().index(r, 0))
        return idx.row() if idx.isValid() else None

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        item = self.source_items().item(source_row)
        return item is not None and self.item_filter.matches(item)

    def lessThan(self, left: _Index, right: _Index) -> bool:
        col = ITEM_COLUMNS[left.column()]
        a, b = self.source_items().item(left.row()), self.source_items().item(right.row())
        if a is None or b is None:
            return False
        if col.sort_value is not None:
            ka, kb = col.sort_value(a), col.sort_value(b)
        else:
            ka, kb = col.format(a).casefold(), col.format(b).casefold()
        if ka == kb:  # ties keep the request's final order
            return left.row() < right.row()
        return bool(ka < kb)


class ItemTable(QWidget):
    """Filter bar and item table view (see the module docstring)."""

    def __init__(self, model: ItemTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.proxy = ItemProxy(model, self)
        self.view = make_table(self.proxy)
        self.view.setObjectName("itemTable")
        self.view.setSortingEnabled(True)
        self.view.horizontalHeader().setSortIndicatorShown(False)  # unsorted: final order
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.view.horizontalHeader().sortIndicatorChanged.connect(
            lambda *_: self.view.horizontalHeader().setSortIndicatorShown(True))
        size_columns(self.view, ITEM_COLUMNS, "source")
        elide_right(self.view, ITEM_COLUMNS)  # "policy:support-…", not "poli…0-03"
        install_column_menu(self.view, ITEM_COLUMNS)
        self.kind = QComboBox()
        self.kind.setObjectName("itemKind")
        self.kind.addItem("All kinds", None)
        for k in Kind:
            self.kind.addItem(k.value, k.value)  # str: Qt turns str enums into plain str
        self.status = QComboBox()
        self.status.setObjectName("itemStatus")
        self.status.addItem("All statuses", None)
        self.status.addItem("retained", Status.RETAINED.value)
        self.status.addItem("omitted", Status.OMITTED.value)
        self.omitted_only = QCheckBox("Omitted only")
        self.text = QLineEdit()
        self.text.setObjectName("itemText")
        self.text.setClearButtonEnabled(True)
        self.text.setPlaceholderText("Filter items: id, source, reason")
        self.prev_btn = QToolButton()
        self.prev_btn.setText("◀ omitted")
        self.prev_btn.setToolTip("Previous omitted item (Shift+F8)")
        self.next_btn = QToolButton()
        self.next_btn.setText("omitted ▶")
        self.next_btn.setToolTip("Next omitted item (F8)")
        self.prev_btn.clicked.connect(lambda: self.step_omitted(-1))
        self.next_btn.clicked.connect(lambda: self.step_omitted(1))
        self.count = QLabel()
        self.count.setObjectName("itemCount")
        for combo in (self.kind, self.status):
            combo.currentIndexChanged.connect(self._apply)
        self.omitted_only.toggled.connect(self._on_omitted_only)
        self.text.textChanged.connect(self._apply)
        bar = QHBoxLayout()
        bar.setContentsMargins(2, 2, 2, 0)
        bar.setSpacing(4)
        for widget in (self.kind, self.status, self.omitted_only):
            bar.addWidget(widget)
        bar.addWidget(self.text, 1)
        for tail in (self.count, self.prev_btn, self.next_btn):
            bar.addWidget(tail)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(bar)
        lay.addWidget(self.view, 1)
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.modelReset.connect(self.fit_columns)
        self.proxy.rowsInserted.connect(self._update_count)
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)

    # ------------------------------------------------------------------ filter

    def current_filter(self) -> ItemFilter:
        """The filter the bar describes."""
        kind, status = self.kind.currentData(), self.status.currentData()
        return ItemFilter(Kind(kind) if kind else None, Status(status) if status else None, self.text.text())

    def _on_omitted_only(self, on: bool) -> None:
        self.status.setCurrentIndex(2 if on else 0)

    def _apply(self) -> None:
        f = self.current_filter()
        self.omitted_only.blockSignals(True)
        self.omitted_only.setChecked(f.status is Status.OMITTED)
        self.omitted_only.blockSignals(False)
        self.proxy.set_filter(f)
        self._update_count()

    def clear_filter(self) -> None:
        """Show every item again."""
        for combo in (self.kind, self.status):
            combo.setCurrentIndex(0)
        self.text.clear()

    def _update_count(self) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        omitted = sum(1 for r in range(total) if (i := self.model.item(r)) is not None and i.status is Status.OMITTED)
        trace = self.model.trace
        words = omitted_phrase(omitted, trace.omissions_recorded if trace is not None else None)  # the list's words
        self.count.setText(f"{shown} of {total} shown · {words}" if shown != total else words)
        for button in (self.prev_btn, self.next_btn):
            button.setEnabled(omitted > 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()  # a wider view lets long ids show whole

    def fit_columns(self) -> None:
        """Widen the columns whose words must not be clipped -- kind ("history (tool result)"), id,
        priority, tokens ("not recorded") and status -- to their content, up to :data:`FIT_MAX_CHARS` characters or a
        quarter of the view, whichever is wider; never narrower than they are (a width the user chose stays)."""
        header = self.view.horizontalHeader()
        italic = QFont(self.view.font())
        italic.setItalic(True)  # omitted rows are italic, a little wider
        fm = QFontMetrics(italic)
        cap = max(fm.horizontalAdvance("x" * FIT_MAX_CHARS), self.view.viewport().width() // 4)  # wide windows: more
        items = [i for r in range(min(self.model.rowCount(), FIT_ROWS)) if (i := self.model.item(r)) is not None]
        for c, col in enumerate(ITEM_COLUMNS):
            if col.key in FIT_KEYS and not header.isSectionHidden(c) and items:
                texts = {col.format(i) for i in items}  # the core's words; no Qt model round trips
                want = min(max(fm.horizontalAdvance(t) for t in texts) + FIT_PAD_PX, cap)
                if want > header.sectionSize(c):
                    header.resizeSection(c, want)

    # ------------------------------------------------------------------ selection

    def current_item(self) -> ContextItem | None:
        """The item of the current row, or ``None``."""
        idx = self.view.currentIndex()
        return self.proxy.item(idx.row()) if idx.isValid() else None

    def select_item(self, item_id: str) -> bool:
        """Make ``item_id`` current, clearing the filter if it hides the item. False if absent."""
        if self.model.row_of(item_id) is None:
            return False
        row = self.proxy.row_of(item_id)
        if row is None:
            self.clear_filter()
            row = self.proxy.row_of(item_id)
        if row is None:
            return False
        self.view.selectRow(row)
        self.view.scrollTo(self.proxy.index(row, 0))
        return True

    def step_omitted(self, step: int) -> ContextItem | None:
        """Select the next (``1``) or previous (``-1``) omitted item in the table's current order,
        wrapping around. Returns it, or ``None`` when the table shows no omitted item."""
        flags = [(i := self.proxy.item(r)) is not None and i.status is Status.OMITTED for r in range(self.proxy.rowCount())]
        cur = self.view.currentIndex().row() if self.view.currentIndex().isValid() else -1
        row = step_to(flags, cur, step)
        if row is None:
            return None
        self.view.selectRow(row)
        self.view.scrollTo(self.proxy.index(row, 0))
        self.view.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return self.proxy.item(row)
