"""Start-up without a display (issue 27 item 2): one line saying what to do, status 2, no abort."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxviewer.gui import display_check
from ctxviewer.gui.display_check import missing_display

ROOT = Path(__file__).resolve().parents[2]


def test_no_display_variables_is_said() -> None:
    assert missing_display({}, "linux") == "DISPLAY and WAYLAND_DISPLAY are not set"


def test_a_local_display_without_its_socket_is_said(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(display_check, "X11_SOCKET_DIR", tmp_path)
    monkeypatch.setattr(display_check, "xcb_plugin_error", lambda: None)
    assert missing_display({"DISPLAY": ":7"}, "linux") == "no X server is listening on DISPLAY=:7"
    (tmp_path / "X7").touch()
    assert missing_display({"DISPLAY": ":7.0"}, "linux") is None


@pytest.mark.parametrize("env, platform", [
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux"),  # the user chose the platform
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux"),
    ({"DISPLAY": "remote.example:0"}, "linux"),  # a remote X server: taken as given
    ({}, "darwin"),
    ({}, "win32"),
])
def test_a_display_or_a_chosen_platform_is_not_questioned(env: dict[str, str], platform: str, monkeypatch) -> None:
    monkeypatch.setattr(display_check, "xcb_plugin_error", lambda: None)  # whatever this machine has
    assert missing_display(env, platform) is None


def test_a_display_whose_xcb_plugin_cannot_load_names_the_missing_library(monkeypatch) -> None:
    """Qt says only "xcb-cursor0 is needed" (and aborts) even when another library is missing."""
    def cdll(path: str):  # type: ignore[no-untyped-def]
        assert path.endswith("platforms/libqxcb.so")
        raise OSError(f"{path}: libxcb-icccm.so.4: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(display_check.ctypes, "CDLL", cdll)
    assert display_check.xcb_plugin_error() == "libxcb-icccm.so.4: cannot open shared object file: No such file or directory"
    reason = missing_display({"DISPLAY": "remote.example:0"}, "linux")
    assert reason == ("DISPLAY=remote.example:0 is set, but Qt's X11 (xcb) platform plugin cannot load: "
                      "libxcb-icccm.so.4: cannot open shared object file: No such file or directory")
    line = display_check.no_display_message(reason)
    assert "install the missing library" in line and "QT_QPA_PLATFORM=offscreen" in line and "\n" not in line
    monkeypatch.setattr(display_check.ctypes, "CDLL", lambda path: None)  # it loads: nothing to say
    assert missing_display({"DISPLAY": "remote.example:0"}, "linux") is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="display servers are a Linux matter")
def test_ctxviewer_without_a_display_exits_2_with_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    exe = Path(sys.executable).with_name("ctxviewer")
    proc = subprocess.run([str(exe), str(ROOT / "sample_traces" / "samples.db")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("ctxviewer: cannot open the window: no display "
                               "(DISPLAY and WAYLAND_DISPLAY are not set)")
    assert "QT_QPA_PLATFORM=offscreen" in lines[0] and "ctxviewer screenshot" in lines[0]
    assert proc.stdout == ""


def test_an_invisible_platform_is_said_instead_of_an_unseen_window() -> None:
    """QT_QPA_PLATFORM=offscreen ctxviewer DB ran a window nobody sees until killed (a new user's
    finding): it says so in one line and exits 2; tests and screenshots still run offscreen."""
    assert display_check.invisible_platform({"QT_QPA_PLATFORM": "offscreen"}) == "offscreen"
    assert display_check.invisible_platform({"QT_QPA_PLATFORM": "minimal:enable_fonts"}) == "minimal"
    assert display_check.invisible_platform({"QT_QPA_PLATFORM": "xcb"}) is None
    assert display_check.invisible_platform({}) is None
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    exe = Path(sys.executable).with_name("ctxviewer")
    proc = subprocess.run([str(exe), str(ROOT / "sample_traces" / "samples.db")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [display_check.invisible_message("offscreen")]
    assert proc.stderr.startswith("ctxviewer: not opening the window: QT_QPA_PLATFORM=offscreen draws it nowhere.")
