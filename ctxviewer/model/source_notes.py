"""Trace attributes a source's importer writes and the header reads back: what the source recorded
about a call that no field of :class:`~ctxviewer.model.trace.RequestTrace` holds (Langfuse's
observation warning, environment and time to first token; Anthropic's one-hour cache writes). One
name per value, shared by the importer that writes it (:mod:`ctxviewer.importers.formats.langfuse`,
:mod:`ctxviewer.importers.common.exchanges`) and the header that says it
(:mod:`ctxviewer.assess.trace_header`). No Qt here.
"""

from __future__ import annotations

WARNING_KEYS = ("langfuse.level", "langfuse.status_message")
"""The trace attributes of a warning the source recorded on a call that did not fail: Langfuse's
observation ``level`` (``WARNING``; ``ERROR`` is the span status) and its ``statusMessage``."""

ENVIRONMENT_KEY = "langfuse.environment"
"""The trace attribute of the environment the source recorded the call in (Langfuse
``environment``; ``"default"`` is Langfuse's when the application set none)."""

FIRST_TOKEN_KEY = "langfuse.time_to_first_token_ms"
"""The trace attribute of the call's time to first token, milliseconds (Langfuse
``completionStartTime`` - ``startTime``; no trace field holds it, and the OTel readers keep
``gen_ai.response.time_to_first_chunk``, seconds, verbatim)."""

SERVER_TOOLS_KEY = "openai.response.server_tool_calls"
"""The trace attribute of the tools the provider ran itself during the call (OpenAI Responses output
items ``web_search_call``, ``file_search_call``, ``code_interpreter_call``, ``image_generation_call``,
``mcp_call``): ``[{type, id, status, query}]``. They are no proposal the application checks, and what
they fed the model counts as input the trace does not hold."""

SERVER_TOOL_TYPES = ("web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call",
                     "mcp_call")
"""The Responses output item types of :data:`SERVER_TOOLS_KEY`."""

CACHE_1H_KEY = "anthropic.usage.cache_creation.ephemeral_1h_input_tokens"
"""The trace attribute of an Anthropic call's one-hour cache writes, tokens (``usage.cache_creation
.ephemeral_1h_input_tokens``): part of ``cache_creation_input_tokens``, billed at a higher rate than
five-minute writes, which genai-prices does not tell apart -- the cost line says so."""

USAGE_RULE_KEY = "ctxviewer.usage_rule"
"""The trace attribute naming a usage rule the importer applied that the source's usage fields do
not show (:mod:`ctxviewer.importers.common.usage_rules`, Inspect's cache rule)."""

GEMINI_THINKING_RULE = ("Gemini thinking tokens only in the total: reasoning derived as total - input - output "
                        "(not recorded on its own), added to the output")
"""The :data:`USAGE_RULE_KEY` text when Gemini's thinking tokens were taken from the total (Gemini
``UsageMetadata``: ``totalTokenCount = promptTokenCount + candidatesTokenCount + thoughtsTokenCount``):
the header says the reasoning tokens are derived."""

TOOLS_BY_NAME_KEY = "ctxviewer.tools_by_name_only"
"""The trace attribute listing the tools the source recorded by name only (Mastra's agent span:
``gen_ai.tool.definitions`` is ``JSON.stringify(availableTools)``, ``["weatherTool"]``): offered, and
their description and parameter schema not recorded (not absent). Written by
:mod:`ctxviewer.importers.formats.otel.group`, read by :mod:`ctxviewer.assess.tool_review`."""
