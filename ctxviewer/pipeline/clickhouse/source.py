""":class:`ClickHouseSource`: a ClickHouse spans table behind :class:`~ctxviewer.store.TraceSource`.

Read-only: every query runs with ``readonly = 2`` and ``max_execution_time`` (the URL's
``timeout``), bounded by the time window fixed when the source is opened (``[now - since, now]``,
nanoseconds; default 24 h), built by :mod:`~ctxviewer.pipeline.clickhouse.schema` from the
columns found on open. One chat span is one trace (``trace_id`` = ``TraceId:SpanId``). Lists are
keyset pages on ``(Timestamp, SpanId)``: :meth:`ClickHouseSource.list` walks pages after the last
row's key (an ``offset`` is skipped page by page, never sent as ``OFFSET``). List rows carry the
span's own columns only (:func:`~ctxviewer.pipeline.clickhouse.spans.list_row`; ``facts_context``
``None``, ``retained_count`` ``None``: surfaces assess the rows they show, :func:`ctxviewer.pipeline.fresh_rows.refreshed_row`).
Every query carries a query id (``ctxviewer-<uuid>``): :meth:`ClickHouseSource.cancel` sends
``KILL QUERY`` for those in flight. Content is read only by :meth:`ClickHouseSource.load` / :meth:`~ClickHouseSource.items`, for one
span (with the other spans of its OTel trace, which the mapping reads for session, agent and tools).

Not served yet (first slice): display filters on fields other than the span's own columns
(:meth:`~ClickHouseSource.filter_where` raises :class:`~ctxviewer.store.filters.FilterError`
naming the field), orders other than ``created``, ``blob`` (``None``). Full-text search reads the window
in place (:mod:`~ctxviewer.pipeline.clickhouse.search`). Row keys: :func:`~ctxviewer.pipeline.clickhouse.spans.row_key`. No Qt here.
"""

from __future__ import annotations

import builtins
import threading
import time
import uuid
from array import array
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, cast

from ctxviewer.model.trace import ContextItem, RequestTrace
from ctxviewer.pipeline.clickhouse.assessed import AssessedRows, OnDemand
from ctxviewer.pipeline.clickhouse.filters import compile_filter
from ctxviewer.pipeline.clickhouse.runs import RunTrees
from ctxviewer.pipeline.clickhouse.schema import SETTINGS, TableSchema, read_schema
from ctxviewer.pipeline.clickhouse.spans import list_row, row_key, split_id, trace_of
from ctxviewer.pipeline.clickhouse.target import Target, connect, failure_reason, parse_target
from ctxviewer.store import SORTABLE, StoreError, TraceQuery, TraceRow
from ctxviewer.store.filters import FilterError
from ctxviewer.store.fts import SearchHit, SearchPage

PAGE = 500
"""Rows a keyset page reads."""
KILL_SQL = ("KILL QUERY WHERE (query_id IN {ids:Array(String)} OR "
            "hasAny(extractAll(query, 'ctxviewer-[0-9a-f]+'), {ids:Array(String)})) "
            "AND NOT startsWith(query, 'KILL') ASYNC")
"""How :meth:`ClickHouseSource.cancel` stops its queries (``system.processes`` by query id or
by the id in the query's text, its ``log_comment``)."""


class ClickHouseSource(OnDemand, RunTrees):
    """The spans table of ``target`` as a read-only trace source (module docstring).

    Raises :class:`~ctxviewer.store.StoreError` naming the URL when the server cannot be reached,
    the table is missing or lacks the exporter's columns, or a query fails."""

    def __init__(self, target: Target, client: Any = None, now_ns: int | None = None,
                 schema: TableSchema | None = None, settings: dict[str, Any] | None = None) -> None:
        self.target = target
        self.settings: dict[str, Any] = dict(settings or {})
        """Server settings added to every query (e.g. an older server's optimisations turned off,
        as the tests simulate one); ``readonly`` and ``max_execution_time`` always win."""
        self.path = Path(target.url)
        self._client = client if client is not None else connect(target)
        hi = time.time_ns() if now_ns is None else now_ns
        self.window = (hi - int(target.window.total_seconds() * 1e9), hi)
        """The time window of every query, ``(lo, hi)`` nanoseconds since the epoch."""
        self.schema: TableSchema = schema or read_schema(self._client, target.database, target.table, target.url,
                                                            target.timeout)
        self._running: set[str] = set()  # query ids of the queries in flight (cancel() kills them)
        self._killed: set[str] = set()  # of those, the ones cancel() killed
        self._cancels = 0  # cancel() calls so far: a read of many queries stops when it changes
        self._lock = threading.Lock()
        self._keys: dict[int, tuple[int, str, str]] = {}  # key -> (Timestamp ns, TraceId, SpanId) listed
        self._assessed: AssessedRows | None = None  # the sidecar, opened on first use
        self.queries: builtins.list[str] = []
        """Every query text run, in order (the tests assert on them: window present, no OFFSET)."""

    # -- queries
    def _query(self, sql: str, **params: Any) -> builtins.list[tuple[Any, ...]]:
        return [tuple(r) for r in self._result(sql, **params).result_rows]

    def _result(self, sql: str, **params: Any) -> Any:
        """The driver's result of ``sql`` with the window's ``lo`` / ``hi`` and ``params`` bound,
        run with this source's settings and a query id of its own (:meth:`cancel` kills it)."""
        self.queries.append(sql)
        query_id = f"ctxviewer-{uuid.uuid4().hex}"
        settings: dict[str, Any] = {**self.settings, **SETTINGS, "max_execution_time": self.target.timeout,
                                    "query_id": query_id, "log_comment": query_id}
        lo, hi = self.window
        with self._lock:
            self._running.add(query_id)
        try:
            result = self._client.query(sql, parameters={"lo": lo, "hi": hi, **params}, settings=settings)
        except Exception as exc:  # the driver's errors have no common base below Exception
            if query_id in self._killed:
                raise StoreError(self.target.url, "query cancelled (KILL QUERY)") from None
            raise StoreError(self.target.url, f"query failed: {failure_reason(exc)}") from None
        finally:
            with self._lock:
                self._running.discard(query_id)
                self._killed.discard(query_id)
        return result

    def cancel(self, killer: Any = None) -> builtins.list[str]:
        """Stop the queries this handle is running (called from another thread): ``KILL QUERY``
        (:data:`KILL_SQL`) by their query ids on a connection of its own (``killer``, by default
        a new client), so the cancel reaches the server; the waiting call then raises
        :class:`~ctxviewer.store.StoreError`. Returns the query ids killed (``[]`` when none runs).
        Each query carries its id twice: as the ``query_id`` setting (a server's) and as its
        ``log_comment`` (chDB gives its queries ids of its own and shows the settings in the
        query's text in ``system.processes``, where the id is found). A read of many queries
        between two of them stops before the next with the same error (:meth:`_until_cancel`)."""
        with self._lock:
            ids = sorted(self._running)
            self._killed.update(ids)
            self._cancels += 1
        if not ids:
            return []
        client = killer if killer is not None else connect(self.target)
        client.command(KILL_SQL, parameters={"ids": ids})
        return ids

    def _until_cancel(self, cancelled: Callable[[], bool] | None) -> Callable[[], bool]:
        """``cancelled`` for a read of many queries starting now (search, the list's keys), raising
        :class:`~ctxviewer.store.StoreError` ("query cancelled") once :meth:`cancel` was called since."""
        start = self._cancels

        def check() -> bool:
            if self._cancels != start:
                raise StoreError(self.target.url, "query cancelled (KILL QUERY)")
            return cancelled is not None and cancelled()

        return check

    def _rows_after(self, after: tuple[int, str] | None, limit: int, descending: bool = False, where: str = "",
                    values: Sequence[Any] = ()) -> builtins.list[tuple[int, TraceRow]]:
        sql = self.schema.page_sql(after is not None, descending, where)
        params: dict[str, Any] = {"limit": limit, **_filter_params(values)}
        if after is not None:
            params.update(ts=after[0], span=after[1])
        out = []
        for r in self._query(sql, **params):
            row = list_row(r)
            key = row_key(row.trace_id)
            self._keys[key] = (int(r[0]), str(r[1]), str(r[2]))
            out.append((key, row))
        return out

    def _walk(self, descending: bool = False, where: str = "", values: Sequence[Any] = (),
              page: int = PAGE) -> Iterator[tuple[int, TraceRow]]:
        after: tuple[int, str] | None = None
        while True:
            rows = self._rows_after(after, page, descending, where, values)
            yield from rows
            if len(rows) < page:
                return
            ns, _tr, span = self._keys[rows[-1][0]]
            after = (ns, span)

    # -- handle
    def reader(self) -> ClickHouseSource:
        """A handle of its own for another thread: the same table, window and schema on a new
        client (chDB: this handle, whose one in-process engine serialises its queries)."""
        if self.target.scheme == "chdb":
            return self
        other = ClickHouseSource(self.target, connect(self.target), self.window[1], self.schema, self.settings)
        other.window, other._assessed = self.window, self.assessed()
        return other

    def own_reader(self) -> ClickHouseSource:
        """A handle for reads on another thread whose queries are its own (the window's Run tab and
        search dock): a server's :meth:`reader`; on chDB, this source's one in-process client under
        a handle of its own (its own query ids, list keys and run cache, the same sidecar), so its
        :meth:`cancel` kills only its queries and a cancel of this source's never kills its. Not for
        the trace list, whose keys are this source's."""
        if self.target.scheme != "chdb":
            return self.reader()
        import copy

        self.assessed()  # opened once, shared (thread-safe)
        other = copy.copy(self)
        other._running, other._killed, other._lock = set(), set(), threading.Lock()
        other._keys, other.queries, other._run = {}, [], None
        return other

    def close(self) -> None:
        """Release the client. Idempotent."""
        close = getattr(self._client, "close", None)
        if close is not None and self.target.scheme != "chdb":  # chDB: one engine per process, kept
            close()

    def __enter__(self) -> ClickHouseSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- filters
    def filter_where(self, query: TraceQuery | None) -> tuple[str, builtins.list[Any]]:
        """``query``'s display filter compiled for this table (:mod:`ctxviewer.pipeline.clickhouse.filters`):
        ``("", [])`` for none. Raises :class:`~ctxviewer.store.filters.FilterError` for a field
        this backend does not serve."""
        text = query.text if query is not None else ""
        try:
            return compile_filter(self.schema, text)
        except FilterError:
            served = self._assessed_where(text)
            if served is None:
                raise
            return served

    @staticmethod
    def _order(order: str) -> None:
        if order not in SORTABLE:
            raise ValueError(order)
        if order != "created":
            raise FilterError(f"order by {order} is not served on a ClickHouse store yet (only created)", 0)

    # -- the list (keyed)
    def first_rows(self, where: str = "", params: Sequence[Any] = (), order: str = "created",
                   descending: bool = False, limit: int = 100) -> builtins.list[tuple[int, TraceRow]]:
        """The first ``limit`` chat spans in ``(Timestamp, SpanId)`` order (one keyset page)."""
        self._order(order)
        return self._rows_after(None, limit, descending, where, params)

    def row_keys(self, where: str = "", params: Sequence[Any] = (), order: str = "created",
                 descending: bool = False, cancelled: Callable[[], bool] | None = None) -> array[int]:
        """Every key in list order, page by page; ``cancelled()`` polled between pages."""
        out = array("q")
        stop = self._until_cancel(cancelled)
        for chunk in self.key_chunks(where, params, order, descending):
            out.extend(chunk)
            if stop():
                break
        return out

    def key_chunks(self, where: str = "", params: Sequence[Any] = (), order: str = "created",
                   descending: bool = False) -> Iterator[array[int]]:
        """The keys of :meth:`row_keys`, one keyset page a chunk."""
        self._order(order)
        chunk = array("q")
        for key, _row in self._walk(descending, where, params):
            chunk.append(key)
            if len(chunk) >= PAGE:
                yield chunk
                chunk = array("q")
        if chunk:
            yield chunk

    def rows_by_key(self, keys: Sequence[int]) -> builtins.list[TraceRow | None]:
        """The rows of ``keys`` (listed by this source before; ``None`` for another)."""
        out: builtins.list[TraceRow | None] = []
        for key in keys:
            known = self._keys.get(key)
            rows = self._query(self.schema.span_sql(), trace=known[1], span=known[2]) if known else []
            out.append(list_row(rows[0]) if rows else None)
        return out

    def key_of(self, trace_id: str) -> int | None:
        """The key of ``trace_id`` when its span is in the window, else ``None``."""
        ids = split_id(trace_id)
        if ids is None:
            return None
        rows = self._query(self.schema.span_sql(), trace=ids[0], span=ids[1])
        if not rows:
            return None
        key = row_key(trace_id)
        self._keys[key] = (int(rows[0][0]), ids[0], ids[1])
        return key

    def count_where(self, where: str = "", params: Sequence[Any] = ()) -> int:
        """Exact number of chat spans in the window (matching ``where``)."""
        return int(self._query(self.schema.count_sql(where), **_filter_params(params))[0][0])

    def estimate_count(self, where: str = "") -> int | None:
        """A fast upper bound of the chat spans in the window (``where`` is not applied: it can
        only lower the count): the rows of the table's primary-key granules the window selects
        (``EXPLAIN ESTIMATE``, no data read), every span kind counted; ``None`` when the server
        cannot estimate. The list shows it as "≤ N" until :meth:`count_where` has the exact count."""
        try:
            rows = self._query(f"EXPLAIN ESTIMATE SELECT 1 FROM {self.schema.table_sql} WHERE {self.schema.window()}")
        except StoreError:
            return None
        return sum(int(r[3]) for r in rows)

    # -- the list (paged)
    def count(self, query: TraceQuery | None = None) -> int:
        """Number of chat spans in the window matching ``query``'s filter."""
        return self.count_where(*self.filter_where(query))

    def list(self, query: TraceQuery | None = None, offset: int = 0, limit: int = 200) -> builtins.list[TraceRow]:
        """Rows ``offset`` .. ``offset + limit`` (``limit`` < 0: all) in ``(Timestamp, SpanId)``
        order, read by keyset pages (``offset`` rows are skipped page by page, not by OFFSET)."""
        where, values = self.filter_where(query)
        out: builtins.list[TraceRow] = []
        for n, (_, row) in enumerate(self._walk(False, where, values)):
            if n < offset:
                continue
            if 0 <= limit <= len(out):
                break
            out.append(row)
        return out

    def stream(self, after: tuple[int, str] | None, limit: int, where: str = "",
               values: Sequence[Any] = ()) -> Iterator[tuple[int, TraceRow]]:
        """Rows after the key ``(Timestamp ns, SpanId)`` (``None``: from the start) matching the
        compiled filter ``where`` (:meth:`filter_where`), at most ``limit`` (negative: all), as
        ``(Timestamp ns, row)``: the CLI's cursor pages."""
        n = 0
        while limit < 0 or n < limit:
            page = self._rows_after(after, PAGE if limit < 0 else min(PAGE, limit - n), False, where, values)
            for key, row in page:
                ns, _tr, span = self._keys[key]
                yield ns, row
                n += 1
                after = (ns, span)
            if len(page) < PAGE:
                return

    # -- search
    def search(self, query: str, *, after: tuple[int, int, int] | None = None, limit: int = 50,
               cancelled: Callable[[], bool] | None = None) -> SearchPage:
        """Up to ``limit`` hits of ``query`` after the cursor ``after``, as the SQLite store's
        search finds them (:mod:`ctxviewer.pipeline.clickhouse.search`); ``cancelled()`` polled
        between time slices. Raises :class:`~ctxviewer.store.StoreError` when a query fails."""
        from ctxviewer.pipeline.clickhouse.search import search_page

        return search_page(self, query, after=after, limit=limit, cancelled=self._until_cancel(cancelled))

    def search_hits(self, query: str, limit: int = 50) -> builtins.list[SearchHit]:
        """The first ``limit`` hits of ``query`` (negative: all)."""
        return self.search(query, limit=limit).hits

    # -- one trace
    def mapped(self, trace_id: str) -> tuple[RequestTrace | None, builtins.list[str]]:
        """The trace of chat span ``trace_id`` and what the mapping said about its OTel trace's
        spans (the import's warnings); ``None`` when it is not a chat span in the window or the
        mapping could not make it a trace (then the problems say why)."""
        ids = split_id(trace_id)
        if ids is None:
            return None, [f"{trace_id}: not a TraceId:SpanId trace id"]
        rows = self._query(self.schema.trace_sql(), trace=ids[0])
        return trace_of(rows, trace_id, f"{self.target.database}.{self.target.table}")

    def load_with_problems(self, trace_id: str) -> tuple[RequestTrace, builtins.list[str]]:
        """:meth:`load` and what the mapping said (:meth:`mapped`); ``KeyError`` for no trace."""
        trace, problems = self.mapped(trace_id)
        if trace is None:
            raise KeyError(trace_id)
        return trace, problems

    def load(self, trace_id: str) -> RequestTrace:
        """The chat span ``trace_id`` (``TraceId:SpanId``) as a trace, made by the OTel importer's
        mapping from the spans of its OTel trace. ``KeyError`` when it is not a chat span in the window."""
        return self.load_with_problems(trace_id)[0]

    def items(self, trace_id: str) -> tuple[ContextItem, ...]:
        """The trace's items (``()`` for an unknown id)."""
        try:
            return self.load(trace_id).items
        except KeyError:
            return ()

    def blob(self, sha256: str) -> str | None:
        """``None``: this backend keeps no content addresses."""
        return None

    def session_trace_ids(self, session_id: str) -> builtins.list[str]:
        """Trace ids of the chat spans whose own ``gen_ai.conversation.id`` is ``session_id``, in
        send order (a session recorded only on an ancestor span is not found here yet)."""
        return [f"{tr}:{sp}" for tr, sp in self._query(self.schema.session_sql(), session=session_id)]


def _filter_params(values: Sequence[Any]) -> dict[str, Any]:
    """A compiled filter's values as the query parameters ``f0``, ``f1``..."""
    return {f"f{i}": v for i, v in enumerate(values)}


TABLE_KINDS = ("ctxviewer.pipeline.clickhouse.langfuse_source:open_langfuse",)
"""The other table kinds, tried in turn before the exporter's spans table: ``"module:function"``
specs, loaded by name (as the importers' registry loads its formats: a kind's module subclasses
:class:`ClickHouseSource`, so this module never imports it), each called with the
:class:`~ctxviewer.pipeline.clickhouse.target.Target` and returning its source or ``None`` (not
that kind)."""


def open_clickhouse(url: str) -> ClickHouseSource:
    """The source of ``url`` (:func:`~ctxviewer.pipeline.clickhouse.target.parse_target`), by table
    kind: the first of :data:`TABLE_KINDS` that recognises it (Langfuse's tables: ``kind=langfuse``
    or their columns), else a :class:`ClickHouseSource` of the exporter's spans table. Raises
    :class:`~ctxviewer.store.StoreError` naming the URL."""
    from ctxviewer.util.plugins import load_spec

    target = parse_target(url)
    for spec in TABLE_KINDS:
        found = load_spec(spec)(target)
        if found is not None:
            return cast(ClickHouseSource, found)
    return ClickHouseSource(target)
