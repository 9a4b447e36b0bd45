"""A proposed tool call's arguments as the user reads them, saying what they are when they are not
a JSON object -- the one wording of ``ctxviewer show`` and the window's Response and Tool calls
panes.

Providers return a call's arguments as a JSON string holding an object (OpenAI
``function.arguments``) or as the object itself (Anthropic ``input``, OTel ``arguments``), kept on
:attr:`~ctxviewer.model.trace.ToolCall.arguments` exactly as sent. What else arrives, and what the
heading says:

* nothing: ``"arguments not recorded"`` (never shown as ``{}``);
* an empty string: ``"arguments: an empty string, not JSON"``;
* text that is not JSON: ``"arguments: not valid JSON, shown exactly as sent:"`` (never repaired);
* a JSON string whose text is JSON (an exporter encoded the arguments twice):
  ``"arguments: a JSON string encoding JSON (encoded twice), decoded once:"`` and the decoded value;
* any other JSON that is not an object: ``"arguments: a JSON string, not an object:"`` (``array``,
  ``number``, ``true``/``false``, ``null`` likewise);
* an object: ``"arguments:"``.

The body is re-indented with 2 spaces when it is JSON. No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ctxviewer.assess.tool_review import json_kind, twice_encoded

NOT_RECORDED_HEADING = "arguments not recorded"


@dataclass(frozen=True)
class ArgumentsView:
    """The heading (see the module docstring) and the body to show under it (``None``: nothing)."""

    heading: str
    body: str | None
    is_object: bool = False
    """Whether the arguments are (or, encoded twice, decode to) a JSON object."""


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def arguments_view(arguments: str | None) -> ArgumentsView:
    """How to show ``arguments`` (a :class:`~ctxviewer.model.trace.ToolCall`'s, as sent)."""
    if arguments is None:
        return ArgumentsView(NOT_RECORDED_HEADING, None)
    if arguments.strip() == "":
        return ArgumentsView("arguments: an empty string, not JSON", None)
    try:
        value = json.loads(arguments)
    except ValueError:
        return ArgumentsView("arguments: not valid JSON, shown exactly as sent:", arguments)
    if isinstance(value, dict):
        return ArgumentsView("arguments:", _pretty(value), True)
    inner = twice_encoded(value)
    if inner is not None:
        return ArgumentsView("arguments: a JSON string encoding JSON (encoded twice), decoded once:", _pretty(inner),
                             isinstance(inner, dict))
    return ArgumentsView(f"arguments: {json_kind(value)}, not an object:", _pretty(value))
