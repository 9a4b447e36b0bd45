"""Fixtures for the GUI tests: temporary trace databases, isolated QSettings, and main windows
opened as the app opens them (``windows``), waited on until they show the selected trace."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from factories import make_trace
from PySide6.QtCore import QSettings

from ctxviewer.model.trace import Endpoint, Status
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore

OFFSCREEN_NOISE = r"This plugin does not support propagateSizeHints\(\)"
"""Printed by Qt's offscreen platform whenever a dialog opens; not a problem of ours."""


@pytest.fixture(autouse=True, scope="session")
def _settled_clipboard() -> Any:
    """After the GUI tests, the clipboard's Python-made copy is swapped for Qt's own, as the app
    does after ``exec()`` (:func:`ctxviewer.gui.rendered_view.settle_clipboard`): else the
    interpreter's exit is a segmentation fault after the last test passed."""
    yield
    from ctxviewer.gui.rendered_view import settle_clipboard

    settle_clipboard()


@pytest.fixture(autouse=True, scope="session")
def _collect_on_the_gui_thread() -> Any:
    """The GUI tests collect garbage as the app does: never automatically (a collection in a worker
    thread can deadlock with Qt's connection mutex, :mod:`ctxviewer.gui.gc_guard`), only here on the
    test's own thread, after each test (:func:`_collect_after_each`)."""
    import gc

    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


@pytest.fixture(autouse=True)
def _collect_after_each(_collect_on_the_gui_thread: Any) -> Any:
    yield
    from ctxviewer.gui.gc_guard import collect_due

    collect_due()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/gui" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


T0 = datetime(2026, 1, 5, 8, 0, 0, tzinfo=timezone.utc)


def variants() -> list:
    """Four traces that differ in every trace-list column."""
    base = make_trace()
    return [
        replace(base, trace_id="alpha", created=T0),
        replace(base, trace_id="bravo", created=T0 + timedelta(minutes=1),
                endpoint=replace(base.endpoint, model="claude-sonnet-4", provider="anthropic")),
        replace(base, trace_id="charlie", created=T0 + timedelta(minutes=2),
                endpoint=Endpoint(provider="openai", model="gpt-4o-mini")),  # capacity not recorded
        replace(base, trace_id="delta", created=None,
                items=tuple(replace(i, status=Status.RETAINED, omission_reason=None,
                                    position=i.position or 99) for i in base.items)),
    ]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database with the four :func:`variants`."""
    path = tmp_path / "traces.db"
    with TraceStore.create(path) as st:
        st.add(with_facts(variants()))
    return path


@pytest.fixture
def big_db(tmp_path: Path) -> Path:
    """A database with 450 traces ``t-000`` .. ``t-449`` one minute apart."""
    path = tmp_path / "big.db"
    base = make_trace()
    with TraceStore.create(path) as st:
        st.add(with_facts(replace(base, trace_id=f"t-{i:03d}", created=T0 + timedelta(minutes=i)) for i in range(450)))
    return path


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    """QSettings in a temporary INI file, so tests never touch the user's recent files."""
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


SHOWN_MS = 30_000
"""How long a test waits for a selected trace to be shown (loaded and assessed off the GUI thread)."""


def is_shown(w: Any, trace_id: str | None = None) -> bool:
    """Whether the window shows ``trace_id`` (else any trace) in full, as the user sees it once a
    selection has settled: the trace in the panes with its assessment, no newer selection loading,
    its run read (the Run tab)."""
    t = w.trace
    return (t is not None and (trace_id is None or t.trace_id == trace_id) and not w.loader.pending
            and w.panel.trace is t and w.panel.assessment is not None and not w.panel.tabs.run.reading)


class Windows:
    """Main windows as the app builds them (every selection is loaded and assessed off the GUI
    thread), and waits for what they show. Use through the ``windows`` fixture."""

    def __init__(self, qtbot: Any, settings: QSettings) -> None:
        self.qtbot = qtbot
        self.settings = settings

    def new(self, settings: QSettings | None = None, *, size: tuple[int, int] | None = (1280, 800),
            show: bool = True) -> Any:
        """A new window (closed with the test), ``size`` pixels (``None``: Qt's default), shown."""
        from ctxviewer.gui.main_window import MainWindow

        w = MainWindow(settings=settings or self.settings)
        self.qtbot.addWidget(w)
        if size is not None:
            w.resize(*size)
        if show:
            w.show()
        return w

    def open(self, db: Path, settings: QSettings | None = None, *, size: tuple[int, int] | None = (1280, 800),
             show: bool = True, remember: bool = False) -> Any:
        """A new window on the database ``db``, once its first trace is shown."""
        w = self.new(settings, size=size, show=show)
        assert w.open_database(db, remember=remember)
        self.shown(w)
        return w

    def shown(self, w: Any, trace_id: str | None = None) -> Any:
        """Wait until ``w`` shows ``trace_id`` (else any trace) in full (:func:`is_shown`); returns it."""
        self.qtbot.waitUntil(lambda: is_shown(w, trace_id), timeout=SHOWN_MS)
        return w.trace

    def select(self, w: Any, trace_id: str) -> Any:
        """Select ``trace_id`` as the search dock or Reload do and wait until it is shown."""
        w.select_trace(trace_id)
        return self.shown(w, trace_id)

    def select_row(self, w: Any, row: int) -> Any:
        """Select trace-list row ``row`` as a click does and wait until its trace is shown."""
        w.select_row(row)
        return self.shown(w, w.trace_model.trace_id(row))

    @staticmethod
    def message(w: Any) -> str:
        """The text of the message box the window shows last (``""``: none is open)."""
        from PySide6.QtWidgets import QMessageBox

        boxes = [b for b in w.findChildren(QMessageBox) if b.isVisible()]
        return boxes[-1].text() if boxes else ""


@pytest.fixture
def windows(qtbot: Any, settings: QSettings) -> Windows:
    """Open main windows the way the app does and wait for the trace they show (:class:`Windows`)."""
    return Windows(qtbot, settings)


@pytest.fixture(autouse=True)
def _unsaved_notes_never_block(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A window closed with audit notes not saved would ask Save / Discard / Cancel in a modal box
    and wait for ever; here it is answered Discard (a test of the question patches
    ``audit_dock.ask_unsaved`` itself). Returns the counts it was asked with."""
    from ctxviewer.gui import audit_dock

    asked: list[int] = []
    monkeypatch.setattr(audit_dock, "ask_unsaved", lambda parent, count: asked.append(count) or "discard")
    return asked
