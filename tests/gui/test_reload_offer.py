"""Issue 12: the window reads while an import writes; viewing changes nothing; the change is offered
for reload (issue 13's File > Reload and its notice) and the reload shows the new trace."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from factories import make_trace

from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore


def test_a_change_on_disk_is_offered_for_reload_and_viewing_changes_nothing(qtbot, db: Path, windows) -> None:
    before = (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns)
    w = windows.open(db, show=False, remember=True)
    n = w.trace_model.rowCount()
    keep = windows.select_row(w, 1).trace_id
    assert not w.reloader.changed()
    assert (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns) == before  # viewing wrote nothing
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name)) == [db.name]  # no sidecar
    with TraceStore.create(db) as store:  # another import writes while the window is open
        store.add(with_facts([replace(make_trace(), trace_id="zz-new")]))
    assert w.reloader.changed()
    w.reloader.show_notice()
    assert not w.reloader.bar.isHidden()
    assert w.reloader.reload()
    assert w.trace_model.rowCount() == n + 1
    assert windows.shown(w, keep).trace_id == keep  # the same trace again, read from the new file
