"""The words every surface shows about a trace: the same text in the window, the CLI and reports.

What lives here:

* :mod:`~ctxviewer.present.columns` -- what each cell of the trace list and the item table says;
  :mod:`~ctxviewer.present.item_title` the content pane's heading of an item (and the note on
  items the exporter truncated);
* :mod:`~ctxviewer.present.call_cells` -- the Cost cell of the trace list (US dollars, "not known");
* :mod:`~ctxviewer.present.finding_view` -- symbols, colours and row texts of findings;
* :mod:`~ctxviewer.present.conversation_view` -- the request as the model received it;
* :mod:`~ctxviewer.present.message_blocks` -- a message as typed blocks for the Rendered view
  (:mod:`~ctxviewer.present.blocks`): tool calls and results labelled, Markdown from a sanitised
  subset (:mod:`~ctxviewer.present.markdown_blocks`), images decoded locally
  (:mod:`~ctxviewer.present.message_images`), never markup;
* :mod:`~ctxviewer.present.answer` -- the model's answer, tool calls and validations;
  :mod:`~ctxviewer.present.answer_blocks` the same answer as typed blocks for the rendered
  Response tab; :mod:`~ctxviewer.present.tool_arguments` what a call's arguments are when not a
  JSON object;
* :mod:`~ctxviewer.present.request_body` -- the serialized request as the user reads it;
* :mod:`~ctxviewer.present.trace_attributes` -- everything else a trace recorded, as rows;
* :mod:`~ctxviewer.present.item_filter` -- which items the item table shows;
* :mod:`~ctxviewer.present.search_cells` -- what the content-search hits' cells say;
* :mod:`~ctxviewer.present.run_tree` -- the run tree in words (steps, durations, tokens, cost);
* :mod:`~ctxviewer.present.session_cells` -- the sessions view in words (a session's sums, its calls in order);
* :mod:`~ctxviewer.present.stats_cells` -- a statistics cell's sum that some calls did not record
  (``"≥ 1,840 (1 not recorded)"``), for ``stats`` and the Statistics table.

May import: :mod:`ctxviewer.assess`, :mod:`ctxviewer.model`, :mod:`ctxviewer.tokens`,
:mod:`ctxviewer.util`. Never Qt (the GUI's models only serve these words) and never the store.

A new column or pane's text goes here; the Qt widget that shows it goes into :mod:`ctxviewer.gui`.
"""
