"""Layering contract: the core never imports Qt or the GUI; the CLI imports the GUI only inside
the commands that open a window; modules stay small."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "ctxviewer"
QT = ("PySide6", "pyqtgraph", "shiboken6")


def _imports(path: Path, *, top_level_only: bool) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            names.append("." * node.level + mod)
    return names


def core_modules() -> list[Path]:
    return [p for p in PKG.rglob("*.py") if "gui" not in p.relative_to(PKG).parts]


def test_core_never_imports_qt_or_gui() -> None:
    for path in core_modules():
        top_only = path.name == "cli.py"  # the CLI may import the GUI inside a command
        for name in _imports(path, top_level_only=top_only):
            assert not name.startswith(QT), f"{path.relative_to(PKG)} imports {name}"
            assert "gui" not in name.split("."), f"{path.relative_to(PKG)} imports {name}"


def test_modules_stay_under_400_lines() -> None:
    for path in PKG.rglob("*.py"):
        n = len(path.read_text(encoding="utf-8").splitlines())
        assert n <= 400, f"{path.relative_to(PKG)} has {n} lines"
