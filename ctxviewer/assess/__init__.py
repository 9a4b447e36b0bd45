"""Judging a trace: the eq. 3.1 budget check, token accounting, the Table 3.1 checks, the
prompt-injection scanner, and the one assessment that every surface renders.

What lives here:

* :mod:`~ctxviewer.assess.assessment` -- :func:`~ctxviewer.assess.assessment.assess` and
  :func:`~ctxviewer.assess.assessment.conclude`: every conclusion about one trace, computed once,
  in the one context of its database (:mod:`~ctxviewer.assess.context`: ``ctxviewer.toml``, marks);
* :mod:`~ctxviewer.assess.budget` -- eq. 3.1 (B_sys + B_hist + B_evidence + B_tools + B_user +
  B_out <= C), allocations and C from the model catalogue when the trace recorded none;
  :mod:`~ctxviewer.assess.input_source` the words for which input it took;
  :mod:`~ctxviewer.assess.verdict` its verdict in words; :mod:`~ctxviewer.assess.provider_refusal`
  a provider's error refusing the request as over its window; :mod:`~ctxviewer.assess.tolerance` how far
  a count and the provider's reported input may differ;
  :mod:`~ctxviewer.assess.bars` the chart's bars; :mod:`~ctxviewer.assess.breakdown` the
  per-category accounting table;
* :mod:`~ctxviewer.assess.checks` -- one small module per check (Table 3.1's first-evidence
  checks, budget, tool calls, ...), run in registry order;
* :mod:`~ctxviewer.assess.scanner` -- the prompt-injection scanner over untrusted text;
* :mod:`~ctxviewer.assess.evidence_positions`, :mod:`~ctxviewer.assess.textmatch`,
  :mod:`~ctxviewer.assess.tool_review`, :mod:`~ctxviewer.assess.plausibility`,
  :mod:`~ctxviewer.assess.marks` (the user's marks that some checks read),
  :mod:`~ctxviewer.assess.truncated` (what the exporter truncated: eq. 3.1 and the checks read it),
  :mod:`~ctxviewer.assess.trace_header` (the header rows the assessment carries), :mod:`~ctxviewer.assess.config` (the checks' settings: ``ctxviewer.toml``, marks,
  context windows the user sets).

May import: :mod:`ctxviewer.model`, :mod:`ctxviewer.tokens`, :mod:`ctxviewer.util`. Never the
store, the importers, the presentation, or a front end (import-linter contracts in
``pyproject.toml``): an assessment is a pure function of the trace and the check config.

A new check is a module in :mod:`ctxviewer.assess.checks` registered in its registry (or a
plug-in in the ``ctxviewer.checks`` entry-point group); a new scanner rule goes into
:mod:`ctxviewer.assess.scanner` (or the ``ctxviewer.scanner_rules`` group).
"""
