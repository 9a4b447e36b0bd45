"""Packaging: resources ship inside the wheel and load through importlib.resources; the PySide6
pin keeps CPython 3.11 off the 6.12.0 build that aborts long-running apps."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from ctxviewer.util import assets

ROOT = Path(__file__).resolve().parents[2]


def test_resources_load_via_importlib() -> None:
    assert "QTableView" in assets.read_text("app.qss")
    assert assets.read_bytes("icons/ctxviewer.svg").startswith(b"<svg")


def test_wheel_contains_resources(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("ctxviewer", "resources"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(src)],
        check=True, capture_output=True,
    )
    (wheel,) = out.glob("ctxviewer-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "ctxviewer/resources/app.qss" in names
    assert "ctxviewer/resources/icons/ctxviewer.svg" in names
    assert "ctxviewer/gui/main_window.py" in names
    entry = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith("entry_points.txt"))
    ).decode()
    assert "ctxviewer = ctxviewer.cli:main" in entry
    assert "ctxviewer-gui = ctxviewer.gui.app:main" in entry


def test_pyside6_pin_avoids_broken_pair() -> None:
    PySide6 = pytest.importorskip("PySide6")

    broken = sys.version_info[:2] == (3, 11) and PySide6.__version__ == "6.12.0"
    assert not broken, "PySide6 6.12.0 on CPython 3.11 aborts with none_dealloc"
    text = (ROOT / "pyproject.toml").read_text()
    assert "PySide6-Essentials>=6.11.3,<6.12; python_version < '3.12'" in text


def test_void_qt_method_called_100k_times_does_not_abort() -> None:
    """Regression: each void Qt call on 6.12.0/3.11 decremented None's refcount until abort."""
    pytest.importorskip("PySide6")
    code = textwrap.dedent(
        """
        from PySide6.QtWidgets import QApplication, QWidget
        app = QApplication([])
        w = QWidget()
        for i in range(100_000):
            w.setWindowTitle("t")
        print("done")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"}, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "done"
    assert "none_dealloc" not in proc.stderr
