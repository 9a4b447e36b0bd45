"""Which tracing convention a span follows -- OpenTelemetry GenAI or OpenInference -- and the
warning for the spans of the other one in a file.

Two services behind one collector, or an application instrumented with both OpenInference and an
OTel GenAI instrumentation, write one OTLP file holding both kinds of model-call span. Each
importer maps its own convention (``otel``: :func:`is_chat_span`; ``openinference``:
:func:`span_kind` ``LLM``); the file's other half was skipped without a word ("imported 1
trace(s)", exit status 0). :func:`other_convention` names those spans with the command that
imports them, as a problem that counts them as left out. No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ctxviewer.importers.common.spans.span import Span
from ctxviewer.importers.contract import ImportProblem

SEMANTIC_KERNEL_OPERATIONS = frozenset({"chat.completions", "chat.streaming_completions", "text.completions",
                                        "text.streaming_completions"})
"""``gen_ai.operation.name`` values Semantic Kernel writes for a model call (its model diagnostics,
Python ``semantic_kernel/utils/telemetry/model_diagnostics/decorators.py`` ``CHAT_COMPLETION_OPERATION``
... ``TEXT_STREAMING_COMPLETION_OPERATION``; .NET ``ModelDiagnostics``): older than the semconv names."""
CHAT_OPERATIONS = frozenset({"chat", "generate_content", "text_completion"}) | SEMANTIC_KERNEL_OPERATIONS
"""``gen_ai.operation.name`` values of a model call (semconv ``gen_ai.operation.name``: ``chat``,
``generate_content``, ``text_completion``; and :data:`SEMANTIC_KERNEL_OPERATIONS`)."""
NOT_GENERATIVE = frozenset({"rerank", "embedding"})
"""OpenLLMetry ``llm.request.type`` values of a call that generates nothing (``LLMRequestTypeValues``
of ``opentelemetry-semantic-conventions-ai``: ``completion``, ``chat``, ``rerank``, ``embedding``,
``unknown``). Its Cohere instrumentation writes a rerank's candidate documents as
``gen_ai.prompt.N`` with role ``system`` and the ranking as ``gen_ai.completion.N``: no chat."""
KIND = "openinference.span.kind"
"""OpenInference's span kind attribute (``LLM``, ``RETRIEVER``, ``TOOL``, ``CHAIN``, ``AGENT`` ...)."""


def is_chat_span(attrs: Mapping[str, Any]) -> bool:
    """True if a span's attributes describe one model call in the OTel GenAI conventions (and the
    older ones instrumentations still write): ``gen_ai.operation.name`` a chat operation
    (:data:`CHAT_OPERATIONS`); without one, ``gen_ai.input.messages``, ``gen_ai.prompt`` or the
    indexed ``gen_ai.prompt.N.*``; or a Vercel AI SDK ``ai.*.doGenerate`` / ``doStream`` span. Never
    a span whose OpenLLMetry ``llm.request.type`` is a rerank or an embedding (:func:`non_generative`)."""
    if non_generative(attrs):
        return False
    op = attrs.get("gen_ai.operation.name")
    if op is not None:
        return str(op) in CHAT_OPERATIONS
    if "gen_ai.input.messages" in attrs or "gen_ai.prompt" in attrs:
        return True
    if any(k.startswith("gen_ai.prompt.") for k in attrs):
        return True
    op_id = str(attrs.get("ai.operationId") or "")  # with recordInputs: false a call records no ai.prompt.messages
    return op_id.startswith("ai.") and op_id.endswith((".doGenerate", ".doStream"))


def non_generative(attrs: Mapping[str, Any]) -> str | None:
    """The OpenLLMetry ``llm.request.type`` of a span that calls a model to rank or embed, not to
    generate (:data:`NOT_GENERATIVE`: ``rerank``, ``embedding``); ``None`` for any other span."""
    kind = str(attrs.get("llm.request.type") or "").lower()
    return kind if kind in NOT_GENERATIVE else None


def span_kind(attrs: Mapping[str, Any]) -> str | None:
    """The OpenInference span kind upper-cased; ``LLM`` for a span with ``llm.*`` messages but no
    kind; ``None`` for a span that is not OpenInference's."""
    k = attrs.get(KIND)
    if k:
        return str(k).upper()
    if any(key.startswith(("llm.input_messages", "llm.model_name", "llm.output_messages")) for key in attrs):
        return "LLM"
    return None


def count_other(spans: Iterable[Span], reader: str) -> int:
    """How many of ``spans`` are model calls of the convention the ``reader`` importer (``otel`` or
    ``openinference``) does not map: OTel GenAI chat spans with no OpenInference kind for
    ``openinference``, OpenInference ``LLM`` spans that are no OTel GenAI chat span for ``otel``."""
    if reader == "openinference":
        return sum(1 for s in spans if span_kind(s.attributes) is None and is_chat_span(s.attributes))
    return sum(1 for s in spans if span_kind(s.attributes) == "LLM" and not is_chat_span(s.attributes))


def other_convention(n: int, reader: str, file: str) -> ImportProblem | None:
    """The problem naming the ``n`` model-call spans of ``file`` (:func:`count_other`) that the
    ``reader`` importer does not map, counted as left out (``import`` then ends with exit status 2):
    ``"5 span(s) are OpenTelemetry GenAI model calls, which the openinference importer does not
    read: import this file again with --format otel into the same database to add them"``;
    ``None`` when ``n`` is 0."""
    if not n:
        return None
    other, fmt = (("OpenTelemetry GenAI model calls", "otel") if reader == "openinference"
                  else ("OpenInference LLM spans", "openinference"))
    return ImportProblem(file, "spans", f"{n} span(s) are {other}, which the {reader} importer does not read: "
                         f"import this file again with --format {fmt} into the same database to add them", dropped=n)
