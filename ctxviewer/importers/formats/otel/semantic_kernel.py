"""Semantic Kernel's model-call spans: which spans are its own, and the switch that puts their
message content on them.

Semantic Kernel's model diagnostics (Python ``semantic_kernel/utils/telemetry/model_diagnostics``,
.NET ``ModelDiagnostics``) write a model call as a span with ``gen_ai.operation.name``
``chat.completions`` / ``text.completions`` or their ``streaming_`` forms
(:data:`~ctxviewer.importers.common.spans.conventions.SEMANTIC_KERNEL_OPERATIONS`), under the
instrumentation scope of its Python module (``semantic_kernel.…``) or its .NET ``ActivitySource``
(``Microsoft.SemanticKernel.…``). Its finish reason is the singular ``gen_ai.response.finish_reason``
(:mod:`ctxviewer.importers.common.finish_reasons`).

Content capture: the prompt and completion (``gen_ai.content.prompt`` / ``gen_ai.content.completion``
events, or GenAI log records in newer versions) are recorded only with Semantic Kernel's own
sensitive-diagnostics switch on -- the environment variable
``SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE`` (Python
``ModelDiagnosticSettings.enable_otel_diagnostics_sensitive``, default false; .NET reads it too) or,
in .NET, the AppContext switch ``Microsoft.SemanticKernel.Experimental.GenAI.EnableOTelDiagnosticsSensitive``.
OpenTelemetry's ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` does not govern them:
:data:`NOT_CAPTURED` names Semantic Kernel's switches instead. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common.spans.conventions import SEMANTIC_KERNEL_OPERATIONS

SCOPE_PREFIXES = ("semantic_kernel", "Microsoft.SemanticKernel")
"""Instrumentation scope names of Semantic Kernel's spans: its Python modules' tracers
(``get_tracer(__name__)``) and its .NET ``ActivitySource`` (named after its namespace)."""

NOT_CAPTURED = ("no message content captured on this span (Semantic Kernel records it only when "
                "SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE is true, or in .NET "
                "the AppContext switch Microsoft.SemanticKernel.Experimental.GenAI.EnableOTelDiagnosticsSensitive; "
                "it is off by default)")
"""The warning for a Semantic Kernel model-call span that records no message content (module docstring)."""


def is_sk_call(attributes: Mapping[str, Any], scope: Mapping[str, Any]) -> bool:
    """Whether a chat span with ``attributes`` and instrumentation ``scope`` (``{"name": ...}``) is
    Semantic Kernel's: its ``gen_ai.operation.name`` is one of Semantic Kernel's operations, or its
    scope name starts with one of :data:`SCOPE_PREFIXES`."""
    if str(attributes.get("gen_ai.operation.name")) in SEMANTIC_KERNEL_OPERATIONS:
        return True
    return str(scope.get("name") or "").startswith(SCOPE_PREFIXES)
