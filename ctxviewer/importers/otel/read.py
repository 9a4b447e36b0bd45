"""Reading a file of OpenTelemetry spans: detect its container and yield normalised spans.

Spans arrive in several container shapes (``../shared/corpus/FORMATS.md`` section 0), one module
each: :mod:`.otlp` (OTLP/JSON ``ExportTraceServiceRequest``, one per file or per line),
:mod:`.span_list` (a JSON array of span objects, or one span object) and :mod:`.attribute_map`
(the object is the attributes of one span). This module picks the container
(:func:`container_of`) and reads whole files (:func:`read_spans`), JSON Lines included.

Errors: :func:`read_spans` raises :class:`~ctxviewer.importers.ImportFailed` for a file that cannot
be read or holds no span container at all; a bad span or line inside a good file is yielded as an
:class:`~ctxviewer.importers.ImportProblem` and reading goes on. No Qt here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from .._api import ImportFailed, ImportProblem
from . import attribute_map, otlp, span_list
from .span import Span, SpanRecord

__all__ = ["Span", "SpanRecord", "container_of", "read_spans", "spans_from_json"]


def container_of(obj: Any) -> str | None:
    """Name the container shape of one parsed JSON document, or ``None`` if it is none of them.

    Returns ``"otlp"`` (``resourceSpans``), ``"span-list"`` (a JSON array of span objects),
    ``"span"`` (one ReadableSpan / console span object) or ``"attributes"`` (a flat attribute map:
    an object with at least one dotted key such as ``gen_ai.operation.name``).
    """
    if otlp.is_otlp(obj):
        return "otlp"
    if span_list.is_span_object(obj):
        return "span"
    if attribute_map.is_attribute_map(obj):
        return "attributes"
    if span_list.is_span_list(obj):
        return "span-list"
    return None


def spans_from_json(obj: Any, file: str, prefix: str = "") -> Iterator[SpanRecord]:
    """Normalise one parsed JSON document (any container) to spans.

    ``file`` names the file in problems; ``prefix`` is prepended to records (``"line 3 "``).
    Yields :class:`Span` and, for a bad span, :class:`~ctxviewer.importers.ImportProblem`.
    Raises ``ValueError`` if ``obj`` is not a span container at all.
    """
    kind = container_of(obj)
    if kind == "otlp":
        yield from otlp.spans(obj, file, prefix)
    elif kind in ("span", "span-list"):
        yield from span_list.spans(obj, file, prefix)
    elif kind == "attributes":
        yield from attribute_map.spans(obj, file, prefix)
    else:
        raise ValueError("not a span container (no resourceSpans, span objects or attribute map)")


def read_spans(path: Path) -> Iterator[SpanRecord]:
    """All spans of the file at ``path``, in file order, with problems for bad spans and lines.

    The file is one JSON document, or JSON Lines of documents (one OTLP request per line).
    Raises :class:`~ctxviewer.importers.ImportFailed` (message names the file) when the file cannot
    be read, is not JSON, or holds no span container.
    """
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFailed(f"{file}: cannot read file: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as whole_error:
        yield from _read_lines(text, file, whole_error)
        return
    try:
        yield from spans_from_json(doc, file)
    except ValueError as exc:
        raise ImportFailed(f"{file}: {exc}") from None


def _read_lines(text: str, file: str, whole_error: json.JSONDecodeError) -> Iterator[SpanRecord]:
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    parsed: list[tuple[int, Any]] = []
    problems: dict[int, str] = {}
    for n, line in lines:
        try:
            parsed.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems[n] = f"not valid JSON: {exc.msg} (column {exc.colno})"
    if not parsed or len(lines) < 2:
        raise ImportFailed(f"{file}: not JSON or JSON Lines: {whole_error.msg} (line {whole_error.lineno})")
    good = dict(parsed)
    for n, _line in lines:
        if n in problems:
            yield ImportProblem(file, f"line {n}", problems[n])
            continue
        try:
            yield from spans_from_json(good[n], file, f"line {n} ")
        except ValueError as exc:
            yield ImportProblem(file, f"line {n}", str(exc))
