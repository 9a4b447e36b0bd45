"""The serialized request of a trace as the user reads it: the body pretty-printed, or what was
kept instead of it and whether the request can be replayed exactly (chapter 3.3, 3.5).

:func:`request_view` gives one :class:`RequestView` for the window's Request pane and for
``ctxviewer show``; :func:`request_dict` is the ``request`` object of ``show --json``. The body is
pretty-printed only when it is JSON (2-space indent, key order and non-ASCII characters kept); any
other body is shown as stored. Nothing here changes the stored text. No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ctxviewer.model.trace import NOT_RECORDED, RequestTrace, SerializedRequest

SHA_SHOWN = 12
"""Leading hex digits of a sha256 shown in notices (the full digest is in ``show --json``)."""


@dataclass(frozen=True)
class RequestView:
    """What the Request pane shows for one trace."""

    body: str | None
    """The serialized body, pretty-printed when it is JSON; ``None`` when it was not kept."""
    language: str | None
    """``"json"`` when :attr:`body` is JSON (for highlighting), else ``None``."""
    notice: str
    """One line on what was kept and whether exact replay is possible, e.g. ``"only a reference
    was kept (sha256 eaaea95ab308…); exact replay impossible: fields messages[1].content, user
    redacted"``."""
    request: SerializedRequest
    """The stored record, unchanged."""


def pretty_body(content: str) -> tuple[str, str | None]:
    """``(text, language)``: ``content`` re-indented with 2 spaces when it parses as JSON (key
    order and non-ASCII characters kept, ``language="json"``), else ``content`` as stored and
    ``None``."""
    try:
        parsed = json.loads(content)
    except ValueError:
        return content, None
    if not isinstance(parsed, (dict, list)):
        return content, None
    return json.dumps(parsed, indent=2, ensure_ascii=False), "json"


def _replay(req: SerializedRequest, kept: bool) -> str:
    fields = ", ".join(req.redacted_fields)
    if req.exact_replay is True:
        return "exact replay possible" + ("" if kept else " from the stored copy")
    if req.exact_replay is None and not req.redacted_fields:
        return f"exact replay {NOT_RECORDED}"
    if req.redacted_fields:
        noun = "field" if len(req.redacted_fields) == 1 else "fields"
        return f"exact replay impossible: {noun} {fields} redacted"
    return "exact replay impossible" + ("" if kept else ": the body was not stored")


def request_notice(req: SerializedRequest) -> str:
    """The one-line notice of :class:`RequestView` for ``req`` (see there)."""
    sha = f"sha256 {req.sha256[:SHA_SHOWN]}…" if req.sha256 else None
    if req.content is not None:
        head = f"serialized request kept ({len(req.content):,} characters" + (f", {sha})" if sha else ")")
        return f"{head}; {_replay(req, True)}"
    if req.sha256:
        return f"only a reference was kept ({sha}); {_replay(req, False)}"
    tail = "" if req.exact_replay is None and not req.redacted_fields else f"; {_replay(req, False)}"
    return f"serialized request {NOT_RECORDED}{tail}"


def request_view(trace: RequestTrace) -> RequestView:
    """The Request pane of ``trace``: pretty body (or ``None``), its language and the notice."""
    req = trace.request
    body, language = pretty_body(req.content) if req.content is not None else (None, None)
    return RequestView(body, language, request_notice(req), req)


def request_dict(trace: RequestTrace) -> dict[str, Any]:
    """The ``request`` object of ``show --json``: ``content`` (the body exactly as stored, or
    null when only a reference was kept), ``sha256`` (hex, or null), ``exact_replay`` (bool or
    null = not recorded), ``redacted_fields`` (JSON paths, possibly empty) and ``notice`` (the
    words of :func:`request_notice`)."""
    req = trace.request
    return {
        "content": req.content,
        "sha256": req.sha256,
        "exact_replay": req.exact_replay,
        "redacted_fields": list(req.redacted_fields),
        "notice": request_notice(req),
    }
