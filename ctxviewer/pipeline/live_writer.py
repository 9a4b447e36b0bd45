"""Writing spans into a database as they arrive (the live OTLP receiver's writer,
:mod:`ctxviewer.pipeline.otlp_receiver`).

* **One code path.** A batch is the OTLP/JSON dict of one request
  (:func:`ctxviewer.importers.common.spans.wire.request_dict`); its spans are read by the file
  importer's container reader (:func:`ctxviewer.importers.common.spans.otlp.spans`), its log
  records become span events as in a file (:func:`ctxviewer.importers.common.spans.read.log_events`),
  and the traces are made by the ``otel`` importer's mapping
  (:func:`ctxviewer.importers.formats.otel.load_spans`) and stored by the import pipeline
  (:func:`ctxviewer.pipeline.importing.import_records`: repair, token counts, assessment).
* **Regrouped as spans arrive.** The writer keeps the spans of the last :data:`HELD_TRACES` OTel
  trace ids it saw; a batch with more spans of a held trace (a parent that ended after its chat
  span, a tool execution, log records of a span) re-derives every chat span of that trace, and the
  stored rows are replaced (same trace ids, ``TRACE:SPAN``); a trace the spans no longer make (a
  tool execution stored on its own until the chat span it fed arrived) is removed. Spans of a trace no longer held (or
  from before a restart) are mapped with the spans held since.
* **Short transactions, readers never blocked.** The batches waiting when the writer wakes are
  written in one transaction, up to :data:`WAKE_RECORDS` spans (a backlog is written in commits
  of bounded size, so one slow wake-up does not make the next one longer); the database is switched to SQLite's write-ahead log while the writer
  runs, so readers (the window, ``list``) read on during a write. A batch's ``done`` is set after
  its commit (the receiver answers 200 only then), so every answered batch survives a kill.
* **Back-pressure, no drops.** The queue holds at most ``queue_batches`` batches; :meth:`LiveWriter.offer`
  refuses (``None``) when it is full and counts the refusal (the receiver answers 503 with
  Retry-After, the OTLP/HTTP spec's throttling).

No Qt here.
"""

from __future__ import annotations

import queue
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from ctxviewer.assess.context import EMPTY, AssessContext, context_for_db
from ctxviewer.importers.common.spans import otlp
from ctxviewer.importers.common.spans.read import log_events
from ctxviewer.importers.common.spans.span import Span, SpanRecord, missing_parents
from ctxviewer.importers.common.spans.wire import Signal
from ctxviewer.importers.contract import ImportProblem, Record
from ctxviewer.importers.formats.otel import load_spans
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.hints import create_store
from ctxviewer.pipeline.importing import import_records
from ctxviewer.store import StoreError, TraceStore

SOURCE = "OTLP/HTTP"
"""How problems name spans that came over the wire (where a file import names the file)."""
QUEUE_BATCHES = 256
"""Batches (requests) waiting to be written before :meth:`LiveWriter.offer` refuses more."""
HELD_TRACES = 2000
"""OTel trace ids whose spans the writer keeps to regroup later spans with (oldest forgotten first)."""
HELD_LOG_SPANS = 10000
"""Span ids whose log records wait for their span to arrive (oldest forgotten first)."""
WAKE_S = 0.2
"""How often the idle writer looks whether it was asked to stop (seconds)."""
WAKE_RECORDS = 2000
"""Spans and log records one wake-up writes at most (in whole batches; the batch that reaches it
is the last taken): a backlog is written in commits of a second or so each, answered as each
commits, instead of one transaction that grows with the backlog."""


@dataclass
class Batch:
    """One request waiting to be written: its :class:`Signal` and OTLP/JSON dict. ``done`` is set
    once it is committed (``error`` ``None``) or failed (``error`` says why: nothing of it written)."""

    signal: Signal
    doc: dict[str, Any]
    done: threading.Event = field(default_factory=threading.Event)
    error: str | None = None
    rejected: list[str] = field(default_factory=list)
    """Why each span of the request that could not be read was rejected (the answer's
    ``partial_success``); the other spans are written."""


def records_in(batch: Batch) -> int:
    """The spans (``/v1/traces``) or log records (``/v1/logs``) ``batch`` holds, counted from its
    lists without reading them (what is not a list counts nothing)."""
    outer, middle, inner = (("resourceSpans", "scopeSpans", "spans") if batch.signal == "traces"
                            else ("resourceLogs", "scopeLogs", "logRecords"))
    n = 0
    for res in _list(batch.doc.get(outer)):
        for scope in _list(res.get(middle) if isinstance(res, dict) else None):
            n += len(_list(scope.get(inner) if isinstance(scope, dict) else None))
    return n


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def warm_up() -> None:
    """Pay the first span's one-time costs before a client waits on them (the writer thread runs
    this first): the checks, scanner and codec (:func:`ctxviewer.pipeline.warm_up.first_trace`),
    the ranks of the usual encodings (``o200k_base`` and the default: about a second each) and the
    model catalogue's price data (genai-prices: about 0.2 s to import). Idempotent."""
    from ctxviewer.pipeline.warm_up import first_trace
    from ctxviewer.tokens.catalogue import lookup
    from ctxviewer.tokens.counting import DEFAULT_ENCODING, get_encoding

    first_trace()
    for name in ("o200k_base", DEFAULT_ENCODING):
        get_encoding(name)
    lookup("openai", "gpt-4o")


@dataclass
class LiveCounts:
    """What the writer did so far (read from any thread; ints only)."""

    accepted: int = 0
    """Batches queued."""
    refused: int = 0
    """Batches refused because the queue was full (answered 503 with Retry-After)."""
    written: int = 0
    """Batches committed."""
    failed: int = 0
    """Batches the store refused to write (answered 503; the client retries)."""
    spans: int = 0
    """Spans committed."""
    traces: int = 0
    """Trace rows written (a re-derived trace counts each time it is rewritten)."""
    new_trace_ids: int = 0
    """Distinct trace ids written since the writer started."""


class LiveWriter:
    """The writer of a live receiver into the database ``path`` (created if absent; an older schema
    is refused as by ``import``: :class:`~ctxviewer.store.StoreError`, raised by :meth:`start`).

    ``on_problem(problem)`` hears each distinct problem of the spans mapped (from the writer
    thread); ``on_written(counts)`` is called after each commit. Use :meth:`start`, then
    :meth:`offer` from any thread, then :meth:`stop`."""

    def __init__(self, path: str | Path, *, queue_batches: int = QUEUE_BATCHES,
                 on_problem: Callable[[ImportProblem], None] | None = None,
                 on_written: Callable[[LiveCounts], None] | None = None) -> None:
        self.path = Path(path)
        self.counts = LiveCounts()
        self._queue: queue.Queue[Batch] = queue.Queue(maxsize=queue_batches)
        self._on_problem = on_problem
        self._on_written = on_written
        self._stop = threading.Event()
        self._count_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._store: TraceStore | None = None
        self._context: AssessContext = EMPTY
        self._held: OrderedDict[str, dict[str, Span]] = OrderedDict()  # OTel trace id -> span id -> span
        self._trace_of: dict[str, str] = {}  # span id -> OTel trace id, for held spans
        self._logs: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()  # span id -> its log events
        self._seen_problems: set[str] = set()
        self._seen_ids: set[str] = set()
        self._made: dict[str, set[str]] = {}  # held OTel trace id -> the trace ids stored for it
        self._lone = 0

    def start(self) -> None:
        """Open (or create) the database, switch it to the write-ahead log and start the writer
        thread. Raises :class:`~ctxviewer.store.StoreError` when the database cannot be written."""
        store = create_store(self.path)
        try:
            store.use_write_ahead_log()
            try:
                self._context = context_for_db(self.path)
            except ValueError as exc:
                self._problem(ImportProblem(str(self.path), "settings", f"{exc}; the traces are assessed without it"))
        except BaseException:
            store.close()
            raise
        self._store = store
        self._thread = threading.Thread(target=self._run, name="ctxviewer-live-writer", daemon=True)
        self._thread.start()

    def offer(self, signal: Signal, doc: dict[str, Any]) -> Batch | None:
        """Queue one request's dict; ``None`` (counted in ``counts.refused``) when the queue is full
        or the writer is stopping."""
        batch = Batch(signal, doc)
        with self._count_lock:  # offers come from the server's request threads at once
            if self._stop.is_set():
                self.counts.refused += 1
                return None
            try:
                self._queue.put_nowait(batch)
            except queue.Full:
                self.counts.refused += 1
                return None
            self.counts.accepted += 1
        return batch

    def stop(self) -> None:
        """Write what is queued, stop the thread and close the database (back to the rollback
        journal when no reader holds it open; else it stays a WAL database, which opens the same).
        Idempotent."""
        with self._count_lock:  # no offer is queued after this
            self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        for spans in self._held.values():  # parents that never came (another service's, or lost): said once, now
            for p in missing_parents(spans.values(), SOURCE):
                self._problem(p)
        self._held.clear()
        while True:  # queued after the writer's last look (none, unless it died): refused, retryable
            try:
                late = self._queue.get_nowait()
            except queue.Empty:
                break
            late.error = "the receiver stopped before writing this batch; send it again"
            self.counts.failed += 1
            late.done.set()
        if self._store is not None:
            self._store.leave_write_ahead_log()
            self._store.close()
            self._store = None

    def _run(self) -> None:
        warm_up()
        while True:
            try:
                first = self._queue.get(timeout=WAKE_S)
            except queue.Empty:
                if self._stop.is_set():
                    return
                continue
            batches = [first]
            n = records_in(first)
            while n < WAKE_RECORDS:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                batches.append(more)
                n += records_in(more)
            self._write(batches)

    def _write(self, batches: list[Batch]) -> None:
        assert self._store is not None
        touched: dict[str, None] = {}
        lone: list[list[SpanRecord]] = []
        n_spans = 0
        for b in batches:
            if b.signal == "logs":
                self._take_logs(b.doc, touched)
                continue
            for rec in otlp.spans(b.doc, SOURCE):
                if isinstance(rec, ImportProblem):
                    self._problem(rec)
                    if " span " not in rec.record:  # the span (or its list) left out, not one value of a span
                        b.rejected.append(f"{rec.record}: {rec.message}")
                    continue
                n_spans += 1
                self._hold(rec, touched, lone)
        records: list[Record] = []
        made: dict[str, set[str]] = {}  # OTel trace id -> the trace ids its spans make now
        for tid in touched:
            mine = list(load_spans(self._spans_of(tid), SOURCE))
            made[tid] = {r.trace_id for r in mine if isinstance(r, RequestTrace)}
            records.extend(mine)
        for group in lone:
            records.extend(load_spans(group, SOURCE))
        try:
            report = import_records(records, self._store, SOURCE, self._context)
        except StoreError as exc:
            self.counts.failed += len(batches)
            for b in batches:
                b.error = str(exc)
                b.done.set()
            return
        for p in report.problems:
            if "is not in this file" not in p.message:  # a parent still on its way: regrouped when it comes,
                self._problem(p)  # else named when the writer stops
        self.counts.written += len(batches)
        self.counts.spans += n_spans
        self.counts.traces += report.imported
        self._seen_ids.update(report.items_by_trace)
        self.counts.new_trace_ids = len(self._seen_ids)
        stale = {old for tid, now in made.items() for old in self._made.get(tid, set()) - now}
        try:
            self._store.remove(stale)  # a lone tool execution now folded into the chat span it fed
        except StoreError as exc:
            self._problem(ImportProblem(str(self.path), "stale traces", f"{exc}; they stay until removed"))
        self._made.update(made)
        for b in batches:
            b.done.set()
        if self._on_written is not None:
            self._on_written(self.counts)

    def _hold(self, span: Span, touched: dict[str, None], lone: list[list[SpanRecord]]) -> None:
        """Keep ``span`` with the other spans of its trace (an ended print wins over an open one)."""
        if not span.trace_id or not span.span_id:
            lone.append([span])
            return
        spans = self._held.pop(span.trace_id, None) or {}
        self._held[span.trace_id] = spans  # most recent last
        earlier = spans.get(span.span_id)
        if earlier is None or not (earlier.end is not None and span.end is None):
            spans[span.span_id] = span
        self._trace_of[span.span_id] = span.trace_id
        touched[span.trace_id] = None
        while len(self._held) > HELD_TRACES:
            old, gone = self._held.popitem(last=False)
            self._made.pop(old, None)
            for sid in gone:
                self._trace_of.pop(sid, None)
                self._logs.pop(sid, None)

    def _take_logs(self, doc: dict[str, Any], touched: dict[str, None]) -> None:
        """Log records of a ``/v1/logs`` request, kept as events of their spans; a held trace with
        such a span is re-derived."""
        for sid, events in log_events(doc).items():
            self._logs.setdefault(sid, []).extend(events)
            self._logs.move_to_end(sid)
            if sid in self._trace_of:
                touched[self._trace_of[sid]] = None
        while len(self._logs) > HELD_LOG_SPANS:
            self._logs.popitem(last=False)

    def _spans_of(self, trace_id: str) -> list[SpanRecord]:
        out: list[SpanRecord] = []
        for sid, sp in self._held.get(trace_id, {}).items():
            evs = self._logs.get(sid)
            out.append(replace(sp, events=sp.events + tuple(evs)) if evs else sp)
        return out

    def _problem(self, problem: ImportProblem) -> None:
        key = str(problem)
        if key in self._seen_problems or self._on_problem is None:
            return
        self._seen_problems.add(key)
        self._on_problem(problem)
