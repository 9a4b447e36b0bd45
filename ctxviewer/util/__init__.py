"""Basics with no knowledge of traces: text made visible, cancel points, a memo, packaged assets.

What lives here:

* :mod:`~ctxviewer.util.visible` -- invisible and control characters made visible, without
  changing the stored text (every surface that shows trace text goes through it);
* :mod:`~ctxviewer.util.invisible_fold` -- the text with its invisible format characters taken
  out (the search index's joined view, the scanner's list of them), and spans mapped back;
* :mod:`~ctxviewer.util.highlight` -- syntax-highlight spans (pygments), painted over plain text;
* :mod:`~ctxviewer.util.large_text` -- previews of huge texts;
* :mod:`~ctxviewer.util.json_escapes` -- JSON an exporter encoded once too often (``\\u4f60``
  escapes in a JSON string in a string) decoded once;
* :mod:`~ctxviewer.util.axis_labels` -- tick labels of a token axis;
* :mod:`~ctxviewer.util.interrupt` -- cancel points and SIGTERM handling for long work;
* :mod:`~ctxviewer.util.memo` -- a memo of a pure function's results, found by identity;
* :mod:`~ctxviewer.util.assets` -- runtime assets (``ctxviewer/resources``) through
  :mod:`importlib.resources`;
* :mod:`~ctxviewer.util.sqlite_errors` -- what an SQLite error means (read-only, locked, damaged);
* :mod:`~ctxviewer.util.file_kind` -- what a file is (FIFO, device, too large to read), and
  shell words for the commands a message suggests;
* :mod:`~ctxviewer.util.new_file` -- a new file under a unique name, its mode respecting the umask;
* :mod:`~ctxviewer.util.plugins` -- the one plug-in registry (built-ins and entry points);
* :mod:`~ctxviewer.util.entry_point_memo` -- whether any installed distribution has ctxviewer plug-ins,
  remembered between processes under ``sys.path``'s modification times;
* :mod:`~ctxviewer.util.user_cache` -- the user's cache folder and the atomic write of a kept file;
* :mod:`~ctxviewer.util.held_absent` -- a module imported with optional packages it probes for
  held absent (sqlite-utils without its pandas probe).

May import: the standard library and third-party packages only; never another ``ctxviewer``
package (this is the ground floor, checked by the layers contract in ``pyproject.toml``).

A new helper goes here only when it knows nothing of traces; anything that reads a
:class:`~ctxviewer.model.trace.RequestTrace` belongs in the package of its concept.
"""
