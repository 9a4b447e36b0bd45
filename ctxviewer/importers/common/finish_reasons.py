"""The finish reason a model-call span's attributes record, in the two attribute names real
instrumentations write.

* ``gen_ai.response.finish_reasons`` (:data:`PLURAL`, OTel GenAI semconv): an array, one reason per
  choice; the first is the response's.
* ``gen_ai.response.finish_reason`` (:data:`SINGULAR`): Semantic Kernel's model diagnostics write
  one string for all choices. Python (``model_diagnostics/decorators.py``,
  ``_set_completion_response``) joins ``str(finish_reason)`` of each choice with ``","``: ``"stop"``,
  ``"stop,length"``, or the enum's repr ``"FinishReason.STOP"`` (``semantic_kernel.contents.utils.
  finish_reason.FinishReason``, whose values are the member names lower-cased), and ``"None"`` for a
  choice without one. .NET (``ModelDiagnostics``) writes a bracketed list: ``["Stop","ToolCalls"]``
  (JSON, ``"N/A"`` for a choice without one) or, in older versions, ``[Stop, ToolCalls]``.

:func:`first_finish_reason` reads the plural first, then the singular, and gives the first choice's
reason (the response's: the rest belong to the other choices); ``None`` when neither records one.
No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm

PLURAL = "gen_ai.response.finish_reasons"
"""OTel GenAI semconv attribute: the finish reason of each choice, in order (an array)."""
SINGULAR = "gen_ai.response.finish_reason"
"""Semantic Kernel's attribute (``gen_ai_attributes.FINISH_REASON``; .NET ``ModelDiagnosticsTags.FinishReason``):
one string for every choice (module docstring)."""
NOT_RECORDED = frozenset({"", "none", "null", "n/a"})
"""Lower-cased values that say a choice had no finish reason (Python ``str(None)``, .NET ``"N/A"``)."""
ENUM_PREFIX = "FinishReason."
"""Prefix of Semantic Kernel Python's enum repr (``str(FinishReason.STOP)`` is ``"FinishReason.STOP"``)."""


def _one(value: Any) -> str | None:
    """One choice's reason as recorded; the Python enum repr as its value (``FinishReason.LENGTH`` ->
    ``length``); ``None`` for a value in :data:`NOT_RECORDED` or no scalar."""
    if value is None or isinstance(value, (bool, Mapping, list, tuple)):
        return None
    text = str(value).strip().strip("\"'").strip()
    if text.startswith(ENUM_PREFIX):
        text = text[len(ENUM_PREFIX):].lower()
    return None if text.lower() in NOT_RECORDED else text


def singular_finish_reason(value: Any) -> str | None:
    """The first choice's reason in a :data:`SINGULAR` value of any of the forms in the module
    docstring (``"stop,length"`` -> ``"stop"``, ``'["Stop","ToolCalls"]'`` -> ``"Stop"``,
    ``"[Length, Stop]"`` -> ``"Length"``, ``"FinishReason.STOP"`` -> ``"stop"``); ``None`` when it
    records none (``"None"``, ``"[]"``, ``'["N/A"]'``). Never raises."""
    parsed = gm.parse_structured(value)
    if isinstance(parsed, (list, tuple)):
        return _one(parsed[0]) if parsed else None
    if not isinstance(parsed, str):
        return _one(parsed)
    text = parsed.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return _one(text.split(",", 1)[0])


def first_finish_reason(attrs: Mapping[str, Any]) -> str | None:
    """The response's finish reason in span attributes ``attrs``: the first entry of :data:`PLURAL`
    (an array, or a string of one), else :data:`SINGULAR` (:func:`singular_finish_reason`);
    ``None`` when neither records one."""
    reasons = gm.parse_structured(attrs.get(PLURAL))
    first = reasons[0] if isinstance(reasons, list) and reasons else reasons
    if first is not None and first != "" and not isinstance(first, (list, Mapping)):
        return str(first)
    return singular_finish_reason(attrs.get(SINGULAR))
