"""The run tree of a ClickHouse spans table: the whole OTel trace of a chat span as the steps of its
run, as a trace database stores them at import (``ctxviewer tree URL TRACE_ID``, the window's run
panel).

A run is one OTel trace (run id = its ``TraceId``), read whole within the window
(:meth:`~ctxviewer.pipeline.clickhouse.schema.TableSchema.trace_sql`) and made steps by the OTel
importer's own path (:func:`ctxviewer.importers.formats.otel.load_spans_with_runs`: one code path
for a span from a file or a table), each step read back as the store reads a stored one
(:func:`ctxviewer.store.runs.stored_step`). A model call's step carries its call's reported input
tokens (the trace's usage), output tokens, cost and state from the call assessed as an import
assesses it (:meth:`~ctxviewer.pipeline.clickhouse.assessed.OnDemand.assess_traces`, kept in the
sidecar), so a run reads as the same spans imported into SQLite read. The methods are those of
:class:`~ctxviewer.store.runs.TraceRuns` the run tree calls (``run_of``, ``run_steps``,
``children``, ``run_bounds``, ``step_path``); the last run read is kept, so expanding a step reads
nothing more. No Qt here.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import RequestTrace
from ctxviewer.store.runs import RunStep, stored_step


def _order(step: RunStep) -> tuple[bool, str, str]:
    """The store's step order: by start (steps without one last), then span id."""
    start = step.span.start
    return start is None, "" if start is None else start.isoformat(), step.span.span_id


class RunTrees:
    """Run-tree reads of a ClickHouse source (:class:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource`
    inherits them). Raise :class:`~ctxviewer.store.StoreError` when a query fails."""

    schema: Any
    target: Any
    reads_runs_whole = True
    """A run is read whole (one query by ``TraceId``) and kept: its steps' children come from
    memory, so a reader of the tree (the window's Run tab) takes every level with its first read."""
    _run_lock = threading.Lock()
    _run: tuple[str, list[RunStep]] | None = None

    if TYPE_CHECKING:  # the source's own (and OnDemand's)
        def _query(self, sql: str, **params: Any) -> list[tuple[Any, ...]]: ...

        def assess_traces(self, traces: Any, context: Any) -> dict[str, Any]: ...

        def assessed(self) -> Any: ...

    def run_of(self, trace_id: str) -> str | None:
        """The run of chat span ``trace_id`` (``TraceId:SpanId``): its ``TraceId``; or
        ``trace_id`` itself when it is a ``TraceId`` with spans in the window; else ``None``."""
        from ctxviewer.pipeline.clickhouse.spans import split_id

        ids = split_id(trace_id)
        if ids is not None:
            found = self._query(self.schema.span_sql(), trace=ids[0], span=ids[1])
            return ids[0] if found else None
        rows = self._query(f"SELECT 1 FROM {self.schema.table_sql} WHERE {self.schema.window()} "
                           "AND TraceId = {trace:String} LIMIT 1", trace=trace_id)
        return trace_id if rows else None

    def run_steps(self, run_id: str) -> list[RunStep]:
        """Every step of run ``run_id`` (the spans of that OTel trace in the window), by start
        time. Empty when no span of it is in the window."""
        with self._run_lock:
            if self._run is not None and self._run[0] == run_id:
                return list(self._run[1])
        steps = self._read_run(run_id)
        with self._run_lock:
            self._run = (run_id, steps)
        return list(steps)

    def _run_records(self, run_id: str) -> list[Any]:
        """The import's records of run ``run_id`` (its :class:`RunSpan` steps, its model calls'
        :class:`RequestTrace` s, problems): the OTel trace's spans through the OTel importer."""
        from ctxviewer.importers.formats.otel import load_spans_with_runs
        from ctxviewer.pipeline.clickhouse.spans import span_of

        where = f"{self.target.database}.{self.target.table}"
        rows = self._query(self.schema.trace_sql(), trace=run_id)
        return list(load_spans_with_runs([span_of(r, where) for r in rows], where))

    def _read_run(self, run_id: str) -> list[RunStep]:
        from ctxviewer.pipeline.clickhouse.spans import as_stored

        records = self._run_records(run_id)
        runs = [r for r in records if isinstance(r, RunSpan) and r.run_id == run_id]
        calls = {r.trace_id for r in runs if r.trace_id}
        traces = [as_stored(r)[0] for r in records if isinstance(r, RequestTrace) and r.trace_id in calls]
        assessed = self.assess_traces(traces, self._context()) if traces else {}
        usage = {t.trace_id: (t.usage.input_tokens if t.usage is not None else None) for t in traces}
        parents = {r.parent_id for r in runs if r.parent_id}
        steps = []
        for r in runs:
            row = assessed.get(r.trace_id) if r.trace_id else None
            steps.append(stored_step(r, usage.get(r.trace_id) if r.trace_id else None,
                                     row.output_tokens if row else None, row.cost if row else None,
                                     row.state if row else None, r.span_id in parents))
        return sorted(steps, key=_order)

    def _context(self) -> Any:
        """The context the rows were last assessed in, else the store's (:func:`~ctxviewer.assess.context.context_for_db`)."""
        context = self.assessed().context
        if context is None:
            from ctxviewer.assess.context import context_for_db

            context = context_for_db(self.target.url)
        return context

    def children(self, run_id: str, parent_id: str | None) -> list[RunStep]:
        """The steps of ``run_id`` directly under ``parent_id`` (``None``: its roots), by start time."""
        return [s for s in self.run_steps(run_id) if s.span.parent_id == parent_id]

    def run_bounds(self, run_id: str) -> tuple[datetime, datetime] | None:
        """``(first start, last end)`` over the steps of ``run_id`` (a step without an end counts
        at its start), or ``None`` when no step has a start."""
        starts = [s.span.start for s in self.run_steps(run_id) if s.span.start is not None]
        ends = [s.span.end or s.span.start for s in self.run_steps(run_id) if (s.span.end or s.span.start) is not None]
        return (min(starts), max(e for e in ends if e is not None)) if starts else None

    def step_path(self, trace_id: str) -> tuple[str, list[str]] | None:
        """``(run id, span ids from the root down to the step of ``trace_id``)``, or ``None``
        when no run holds it (a cycle of parents stops the walk)."""
        run_id = self.run_of(trace_id)
        if run_id is None:
            return None
        by_id = {s.span.span_id: s for s in self.run_steps(run_id)}
        step = next((s for s in by_id.values() if s.span.trace_id == trace_id), None)
        if step is None:
            return None
        chain: list[str] = []
        current: RunStep | None = step
        while current is not None and current.span.span_id not in chain:
            chain.append(current.span.span_id)
            current = by_id.get(current.span.parent_id or "")
        return run_id, chain[::-1]
