"""Reports and exports: what leaves the viewer as a file or as ``ctxviewer show`` text.

What lives here:

* :mod:`~ctxviewer.report.trace_report` -- the text and JSON of ``ctxviewer show``;
  :mod:`~ctxviewer.report.row_dict` -- the ``list --json`` object of a row (no assessment);
* :mod:`~ctxviewer.report.sarif` -- SARIF 2.1.0 of the findings (``check --format sarif``);
* :mod:`~ctxviewer.report.audit_report` and :mod:`~ctxviewer.report.budget_svg` -- the
  self-contained HTML audit report with its budget chart as SVG;
* :mod:`~ctxviewer.report.export_otlp` -- traces as OTLP/JSON with the OpenTelemetry GenAI
  attributes, with :mod:`~ctxviewer.report.guardrail_spans` -- the scanner's verdicts as
  ``apply_guardrail`` spans (``export --guardrails``); :mod:`~ctxviewer.report.redact` -- redaction before export.

May import: every core package below the front ends (:mod:`ctxviewer.review`,
:mod:`ctxviewer.diff`, :mod:`ctxviewer.present`, :mod:`ctxviewer.assess`, :mod:`ctxviewer.store`,
:mod:`ctxviewer.model`, :mod:`ctxviewer.util`); never :mod:`ctxviewer.gui` or :mod:`ctxviewer.cli`.

A new output format goes here as one module, with its command in :mod:`ctxviewer.cli`.
"""
