"""Values an exporter shortened although they still parse: Logfire's two cuts.

A value cut at its end mid-JSON no longer parses, and the OTel importer keeps it as raw text
(:func:`ctxviewer.importers.formats.otel.events.truncated_keys`, its ``"mid_json"`` values). Logfire (pydantic/logfire)
shortens values so that they often still parse:

* the SDK's ``truncate_string`` / ``truncate_sequence`` (``logfire/_internal/utils.py``) keep the
  first and the last ``(max_length - 3) // 2`` characters and put :data:`MIDDLE` (``...``)
  between them. Applied to the JSON text of a message list holding two images, the result still
  parses, as *one* image whose base64 is the head of the first image, ``...`` and the tail of the
  second: the parts between them are gone. :func:`middle_cut` finds that cut in a base64 payload
  (``...`` with base64 on both sides: base64 never holds a dot);
* the backend shortens the largest values of a record over 10 MB and lists their attribute names
  in :data:`LOGFIRE_TRUNCATED` (``logfire.truncated``, e.g. ``["all_messages_events"]``; Logfire
  docs, reference/limits.md "Truncation"). :func:`cut_attributes` reads that list.

What a cut is said to be (:data:`HOW`) goes on the trace as ``ctxviewer.truncated`` (the keys) and
``ctxviewer.truncated_how`` (``"KEY: how"``), read by :mod:`ctxviewer.assess.truncated` and the
trace header. An image placeholder of a cut payload says ``cut by the exporter``
(:func:`ctxviewer.tokens.placeholders.placeholder`). No Qt here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

LOGFIRE_TRUNCATED = "logfire.truncated"
"""Span attribute: the names of the attributes Logfire's backend shortened (a list, or its JSON)."""
MIDDLE = "..."
"""What Logfire's ``truncate_string`` puts in the middle of a value it shortens."""
_SIDE = 32
"""Base64 characters needed on each side of :data:`MIDDLE` to call it a cut (prose holding
``...`` between two 32-character runs of letters and digits only is not met in practice)."""
_BASE64_RUN = re.compile(rf"[A-Za-z0-9+/]{{{_SIDE}}}")
_BASE64_END = re.compile(r"[A-Za-z0-9+/]+={0,2}")  # the tail may end the value, padding and all

HOW = {
    "mid_json": "cut mid-JSON, kept as raw text",
    "middle": "cut in the middle by the exporter ('...' joins the head of one value to the tail of another: "
              "what lay between is not captured)",
    "logfire": "shortened by Logfire (listed in logfire.truncated)",
}
"""How a value was cut -> the words the trace and the import warning use."""


def middle_cut(payload: str) -> bool:
    """True if base64 ``payload`` holds Logfire's middle cut: :data:`MIDDLE` with at least
    32 base64 characters right before and after it (or an ellipsis character ``…`` so placed).
    Linear: only the places holding a dot or ``…`` are looked at."""
    for mark in (MIDDLE, "\u2026"):
        at = payload.find(mark)
        while at >= 0:
            before, after = payload[max(0, at - _SIDE):at], payload[at + len(mark):at + len(mark) + _SIDE]
            if _BASE64_RUN.fullmatch(before) and len(after) == _SIDE and _BASE64_END.fullmatch(after):
                return True
            at = payload.find(mark, at + 1)
    return False


def listed_by_logfire(attrs: Mapping[str, Any]) -> list[str]:
    """The attribute names ``logfire.truncated`` lists (a list, a tuple or its JSON text); ``[]`` without it."""
    value = attrs.get(LOGFIRE_TRUNCATED)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [value] if value else []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v not in (None, "")]
    return []


def cut_attributes(attrs: Mapping[str, Any], content_keys: tuple[str, ...]) -> dict[str, str]:
    """``{attribute name: HOW key}`` of the values of span attributes ``attrs`` an exporter cut
    although they may still parse: each name ``logfire.truncated`` lists (``"logfire"``), and each
    of ``content_keys`` whose value (JSON text or structured) holds a middle cut in a string
    (``"middle"``). Listed names first, then ``content_keys`` order."""
    out = {k: "logfire" for k in listed_by_logfire(attrs)}
    for key in content_keys:
        if key not in out and _holds_cut(attrs.get(key)):
            out[key] = "middle"
    return out


def _holds_cut(value: Any) -> bool:
    """True if ``value`` (a JSON text, or structured lists and objects) holds a middle cut in a string."""
    if isinstance(value, str):
        return middle_cut(value)
    if isinstance(value, Mapping):
        return any(_holds_cut(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_cut(v) for v in value)
    return False


def cut_trace_attributes(how: Mapping[str, str]) -> dict[str, Any]:
    """The trace attributes for ``how`` (``{attribute name: HOW key}``): ``ctxviewer.truncated``
    (the names), ``ctxviewer.truncated_how`` (``"NAME: how"``) and ``ctxviewer.content`` ``"truncated"``."""
    return {"ctxviewer.truncated": list(how), "ctxviewer.truncated_how": [f"{k}: {HOW[h]}" for k, h in how.items()],
            "ctxviewer.content": "truncated"}


def cut_notes(how: Mapping[str, str]) -> list[str]:
    """One import warning per cut attribute of ``how`` (``{attribute name: HOW key}``), saying
    what of the trace is short: a mid-JSON cut is kept as raw text; a middle cut or a value Logfire
    shortened leaves out what lay in the middle, so images and text there are not counted."""
    out = []
    for k, h in how.items():
        if h == "mid_json":
            out.append(f"{k}: value cut mid-JSON (truncated capture); kept as raw text, so reported usage "
                       "exceeds what was captured")
        else:
            out.append(f"{k}: {HOW[h]}; images and text lost in the cut are not counted, so reported usage "
                       "exceeds what was captured")
    return out
