"""OpenTelemetry GenAI spans as steps of a run (the run tree): every span of a file with a span id,
under its parent span, with its times, status and attributes. No Qt here.

The step's kind is read from what the span says it is (``gen_ai.operation.name``, OTel GenAI
semconv ``model/gen-ai/registry.yaml``; else OpenLLMetry's ``traceloop.span.kind``, Vercel AI SDK
``ai.toolCall`` spans) in the run tree's words (:data:`OPERATION_KINDS`); the operation itself
stays in the attributes. A model-call span's message content lives in its trace and is left out
of the step (:data:`CONTENT_PREFIXES`); every other attribute is kept.
"""

from __future__ import annotations

from ctxviewer.importers.common.spans.conventions import SEMANTIC_KERNEL_OPERATIONS, is_chat_span, non_generative
from ctxviewer.importers.common.spans.guardrail import is_guardrail_span
from ctxviewer.importers.common.spans.span import Span
from ctxviewer.model.run import RunSpan

OPERATION_KINDS = {
    "chat": "llm", "generate_content": "llm", "text_completion": "llm", "embeddings": "embedding",
    "retrieval": "retriever", "execute_tool": "tool", "invoke_agent": "agent", "create_agent": "agent",
    "invoke_workflow": "workflow", **{op: "llm" for op in SEMANTIC_KERNEL_OPERATIONS},
}
"""``gen_ai.operation.name`` value -> the run step's kind (the semconv's operation list; Semantic
Kernel's model-call names)."""

CONTENT_PREFIXES = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
                    "gen_ai.prompt", "gen_ai.completion", "ai.prompt", "ai.response.text", "llm.input_messages",
                    "llm.output_messages")
"""Attribute names (prefixes) of a model call's messages: kept in its trace, not on its step."""

RUN_WITHOUT_ID = "otel"
"""The run id of spans whose container records no trace id."""


def step_kind(span: Span) -> str:
    """The run-tree kind of ``span``: ``llm`` for a model call (:func:`.mapping.is_chat_span`),
    :data:`OPERATION_KINDS` of its ``gen_ai.operation.name``, ``guardrail`` for a guardrail
    evaluation, ``reranker`` / ``embedding`` for OpenLLMetry's ``llm.request.type`` ``rerank`` /
    ``embedding``, ``traceloop.span.kind`` (``workflow``, ``task``, ``agent``, ``tool``), ``tool`` for an
    ``ai.toolCall`` span; else ``span``."""
    a = span.attributes
    if is_chat_span(a):
        return "llm"
    if non_generative(a):  # OpenLLMetry's rerank / embedding calls
        return "reranker" if non_generative(a) == "rerank" else "embedding"
    op = str(a.get("gen_ai.operation.name") or "")
    if op in OPERATION_KINDS:
        return OPERATION_KINDS[op]
    if is_guardrail_span(span):
        return "guardrail"
    if isinstance(a.get("traceloop.span.kind"), str) and a["traceloop.span.kind"]:
        return str(a["traceloop.span.kind"]).lower()
    if (span.name or "").startswith("ai.toolCall") or "ai.toolCall.name" in a:
        return "tool"
    return "span"


def run_span(span: Span, trace_id: str | None) -> RunSpan:
    """``span`` as a step of its run (the OTel trace id; :data:`RUN_WITHOUT_ID` when the container
    has none): kind :func:`step_kind`, the span's times and status, ``trace_id`` the trace made of a
    model-call span (``None`` for every other span), the attributes (a model call's messages left
    out: :data:`CONTENT_PREFIXES`), plus ``otel.span.kind`` and the resource's ``service.name``
    when recorded."""
    attrs = {k: v for k, v in span.attributes.items() if trace_id is None or not k.startswith(CONTENT_PREFIXES)}
    if span.kind:
        attrs.setdefault("otel.span.kind", span.kind)
    if span.resource.get("service.name") is not None:
        attrs.setdefault("service.name", span.resource["service.name"])
    return RunSpan(span.trace_id or RUN_WITHOUT_ID, str(span.span_id), span.parent_id, step_kind(span), span.name,
                   span.start, span.end, span.status, span.status_message, trace_id, attrs)
