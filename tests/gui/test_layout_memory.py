"""Issue 13: the window remembers its layout in QSettings -- geometry, splitter sizes, column
widths and hidden columns -- and a new window comes back the same."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from ctxviewer.gui.main_window import MainWindow

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def new_window(qtbot, windows, settings: QSettings) -> MainWindow:  # type: ignore[no-untyped-def]
    w = windows.new(settings)
    qtbot.waitExposed(w)
    assert w.open_database(SAMPLES, remember=False)
    windows.shown(w)
    return w


def test_layout_comes_back(qtbot, windows, tmp_path: Path) -> None:
    path = str(tmp_path / "settings.ini")
    settings = QSettings(path, QSettings.Format.IniFormat)
    w = new_window(qtbot, windows, settings)
    w.resize(800, 640)  # the offscreen screen is 800×800: restoreGeometry keeps a window on screen
    w.splitter.setSizes([360, 440])
    w.panel.splitter.setSizes([260, 200, 200])
    w.panel.bottom.setSizes([250, 550])
    w.trace_view.horizontalHeader().resizeSection(0, 111)
    w.trace_view.horizontalHeader().hideSection(2)  # Model
    w.item_view.horizontalHeader().resizeSection(8, 222)  # Omission reason
    w.item_view.horizontalHeader().hideSection(3)  # Source
    w.item_view.horizontalHeader().showSection(4)  # Trust (hidden by default)
    qtbot.wait(50)  # let the layout settle (splitters keep their children's minimum sizes)
    want = (w.size(), w.splitter.sizes(), w.panel.splitter.sizes(), w.panel.bottom.sizes())
    w.close()

    w2 = new_window(qtbot, windows, QSettings(path, QSettings.Format.IniFormat))

    def layout() -> tuple:  # type: ignore[type-arg]
        return (w2.size(), w2.splitter.sizes(), w2.panel.splitter.sizes(), w2.panel.bottom.sizes())

    qtbot.waitUntil(lambda: layout() == want, timeout=3000)
    assert (w2.size().width(), w2.size().height()) == (800, 640)
    assert w2.trace_view.horizontalHeader().sectionSize(0) == 111
    assert w2.trace_view.horizontalHeader().isSectionHidden(2)
    assert w2.item_view.horizontalHeader().sectionSize(8) == 222
    assert w2.item_view.horizontalHeader().isSectionHidden(3)
    assert not w2.item_view.horizontalHeader().isSectionHidden(4)
    assert not w2.item_view.horizontalHeader().isSectionHidden(2)


def test_first_run_uses_default_sizes(qtbot, windows, settings: QSettings) -> None:
    w = new_window(qtbot, windows, settings)
    left, right = w.splitter.sizes()
    assert 0.40 < left / (left + right) < 0.46  # the trace list about 44% of 1280 px
    from ctxviewer.present.columns import ITEM_COLUMNS, TRACE_COLUMNS

    header = w.trace_view.horizontalHeader()
    assert [c.key for i, c in enumerate(TRACE_COLUMNS) if header.isSectionHidden(i)] == [
        c.key for c in TRACE_COLUMNS if c.hidden_by_default]
    items = w.item_view.horizontalHeader()
    assert [c.key for i, c in enumerate(ITEM_COLUMNS) if items.isSectionHidden(i)] == ["trust"]
