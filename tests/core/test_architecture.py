"""Layering contract: the core never imports Qt or the GUI; the CLI imports the GUI only inside
the commands that open a window; modules stay small.

The same contracts are machine-checked by import-linter and ruff (``bash .ci/lint``); this AST test
keeps them in every plain pytest run. Sizes follow the house rule: ~120 lines typical, over 400 =
look again (reported as a warning in the pytest summary), over 800 = split (the test fails).
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "ctxviewer"
QT = ("PySide6", "pyqtgraph", "shiboken6")
LOOK_AGAIN = 400
"""Lines above which a module is listed in the size report."""
SPLIT = 800
"""Lines above which a module must be split (the test fails)."""


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
        top_only = path.relative_to(PKG).as_posix() == "cli/__init__.py"  # the CLI may import the GUI inside a command
        for name in _imports(path, top_level_only=top_only):
            assert not name.startswith(QT), f"{path.relative_to(PKG)} imports {name}"
            assert "gui" not in name.split("."), f"{path.relative_to(PKG)} imports {name}"


def module_sizes() -> list[tuple[str, int]]:
    """``(path relative to the package, line count)`` for every module, largest first."""
    sizes = [
        (path.relative_to(PKG).as_posix(), len(path.read_text(encoding="utf-8").splitlines()))
        for path in PKG.rglob("*.py")
    ]
    return sorted(sizes, key=lambda s: (-s[1], s[0]))


def size_report(sizes: list[tuple[str, int]]) -> tuple[list[str], list[str]]:
    """``(look again, split)``: lines ``"path: N lines"`` for modules over 400 and over 800 lines."""
    look = [f"{p}: {n} lines" for p, n in sizes if LOOK_AGAIN < n <= SPLIT]
    split = [f"{p}: {n} lines" for p, n in sizes if n > SPLIT]
    return look, split


def test_size_report_sorts_modules_into_look_again_and_split() -> None:
    look, split = size_report([("a.py", 801), ("b.py", 800), ("c.py", 401), ("d.py", 400)])
    assert look == ["b.py: 800 lines", "c.py: 401 lines"]
    assert split == ["a.py: 801 lines"]


def test_no_module_over_800_lines() -> None:
    sizes = module_sizes()
    assert len(sizes) > 20 and all(n > 0 for _, n in sizes[:1])
    look, split = size_report(sizes)
    if look:
        warnings.warn(f"modules over {LOOK_AGAIN} lines (look again): " + "; ".join(look), stacklevel=1)
    assert not split, f"modules over {SPLIT} lines must be split: " + "; ".join(split)


def class_homes() -> dict[str, list[str]]:
    """Class name -> the modules (paths relative to the package) that define a class of that name."""
    homes: dict[str, list[str]] = {}
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                homes.setdefault(node.name, []).append(path.relative_to(PKG).as_posix())
    return homes


def test_no_two_classes_share_a_name() -> None:
    """One name, one concept (issue 5 item 8): e.g. ``importers.spans.Span`` vs the highlighter's
    ``StyleSpan``; ``model.ToolVerdict`` vs ``review.ReviewVerdict``."""
    homes = class_homes()
    assert homes["ToolVerdict"] == ["model/trace.py"] and "Verdict" not in homes
    clashes = {name: where for name, where in homes.items() if len(where) > 1}
    assert clashes == {}


def test_ci_runs_ruff_strict_mypy_the_contracts_and_a_no_qt_step() -> None:
    """Issue 5 item 7: the rules are machine-checked in CI, not only by this AST test."""
    import tomllib

    root = PKG.parent
    ci = (root / ".ci" / "run").read_text(encoding="utf-8")
    lint = (root / ".ci" / "lint").read_text(encoding="utf-8")
    assert "VENV=.venv-lint bash .ci/lint" in ci
    for step in ('"$bin/ruff" check', '"$bin/mypy"', '"$bin/lint-imports"'):
        assert step in lint, step
    conf = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert conf["mypy"]["strict"] is True and conf["mypy"]["files"] == ["ctxviewer"]
    banned = conf["ruff"]["lint"]["flake8-tidy-imports"]["banned-api"]
    assert {"PySide6", "pyqtgraph", "shiboken6"} <= set(banned)
    assert {"TID251", "TID253"} <= set(conf["ruff"]["lint"]["select"])
    contracts = {c["name"]: c for c in conf["importlinter"]["contracts"]}
    qt = contracts["Only ctxviewer.gui imports Qt (PySide6, pyqtgraph)"]
    assert (qt["protected_modules"], qt["allowed_importers"]) == (["PySide6", "pyqtgraph"], ["ctxviewer.gui"])
    assert any(c["type"] == "layers" for c in contracts.values())
    # the core tests run once more with Qt uninstalled
    assert "--ignore=tests/gui" in ci and "the no-Qt venv has Qt installed" in ci
