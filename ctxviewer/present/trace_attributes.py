"""Everything else a trace recorded, as ``(name, value)`` rows for the window's Attributes pane:
identity fields that have no column (session, end user, source format) and every recorded
attribute (request parameters, span status, notes), values one-lined JSON.

Untrusted text: values are made visible with :func:`ctxviewer.util.visible.one_line`; the stored
trace is not changed. No Qt here.
"""

from __future__ import annotations

import json
from typing import Any

from ctxviewer.model.trace import RequestTrace
from ctxviewer.model.words import fmt_text
from ctxviewer.util.json_escapes import decode_escapes
from ctxviewer.util.visible import one_line


def _value(v: Any) -> str:
    if isinstance(v, str):
        return one_line(decode_escapes(v))
    try:
        return one_line(json.dumps(v, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return one_line(repr(v))


def attribute_rows(trace: RequestTrace) -> list[tuple[str, str]]:
    """``(name, value)`` rows: ``session_id``, ``user_id``, ``source_format``, ``replay_of``,
    ``response_id`` (the provider's id of the response: OTel ``gen_ai.response.id``; each
    "not recorded" when absent), then every key of ``trace.attributes`` in sorted order with its
    value as one line (strings as stored -- a JSON string in a string with its non-ASCII escapes
    decoded once, :func:`ctxviewer.util.json_escapes.decode_escapes` -- other values as JSON)."""
    rows = [
        ("session_id", fmt_text(trace.session_id)),
        ("user_id", fmt_text(trace.user_id)),
        ("source_format", fmt_text(trace.source_format)),
        ("replay_of", fmt_text(trace.replay_of)),
        ("response_id", one_line(fmt_text(trace.response.id if trace.response else None))),
    ]
    rows += [(one_line(str(k)), _value(trace.attributes[k])) for k in sorted(trace.attributes, key=str)]
    return rows
