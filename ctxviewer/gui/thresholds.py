"""The sizes at which the window moves work off the GUI thread: every such threshold is here.

A selected trace needs none: it is always loaded, derived and assessed in a worker
(:class:`~ctxviewer.gui.trace_loader.TraceLoader`), whatever its size. The work below is quick
enough on the GUI thread for small inputs -- where a worker's start-up (a thread, a queued signal)
would cost more than the work -- and runs in a :class:`~ctxviewer.gui.worker.Task` above these sizes.
"""

from __future__ import annotations

WHATIF_WORKER_ITEMS = 500
"""The what-if panel re-trims a trace with more items than this in a worker thread
(:meth:`~ctxviewer.gui.whatif_panel.WhatIfPanel.retrim`)."""

DIFF_WORKER_CHARS = 100_000
"""A text pair with more code points than this (A + B) is word-diffed in a worker thread
(:meth:`~ctxviewer.gui.diff_text.TextDiffPane.set_texts`)."""
