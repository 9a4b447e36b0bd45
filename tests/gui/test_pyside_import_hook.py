"""PySide6's after-import check, replaced by :mod:`ctxviewer.gui.pyside_import_hook`, gives the
same answer as PySide6's own for every module loaded so far that PySide6 can read the source of,
and the window's package installs it."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import ctxviewer.gui  # noqa: F401  (installs the check)
from ctxviewer.gui import pyside_import_hook as hook


def _installed():
    return getattr(sys.modules[hook.FEATURE_MODULE], hook.CHECK)


def test_the_window_package_installs_the_cheaper_check() -> None:
    check = _installed()
    assert getattr(check, "cheaper", False) is True
    assert hook.install() is True  # again: nothing changes
    assert _installed() is check


def test_same_answer_as_pyside_for_every_loaded_module_with_a_source() -> None:
    check = _installed()
    original = check.original
    import ctxviewer.gui.main_window  # noqa: F401  (a module that uses Qt)

    compared = uses = 0
    for module in list(sys.modules.values()):
        if not isinstance(module, types.ModuleType) or not str(getattr(module, "__file__", "")).endswith(".py"):
            continue
        mine, theirs = check(module), original(module)
        assert mine == theirs, module.__name__
        compared += 1
        uses += mine
    assert compared > 300
    assert check(sys.modules["ctxviewer.gui.main_window"]) is True
    assert check(sys.modules["ctxviewer.model.trace"]) is False
    assert uses >= 50  # the window's own modules


def test_a_module_without_a_readable_file_is_left_to_pyside(tmp_path: Path) -> None:
    asked: list[str] = []

    def fallback(module: types.ModuleType) -> bool:
        asked.append(module.__name__)
        return True

    gone = types.ModuleType("gone")
    gone.__file__ = str(tmp_path / "gone.py")  # never written
    compiled = types.ModuleType("compiled")
    compiled.__file__ = str(tmp_path / "compiled.so")
    plain = tmp_path / "plain.py"
    plain.write_text("import json  # no Qt here\n", encoding="utf-8")
    mod = types.ModuleType("plain")
    mod.__file__ = str(plain)
    assert hook.uses_pyside(gone, fallback) is True
    assert hook.uses_pyside(compiled, fallback) is True
    assert hook.uses_pyside(mod, fallback) is False
    assert asked == ["gone", "compiled"]
