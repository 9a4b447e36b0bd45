"""The trace formats ctxviewer reads, one module each (``otel`` and ``mlflow`` packages), each defining
``IMPORTER``, an object of the :class:`~ctxviewer.importers.contract.Importer` shape:

* :mod:`.native` -- ctxviewer's JSON Lines trace format (``ctxviewer.trace/1``), read and written;
* :mod:`.openinference` -- OpenInference / Arize Phoenix spans (LLM, retriever and tool spans);
* :mod:`.otel` -- OpenTelemetry GenAI spans from any span container (and :mod:`.otel.logs`, ``otel-logs``:
  OTLP log records of GenAI events without their spans);
* :mod:`.ctxviewer_otlp` -- OTLP/JSON exported by ctxviewer (an exact round trip);
* :mod:`.cassette` -- VCR / pytest-recording YAML cassettes of provider API calls;
* :mod:`.inspect_ai` -- Inspect AI eval logs (``.json`` EvalLog, ``.eval`` zips); :mod:`.inspect_runs` --
  the steps of a sample's run (its spans, model and tool events) for the run tree; :mod:`.inspect_verdicts` --
  the verdicts its tool events show on the proposed calls;
* :mod:`.langfuse` -- Langfuse trace downloads (``langfuse.runs``: its observations as run steps); :mod:`.langfuse_chatml` -- Langfuse normalised ChatML;
* :mod:`.langsmith` -- LangSmith runs; :mod:`.langsmith_runs` -- every run of a run tree (chain, tool,
  retriever, llm) as a run step; :mod:`.langsmith_tools` -- the verdicts its tool runs show, and the run-level
  token counts as usage;
* :mod:`.litellm` -- LiteLLM ``StandardLoggingPayload`` logs;
* :mod:`.mlflow` -- MLflow traces (v3 JSON, also embedded in Databricks agent responses);
* :mod:`.promptfoo` -- promptfoo eval exports;
* :mod:`.provider_api` -- provider API request + response JSON.
* :mod:`.phoenix_annotations` -- Phoenix span annotations, the scores of the spans of the same import.

:data:`ctxviewer.importers.registry.BUILTIN` lists them in sniffing order; a new format is a
module here, listed there. A format that records model calls maps each to an
:class:`~ctxviewer.importers.common.llm_call.LLMCall` and lets
:func:`~ctxviewer.importers.common.llm_call.build_trace` make the trace.

May import: :mod:`ctxviewer.importers.common`, :mod:`ctxviewer.importers.contract`,
:mod:`ctxviewer.model`, :mod:`ctxviewer.util`; never another format (a helper two formats need
goes to :mod:`ctxviewer.importers.common`). Checked by the import-linter contracts in
``pyproject.toml``. No Qt here.
"""
