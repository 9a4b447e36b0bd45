"""Issue 12: the window reads while an import writes, and offers to reload when the file changes."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from factories import make_trace
from PySide6.QtCore import QSettings

from ctxviewer.gui.main_window import MainWindow
from ctxviewer.gui.reload_offer import CHANGED
from ctxviewer.store import TraceStore


def test_a_change_on_disk_is_offered_for_reload_and_viewing_changes_nothing(qtbot, db: Path, settings: QSettings) -> None:
    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    before = (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns)
    assert w.open_database(db)
    n = w.trace_model.rowCount()
    w.select_row(1)
    keep = w.trace.trace_id
    w.reload_offer.check_now()
    assert not w.reload_offer.offered
    assert (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns) == before  # viewing wrote nothing
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name)) == [db.name]
    with TraceStore.create(db) as store:  # another import writes while the window is open
        store.add([replace(make_trace(), trace_id="zz-new")])
    w.reload_offer.check_now()
    assert w.reload_offer.offered and w.reload_offer.label.text() == CHANGED
    w.reload_offer.reload()
    qtbot.waitUntil(lambda: w.trace is not None and w.trace.trace_id == keep)
    assert w.trace_model.rowCount() == n + 1 and not w.reload_offer.offered
