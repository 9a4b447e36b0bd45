"""The base of the main window's parts: :class:`WindowPart`, the ``QMainWindow`` that
:mod:`~ctxviewer.gui.main_actions`, :mod:`~ctxviewer.gui.window_opening`,
:mod:`~ctxviewer.gui.window_selection` and :mod:`~ctxviewer.gui.window_trace_list` each extend with
one concern of :class:`~ctxviewer.gui.main_window.MainWindow`, which combines them and builds the
widgets and state they share in its ``__init__``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QMainWindow

if TYPE_CHECKING:
    from ctxviewer.assess.context import AssessContext
    from ctxviewer.model.trace import RequestTrace
    from ctxviewer.store import TraceSource


class WindowPart(QMainWindow):
    """A concern of the main window (module docstring). Its methods read widgets and call methods
    that :class:`~ctxviewer.gui.main_window.MainWindow` and its other parts define; the type
    checker takes those on trust (the parts never import each other, nor the window)."""

    # the state the parts share (set in MainWindow.__init__; documented there)
    context: AssessContext
    store: TraceSource | None
    trace: RequestTrace | None
    _then: tuple[str, Callable[[RequestTrace], None]] | None
    _model_fitted: bool
    _widths_remembered: bool

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> Any: ...
