"""PySide6's after-import check, made cheaper with the same answers.

Once ``PySide6.QtCore`` is imported, PySide6 runs a check after every later import (its
``__feature__`` support, PYSIDE-2029): whether the new module's source holds the text "PySide6",
so that ``from __feature__ import snake_case`` switches only the modules that use Qt. It reads the
source with ``inspect.getsource``, which decodes the whole file through ``tokenize`` and keeps its
lines in ``linecache``: for the window's first trace that is every module of the assessment,
the scanner, genai-prices (whose price data is a 1.6 MB source file) and pyqtgraph, on the GUI
thread and in the loaders' threads. Measured on 100,000 traces (``benchmarks/bench_million.py``'s
first screen, five runs each): first screen 392 -> 354 ms, first trace shown 1,526 -> 1,345 ms
(medians).

:func:`install` replaces that check with one that gives the same answer for a module loaded from
a ``.py`` file -- the bytes of the file searched for ``b"PySide6"`` (a UTF-8 or ASCII source holds
the text exactly when its bytes do) -- and leaves every other module (built-in, compiled, zipped,
sourceless) to PySide6's own check. ctxviewer uses no ``__feature__``; the answers only keep
PySide6's bookkeeping as it was. Nothing is changed when PySide6's module or function is not
where this version (6.11) keeps it.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Callable

FEATURE_MODULE = "PySide6.support.feature"
"""Where PySide6 keeps its ``__feature__`` support (6.11), loaded with ``PySide6.QtCore``."""
CHECK = "_mod_uses_pyside"
"""The name of its after-import check in :data:`FEATURE_MODULE` (module -> bool)."""


def uses_pyside(module: ModuleType, fallback: Callable[[ModuleType], bool]) -> bool:
    """Whether ``module``'s source holds ``"PySide6"``: its ``.py`` file's bytes searched, or
    ``fallback(module)`` (PySide6's own check) for a module without a readable ``.py`` file."""
    path = getattr(module, "__file__", None)
    if isinstance(path, str) and path.endswith(".py"):
        try:
            with open(path, "rb") as fh:
                return b"PySide6" in fh.read()
        except OSError:
            pass
    return fallback(module)


def install() -> bool:
    """Put :func:`uses_pyside` in place of PySide6's check (imports ``PySide6.QtCore``). Returns
    whether it is in place (``False``: PySide6 keeps its check elsewhere, or QtCore cannot be
    imported here -- then nothing changed and :mod:`ctxviewer.gui.display_check` still gives its
    message). Calling it again changes nothing."""
    try:
        import PySide6.QtCore  # noqa: F401  (loads the feature support)
    except (ImportError, OSError):  # Qt cannot load here: the display check says so in words, not this
        return False

    feature = sys.modules.get(FEATURE_MODULE)
    original = getattr(feature, CHECK, None)
    if feature is None or not callable(original):
        return False
    if getattr(original, "cheaper", False):
        return True

    def check(module: ModuleType) -> bool:
        return uses_pyside(module, original)

    check.cheaper = True  # type: ignore[attr-defined]
    check.original = original  # type: ignore[attr-defined]
    setattr(feature, CHECK, check)
    return True
