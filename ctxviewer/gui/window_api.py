"""What the main window's controllers may use of it: :class:`WindowApi`, a declared interface.

The controllers -- Compare (:mod:`~ctxviewer.gui.compare`), Reload (:mod:`~ctxviewer.gui.reload`),
the Items menu (:mod:`~ctxviewer.gui.trace_actions`), the audit dock, the search dock and the
what-if menu -- are built by :class:`~ctxviewer.gui.main_window.MainWindow` and receive it as a
:class:`WindowApi`. They import this module, never the window's, so the import graph has no
circle, and mypy checks every use against the members below; the window implements them
publicly. A controller that needs more of the window adds the member here first.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings, SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QMainWindow, QMenu, QTableView, QWidget

    from ctxviewer.gui.trace_list_model import TraceListModel
    from ctxviewer.gui.trace_panel import TracePanel
    from ctxviewer.model.trace import RequestTrace
    from ctxviewer.store import TraceSource


class WindowApi(Protocol):
    """The main window as its controllers see it."""

    @property
    def host(self) -> QMainWindow:
        """The window as a Qt widget: the parent of the controllers' actions, dialogs and docks."""
        ...

    @property
    def sig_trace_selected(self) -> SignalInstance:
        """``(str trace_id)``: a selected trace is shown (its items; its assessment may follow)."""
        ...

    @property
    def sig_database_opened(self) -> SignalInstance:
        """``(str path)``: a database was opened (read-only)."""
        ...

    @property
    def store(self) -> TraceSource | None:
        """The source shown (``None``: none open)."""
        ...

    @property
    def trace(self) -> RequestTrace | None:
        """The trace shown, as displayed (derived omissions included); ``None`` when none is."""
        ...

    @property
    def trace_view(self) -> QTableView:
        """The trace list's view (its context menu and selection belong to the controllers too)."""
        ...

    @property
    def trace_model(self) -> TraceListModel:
        """The trace list's model."""
        ...

    @property
    def panel(self) -> TracePanel:
        """The panes of the trace shown."""
        ...

    @property
    def settings(self) -> QSettings:
        """The user's settings (recent files, layout, the audit view's switches)."""
        ...

    @property
    def act_quit(self) -> QAction:
        """File > Quit (actions added to the File menu go before it)."""
        ...

    @property
    def filter_text(self) -> str:
        """The text in the trace list's filter box."""
        ...

    def menu(self, title: str, before: str = "&Help") -> QMenu:
        """The menu bar's menu ``title`` (e.g. ``"&File"``), created before the menu ``before``
        (or before Help, when there is no such menu) if the window has none yet."""
        ...

    def add_to_list_pane(self, widget: QWidget, *, above: bool = False) -> None:
        """Put ``widget`` below the trace list's count (``above``: above the filter box)."""
        ...

    def show_error(self, title: str, message: str) -> None:
        """Show ``message`` in a plain-text, non-blocking message box titled ``title``."""
        ...

    def show_status(self, message: str, timeout_ms: int = 0) -> None:
        """Show ``message`` in the status bar (for ``timeout_ms`` milliseconds; 0: until replaced)."""
        ...

    def open_database(self, path: str | Path, *, remember: bool = True, show_errors: bool = True) -> bool:
        """Open the database ``path`` read-only and select its first trace; ``False`` when it cannot
        be opened (said in a message box; with ``show_errors`` False the error propagates)."""
        ...

    def set_source(self, source: TraceSource, name: str, status: str | None = None, *,
                   context_path: str | None = None) -> None:
        """Show ``source`` (any :class:`~ctxviewer.store.TraceSource`) titled ``name``; with
        ``context_path``, assessed in that database's context (``ctxviewer.toml`` and marks beside
        it; ``""``: the default context, as for a ClickHouse store)."""
        ...

    def apply_filter(self) -> None:
        """Re-query the trace list with the filter box's text now."""
        ...

    def select_trace(self, trace_id: str, then: Callable[[RequestTrace], None] | None = None) -> None:
        """Select ``trace_id``; ``then(trace)`` once it is shown with its assessment (never if a
        newer selection wins). Raises ``KeyError`` when the source has no such trace."""
        ...
