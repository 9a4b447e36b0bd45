"""The main window's docks: the menu bar's context menu offers only docks with something to show,
and the search dock opened beside a docked audit view is tabbed with it, at the window's width."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt


def _toggles(w) -> list[str]:  # type: ignore[no-untyped-def]
    menu = w.createPopupMenu()
    return [] if menu is None else [a.text() for a in menu.actions() if not a.isSeparator()]


def test_popup_offers_the_audit_dock_only_once_it_has_a_view(qtbot, windows, db: Path) -> None:
    w = windows.open(db)
    assert w.audit.dock.widget() is None
    assert _toggles(w) == ["Search content"]  # no toggle that would show an empty strip
    w.audit.open_audit()
    qtbot.waitUntil(lambda: w.audit.dock.widget() is not None, timeout=10_000)
    assert _toggles(w) == ["Audit findings", "Search content"]


def test_search_dock_is_tabbed_with_a_docked_audit_view_at_full_width(qtbot, windows, db: Path) -> None:
    w = windows.open(db)
    w.audit.open_audit()
    qtbot.waitUntil(lambda: w.audit.dock.widget() is not None, timeout=10_000)
    w.audit.dock.setFloating(False)  # the user docked it (double-click on its title)
    assert w.dockWidgetArea(w.audit.dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    w.search.open_search()
    qtbot.waitUntil(lambda: w.search.dock.isVisible(), timeout=5_000)
    assert w.tabifiedDockWidgets(w.search.dock) == [w.audit.dock]  # tabbed, not split beside it
    w.layout().activate()
    assert w.search.dock.width() == w.width()  # 1280 px: Trace, Item and Snippet all in view
