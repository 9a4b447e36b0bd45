"""Start-up of the window (issue 11): opening a database and showing its first trace needs neither
sqlite-utils nor tiktoken nor the import pipeline (issue 25), nor Replay's endpoints or the ClickHouse
target, and the diff window's modules wait until a diff is opened; pyqtgraph
(with numpy) and pygments load only after the first screen has been painted, off the GUI thread.
The probes wait for the first trace as the app shows it: loaded and assessed off the GUI thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

WAIT_SHOWN = """
def wait_shown(w):  # the first trace, loaded and assessed off the GUI thread, as the app shows it
    from PySide6.QtCore import QEventLoop, QTimer
    loop = QEventLoop()
    w.sig_trace_shown.connect(lambda _tid: loop.quit())
    QTimer.singleShot(60_000, loop, loop.quit)
    loop.exec()
"""

PROBE = WAIT_SHOWN + """
import json, sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from ctxviewer.gui.main_window import MainWindow
app = QApplication([])
w = MainWindow(QSettings(sys.argv[1], QSettings.Format.IniFormat))
w.resize(1280, 800)
w.show()
assert w.open_database(sys.argv[2], remember=False)
wait_shown(w)
heavy = ("sqlite_utils", "tiktoken", "ctxviewer.gui.diff_view", "ctxviewer.gui.diff_chart",
         "ctxviewer.pipeline.importing", "ctxviewer.pipeline.backfill", "ctxviewer.replay.endpoints",
         "ctxviewer.pipeline.clickhouse.target")
shown = {m: m in sys.modules for m in heavy}
state = w.chart.state()
for _ in range(20):
    app.processEvents()
after_paint = "ctxviewer.gui.diff_view" in sys.modules
line = w.chart.capacity_line
print("@@" + json.dumps({"shown": shown, "state": state, "after_paint": after_paint, "line": line,
                         "trace": w.trace.trace_id, "rows": w.trace_model.rowCount()}))
"""


@pytest.mark.slow
def test_first_screen_without_sqlite_utils_tiktoken_or_the_diff_window(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "s.ini"), str(ROOT / "sample_traces" / "samples.db")],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(next(x for x in out.stdout.splitlines() if x.startswith("@@"))[2:])
    assert got["shown"] == {"sqlite_utils": False, "tiktoken": False, "ctxviewer.gui.diff_view": False,
                            "ctxviewer.gui.diff_chart": False,  # the importers: when an import or upgrade runs
                            "ctxviewer.pipeline.importing": False, "ctxviewer.pipeline.backfill": False,
                            # Replay's endpoints when Replay is chosen; the ClickHouse target when connecting
                            "ctxviewer.replay.endpoints": False, "ctxviewer.pipeline.clickhouse.target": False}
    assert got["rows"] == 9 and got["trace"]  # the list and the first trace are there
    assert got["state"].endswith(("OK", "WARNING", "FAILURE"))  # the chart's words at once
    assert got["after_paint"] is False  # no diff opened, no diff window imported
    assert isinstance(got["line"], (int, float))  # the first sample trace records C: its line is drawn


FIRST_PAINT = WAIT_SHOWN + """
import json, sys, threading, time
class Who:  # records the thread that imports pyqtgraph, numpy and pygments
    seen = {}
    def find_spec(self, name, path=None, target=None):
        if name in ("pyqtgraph", "numpy", "pygments"):
            self.seen.setdefault(name, threading.current_thread() is threading.main_thread())
        return None
sys.meta_path.insert(0, Who())
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from ctxviewer.gui.main_window import MainWindow
app = QApplication([])
w = MainWindow(QSettings(sys.argv[1], QSettings.Format.IniFormat))
w.resize(1280, 800)
w.show()
assert w.open_database(sys.argv[2], remember=False)
w.repaint()  # the first screen: the list with its rows, the chart saying which trace it loads
heavy = ("pyqtgraph", "numpy", "pygments")
at_paint = {m: m in sys.modules for m in heavy}
screen = {"rows": w.trace_model.rowCount(), "chart": w.chart.empty_label.text(), "plot": w.chart.plot_built}
wait_shown(w)
first = {"trace": w.trace.trace_id, "state": w.chart.state(), "header": len(w.panel.assessment.header)}
w.panel.set_rendered(False)  # the raw view is the one coloured by pygments
w.panel.content.set_content("# Refunds\\n\\nUse `refund()`.")  # needs a lexer
w.panel.content.repaint()
end = time.monotonic() + 60
while time.monotonic() < end and not (w.chart.plot_built and w.panel.content._pending is None):
    app.processEvents()
    time.sleep(0.005)
print("@@" + json.dumps({"at_paint": at_paint, "screen": screen, "first": first, "on_gui_thread": Who.seen,
                         "after": {m: m in sys.modules for m in heavy}, "plot": w.chart.plot_built,
                         "line": w.chart.capacity_line, "spans": [t for _s, _n, t in w.panel.content._spans]}))
w.close()
app.processEvents()
"""


@pytest.mark.slow
def test_pyqtgraph_numpy_and_pygments_load_after_the_first_paint(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", FIRST_PAINT, str(tmp_path / "s.ini"),
                          str(ROOT / "sample_traces" / "samples.db")],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(next(x for x in out.stdout.splitlines() if x.startswith("@@"))[2:])
    # painted without them: the list's 9 rows, the chart saying which trace (send order) it loads
    assert got["at_paint"] == {"pyqtgraph": False, "numpy": False, "pygments": False}
    assert got["screen"] == {"rows": 9, "chart": "Loading history-16k…", "plot": False}
    # then the first trace with its header and verdict
    first = got["first"]
    assert first["trace"] == "history-16k"
    assert first["state"].endswith(("OK", "WARNING", "FAILURE")) and first["header"] >= 10  # header rows, verdict
    # after the first paint: the plot is built and drawn, the text coloured
    assert got["after"] == {"pyqtgraph": True, "numpy": True, "pygments": True}
    assert got["plot"] is True and got["line"] == 16000.0
    # imported by a background thread, not the GUI thread (issue 11: the window never stops)
    assert got["on_gui_thread"] == {"pyqtgraph": False, "numpy": False, "pygments": False}
    assert got["spans"] == ["Generic.Heading", "Literal.String.Backtick"]


def test_the_window_module_loads_no_markdown_parser_or_price_library() -> None:
    code = ("import sys, json; import ctxviewer.gui.main_window; "
            "print(json.dumps([m for m in ('markdown_it', 'genai_prices', 'pydantic', 'pyqtgraph') if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []  # each loads when first used, after the first paint
