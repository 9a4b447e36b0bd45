"""Listing traces: the narrow row, the filter/sort query, and the SQL built from it.

:class:`TraceQuery` is the one filter/sort object shared by the GUI's trace list and the CLI
(mitmproxy's ``View``); it runs as SQL against the ``traces`` table only, never over payloads, so
listing a million traces costs an index walk and the page asked for. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ctxviewer.model.span_facts import SPAN_COLUMNS
from ctxviewer.model.times import TraceFormatError, parse_created
from ctxviewer.store.call_columns import CALL_COLUMNS
from ctxviewer.store.facts import FACT_COLUMNS

SORTABLE: tuple[str, ...] = (
    "created",
    "trace_id",
    "model",
    "input_tokens",
    "provider",
    "service",
    "capacity",
    "reserved_output_tokens",
    "retained_count",
    "omitted_count",
    "state",
    "cost",
)
"""Fields :class:`TraceQuery` can sort on; each walks an index on ``(field, trace_id)`` (schema 4:
:data:`~ctxviewer.store.migrations.SORT_INDEXED`)."""

ROW_COLUMNS: tuple[str, ...] = (
    "trace_id",
    "created",
    "service",
    "provider",
    "model",
    "capacity",
    "input_tokens",
    "reserved_output_tokens",
    "retained_count",
    "omitted_count",
    "replay_of",
    "source_format",
    *FACT_COLUMNS,
    "session_id",
    *SPAN_COLUMNS,
    *CALL_COLUMNS,
    "scores",
)
"""Columns of the ``traces`` table, in :class:`TraceRow` field order."""

INDEXED_SORTS: frozenset[str] = frozenset({"created", "trace_id", "model", "input_tokens", "state", "provider",
                                           "service", "capacity", "reserved_output_tokens", "retained_count",
                                           "omitted_count", "cost"})
"""Members of :data:`SORTABLE` with an index on ``(column, trace_id)``: the first page in that
order is an index walk (about a millisecond on a million traces)."""


@dataclass(frozen=True)
class TraceRow:
    """One row of the narrow ``traces`` table: what the trace list shows. ``None`` = not recorded."""

    trace_id: str
    """Stable identifier of the trace."""
    created: datetime | None
    """When the request was sent (aware UTC, millisecond precision)."""
    service: str | None
    """Application / service name."""
    provider: str | None
    """Endpoint provider (``openai``, ``anthropic``, ...)."""
    model: str | None
    """Requested model."""
    capacity: int | None
    """Context capacity C in tokens."""
    input_tokens: int | None
    """Counted input tokens (``budget.check_capacity(trace).input_tokens`` at add time)."""
    reserved_output_tokens: int | None
    """B_out in tokens."""
    retained_count: int | None
    """Number of items sent; ``None`` before the trace was read (a row of a store that keeps no
    facts, such as a ClickHouse spans table: :func:`ctxviewer.pipeline.fresh_rows.refreshed_row`
    fills it)."""
    omitted_count: int | None
    """Number of items left out; ``None`` like ``retained_count``."""
    replay_of: str | None
    """trace_id of the request this one replays."""
    source_format: str | None
    """Importer that produced the trace."""
    omissions_recorded: bool | None = None
    """False when the source format cannot record omitted items (then ``omitted_count`` means
    nothing); ``None`` for a row whose facts could not be computed."""
    margin: int | None = None
    """eq. 3.1 margin in tokens (shared: C - input - B_out; separate: input headroom)."""
    fits: bool | None = None
    """Whether eq. 3.1 holds; ``None`` when it cannot be decided."""
    state: str | None = None
    """``ok`` / ``warning`` / ``failure`` (:class:`ctxviewer.model.findings.State`)."""
    worst_rule: str | None = None
    """Rule id of the worst finding (``policy.unavailable``), or ``None`` when there is none."""
    worst_severity: str | None = None
    """Severity of the worst finding (``failure``), or ``None``."""
    verdict: str | None = None
    """The assessment's verdict in words."""
    facts_context: str | None = None
    """The fingerprint of the context the facts were computed in
    (:attr:`ctxviewer.assess.context.AssessContext.fingerprint`); ``None`` when not recorded (a row
    written before schema 7). Schema 7."""
    window_used: int | None = None
    """Tokens eq. 3.1 set against :attr:`window_capacity`, as the header decided it: input + B_out
    (``window_capacity - margin``; the input by the provider's count when that decided, the tokens a
    refusal says were sent; the input alone in separate-limit mode or when B_out is not recorded);
    ``None`` when eq. 3.1 was not decided or for a row stored before schema 14. Schema 14."""
    window_capacity: int | None = None
    """The context window C the header checked eq. 3.1 against, tokens, recorded or assumed (the
    model catalogue, ``ctxviewer.toml``); the input limit in separate-limit mode; ``None`` like
    :attr:`window_used`. Schema 14."""
    session_id: str | None = None
    """Conversation id (OTel ``gen_ai.conversation.id``), schema 3."""
    span_status: str | None = None
    """Span status word (:func:`ctxviewer.model.span_facts.span_status`): ``ok``, ``error``, ``unset`` or
    ``unfinished`` (never ended); ``None`` when not recorded. Schema 5."""
    status_message: str | None = None
    """The span's status message (``otel.status_message``), cut to 500 code points. Schema 5."""
    agent: str | None = None
    """Agent name (``gen_ai.agent.name``, or recorded on an ancestor span). Schema 5."""
    operation: str | None = None
    """Operation name (``gen_ai.operation.name``: ``chat``, ...). Schema 5."""
    cost: float | None = None
    """What the call cost, US dollars, from its recorded usage priced by genai-prices
    (:mod:`ctxviewer.tokens.cost`); ``None`` = not known (never 0). Schema 8."""
    output_tokens: int | None = None
    """Provider-reported output tokens. Schema 8."""
    duration_ms: float | None = None
    """The span's duration (end minus start), milliseconds; ``None`` when not recorded. Schema 8."""
    scores: str | None = None
    """The recorded scores in one line (``"match: I"``, :func:`ctxviewer.store.score_rows.summary`);
    ``None`` when the call was not scored. Schema 8."""
    damaged: str | None = None
    """What in the stored row cannot be read (``"created: '1763604838' is not an ISO-8601 time"``:
    a row another program wrote), the value then listed as not recorded; ``None`` for a sound row."""

    @classmethod
    def from_sql(cls, row: tuple[Any, ...]) -> TraceRow:
        """Build from a ``SELECT <ROW_COLUMNS>`` row. A ``created`` that is not ISO-8601 text is
        ``None`` with :attr:`damaged` saying so (never raises for a stored value)."""
        values = dict(zip(ROW_COLUMNS, row))
        try:
            values["created"] = parse_created(values["created"])
        except TraceFormatError as exc:
            values["created"], values["damaged"] = None, str(exc)
        for flag in ("omissions_recorded", "fits"):
            if values[flag] is not None:
                values[flag] = bool(values[flag])
        return cls(**values)


@dataclass(frozen=True)
class TraceQuery:
    """Filter and order for listing traces.

    ``text`` is a display filter (:mod:`ctxviewer.store.filters`: ``model ~ gpt-4o and omitted > 2``;
    a lone word is looked for in the trace id, model, service and provider, so ``claude`` still
    works). ``sort`` is one of :data:`SORTABLE`; ties are broken by ``trace_id`` in the same
    direction so paging is stable. ``NULL`` values sort first ascending and last descending.

    Raises ``ValueError`` for a ``sort`` that is not in :data:`SORTABLE`, and
    :class:`ctxviewer.store.filters.FilterError` (a ``ValueError`` with the column) for a filter that
    does not parse.
    """

    text: str = ""
    """Display filter text ("" = all traces)."""
    sort: str = "created"
    """Field to order by."""
    descending: bool = False
    """Largest / newest first."""

    def __post_init__(self) -> None:
        if self.sort not in SORTABLE:
            raise ValueError(f"cannot sort by {self.sort!r}; sortable fields: {', '.join(SORTABLE)}")
        if self.text.strip():  # a FilterError (ValueError) here, not at the first page
            from ctxviewer.store.filters import compile_filter  # no grammar for an unfiltered list

            compile_filter(self.text)

    def filter_sql(self) -> tuple[str, list[Any]]:
        """``(fragment, params)``: the filter as a WHERE fragment (without ``WHERE``) for the
        store's keyed list methods (:meth:`TraceStore.row_keys` ...); ``("", [])`` for none."""
        where, params = self.where()
        return where.removeprefix(" WHERE "), params

    def where(self) -> tuple[str, list[Any]]:
        """``(" WHERE ...", params)`` for the filter, or ``("", [])`` when there is none."""
        if not self.text.strip():  # no filter (compile_filter's own answer, without importing it)
            return "", []
        from ctxviewer.store.filters import compile_filter

        compiled = compile_filter(self.text)
        return ("", []) if compiled.empty else (f" WHERE {compiled.where}", list(compiled.params))

    def order_by(self) -> str:
        """``" ORDER BY ..."`` for the sort field (a name from :data:`SORTABLE`, never user SQL)."""
        d = " DESC" if self.descending else ""
        if self.sort == "trace_id":
            return f" ORDER BY trace_id{d}"
        return f" ORDER BY {self.sort}{d}, trace_id{d}"


def list_sql(query: TraceQuery, offset: int, limit: int,
             planned: tuple[str, list[Any]] | None = None) -> tuple[str, list[Any]]:
    """SQL and parameters selecting one page of :data:`ROW_COLUMNS` rows from ``traces``.

    ``offset`` and ``limit`` are row counts; a negative ``limit`` means no limit. ``planned`` is
    the filter as ``(where, params)`` from :meth:`TraceStore.filter_where
    <ctxviewer.store.TraceStore.filter_where>` (default: ``query``'s own). Raises ``ValueError``
    for a negative ``offset``.
    """
    if offset < 0:
        raise ValueError(f"offset must be >= 0, got {offset}")
    where, params = _where(query, planned)
    sql = f"SELECT {', '.join(ROW_COLUMNS)} FROM traces{where}{query.order_by()} LIMIT ? OFFSET ?"
    return sql, [*params, limit, offset]


def count_sql(query: TraceQuery, planned: tuple[str, list[Any]] | None = None) -> tuple[str, list[Any]]:
    """SQL and parameters counting the traces that match ``query`` (``planned``: as for :func:`list_sql`)."""
    where, params = _where(query, planned)
    return f"SELECT count(*) FROM traces{where}", list(params)


def order_sql(order: str, descending: bool) -> str:
    """``" ORDER BY <order>, trace_id"`` (both ``DESC`` when ``descending``). ``order`` must be
    in :data:`SORTABLE` (a column name, never user SQL); raises ``ValueError`` otherwise."""
    return TraceQuery(sort=order, descending=descending).order_by()


def keyed_sql(where: str, order: str, descending: bool, *, keys_only: bool) -> str:
    """SQL selecting ``rowid`` (the row key) -- and, unless ``keys_only``, the
    :data:`ROW_COLUMNS` -- of the ``traces`` rows matching the WHERE fragment ``where`` ("" = all),
    in list order. Never a payload column, never ``OFFSET``. Raises ``ValueError`` for an
    ``order`` outside :data:`SORTABLE`."""
    cols = "rowid" if keys_only else f"rowid, {', '.join(ROW_COLUMNS)}"
    cond = f" WHERE ({where})" if where.strip() else ""
    return f"SELECT {cols} FROM traces{cond}{order_sql(order, descending)}"


def _where(query: TraceQuery, planned: tuple[str, list[Any]] | None) -> tuple[str, list[Any]]:
    if planned is None:
        return query.where()
    where, params = planned
    return ("", []) if where == "1" else (f" WHERE {where}", list(params))
