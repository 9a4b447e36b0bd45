"""Docs that cannot drift: every package has a map, every path and module a docstring or the
README names exists, no docstring points outside the repository or to an issue tracker the
repository does not contain, and the README's Layout section is the packages' own first lines.

Read as text (AST and regular expressions), so it runs without Qt and imports nothing.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "ctxviewer"

PATH_RE = re.compile(r"(?<![\w./-])((?:ctxviewer|docs|tests|benchmarks|sample_traces|resources|\.ci)/[\w./-]*[\w/])")
"""A repository path as docs write it: ``ctxviewer/store/fts.py``, ``docs/native-format.md``."""
DOTTED_RE = re.compile(r"(?<![\w.])(ctxviewer(?:\.\w+)+)")
"""A dotted name in the package: ``ctxviewer.store.TraceStore.add``."""
ISSUE_RE = re.compile(r"\b[Ii]ssues? #?\d+|\bnew-?user[ -]?s\d+|\bnewuser\b")
"""A reference to the issue tracker (it is not part of the repository; history is in commit messages)."""
OUTSIDE_RE = re.compile(r"FORMATS\.md|PROVENANCE\.md|\.\./shared|/work/")
"""Files outside the repository (the shared corpus and its notes)."""
NOT_PATHS = {"ctxviewer/resources", "ctxviewer/findingKey/v1"}  # the data folder; a SARIF fingerprint key


def packages() -> list[Path]:
    """Every package folder of ``ctxviewer`` (those holding ``__init__.py``), top first."""
    return sorted((p.parent for p in PKG.rglob("__init__.py")), key=lambda p: (len(p.parts), p))


def modules() -> list[Path]:
    return sorted(PKG.rglob("*.py"))


@cache
def docstrings(path: Path) -> tuple[str, ...]:
    """The module's, classes' and functions' docstrings, and attribute docstrings (a string
    statement after an assignment)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[str] = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for stmt in body:
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                    out.append(stmt.value.value)
    return tuple(out)


def doc_texts() -> list[tuple[str, str]]:
    """``(where, text)`` for every docstring of the package and the README and docs pages."""
    texts = [(str(p.relative_to(ROOT)), d) for p in modules() for d in docstrings(p)]
    texts.append(("README.md", (ROOT / "README.md").read_text(encoding="utf-8")))
    texts += [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in sorted((ROOT / "docs").glob("*.md"))]
    return texts


@cache
def defined(path: Path) -> frozenset[str]:
    """Names a module defines or imports at module level, and ``Class.member`` for its classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()

    def add_targets(stmt: ast.stmt, prefix: str = "") -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(prefix + stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names.add(prefix + n.id)
                    elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
                        names.add(prefix + n.attr)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for a in stmt.names:
                names.add(prefix + (a.asname or a.name.split(".")[0]))
        elif isinstance(stmt, (ast.If, ast.Try)):
            for sub in (*stmt.body, *getattr(stmt, "orelse", ()), *getattr(stmt, "finalbody", ())):
                add_targets(sub, prefix)

    for stmt in tree.body:
        add_targets(stmt)
        if isinstance(stmt, ast.ClassDef):
            for sub in stmt.body:
                add_targets(sub, stmt.name + ".")
                if isinstance(sub, ast.FunctionDef) and sub.name == "__init__":
                    for inner in ast.walk(sub):
                        if isinstance(inner, (ast.Assign, ast.AnnAssign)):
                            add_targets(inner, stmt.name + ".")
    return frozenset(names)


@cache
def imported_from(path: Path) -> dict[str, str]:
    """Module-level ``from X import name`` of a module: name -> the dotted module X (absolute)."""
    out: dict[str, str] = {}
    for stmt in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
            for a in stmt.names:
                out[a.asname or a.name] = stmt.module
    return out


def module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    module = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    return module if module.is_file() else None


def resolves(dotted: str, depth: int = 0) -> bool:
    """Whether ``dotted`` names a module of the package, or a name one defines or hands on
    (``Class.member`` too; a package's name is looked for in its modules as well)."""
    parts = dotted.rstrip(".").split(".")
    for n in range(len(parts), 0, -1):
        module = module_file(parts[:n])
        if module is None:
            continue
        rest = parts[n:]
        if not rest:
            return True
        names = defined(module)
        if rest[0] in names and (len(rest) == 1 or ".".join(rest[:2]) in names):
            return True
        if len(rest) == 2 and rest[0] in names and _member_in_package(module.parent, rest[1]):
            return True  # a method of a class built from mixins in the same package
        source = imported_from(module).get(rest[0])
        if source is not None and source.startswith("ctxviewer") and depth < 4:
            return resolves(".".join([source, *rest]), depth + 1)
        if module.name == "__init__.py" and depth < 4:  # a name the package hands on lazily
            return any(resolves(".".join([*parts[:n], sub.stem, *rest]), depth + 1)
                       for sub in module.parent.glob("*.py") if sub.name != "__init__.py")
        return False
    return False


@cache
def _member_in_package(folder: Path, member: str) -> bool:
    """Whether some class of a module in ``folder`` defines ``member``."""
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and b.name == member for b in node.body):
                return True
    return False


@cache
def runtime_keys() -> frozenset[str]:
    """``ctxviewer.*`` strings the code uses as values (trace attribute keys such as
    ``ctxviewer.completeness``), which docstrings may name too."""
    keys: set[str] = set()
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value not in docstrings(path):
                keys.update(m.group(1) for m in DOTTED_RE.finditer(node.value))
    return frozenset(keys)


def test_every_package_has_a_map() -> None:
    """Each package's docstring says what lives there (naming every module of it), what it may
    import, and where something new goes."""
    problems = []
    for pkg in packages():
        init = pkg / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        rel = pkg.relative_to(ROOT).as_posix()
        if pkg.name == "resources":
            continue  # data, not code
        if not re.search(r"\bmay import\b", doc, re.I):
            problems.append(f"{rel}: says nothing of what it may import ('May import: ...')")
        if not re.search(r"\ba new\b|\bgoes (here|into|to)\b", doc, re.I):
            problems.append(f"{rel}: says nothing of where a new part goes ('A new ... goes here')")
        for child in sorted(pkg.iterdir()):
            name = child.stem if child.suffix == ".py" else child.name
            if name.startswith("__") or not (child.suffix == ".py" or (child / "__init__.py").is_file()):
                continue
            if not re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", doc):
                problems.append(f"{rel}: the map does not name {name}")
    assert problems == []


def test_every_path_a_doc_names_exists() -> None:
    missing = []
    for where, text in doc_texts():
        for m in PATH_RE.finditer(text):
            path = m.group(1).rstrip("/.")
            if "*" in path or "<" in path or path in NOT_PATHS:
                continue
            if not (ROOT / path).exists():
                missing.append(f"{where}: {path}")
    assert missing == []


@pytest.mark.slow
def test_every_module_and_name_a_doc_names_exists() -> None:
    missing = []
    for where, text in doc_texts():
        for m in DOTTED_RE.finditer(text):
            dotted = m.group(1)
            if dotted in ("ctxviewer.importers", "ctxviewer.checks", "ctxviewer.scanner_rules"):
                continue  # entry-point groups (also the importers package)
            if dotted.startswith(("ctxviewer.trace", "ctxviewer.toml", "ctxviewer.resources")):
                continue  # the native format's name, the config file, the data package
            if not resolves(dotted) and dotted not in runtime_keys():
                missing.append(f"{where}: {dotted}")
    assert missing == []


def test_no_docstring_points_outside_the_repository_or_to_issue_numbers() -> None:
    found = []
    for path in modules():
        for d in docstrings(path):
            for rx in (ISSUE_RE, OUTSIDE_RE):
                found += [f"{path.relative_to(ROOT)}: {m.group(0)!r}" for m in rx.finditer(d)]
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "#" in line:
                comment = line[line.index("#"):]
                found += [f"{path.relative_to(ROOT)}:{n}: {m.group(0)!r}" for m in ISSUE_RE.finditer(comment)]
    assert found == []


def layer_order() -> list[str]:
    """Top-level packages in the order of the layers contract in ``pyproject.toml``, top floor first."""
    import tomllib

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c["layers"] for c in conf["contracts"] if c["type"] == "layers" and "ctxviewer.util" in c["layers"])
    return [name.strip().removeprefix("ctxviewer.") for layer in layers for name in layer.split("|")
            if name.strip() != "ctxviewer.__main__"]


def layout_section() -> str:
    """The README's Layout list: every top-level package, top floor first (the layers contract's
    order), with the first paragraph of its docstring."""
    lines = []
    for name in layer_order():
        doc = ast.get_docstring(ast.parse((PKG / name / "__init__.py").read_text(encoding="utf-8"))) or ""
        first = " ".join(doc.split("\n\n", 1)[0].split()).replace("``", "`")
        lines.append(f"- `ctxviewer/{name}/` — {first}")
    return "\n".join(lines)


def test_the_layers_contract_names_every_package() -> None:
    """Every top-level package is on a floor of the layers contract (a new one must be placed)."""
    on_floors = set(layer_order())
    top = {p.name for p in packages() if p.parent == PKG and p.name != "resources"}
    assert top == on_floors


def test_the_readme_layout_is_the_packages_own_words() -> None:
    """README › Layout lists every top-level package with the first paragraph of its docstring
    (regenerate the list from this test's failure message)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    want = layout_section()
    assert want in section, "README › Layout should hold:\n" + want
