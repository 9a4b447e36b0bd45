""":class:`LangfuseSource`: Langfuse's ClickHouse tables (v3 ``observations`` + ``traces`` +
``scores``, v4 ``events_full`` + ``scores``) behind :class:`~ctxviewer.store.TraceSource`, read-only.

URL: ``clickhouse://USER@HOST:PORT/DB?table=observations&kind=langfuse&project_id=P`` (``table``
``observations`` by default with ``kind=langfuse``; ``events_full`` / ``events_core`` for v4; a
table of another name is recognised by its columns), ``since`` / ``timeout`` as for
``otel_traces`` (:mod:`~ctxviewer.pipeline.clickhouse.target`), ``dedup=final|latest``
(:mod:`~ctxviewer.pipeline.clickhouse.langfuse_schema`). ``project_id`` is required: every query
is bounded by it (a URL without it is refused).

The backend is :class:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource` (the same query
ids, settings, cancel, keyset walk and handle rules) with Langfuse's SQL; one model call is one
trace, its id the observation id, mapped by the blob-storage importer's own code path
(:func:`ctxviewer.importers.formats.langfuse.blob.table_records`: the rows of its Langfuse trace,
trace row and scores, made API objects by :mod:`ctxviewer.importers.formats.langfuse.rows`), so
``show`` says what it says of the same rows exported and imported into SQLite. Display filters
are not served on these tables yet (:meth:`LangfuseSource.filter_where` says so). No Qt here.
"""

from __future__ import annotations

import builtins
from dataclasses import replace
from typing import Any, Sequence, cast
from urllib.parse import parse_qs, urlsplit

from ctxviewer.importers.contract import ImportProblem
from ctxviewer.importers.formats.langfuse.blob import IMPORTER, table_records
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.clickhouse.langfuse_schema import TABLES, TRACE_MARGIN_NS, LangfuseSchema, read_langfuse_schema
from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
from ctxviewer.pipeline.clickhouse.spans import as_stored, at_nanos, row_key
from ctxviewer.pipeline.clickhouse.target import Target, connect
from ctxviewer.store import StoreError, TraceQuery, TraceRow
from ctxviewer.store.filters import FilterError

KINDS = ("otel", "langfuse")
"""``kind=`` values of a ClickHouse URL."""
NO_FILTERS = ("display filters are not served on a Langfuse table yet; pull the window into a database "
              "(ctxviewer import URL -o local.db) to filter it")


def url_options(url: str) -> dict[str, str]:
    """The query options of ``url`` (the last value of each)."""
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


def list_row(row: Sequence[Any]) -> TraceRow:
    """The narrow :class:`~ctxviewer.store.TraceRow` of a :meth:`LangfuseSchema.row_select` row:
    what the observation's own columns say (the rest is laid out from the loaded trace,
    :func:`ctxviewer.pipeline.fresh_rows.assessed_row`)."""
    ns, _trace, oid, model, level, message, _name = row
    error = str(level) == "ERROR"
    return TraceRow(trace_id=str(oid), created=at_nanos(int(ns)), service=None, provider=None, model=model or None,
                    capacity=None, input_tokens=None, reserved_output_tokens=None, retained_count=None,
                    omitted_count=None, replay_of=None, source_format="langfuse", session_id=None,
                    span_status="error" if error else None, status_message=(message or None) if error else None)


class LangfuseSource(ClickHouseSource):
    """Langfuse's tables of ``target`` for one project as a read-only trace source (module docstring).

    Raises :class:`~ctxviewer.store.StoreError` naming the URL when the tables cannot be read."""

    def __init__(self, target: Target, project: str, client: Any = None, now_ns: int | None = None,
                 schema: LangfuseSchema | None = None, settings: dict[str, Any] | None = None) -> None:
        client = client if client is not None else connect(target)
        found = schema or read_langfuse_schema(client, target.database, target.table, target.url, target.timeout,
                                               target.window, url_options(target.url).get("dedup"))
        if found is None:
            raise StoreError(target.url, f"{target.database}.{target.table} is not a Langfuse observations table")
        self.project = project
        """The ``project_id`` every query is bounded by."""
        self.lf: LangfuseSchema = found
        super().__init__(target, client, now_ns, schema=cast(Any, found), settings=settings)

    def _result(self, sql: str, **params: Any) -> Any:
        return super()._result(sql, project=self.project, margin=TRACE_MARGIN_NS, **params)

    def _dicts(self, sql: str, **params: Any) -> builtins.list[dict[str, Any]]:
        """Rows as ``{column: value}`` (the only queries that read content)."""
        result = self._result(sql, **params)
        names = list(result.column_names)
        return [dict(zip(names, r)) for r in result.result_rows]

    def _rows_after(self, after: tuple[int, str] | None, limit: int, descending: bool = False, where: str = "",
                    values: Sequence[Any] = ()) -> builtins.list[tuple[int, TraceRow]]:
        params: dict[str, Any] = {"limit": limit}
        if after is not None:
            params.update(ts=after[0], span=after[1])
        out = []
        for r in self._query(self.lf.page_sql(after is not None, descending), **params):
            row = list_row(r)
            key = row_key(row.trace_id)
            self._keys[key] = (int(r[0]), str(r[1]), str(r[2]))
            out.append((key, row))
        return out

    def reader(self) -> LangfuseSource:
        """A handle of its own for another thread (chDB: this one)."""
        if self.target.scheme == "chdb":
            return self
        other = LangfuseSource(self.target, self.project, connect(self.target), self.window[1], self.lf, self.settings)
        other.window, other._assessed = self.window, self.assessed()
        return other

    def filter_where(self, query: TraceQuery | None) -> tuple[str, builtins.list[Any]]:
        """``("", [])`` for no filter; any filter raises :class:`~ctxviewer.store.filters.FilterError`."""
        if query is None or not query.text.strip():
            return "", []
        raise FilterError(NO_FILTERS, 0, query.text)

    def rows_by_key(self, keys: Sequence[int]) -> builtins.list[TraceRow | None]:
        """The rows of ``keys`` (listed by this source before; ``None`` for another)."""
        out: builtins.list[TraceRow | None] = []
        for key in keys:
            known = self._keys.get(key)
            rows = self._query(self.lf.call_sql(), span=known[2]) if known else []
            out.append(list_row(rows[0]) if rows else None)
        return out

    def key_of(self, trace_id: str) -> int | None:
        """The key of the model call ``trace_id`` (an observation id) when it is in the window."""
        rows = self._query(self.lf.call_sql(), span=trace_id)
        if not rows:
            return None
        key = row_key(trace_id)
        self._keys[key] = (int(rows[0][0]), str(rows[0][1]), trace_id)
        return key

    def count_where(self, where: str = "", params: Sequence[Any] = ()) -> int:
        """Exact number of model calls in the window."""
        return int(self._query(self.lf.count_sql())[0][0])

    def mapped(self, trace_id: str) -> tuple[RequestTrace | None, builtins.list[str]]:
        """The trace of model call ``trace_id`` and what the mapping said about its Langfuse trace
        (the import's warnings); ``None`` when it is not a model call in the window."""
        rows = self._query(self.lf.call_sql(), span=trace_id)
        if not rows:
            return None, []
        found: RequestTrace | None = None
        problems: builtins.list[str] = []
        for rec in self._run_records(str(rows[0][1])):
            if isinstance(rec, ImportProblem):
                problems.append(f"{rec.record}: {rec.message}")
            elif isinstance(rec, RequestTrace) and rec.trace_id == trace_id:
                found = rec
        if found is None:
            return None, problems
        found, repaired = as_stored(found)
        return found, problems + repaired

    def _run_records(self, run_id: str) -> builtins.list[Any]:
        """The import's records of Langfuse trace ``run_id``: its observations, trace row and scores
        through the blob-storage importer (:func:`~ctxviewer.importers.formats.langfuse.blob.table_records`),
        model calls said not to record omissions (as the registry loads the format). The run tree
        (:class:`~ctxviewer.pipeline.clickhouse.runs.RunTrees`) and :meth:`mapped` read these."""
        where = f"{self.target.database}.{self.lf.table}"
        obs = [(f"{where} row {r.get(self.lf.id_col)}", r) for r in self._dicts(self.lf.trace_sql(), trace=run_id)]
        traces = ([(f"{self.target.database}.traces row {run_id}", r)
                   for r in self._dicts(self.lf.trace_row_sql(), trace=run_id)] if self.lf.traces else [])
        scores = ([(f"{self.target.database}.scores row {r.get('id')}", r)
                   for r in self._dicts(self.lf.scores_sql(), trace=run_id)] if self.lf.scores else [])
        out: builtins.list[Any] = []
        for rec in table_records(where, obs, traces, scores):
            if isinstance(rec, RequestTrace) and rec.omissions_recorded and not IMPORTER.records_omissions:
                rec = replace(rec, omissions_recorded=False)
            out.append(rec)
        return out

    def run_of(self, trace_id: str) -> str | None:
        """The run of model call ``trace_id`` (an observation id): its Langfuse trace id, as a
        ``langfuse-blob`` import stores it; ``None`` when it is not a model call in the window."""
        rows = self._query(self.lf.call_sql(), span=trace_id)
        return str(rows[0][1]) if rows else None

    def session_trace_ids(self, session_id: str) -> builtins.list[str]:
        """Trace ids of the model calls of the session ``session_id`` (the trace's ``session_id``), in send order."""
        return [str(r[0]) for r in self._query(self.lf.session_sql(), session=session_id)]


def open_langfuse(target: Target) -> LangfuseSource | None:
    """``target`` opened as Langfuse's tables when the URL says ``kind=langfuse`` or its table's
    columns are Langfuse's (``None``: another kind, left to the ``otel_traces`` backend). Raises
    :class:`~ctxviewer.store.StoreError` naming the URL for a bad ``kind``, a missing
    ``project_id`` or a table that is not Langfuse's."""
    opts = url_options(target.url)
    kind = opts.get("kind")
    if kind is not None and kind not in KINDS:
        raise StoreError(target.url, f"kind={kind!r}: expected one of {', '.join(KINDS)}")
    if kind == "otel" or (kind is None and target.table not in TABLES and "table" not in opts):
        return None
    if kind == "langfuse" and "table" not in opts:
        target = replace(target, table="observations")
    client = connect(target)
    schema = read_langfuse_schema(client, target.database, target.table, target.url, target.timeout, target.window,
                                  opts.get("dedup"))
    if schema is None:
        if kind == "langfuse":
            raise StoreError(target.url, f"{target.database}.{target.table} is not a Langfuse observations table "
                             f"(no column {', '.join(c for c in ('id', 'trace_id', 'start_time', 'type'))})")
        return None
    project = opts.get("project_id")
    if not project:
        raise StoreError(target.url, "a Langfuse table is read one project at a time: add &project_id=ID")
    return LangfuseSource(target, project, client, schema=schema)
