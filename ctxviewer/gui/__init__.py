"""The PySide6 window: the only package that imports Qt (PySide6, pyqtgraph).

What lives here, by role:

* the window -- :mod:`~ctxviewer.gui.main_window` (:class:`MainWindow`: its widgets and layout), built
  from its parts over :mod:`~ctxviewer.gui.window_part`: :mod:`~ctxviewer.gui.main_actions` (its own
  menus and actions, each with its shortcut), :mod:`~ctxviewer.gui.window_opening` (opening a
  database or source, drops), :mod:`~ctxviewer.gui.window_selection` (selecting and showing a trace),
  :mod:`~ctxviewer.gui.window_trace_list` (the list pane following its model);
  :mod:`~ctxviewer.gui.window_api` (the :class:`WindowApi` its controllers see), :mod:`~ctxviewer.gui.app` (the entry point),
  :mod:`~ctxviewer.gui.display_check` (whether there is a display, asked before Qt starts),
  :mod:`~ctxviewer.gui.window_keys` (Esc / Ctrl+W close a window),
  :mod:`~ctxviewer.gui.pyside_import_hook` (PySide6's after-import check made cheaper, installed
  when this package is imported),
  :mod:`~ctxviewer.gui.stale_refresh` (stale trace-list rows recomputed in the background),
  :mod:`~ctxviewer.gui.screenshot` (the window rendered to an image);
* panes -- :mod:`~ctxviewer.gui.trace_panel` arranges the selected trace's: ``detail_panel``,
  ``budget_chart`` (``budget_plot``, ``chart_legend``), ``item_table``, ``message_pane`` (Rendered or Raw:
  ``content_view`` the raw text, ``rendered_view`` and ``rendered_conversation`` the rendered messages,
  written by ``block_document`` into a document that loads nothing), ``conversation_pane`` (the turns and their keys shared with the rendered one: ``turn_navigation``), ``answer_panes``, ``diagnostics_tabs`` (``findings_panel``,
  ``tool_calls_panel``, ``evidence_strip``, ``run_panel`` -- the run tree and timeline, the one pane
  that reads the store itself: a run is not part of one trace, and its steps are read as rows expand,
  off the GUI thread by ``run_reads``); other windows and docks: ``diff_view`` (``diff_text``,
  ``diff_chart``), ``whatif_panel`` (``accounting_box``), ``position_panel`` (``position_chart``), ``audit_view`` (``audit_queue``, ``audit_detail``, ``audit_notes``), ``search_dock``,
  ``stats_view`` (Trace › Statistics…: sums by model / session / day, chart, CSV; its menu entry
  ``stats_controller``), ``sessions_view`` (Trace › Sessions…: a session's calls in order, each diffed
  with the one before; its models ``sessions_model``, menu entries ``sessions_controller``), ``shortcuts_help``; small parts: ``filter_edit``, ``tables``, ``column_menu``, ``clipboard``,
  ``control_glyphs`` (how control characters are drawn), ``recent_files``, ``layout_memory``;
* Qt models -- ``trace_list_model`` (a million rows, read by key; its parts ``trace_list_queries``:
  count and key chunks per generation, and ``trace_list_pages``: the page cache), ``item_table_model``,
  ``findings_model``, ``two_level_model``, ``review_model``, ``diff_model``, ``whatif_model``;
* controllers (menus and actions on a :class:`WindowApi`) -- ``compare``, ``reload``, ``listen`` (File > Listen for Traces…, the live receiver),
  ``trace_actions``, ``audit_dock``, ``search_dock``, ``whatif_controller``, ``replay_controller``; on a parent widget:
  ``importer`` (File > Import), ``upgrade_offer`` (an older database's upgraded copy),
  ``connect_dialog`` (File > Connect to ClickHouse: a team's store shown through the store interface);
* workers -- :mod:`~ctxviewer.gui.worker` (:class:`Task`: every job off the GUI thread),
  :mod:`~ctxviewer.gui.gc_guard` (the garbage collector runs on the GUI thread only),
  :mod:`~ctxviewer.gui.trace_loader` (the one selection path: load, derive, assess; a newer
  selection wins), :mod:`~ctxviewer.gui.run_reads` (the Run tab's reads: a newer trace wins), :mod:`~ctxviewer.gui.background_import` (heavy imports), and
  :mod:`~ctxviewer.gui.thresholds` (every size above which work leaves the GUI thread).

May import: the core packages (``model``, ``tokens``, ``util``, ``assess``, ``store``, ``importers``,
``present``, ``pipeline``, ``review``, ``diff``, ``builder``, ``report``, ``replay``) and Qt. Never the
reverse: no core module imports this package; only :mod:`ctxviewer.cli` does, inside the commands
that open a window (import-linter contracts in ``pyproject.toml``). Trace text is untrusted: every
widget shows it as plain text.

A new pane is a module here that renders ``(trace, assessment | None)`` handed to it by
:class:`~ctxviewer.gui.trace_panel.TracePanel` -- it never reads the store or assesses. A new
dialog or dock is a module of its own, parented to :attr:`WindowApi.host`; its menu entries come
from a controller that takes a :class:`WindowApi` (add a member there if it needs one). A new Qt
model is a ``*_model.py`` over core data. Work that can take long runs in a :class:`Task`.
"""

from ctxviewer.gui.pyside_import_hook import install as _install_import_hook

_install_import_hook()  # before any other module of the window is imported
