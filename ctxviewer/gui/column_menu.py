"""Hide and show table columns from the header's context menu.

Right-click a table header: one checkable entry per column (its title); unchecking hides the
column, at least one stays visible. The hidden set is part of the header's state, which
:mod:`ctxviewer.gui.layout_memory` keeps between runs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTableView

from ctxviewer.present.columns import Column


def column_actions(view: QTableView) -> list[QAction]:
    """One checkable action per column of ``view`` (checked = shown), parented to the view; the
    last visible column's action is disabled so the table never loses every column."""
    header = view.horizontalHeader()
    model = view.model()
    shown = [c for c in range(header.count()) if not header.isSectionHidden(c)]
    actions = []
    for c in range(header.count()):
        title = str(model.headerData(c, Qt.Orientation.Horizontal) or f"column {c + 1}").replace("\n", " ")
        act = QAction(title, view)
        act.setCheckable(True)
        act.setChecked(not header.isSectionHidden(c))
        act.setEnabled(not (len(shown) == 1 and c in shown))
        act.toggled.connect(lambda on, c=c: header.setSectionHidden(c, not on))
        actions.append(act)
    return actions


def install_column_menu(view: QTableView, columns: tuple[Column[Any], ...] = ()) -> None:
    """Give ``view``'s horizontal header the hide/show context menu, and hide the ``columns``
    marked ``hidden_by_default`` (a remembered layout, restored later, overrides this)."""
    header = view.horizontalHeader()
    for c, col in enumerate(columns):
        if col.hidden_by_default:
            header.hideSection(c)
    header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def show_menu(pos: QPoint) -> None:
        menu = QMenu(view)
        menu.addActions(column_actions(view))
        menu.exec(header.mapToGlobal(pos))

    header.customContextMenuRequested.connect(show_menu)
