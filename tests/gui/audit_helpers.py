"""Opening a main window with its audit view loaded, for the audit tests."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt

from ctxviewer.gui.main_window import MainWindow


def open_with_audit(qtbot, windows, db: Path, settings: QSettings, review_file: Path | None = None) -> MainWindow:  # type: ignore[no-untyped-def]
    """A shown window on ``db`` (its review file ``review_file``, as ``--review-file`` on the
    launch) whose audit view has loaded after Ctrl+Shift+A."""
    win = windows.new(settings, size=None)
    win.audit.review_file = review_file  # as --review-file on the launch
    qtbot.waitExposed(win)
    assert win.open_database(db, remember=False)
    windows.shown(win)
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow)
    win.trace_view.setFocus()
    with qtbot.waitSignal(win.audit.view.sig_loaded, timeout=30_000):
        qtbot.keyClick(win.trace_view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    return win
