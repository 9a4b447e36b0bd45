"""An older database opened in the window: never upgraded in place, an upgraded copy is offered.

(Named to run before ``test_screenshot_and_app``, whose ``app.main`` test runs and quits the
application's event loop; afterwards a worker thread's queued signals are not delivered.)"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

SCHEMA_1 = Path(__file__).resolve().parents[1] / "data" / "store" / "schema-1.db"


def question(w) -> QMessageBox:  # type: ignore[no-untyped-def]
    """The question the window shows (the one open message box)."""
    (box,) = [b for b in w.findChildren(QMessageBox) if b.isVisible()]
    return box


def test_old_database_offers_an_upgraded_copy_and_opens_it(qtbot, tmp_path: Path, windows, monkeypatch) -> None:
    old, new = tmp_path / "old.db", tmp_path / "old-upgraded.db"
    old.write_bytes(SCHEMA_1.read_bytes())
    w = windows.new(size=None, show=False)
    assert w.open_database(old) is False
    box = question(w)
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert box.text().startswith(f"{old} was written by an older ctxviewer (schema 1).")
    assert "Write an upgraded copy to a new file and open that?" in box.text()
    monkeypatch.setattr(w.upgrade_offer, "choose_target", lambda source: str(new))
    with qtbot.waitSignal(w.sig_database_opened, timeout=20_000) as opened:
        box.done(QMessageBox.StandardButton.Yes)
    assert opened.args == [str(new)]
    assert old.read_bytes() == SCHEMA_1.read_bytes()  # the original is never written
    assert w.store is not None and w.store.readonly and w.store.path == new
    assert w.trace_model.total == 2
    assert windows.shown(w) is not None and w.chart.state() == "\u2714 OK"
    w.close()


def test_declining_the_offer_writes_nothing(qtbot, tmp_path: Path, windows) -> None:
    old = tmp_path / "old.db"
    old.write_bytes(SCHEMA_1.read_bytes())
    w = windows.new(size=None, show=False)
    w.open_database(old)
    question(w).done(QMessageBox.StandardButton.No)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.db"]
    assert w.store is None
    w.close()


def test_schema_3_database_upgrades_with_span_status_and_agent(qtbot, tmp_path: Path, windows, monkeypatch) -> None:
    """Schema 5 (issue 13): the window's upgraded copy of a schema-3 database has the span status,
    agent and operation filled from each trace's stored attributes."""
    from ctxviewer.present.columns import TRACE_COLUMNS

    schema_3 = SCHEMA_1.with_name("schema-3.db")
    old, new = tmp_path / "three.db", tmp_path / "three-upgraded.db"
    old.write_bytes(schema_3.read_bytes())
    w = windows.new(size=None, show=False)
    assert w.open_database(old) is False
    box = question(w)
    assert box.text().startswith(f"{old} was written by an older ctxviewer (schema 3).")
    monkeypatch.setattr(w.upgrade_offer, "choose_target", lambda source: str(new))
    with qtbot.waitSignal(w.sig_database_opened, timeout=20_000):
        box.done(QMessageBox.StandardButton.Yes)
    windows.shown(w)
    assert old.read_bytes() == schema_3.read_bytes()
    keys = [c.key for c in TRACE_COLUMNS]
    m = w.trace_model
    assert m.total == 4
    cells = [(m.data(m.index(r, keys.index("span_status"))), m.data(m.index(r, keys.index("agent"))))
             for r in range(4)]
    assert cells == [("error", "chat"), ("never ended", "chat"), ("ok", "chat"), ("not recorded", "triage \u00b7 chat")]
    w.close()
