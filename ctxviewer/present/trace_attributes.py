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
from ctxviewer.tokens.placeholders import IMAGE_PAYLOADS
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
    decoded once, :func:`ctxviewer.util.json_escapes.decode_escapes` -- other values as JSON; the
    images an importer kept as their count and sizes, not their base64)."""
    rows = [
        ("session_id", fmt_text(trace.session_id)),
        ("user_id", fmt_text(trace.user_id)),
        ("source_format", fmt_text(trace.source_format)),
        ("replay_of", fmt_text(trace.replay_of)),
        ("response_id", one_line(fmt_text(trace.response.id if trace.response else None))),
    ]
    rows += [(one_line(str(k)), _images(trace.attributes[k]) if k == IMAGE_PAYLOADS else _value(trace.attributes[k]))
             for k in sorted(trace.attributes, key=str)]
    return rows


def _images(v: Any) -> str:
    """The importer's kept images (:data:`~ctxviewer.tokens.placeholders.IMAGE_PAYLOADS`) in words, not
    their base64: ``"2 image(s) kept to show them: image/png blob 8,528 base64 characters; ..."``."""
    if not isinstance(v, (list, tuple)):
        return _value(v)
    named = [f"{one_line(str(e[0]))} {one_line(str(e[1]))} {e[2]:,} base64 characters" for e in v
             if isinstance(e, (list, tuple)) and len(e) == 4 and isinstance(e[2], int)]
    return f"{len(v)} image(s) kept to show them: " + "; ".join(named)
