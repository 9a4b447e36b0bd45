"""Layering contract: the core never imports Qt or the GUI; the CLI imports the GUI only inside
the commands that open a window; modules stay small.

The same contracts are machine-checked by import-linter and ruff (``bash .ci/lint``); this AST test
keeps them in every plain pytest run. Sizes follow the house rule: ~120 lines typical, over 800 =
split (the test fails), over 400 = look again: such a module is split by concept or listed in
:data:`LONG_MODULES` with the reason it stays whole, a list a reviewer reads (the test fails for a
module over 400 lines that is not listed, and for a listed one that is no longer over 400).
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "ctxviewer"
QT = ("PySide6", "pyqtgraph", "shiboken6")
LOOK_AGAIN = 400
"""Lines above which a module is listed in the size report."""
SPLIT = 800
"""Lines above which a module must be split (the test fails)."""

LONG_MODULES: dict[str, str] = {
    "store/migrations.py": "the schema's released steps in application order, never edited once released "
                           "(each step is a few lines; splitting them would split one ordered list)",
}
"""Every module over :data:`LOOK_AGAIN` lines (path relative to the package), with the one-line reason
it stays whole. Add a module here only with its reason; remove it when it is split."""


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
    _look, split = size_report(sizes)
    assert not split, f"modules over {SPLIT} lines must be split: " + "; ".join(split)


def long_module_problems(sizes: list[tuple[str, int]], listed: dict[str, str]) -> list[str]:
    """What is wrong with ``listed`` (path -> reason) against ``sizes``: a module over
    :data:`LOOK_AGAIN` lines that is not listed, a listed one that is not (or no longer exists), and
    a reason that is not one line of text. ``[]`` when the list is true."""
    lines = dict(sizes)
    problems = [
        f"{path}: {n} lines (over {LOOK_AGAIN}): split it by concept, or add it to LONG_MODULES in "
        "tests/core/test_architecture.py with a one-line reason why it stays whole"
        for path, n in sizes if n > LOOK_AGAIN and path not in listed
    ]
    for path, reason in listed.items():
        if path not in lines:
            problems.append(f"{path}: listed in LONG_MODULES but no such module; remove it from the list")
        elif lines[path] <= LOOK_AGAIN:
            problems.append(f"{path}: {lines[path]} lines, no longer over {LOOK_AGAIN}; remove it from LONG_MODULES")
        if not reason.strip() or "\n" in reason:
            problems.append(f"{path}: its reason in LONG_MODULES must be one line of text")
    return problems


def test_long_module_problems_names_the_unlisted_the_stale_and_the_reasonless() -> None:
    sizes = [("a.py", 700), ("b.py", 401), ("c.py", 400), ("d.py", 120)]
    assert long_module_problems(sizes, {"a.py": "one grammar", "b.py": "one widget"}) == []
    problems = long_module_problems(sizes, {"a.py": "one grammar", "c.py": "was long", "gone.py": "split", "b.py": " "})
    assert problems == [
        "c.py: 400 lines, no longer over 400; remove it from LONG_MODULES",
        "gone.py: listed in LONG_MODULES but no such module; remove it from the list",
        "b.py: its reason in LONG_MODULES must be one line of text",
    ]
    (unlisted,) = long_module_problems(sizes, {"b.py": "one widget"})
    assert unlisted.startswith("a.py: 700 lines (over 400): split it by concept, or add it to LONG_MODULES")


def test_every_module_over_400_lines_is_listed_with_its_reason() -> None:
    problems = long_module_problems(module_sizes(), LONG_MODULES)
    assert not problems, "modules over 400 lines (LONG_MODULES):\n" + "\n".join(problems)


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
    assert homes["ToolVerdict"] == ["model/vocabulary.py"] and "Verdict" not in homes
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
