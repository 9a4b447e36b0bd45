"""The GUI entry point (``ctxviewer-gui``; ``ctxviewer [DB]`` calls :func:`main` too)."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QApplication

from ctxviewer.gui.control_glyphs import choose_control_markers
from ctxviewer.gui.display_check import (
    NO_DISPLAY_STATUS,
    invisible_message,
    invisible_platform,
    missing_display,
    no_display_message,
)
from ctxviewer.gui.gc_guard import collect_on_gui_thread
from ctxviewer.gui.main_window import MainWindow
from ctxviewer.gui.rendered_view import settle_clipboard
from ctxviewer.util import assets

SWITCH_INTERVAL_S = 0.0002
"""The interpreter's thread switch interval the viewer runs with (s; Python's default is 0.005).

Each call from Qt into Python -- every ``data()`` of a painted cell -- takes the interpreter lock
back from a worker thread that is running Python (an import, an assessment, a what-if, a diff),
and may wait up to this interval for it. Measured with ``benchmarks/bench_contention.py --db``
on the 1M database (three runs): a trace-list paint of 7 ms alone took a median 34-214 ms beside
a pure-Python worker at 5 ms, and 12-29 ms at 0.2 ms; the worker keeps 79-96 % of its speed while
the window is idle (35-85 % while it paints)."""

SAMPLE_DB = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
"""The sample database of a source checkout, opened when no database is given (if it exists)."""


def application(argv: list[str] | None = None) -> QApplication:
    """The running :class:`QApplication`, created (with name, icon and stylesheet) if there is none.
    Sets the interpreter's switch interval to :data:`SWITCH_INTERVAL_S` and moves garbage
    collection to the GUI thread (:func:`ctxviewer.gui.gc_guard.collect_on_gui_thread`)."""
    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "ctxviewer", *(argv or [])])
    assert isinstance(app, QApplication)
    sys.setswitchinterval(SWITCH_INTERVAL_S)  # paints beside busy workers (see SWITCH_INTERVAL_S)
    if app.property("ctxviewer_gc_timer") is None:  # once per application
        app.setProperty("ctxviewer_gc_timer", True)
        collect_on_gui_thread(app)  # a collection in a worker thread can deadlock with Qt (gc_guard)
    gc.disable()  # (again: whoever turned it back on since)
    app.setApplicationName("ctxviewer")
    app.setOrganizationName("ctxviewer")
    try:
        app.setStyleSheet(assets.read_text("app.qss"))
        pix = QPixmap()
        if pix.loadFromData(assets.read_bytes("icons/ctxviewer.svg")):
            app.setWindowIcon(QIcon(pix))
    except (FileNotFoundError, ModuleNotFoundError):
        pass  # a missing asset must not stop the viewer
    return app


def initial_size(app: QApplication, preferred: tuple[int, int] = (1400, 860)) -> tuple[int, int]:
    """Window size in pixels: ``preferred``, shrunk to 95% of the primary screen's available area
    so the whole window (status bar, chart axis) is visible on a 1280x800 screen."""
    screen = app.primaryScreen()
    if screen is None:
        return preferred
    area = screen.availableGeometry()
    return min(preferred[0], int(area.width() * 0.95)), min(preferred[1], int(area.height() * 0.95))


def split_review_file(args: list[str]) -> tuple[list[str], str | None]:
    """``args`` without ``--review-file PATH`` (or ``--review-file=PATH``), and that PATH."""
    rest, found, n = [], None, 0
    while n < len(args):
        a = args[n]
        if a == "--review-file" and n + 1 < len(args):
            found, n = args[n + 1], n + 2
            continue
        if a.startswith("--review-file="):
            found = a.split("=", 1)[1]
        else:
            rest.append(a)
        n += 1
    return rest, found


def main(argv: list[str] | None = None) -> int:
    """Run the viewer. ``argv``: command-line arguments without the program name (default
    ``sys.argv[1:]``); the first non-option argument is a database to open read-only, else the
    checkout's ``sample_traces/samples.db`` when it exists; ``--review-file PATH`` is where the
    audit view keeps its verdicts (:mod:`ctxviewer.review.location`). Returns the exit status:
    :data:`~ctxviewer.gui.display_check.NO_DISPLAY_STATUS` (2) with one line on stderr when there is
    no display to draw on (instead of Qt's abort), or when ``QT_QPA_PLATFORM`` is one that draws
    nowhere (``offscreen``: the window would run unseen until killed)."""
    args = list(sys.argv[1:] if argv is None else argv)
    args, review_file = split_review_file(args)
    reason = missing_display()
    if reason is not None and QApplication.instance() is None:
        print(no_display_message(reason), file=sys.stderr)
        return NO_DISPLAY_STATUS
    unseen = invisible_platform()
    if unseen is not None and QApplication.instance() is None:  # it would run unseen until killed
        print(invisible_message(unseen), file=sys.stderr)
        return NO_DISPLAY_STATUS
    app = application(args)
    choose_control_markers()  # ⟨ESC⟩ instead of boxes when the font has no control pictures
    window = MainWindow()
    window.audit.review_file = Path(review_file) if review_file else None
    window.resize(*initial_size(app))
    window.show()
    paths = [a for a in args if not a.startswith("-")]
    if paths:
        open_argument(window, paths[0])
    elif SAMPLE_DB.is_file():
        window.open_database(SAMPLE_DB)
    status = int(app.exec())
    settle_clipboard()  # a copy made in Python must not be on the clipboard when the app goes
    return status


def open_argument(window: MainWindow, what: str) -> bool:
    """Show ``what`` from the command line in ``window``: a ClickHouse store's URL as File ›
    Connect to ClickHouse… shows it (:meth:`~ctxviewer.gui.connect_dialog.ConnectController.connect_url`),
    else a database file, read-only. ``False`` (said in a message box) when it cannot be opened."""
    from ctxviewer.pipeline.clickhouse.schemes import is_clickhouse_url

    if is_clickhouse_url(what):
        return window.connector.connect_url(what)
    return window.open_database(what)


if __name__ == "__main__":
    sys.exit(main())
