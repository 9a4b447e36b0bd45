"""render_screenshot writes a PNG of the requested size; app.main opens the given database."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from ctxviewer.gui import app as app_module
from ctxviewer.gui.main_window import MainWindow
from ctxviewer.gui.screenshot import render_screenshot
from ctxviewer.store import StoreError


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_screenshot_png_of_requested_size(qapp, db: Path, tmp_path: Path, size: tuple[int, int]) -> None:
    out = render_screenshot(db, "bravo", tmp_path / "shot.png", size)
    assert out == tmp_path / "shot.png"
    img = QImage(str(out))
    assert (img.width(), img.height()) == size
    # not a blank image: the window painted something other than its background
    colours = {img.pixel(x, y) for x in range(0, size[0], 37) for y in range(0, size[1], 23)}
    assert len(colours) > 10


def test_screenshot_errors(qapp, db: Path, tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        render_screenshot(db, "no-such-trace", tmp_path / "x.png")
    bad = tmp_path / "bad.db"
    bad.write_text("nope")
    with pytest.raises(StoreError, match="bad.db"):
        render_screenshot(bad, "bravo", tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


@pytest.mark.slow
def test_main_opens_database_from_argv(qapp, qtbot, db: Path, tmp_path: Path, monkeypatch) -> None:
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))
    seen: list[MainWindow] = []
    # app.exec() runs a local event loop here: quitting the shared test QApplication would stop every
    # later test's timers (PySide6 6.11 offscreen), so the what-if panel's live re-trim never ran.
    loop = QEventLoop()
    monkeypatch.setattr(QApplication, "exec", lambda _self: loop.exec())

    def close_when_shown(w: MainWindow) -> None:  # the first trace, loaded and assessed off the GUI thread
        seen.append(w)
        w.close()
        loop.quit()

    def watch() -> None:
        for w in QApplication.topLevelWidgets():
            if isinstance(w, MainWindow):
                w.sig_trace_shown.connect(lambda _tid, w=w: close_when_shown(w))

    QTimer.singleShot(0, watch)  # once main() has built the window, before its first trace can arrive
    QTimer.singleShot(30_000, loop, loop.quit)  # never hang: seen stays empty and the test fails
    assert app_module.main([str(db)]) == 0
    assert seen and seen[0].windowTitle() == "ctxviewer — traces.db"
    assert seen[0].trace is not None and seen[0].trace.trace_id == "delta"
    assert seen[0].panel.assessment is not None and seen[0].panel.assessment.trace_id == "delta"
