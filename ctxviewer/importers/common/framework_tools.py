"""Tools offered only in an agent framework's own attributes, as tool definitions.

Pydantic AI records the tools of a model request in ``model_request_parameters`` (a JSON string:
``{function_tools: [ToolDefinition], output_tools: [ToolDefinition], allow_text_output}``; a
``ToolDefinition`` is ``{name, description, parameters_json_schema, strict, kind}``,
pydantic-ai ``tools.py``), not in ``gen_ai.tool.definitions``. :func:`framework_tool_definitions`
reads them in the OTel GenAI shape ``{type: "function", name, description, parameters}``; an
output tool (structured output) is marked ``"ctxviewer.output_tool": True``. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common.messages import parse_structured

KEYS = ("model_request_parameters",)
"""Span attributes (and Langfuse ``metadata.attributes`` keys) read here."""


def framework_tool_definitions(attrs: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The tool definitions of ``attrs``' ``model_request_parameters`` (function tools, then output
    tools), or ``None`` when the attribute is absent or holds no tools."""
    params = parse_structured(attrs.get("model_request_parameters"))
    if not isinstance(params, Mapping):
        return None
    out: list[dict[str, Any]] = []
    for key in ("function_tools", "output_tools"):
        for t in params.get(key) or []:
            if isinstance(t, Mapping) and t.get("name"):
                d: dict[str, Any] = {"type": "function", "name": str(t["name"])}
                if t.get("description"):
                    d["description"] = t["description"]
                if t.get("parameters_json_schema") is not None:
                    d["parameters"] = t["parameters_json_schema"]
                if key == "output_tools":
                    d["ctxviewer.output_tool"] = True
                out.append(d)
    return out or None
