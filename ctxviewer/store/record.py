"""The trace record (``details.json``) since schema 9: only what no column or content row holds.

:func:`slim` takes the record :meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` builds (the
native JSON of the trace without its items, ``serialize.trace_to_dict``) and leaves out every value
that the trace's ``traces`` row or one of its items already holds, unchanged:

* the top-level fields of :data:`ROW_FIELDS` (``trace_id``, ``created``, ``service``, ...) and the
  endpoint's :data:`ENDPOINT_FIELDS` (``provider``, ``model``, ``capacity``), each left out only
  when its row column holds exactly the same value;
* ``user_request`` when it is the content of one of the trace's items (the user message, stored
  once in ``blobs``): the record then holds ``"user_request_item": ORDINAL`` instead (the item's
  0-based place in final order).

:func:`restore` is the inverse, for :meth:`TraceStore.load <ctxviewer.store.TraceStore.load>`: a
field the record lacks takes its column's value when the column holds one. A record written before
schema 9 (every field in it) reads unchanged: what it holds wins, and its columns were written from
the same trace, so a field it lacks (not recorded) has a NULL column. The schema-9 step
(``m019_compact_storage``) slims the records of an older database. No Qt here.

On 10,000 OTel GenAI chat traces (``benchmarks/bench_perf.py``) the record fell from 1,418 to
about 700 bytes a trace.

Since schema 13 (:func:`slim_attributes`, :func:`restore_attributes`) the record's ``attributes``
also leave out the span facts a ``traces`` column holds (:data:`ROW_ATTRIBUTES`: the operation,
the agent, the duration), each only when its column holds exactly the same value; the record then
says where each one stood among the attributes (``"attributes_in_row": [PLACE, ...]``, one place
or ``null`` per :data:`ROW_ATTRIBUTES` key), so the attributes come back in their recorded order.
Those columns are written only with the record (``add``), never rewritten alone (``write_facts``
rewrites the assessment's facts only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

ROW_FIELDS: tuple[str, ...] = ("trace_id", "created", "service", "session_id", "replay_of", "source_format",
                               "reserved_output_tokens")
"""Top-level record fields whose ``traces`` column (same name) holds the same value."""

ENDPOINT_FIELDS: dict[str, str] = {"provider": "provider", "model": "model", "capacity": "capacity"}
"""``endpoint`` fields of the record -> their ``traces`` column."""

COLUMNS: tuple[str, ...] = (*ROW_FIELDS, *ENDPOINT_FIELDS.values())
"""The ``traces`` columns :func:`restore` reads, in this order (``load`` selects them)."""

ROW_ATTRIBUTES: dict[str, str] = {"gen_ai.operation.name": "operation", "gen_ai.agent.name": "agent",
                                  "ctxviewer.duration_ms": "duration_ms"}
"""Record ``attributes`` -> the ``traces`` column written from them (schemas 5 and 8:
:func:`ctxviewer.model.span_facts.row_values`, :mod:`~ctxviewer.store.call_columns`), left out by
:func:`slim_attributes` when equal."""

ATTRIBUTE_COLUMNS: tuple[str, ...] = tuple(ROW_ATTRIBUTES.values())
"""The ``traces`` columns :func:`restore_attributes` reads, in :data:`ROW_ATTRIBUTES` order."""

ATTRIBUTES_IN_ROW = "attributes_in_row"
"""Record key (schema 13): per :data:`ROW_ATTRIBUTES` key, its 0-based place among the attributes
when :func:`slim_attributes` left it out (``null``: kept or not recorded)."""

USER_REQUEST_ITEM = "user_request_item"
"""Record key: the ordinal of the item whose content is the trace's ``user_request``."""


def slim(record: dict[str, Any], columns: Mapping[str, Any], ordinal_of: Callable[[str], int | None]) -> dict[str, Any]:
    """``record`` (changed in place and returned) without the values ``columns`` (the trace's row,
    column name -> value as written) or the trace's items hold -- ``ordinal_of(text)`` is the
    ordinal of the first item whose content is ``text`` (``None``: none): see the module docstring. A value is left out only when equal, type included (``1`` is not ``1.0``), so
    :func:`restore` gives back exactly ``record``."""
    for key in ROW_FIELDS:
        if key in record and _same(record[key], columns.get(key)):
            del record[key]
    endpoint = record.get("endpoint")
    if isinstance(endpoint, dict):
        for key, col in ENDPOINT_FIELDS.items():
            if key in endpoint and _same(endpoint[key], columns.get(col)):
                del endpoint[key]
        if not endpoint:
            del record["endpoint"]
    request = record.get("user_request")
    if isinstance(request, str) and USER_REQUEST_ITEM not in record:
        ordinal = ordinal_of(request)
        if ordinal is not None:
            del record["user_request"]
            record[USER_REQUEST_ITEM] = ordinal
    return record


def first_ordinal(contents: Sequence[str | None]) -> Callable[[str], int | None]:
    """``ordinal_of`` for :func:`slim` over the item ``contents`` in final order."""
    return lambda text: next((k for k, c in enumerate(contents) if c == text), None)


def restore(record: dict[str, Any], columns: Mapping[str, Any], contents: Sequence[str | None]) -> dict[str, Any]:
    """``record`` (changed in place and returned) with each field :func:`slim` left out put back from
    ``columns`` (a NULL column adds nothing: not recorded) and ``user_request`` from the item
    ``contents``. Raises ``ValueError`` when ``user_request_item`` names no item with content (a
    damaged record)."""
    for key in ROW_FIELDS:
        if key not in record and columns.get(key) is not None:
            record[key] = columns[key]
    endpoint = record.get("endpoint")
    if endpoint is None or isinstance(endpoint, dict):
        for key, col in ENDPOINT_FIELDS.items():
            if (endpoint is None or key not in endpoint) and columns.get(col) is not None:
                if endpoint is None:
                    endpoint = record["endpoint"] = {}
                endpoint[key] = columns[col]
    if USER_REQUEST_ITEM in record:
        ordinal = record.pop(USER_REQUEST_ITEM)
        text = contents[ordinal] if type(ordinal) is int and 0 <= ordinal < len(contents) else None
        if text is None:
            raise ValueError(f"user_request_item {ordinal!r} names no item with content")
        record["user_request"] = text
    return record


def slim_attributes(record: dict[str, Any], columns: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` (changed in place and returned) without each of its ``attributes`` of
    :data:`ROW_ATTRIBUTES` whose column in ``columns`` holds the same value (type included), their
    places kept under :data:`ATTRIBUTES_IN_ROW` (module docstring). A record that already has the
    key, or no ``attributes`` object, is returned unchanged."""
    attrs = record.get("attributes")
    if not isinstance(attrs, dict) or ATTRIBUTES_IN_ROW in record:
        return record
    place = {key: k for k, key in enumerate(attrs)}
    places = [place[key] if key in attrs and _same(attrs[key], columns.get(col)) else None
              for key, col in ROW_ATTRIBUTES.items()]
    if all(p is None for p in places):
        return record
    for key, p in zip(ROW_ATTRIBUTES, places):
        if p is not None:
            del attrs[key]
    while places[-1] is None:
        places.pop()
    record[ATTRIBUTES_IN_ROW] = places
    return record


def restore_attributes(record: dict[str, Any], columns: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` (changed in place and returned) with each attribute :func:`slim_attributes` left
    out put back at its place from its column in ``columns``. Raises ``ValueError`` when
    :data:`ATTRIBUTES_IN_ROW` is damaged or names a column that is NULL."""
    if ATTRIBUTES_IN_ROW not in record:
        return record
    places = record.pop(ATTRIBUTES_IN_ROW)
    attrs = record.get("attributes")
    if (not isinstance(places, list) or len(places) > len(ROW_ATTRIBUTES) or not isinstance(attrs, dict)
            or not all(p is None or (type(p) is int and p >= 0) for p in places)):
        raise ValueError(f"{ATTRIBUTES_IN_ROW} {places!r} is damaged")
    pairs = list(attrs.items())
    for p, key, col in sorted((p, key, col) for p, (key, col) in zip(places, ROW_ATTRIBUTES.items()) if p is not None):
        if columns.get(col) is None:
            raise ValueError(f"{ATTRIBUTES_IN_ROW} names {key!r}, but the row's {col} is NULL")
        pairs.insert(p, (key, columns[col]))
    record["attributes"] = dict(pairs)
    return record


def _same(a: Any, b: Any) -> bool:
    return a is not None and type(a) is type(b) and a == b
