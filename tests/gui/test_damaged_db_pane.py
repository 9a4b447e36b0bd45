"""A damaged database shows its error in the window's pane (plain text naming the file and what is
wrong), never an endless "Loading …" behind the error dialog (issue 27 item 4)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from factories import make_trace
from PySide6.QtCore import Qt

from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore


def _pane(w: Any) -> str:
    label = w.chart.empty_label
    assert label.textFormat() == Qt.TextFormat.PlainText  # trace ids and paths are never markup
    return str(label.text()) if w.chart.is_empty() else ""


def test_a_file_of_random_bytes_named_db_names_itself_in_the_pane(windows: Any, tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    path.write_bytes(bytes(range(256)) * 32)  # 8 KiB that are no SQLite file
    w = windows.new()
    assert not w.open_database(path)
    assert _pane(w) == f"Cannot open trace database: {path}: is not an SQLite database (no 'SQLite format 3' header)"
    assert windows.message(w) == f"{path}: is not an SQLite database (no 'SQLite format 3' header)"


def test_a_truncated_database_names_its_size_in_the_pane(windows: Any, db: Path, tmp_path: Path) -> None:
    path = tmp_path / "cut.db"
    data = db.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    w = windows.new()
    assert not w.open_database(path)
    text = _pane(w)
    assert text.startswith(f"Cannot open trace database: {path}: is corrupt: truncated ({len(data) // 2} bytes;")
    assert "Loading" not in text


def test_a_trace_whose_items_cannot_be_read_says_so_in_the_pane_not_loading(windows: Any, qtbot: Any,
                                                                           tmp_path: Path) -> None:
    path = tmp_path / "broken-items.db"
    with TraceStore.create(path) as st:
        st.add(with_facts([make_trace()]))
    with sqlite3.connect(path) as conn:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'items'").fetchone()[0]
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(path.read_bytes())
    data[(root - 1) * page: root * page] = b"\xff" * page  # the items table's root page: garbage
    path.write_bytes(bytes(data))
    w = windows.new()
    assert w.open_database(path)  # the header and the trace list read fine
    trace_id = make_trace().trace_id
    qtbot.waitUntil(lambda: windows.message(w) != "", timeout=30_000)
    assert not w.loader.pending and w.trace is None
    text = _pane(w)
    assert text.startswith(f"Cannot load trace: {path}: trace {trace_id}: {path}: cannot read items of trace")
    assert text.endswith("database disk image is malformed")
    assert "Loading" not in text
    assert windows.message(w) == text.removeprefix("Cannot load trace: ")
