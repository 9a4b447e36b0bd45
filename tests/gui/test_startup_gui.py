"""Start-up of the window (issue 11): opening a database and showing its first trace needs neither
sqlite-utils nor tiktoken, and the diff window's modules wait until a diff is opened. (The budget
chart on the first screen still imports pyqtgraph, and with it numpy, before the first paint.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from ctxviewer.gui.main_window import MainWindow
app = QApplication([])
w = MainWindow(QSettings(sys.argv[1], QSettings.Format.IniFormat))
w.resize(1280, 800)
w.show()
assert w.open_database(sys.argv[2], remember=False)
heavy = ("sqlite_utils", "tiktoken", "ctxviewer.gui.diff_view", "ctxviewer.gui.diff_chart")
before = {m: m in sys.modules for m in heavy}
state = w.chart.state()
for _ in range(20):
    app.processEvents()
after_paint = "ctxviewer.gui.diff_view" in sys.modules
line = w.chart.capacity_line
print("@@" + json.dumps({"before": before, "state": state, "after_paint": after_paint, "line": line,
                         "trace": w.trace.trace_id, "rows": w.trace_model.rowCount()}))
"""


def test_first_screen_without_sqlite_utils_tiktoken_or_the_diff_window(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "s.ini"), str(ROOT / "sample_traces" / "samples.db")],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(next(x for x in out.stdout.splitlines() if x.startswith("@@"))[2:])
    assert got["before"] == {"sqlite_utils": False, "tiktoken": False, "ctxviewer.gui.diff_view": False,
                             "ctxviewer.gui.diff_chart": False}
    assert got["rows"] == 9 and got["trace"]  # the list and the first trace are there
    assert got["state"].endswith(("OK", "WARNING", "FAILURE"))  # the chart's words at once
    assert got["after_paint"] is False  # no diff opened, no diff window imported
    assert isinstance(got["line"], (int, float))  # the first sample trace records C: its line is drawn
