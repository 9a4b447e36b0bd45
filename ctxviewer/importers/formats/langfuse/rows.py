"""Langfuse table rows (blob-storage export files, ClickHouse tables) in the public API's shape, so
an observation maps one way whatever it was read from (:func:`ctxviewer.importers.formats.langfuse.trace_records`).

Sources of the column names (facts, not code): Langfuse's ClickHouse migrations
(``packages/shared/clickhouse/migrations/unclustered``: ``0001_traces``, ``0002_observations``,
``0003_scores`` and the later ``ALTER TABLE`` steps adding ``environment``, ``tool_definitions`` /
``tool_calls`` / ``tool_call_names``, ``usage_pricing_tier_*``, the scores' ``metadata``,
``session_id``, ``run_id``, ``long_string_value``), the v4 ``events_full`` / ``events_core`` tables
(``packages/shared/clickhouse/scripts/dev-tables.sh``: ``span_id``, ``parent_span_id``,
``metadata_names`` / ``metadata_values``, the trace's fields on every row) and the blob-storage
export field reference (langfuse-docs ``blob-storage-export-fields.mdx``: ``traces/``,
``observations/``, ``observations_v2/`` enriched with ``trace_name``, ``user_id``, ``session_id``,
``tags``, ``release``; ``scores/``; timestamps ``YYYY-MM-DD HH:MM:SS.ffffff`` UTC).

* :func:`observation` -- a row of ``observations`` / ``observations_v2`` / ``events_full`` as an
  ``Observation`` (``startTime``, ``parentObservationId``, ``model`` from ``provided_model_name``,
  ``modelParameters`` decoded, ``usageDetails``, ``costDetails``, ``toolDefinitions`` from the
  ``name -> {description, parameters}`` map, ``toolCalls`` from ``tool_calls`` paired with
  ``tool_call_names``; an empty ``parent_observation_id`` is a root). Columns this module does not
  know keep their own name, so the importer's account names them (``ctxviewer.unmapped``).
* :func:`trace` -- a ``traces`` row (or the trace fields an enriched row carries) as a ``Trace``.
* :func:`score` -- a ``scores`` row as a ``Score`` (``dataType``, ``stringValue``, ``observationId``...).
* :data:`ROW_ONLY` -- columns of the storage, not of the data (``project_id``, ``event_ts``,
  ``is_deleted``, ``created_at``, ``updated_at``...): read for de-duplication, never named as unmapped.

No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

ROW_ONLY = frozenset({"project_id", "event_ts", "is_deleted", "created_at", "updated_at", "event_bytes",
                      "blob_storage_file_path", "s3_first_seen_timestamp", "input_length", "output_length",
                      "input_truncated", "output_truncated", "is_app_root", "is_root_observation",
                      "calculated_input_cost", "calculated_output_cost", "calculated_total_cost", "source"})
"""Columns of the table or export file, not of the observation: how it is stored and de-duplicated
(``event_ts`` / ``is_deleted`` of the ReplacingMergeTree), sizes and totals Langfuse derives from
other columns, and the v4 ``source`` of the ingestion."""

_OBSERVATION = {
    "id": "id", "span_id": "id", "trace_id": "traceId", "type": "type", "name": "name", "level": "level",
    "status_message": "statusMessage", "version": "version", "input": "input", "output": "output",
    "start_time": "startTime", "end_time": "endTime", "completion_start_time": "completionStartTime",
    "provided_model_name": "model", "usage_details": "usageDetails", "cost_details": "costDetails",
    "total_cost": "totalCost", "prompt_name": "promptName", "prompt_version": "promptVersion",
    "prompt_id": "promptId", "environment": "environment", "latency": "latency",
    "time_to_first_token": "timeToFirstToken", "model_id": "modelId", "internal_model_id": "modelId",
    "tool_call_names": "toolCallNames", "provided_usage_details": "providedUsageDetails",
    "provided_cost_details": "providedCostDetails",
}
"""Observation columns -> ``Observation`` keys (fern ``observations.yml``)."""

TRACE_COLUMNS = {"trace_name": "name", "user_id": "userId", "session_id": "sessionId", "tags": "tags",
                 "release": "release", "bookmarked": "bookmarked", "public": "public"}
"""The trace's fields an enriched observation row carries (``observations_v2/``, ``events_full``)."""

_TRACE = {"id": "id", "timestamp": "timestamp", "name": "name", "environment": "environment",
          "metadata": "metadata", "user_id": "userId", "session_id": "sessionId", "release": "release",
          "version": "version", "public": "public", "bookmarked": "bookmarked", "tags": "tags", "input": "input",
          "output": "output"}
"""``traces`` columns -> ``Trace`` keys."""

_SCORE = {"id": "id", "timestamp": "timestamp", "trace_id": "traceId", "observation_id": "observationId",
          "session_id": "sessionId", "dataset_run_id": "datasetRunId", "run_id": "datasetRunId", "name": "name",
          "value": "value", "source": "source", "comment": "comment", "data_type": "dataType",
          "string_value": "stringValue", "long_string_value": "longStringValue", "environment": "environment",
          "metadata": "metadata", "author_user_id": "authorUserId", "config_id": "configId", "queue_id": "queueId",
          "execution_trace_id": "executionTraceId"}
"""``scores`` columns -> ``Score`` keys (fern ``scores.yml``)."""


def _json(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _present(value: Any) -> bool:
    return value is not None and value != ""


def plain(value: Any) -> Any:
    """A value as the export's JSON holds it: a ClickHouse ``Decimal`` (costs) as a float, a
    ``datetime`` as the export's UTC text ``YYYY-MM-DD HH:MM:SS.ffffff`` (naive ones are UTC, as
    Langfuse writes them), maps and arrays element by element; anything else as it is."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime):
        utc = (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
        return f"{utc:%Y-%m-%d %H:%M:%S.%f}"
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def metadata_of(row: Mapping[str, Any]) -> Any:
    """The row's metadata: ``metadata`` (a map of strings, an object, or JSON text), or v4's parallel
    ``metadata_names`` / ``metadata_values`` arrays zipped; ``None`` when there is none."""
    if "metadata_names" in row:
        names, values = row.get("metadata_names") or [], row.get("metadata_values") or []
        return dict(zip((str(n) for n in names), values))
    md = _json(row.get("metadata"))
    return md if md not in (None, "", {}) else None


def _tool_definitions(value: Any) -> list[dict[str, Any]] | None:
    """``tool_definitions`` (``name -> JSON {description, parameters: JSON schema text}``) as
    definition objects ``{name, description, parameters}``."""
    value = _json(value)
    if not isinstance(value, Mapping) or not value:
        return None
    out = []
    for name, raw in value.items():
        spec = _json(raw)
        spec = dict(spec) if isinstance(spec, Mapping) else {"description": raw}
        params = _json(spec.get("parameters"))
        out.append({"name": str(name), "description": spec.get("description") or None,
                    **({"parameters": params} if params not in (None, "") else {})})
    return out


def _tool_calls(calls: Any, names: Any) -> list[dict[str, Any]] | None:
    """``tool_calls`` (JSON strings ``{id, arguments, type, index}``) paired with ``tool_call_names``
    by position, as ``{id, name, arguments}``."""
    calls, names = _json(calls), _json(names)
    if not isinstance(calls, list) or not calls:
        return None
    names = names if isinstance(names, list) else []
    out = []
    for i, raw in enumerate(calls):
        c = _json(raw)
        c = dict(c) if isinstance(c, Mapping) else {"arguments": raw}
        name = c.get("name") or (names[i] if i < len(names) else None)
        out.append({"id": c.get("id") or None, "name": name, "arguments": c.get("arguments")})
    return out


def observation(row: Mapping[str, Any]) -> dict[str, Any]:
    """An observation row as a public-API ``Observation`` (module docstring). Raises nothing: a
    value that does not decode is kept as it is (the mapping then says what it could not read)."""
    row = plain(row)
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key in ROW_ONLY or key in TRACE_COLUMNS or key in ("metadata_names", "metadata_values", "metadata",
                                                             "tool_definitions", "tool_calls", "model_parameters",
                                                             "parent_observation_id", "parent_span_id"):
            continue
        if not _present(value):
            continue
        out[_OBSERVATION.get(key, key)] = value
    parent = row.get("parent_observation_id", row.get("parent_span_id"))
    out["parentObservationId"] = str(parent) if _present(parent) else None
    md = metadata_of(row)
    if md is not None:
        out["metadata"] = md
    params = _json(row.get("model_parameters"))
    if _present(params) and params != {}:
        out["modelParameters"] = params
    defs = _tool_definitions(row.get("tool_definitions"))
    if defs:
        out["toolDefinitions"] = defs
    calls = _tool_calls(row.get("tool_calls"), row.get("tool_call_names"))
    if calls:
        out["toolCalls"] = calls
    for key in ("usageDetails", "costDetails", "providedUsageDetails", "providedCostDetails"):
        if key in out:
            out[key] = _json(out[key])
            if out[key] in ({}, None) or key.startswith("provided"):
                out.pop(key)  # the provided_* maps are what the SDK sent; usage/cost_details hold them merged
    if out.get("toolCallNames") in ([], None):
        out.pop("toolCallNames", None)
    return out


def trace(row: Mapping[str, Any]) -> dict[str, Any]:
    """A ``traces`` row as a public-API ``Trace`` (``userId``, ``sessionId``, ``tags``...); empty
    values left out, unknown columns kept under their own name (named as unmapped ``trace.KEY``)."""
    row = plain(row)
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key in ROW_ONLY or not _present(value) or value == [] or value == {}:
            continue
        out[_TRACE.get(key, key)] = _json(value) if key in ("metadata", "tags") else value
    return out


def trace_of_observation_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The trace an enriched observation row names (``trace_id`` and :data:`TRACE_COLUMNS`), as a ``Trace``."""
    row = plain(row)
    out: dict[str, Any] = {"id": row.get("trace_id")}
    for key, name in TRACE_COLUMNS.items():
        value = _json(row.get(key))
        if _present(value) and value != []:
            out[name] = value
    return out


def score(row: Mapping[str, Any]) -> dict[str, Any]:
    """A ``scores`` row as a public-API ``Score`` (``dataType``, ``stringValue``, ``traceId``,
    ``observationId``...); empty values left out."""
    row = plain(row)
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key in ROW_ONLY - {"source"} or not _present(value):
            continue
        out[_SCORE.get(key, key)] = value
    return out
