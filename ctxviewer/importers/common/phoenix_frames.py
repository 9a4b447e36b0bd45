"""Phoenix spans dataframes saved to Parquet, as Phoenix span JSON documents.

``px.Client().get_spans_dataframe()`` / ``query_spans()`` return one row per span, and
``TraceDataset.save()`` writes the same frame to ``trace_dataset-{id}.parquet`` (Arize-ai/phoenix
``src/phoenix/trace/trace_dataset.py``: required columns ``name``, ``span_kind``, ``parent_id``,
``start_time``, ``end_time``, ``status_code``, ``status_message``, ``context.span_id``,
``context.trace_id``; the span's attributes as ``attributes.KEY`` columns, ``KEY`` flat
(``attributes.llm.token_count.prompt``) or one level (``attributes.llm`` holding an object),
lists of messages as lists of objects (``{"message.role": ..., "message.content": ...}`` or nested
``{"message": {"role": ...}}``); ``events``). :func:`span_document` turns a row back into the
Phoenix span JSON the OpenInference importer reads (``context``, ``span_kind``, flat
``attributes``), every attribute flattened to OpenInference's indexed keys
(``llm.input_messages.0.message.role``). A column of neither kind (an evaluation merged in,
``conversation``) is kept as the attribute ``phoenix.COLUMN``, so the field account names it.

The same frame saved with ``df.to_csv()`` holds every value as text: :func:`csv_rows` reads it
back (lists and objects from their Python ``repr``, token counts and scores as numbers, times
parsed; ids and every other value stay text). No Qt here.
"""

from __future__ import annotations

import ast
import csv
import io
import math
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from ctxviewer.importers.common.containers import open_text

REQUIRED = frozenset({"span_kind", "context.span_id", "context.trace_id"})
"""Columns that make a Parquet file a Phoenix spans frame (with at least one ``attributes.*``)."""
_SPAN_COLUMNS = ("name", "span_kind", "parent_id", "start_time", "end_time", "status_code", "status_message")
_ATTR = "attributes."


def is_spans_frame(columns: Iterable[str]) -> bool:
    """True for the columns of a Phoenix spans frame (:data:`REQUIRED` and an ``attributes.*`` column)."""
    cols = set(columns)
    return cols >= REQUIRED and any(c.startswith(_ATTR) for c in cols)


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, (list, dict)) and not v)


def flat_attributes(row: Mapping[str, Any]) -> dict[str, Any]:
    """The ``attributes.*`` columns of ``row`` as flat OpenInference attributes: objects expanded
    to dotted keys, lists of objects to indexed keys, missing values (``None``, NaN) left out;
    lists of scalars and JSON strings kept as they are."""
    out: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        if _missing(value):
            return
        if isinstance(value, Mapping):
            for k, v in value.items():
                put(f"{key}.{k}", v)
        elif isinstance(value, (list, tuple)) and all(isinstance(v, Mapping) for v in value):
            for i, v in enumerate(value):
                put(f"{key}.{i}", v)
        else:
            out[key] = list(value) if isinstance(value, tuple) else value

    for column, value in row.items():
        if column.startswith(_ATTR):
            put(column[len(_ATTR):], value)
    return out


def _time(v: Any) -> Any:
    return v.isoformat() if isinstance(v, datetime) else (None if _missing(v) else v)


def span_document(row: Mapping[str, Any]) -> dict[str, Any]:
    """One frame row as a Phoenix span JSON document (see the module docstring)."""
    attrs = flat_attributes(row)
    for column, value in row.items():
        if not column.startswith((_ATTR, "context.")) and column not in _SPAN_COLUMNS and column != "events" \
                and not column.startswith("__index_level_") and not _missing(value):
            attrs[f"phoenix.{column}"] = value
    doc: dict[str, Any] = {k: _time(row.get(k)) for k in _SPAN_COLUMNS}
    doc["status_message"] = doc.get("status_message") or None
    doc["context"] = {"trace_id": row.get("context.trace_id"), "span_id": row.get("context.span_id")}
    doc["attributes"] = attrs
    events = row.get("events")
    doc["events"] = [dict(e, timestamp=_time(e.get("timestamp"))) for e in events if isinstance(e, Mapping)] \
        if isinstance(events, (list, tuple)) else []
    return doc


def is_spans_csv_head(text: str) -> bool:
    """True if ``text`` (a file's head) starts with a CSV header of a Phoenix spans frame."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    try:
        header = next(csv.reader(io.StringIO(first)))
    except (csv.Error, StopIteration):
        return False
    return is_spans_frame(header)


_NUMERIC = ("token_count.", ".score", "document.score")


def _typed(column: str, text: str) -> Any:
    """A CSV cell as the value the frame held (see the module docstring); ``""`` -> ``None``."""
    if text == "":
        return None
    if column in ("start_time", "end_time"):
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return text
    if text[:1] in ("[", "{") and column.startswith((_ATTR, "events")):
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return text
    if column.startswith(_ATTR) and any(k in column for k in _NUMERIC):
        try:
            number = float(text)
        except ValueError:
            return text
        return int(number) if number.is_integer() else number
    return text


def csv_rows(path: Path, label: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The rows of a spans frame saved as CSV, each ``("{label} row N", row)`` with typed values
    (:func:`_typed`). An index column without a name (``df.to_csv()`` of an unnamed index) is left out."""
    with open_text(path) as fh:
        reader = csv.DictReader(fh)
        for n, raw in enumerate(reader, 1):
            yield f"{label} row {n}", {k: _typed(k, v or "") for k, v in raw.items() if k}
