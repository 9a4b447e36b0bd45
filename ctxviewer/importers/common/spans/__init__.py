"""Span containers: spans from any container, as one :class:`~.span.Span` shape, for every span
format (``otel``, ``openinference``, ``ctxviewer-otlp``).

* :mod:`.span` -- the normalised :class:`~.span.Span` (ids, times, decoded attributes, events)
  and :func:`~.span.trace_id_for`, :func:`~.span.missing_parents` (the warning for a span whose
  parent is not in the file);
* containers, one module each, each with ``sniff(JsonPeek) -> float`` and ``spans(obj, file,
  prefix) -> Iterator[Span | ImportProblem]``: :mod:`.otlp` (OTLP/JSON ``ExportTraceServiceRequest``,
  also one per line), :mod:`.span_list` (span arrays, one span object), :mod:`.attribute_map` (a
  flat attribute map);
* :mod:`.conventions` -- which convention a span follows (OTel GenAI chat span, OpenInference
  kind) and the warning for the other convention's model calls in a file;
* :mod:`.guardrail` -- guardrail evaluation spans (``apply_guardrail``) as runtime guardrail results;
* :mod:`.read` -- picks the container, reads files (OTLP protobuf too) and groups spans by trace;
* :mod:`.protobuf` -- binary OTLP protobuf files as OTLP/JSON dicts, a string that is not UTF-8
  repaired (U+FFFD) and named rather than the file refused;
* :mod:`.wire` -- OTLP/HTTP request bodies (protobuf or JSON, gzip) as the OTLP/JSON dicts a file holds.

May import: :mod:`ctxviewer.importers.common` (values, containers, peek),
:mod:`ctxviewer.importers.contract`, :mod:`ctxviewer.model`; never a format. A new span container
is a module here with ``sniff`` and ``spans``, picked in :func:`.read.container_of`. No Qt here.
"""
