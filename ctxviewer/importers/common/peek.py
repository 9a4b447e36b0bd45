"""Looking into the start of a JSON (or JSON Lines) file without needing the whole document.

Sniffers get the first bytes of a file; a JSON document larger than that is cut off and
``json.loads`` fails on it. :func:`peek_json` runs an incremental parser (ijson) over the head
and keeps every parse event up to the cut, so an importer can still see the container shape and
the keys that come before the cut -- e.g. the ``spanContext`` and ``gen_ai.*`` attribute keys of
a span list whose first span is 100 KiB long. For JSON Lines only the first document is kept.
:func:`starts_as_json` is the cheaper test a substring sniffer asks first; :func:`cut_short` says
when a parse error is the end of a cut-off file. No Qt here.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

import ijson

Event = tuple[str, str, Any]
"""An ijson event: ``(prefix, event, value)``, e.g. ``("item.attributes", "map_key", "gen_ai.system")``."""

MAX_EVENTS = 50_000
"""Events kept at most (a head of 16 MiB of tiny values stays cheap to look at)."""

MAX_DEPTH = 256
"""Nesting depth (objects and arrays) at which :func:`peek_json` stops. No trace format nests
nearly this deep (an OTLP span attribute's array value is ~12 levels); ijson's own prefixes are
one string per event as long as the nesting, so ``'[' * 100_000`` cost minutes and gigabytes
before this cap. Prefixes are built here from ``basic_parse`` instead."""


@dataclass(frozen=True)
class JsonPeek:
    """The parse events of the first JSON document in a file head."""

    events: tuple[Event, ...]
    """Events in document order, up to the end of the first document or the cut."""
    complete: bool
    """True when the first document ended inside the head (nothing was cut off)."""
    too_deep: bool = False
    """True when the document nests deeper than :data:`MAX_DEPTH` within the head (peeking stopped there)."""

    @property
    def kind(self) -> str | None:
        """``"object"``, ``"array"``, ``"scalar"`` or ``None`` (no JSON at the start)."""
        if not self.events:
            return None
        return {"start_map": "object", "start_array": "array"}.get(self.events[0][1], "scalar")

    def keys(self, prefix: str = "") -> list[str]:
        """Map keys seen directly under ``prefix`` (ijson prefix: ``""`` top level, ``"item"`` the
        elements of a top-level array, ``"item.attributes"`` their attribute maps), in order.
        Keys of every element of an array are included."""
        return [v for p, e, v in self.events if e == "map_key" and p == prefix]

    def strings(self, prefix: str) -> list[str]:
        """String values seen at ``prefix`` (e.g. ``"resourceSpans.item.scopeSpans.item.spans.item.attributes.item.key"``)."""
        return [v for p, e, v in self.events if e == "string" and p == prefix]

    def first(self, prefix: str) -> Any:
        """The first scalar value at ``prefix``; ``None`` if there is none in the head."""
        for p, e, v in self.events:
            if p == prefix and e in ("string", "number", "boolean", "null"):
                return v
        return None


def peek_json(head: bytes) -> JsonPeek:
    """The parse events of the first JSON document in ``head`` (a UTF-8 BOM is skipped).

    Never raises: text that is not JSON gives the events before the error (often none). The events
    of a cut head are a prefix of the whole document's events (tested with hypothesis). Stops at
    :data:`MAX_DEPTH` levels of nesting (``too_deep``), so time and memory stay linear in the head.
    """
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    events: list[Event] = []
    stack: list[list[str]] = []  # per open container: [its prefix, its current child's prefix]
    complete = too_deep = False
    try:
        for event, value in ijson.basic_parse(io.BytesIO(head), multiple_values=True):
            if event == "map_key":  # ijson's (yajl2_c) rules: a top-level key or an item of "" has no dot
                prefix = stack[-1][0]
                stack[-1][1] = f"{prefix}.{value}" if len(stack) > 1 else value
            elif event in ("start_map", "start_array"):
                if len(stack) >= MAX_DEPTH:
                    too_deep = True
                    break
                prefix = stack[-1][1] if stack else ""
                stack.append([prefix, (f"{prefix}.item" if prefix else "item") if event == "start_array" else ""])
            elif event in ("end_map", "end_array"):
                prefix = stack.pop()[0]
            else:
                prefix = stack[-1][1] if stack else ""
            events.append((prefix, event, value))
            if not stack:
                complete = True
                break
            if len(events) >= MAX_EVENTS:
                break
    except Exception:  # ijson.JSONError for cut-off or invalid text, decoding errors: stop at the cut
        pass
    if not complete and events and events[-1][1] == "number":
        events.pop()  # a number just before the cut may itself be cut ("-1" of "-10")
    return JsonPeek(tuple(events), complete, too_deep)


def starts_as_json(text: str) -> bool:
    """True when ``text`` (a :func:`~ctxviewer.importers.common.containers.head_text`) starts,
    after white space, with ``{`` or ``[``: a JSON document or JSON Lines. A sniffer that looks for its keys as substrings asks this first,
    so a Markdown page or a log quoting ``"mlflow.spanType"`` is not taken for that format."""
    return text.lstrip()[:1] in ("{", "[")


def cut_short(exc: ValueError) -> str:
    """``"; the text ends there: was the file cut short?"`` when ``exc`` is the JSON parser stopping
    at the end of its text -- an unterminated string, or a value, ``,`` or bracket expected after the
    last character that is not white space: a file cut off by a full disk, a killed exporter or
    ``head -c`` -- else ``""``. Appended to the "not JSON" messages of the importers."""
    if not isinstance(exc, json.JSONDecodeError):
        return ""
    at_end = exc.msg.startswith("Unterminated string") or exc.pos >= len(exc.doc.rstrip())
    return "; the text ends there: was the file cut short?" if at_end else ""
