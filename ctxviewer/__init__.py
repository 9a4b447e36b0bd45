"""ctxviewer: a desktop debugger for LLM request traces (what each model request actually sent).

The house, top floor first; each package's docstring is its own map, and the layers contract in
``pyproject.toml`` keeps every import running downwards:

* front ends -- :mod:`ctxviewer.cli` (the command line) and :mod:`ctxviewer.gui` (the window);
* :mod:`ctxviewer.report` -- what leaves as a file: ``show`` text, SARIF, HTML, OTLP export; and
  :mod:`ctxviewer.replay` -- sending a recorded request to a configured endpoint, position tests;
* :mod:`ctxviewer.pipeline` (import, back-fill, warm-up) and :mod:`ctxviewer.review` (the audit queue);
* :mod:`ctxviewer.diff` (comparing) and :mod:`ctxviewer.builder` (building and what-if);
* :mod:`ctxviewer.present` -- the words every surface shows;
* :mod:`ctxviewer.assess` (judging), :mod:`ctxviewer.store` (keeping) and :mod:`ctxviewer.importers`
  (reading files), which never import each other;
* :mod:`ctxviewer.model` (the request trace) and :mod:`ctxviewer.tokens` (counting);
* :mod:`ctxviewer.util` -- basics with no trace knowledge; :mod:`ctxviewer.resources` -- data files.

May import: nothing (this module only names the version).

A new package goes on a floor of the layers contract, with a map of its own; the README's Layout
section is these packages' first paragraphs (``tests/core/test_docs_drift.py``).
"""

__version__ = "0.1.0"
