"""Issue 13, screenshot honesty: ``--size`` is in logical pixels and the message states the written
image's pixel size; at a device pixel ratio of 2 the image is 2560×1600 unless ``--scale 1``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def shoot(tmp_path: Path, *extra: str) -> tuple[str, tuple[int, int]]:
    pytest.importorskip("PySide6")
    from PySide6.QtGui import QImage

    out = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QT_SCALE_FACTOR": "2"}
    res = subprocess.run([sys.executable, "-m", "ctxviewer", "screenshot", str(SAMPLES), "budget-8k", "-o", str(out),
                          "--size", "1280x800", *extra], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    img = QImage(str(out))
    return res.stdout.strip(), (img.width(), img.height())


@pytest.mark.slow
def test_hidpi_screenshot_states_its_pixel_size(tmp_path: Path) -> None:
    message, pixels = shoot(tmp_path)
    assert pixels == (2560, 1600)
    assert message == f"wrote {tmp_path / 'shot.png'}: 2560×1600 pixels (window 1280×800 logical pixels at scale 2)"


@pytest.mark.slow
def test_scale_chooses_the_pixel_size(tmp_path: Path) -> None:
    message, pixels = shoot(tmp_path, "--scale", "1")
    assert pixels == (1280, 800)
    assert message.endswith(": 1280×800 pixels (window 1280×800 logical pixels at scale 1)")
