"""A module imported while some optional packages it probes for are held absent.

sqlite-utils, at its top, tries ``import pandas`` and ``import numpy`` only to map their value types
(``pandas.Timestamp``, numpy integers) to column types; ctxviewer writes plain Python values and
never passes either. Where pandas is installed -- any data-science environment, and ours through
chDB, the ClickHouse extra -- that probe alone costs about 270 ms of every writing process
(``import sqlite_utils``: 340 ms with pandas installed, 68 ms with the two held absent; measured
with ``python -X importtime``, 3 runs each). :func:`import_holding_absent` imports a module with
each named package that is *not imported yet* standing in ``sys.modules`` as ``None`` (so its
import raises ``ImportError``, the answer "not installed" that the probing module handles), then
takes the stand-ins out again: a later ``import pandas`` anywhere in the process is the real one.
A package already imported is left as it is (the importing module then sees it, as it would
have). No Qt here.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types

_lock = threading.Lock()


def import_holding_absent(name: str, absent: tuple[str, ...]) -> types.ModuleType:
    """Module ``name``, imported (once: an imported one is returned as it is) with each package
    of ``absent`` not imported yet held absent for the length of that import (module docstring) --
    on the main thread only: ``sys.modules`` is shared, so a hold would make another thread's
    ``import pandas`` fail meanwhile; off the main thread (the window's workers) it is a plain import.

    Raises what importing ``name`` raises (``ImportError`` when it is not installed); the
    stand-ins are taken out either way.
    """
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    if threading.current_thread() is not threading.main_thread():
        return importlib.import_module(name)  # sys.modules is the whole process's: hold nothing off the main thread
    with _lock:
        held = [package for package in absent if package not in sys.modules]
        for package in held:
            sys.modules[package] = None  # type: ignore[assignment]  # "import X" then raises ImportError
        try:
            return importlib.import_module(name)
        finally:
            for package in held:
                if sys.modules.get(package, 0) is None:
                    del sys.modules[package]


SQLITE_UTILS_ABSENT = ("pandas", "numpy")
"""Packages sqlite-utils probes for at import only to map their value types, held absent while it
is imported on the main thread (about 270 ms where pandas is installed: module docstring)."""


def sqlite_utils_module() -> types.ModuleType:
    """The ``sqlite_utils`` package, imported without its pandas and numpy probes
    (:data:`SQLITE_UTILS_ABSENT`; ctxviewer's store writes plain Python values only). Every part
    of the store that needs sqlite-utils takes it from here. Raises ``ImportError`` when
    sqlite-utils is not installed."""
    return import_holding_absent("sqlite_utils", SQLITE_UTILS_ABSENT)
