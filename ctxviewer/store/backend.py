"""The read interface of a trace store: what the window and the CLI ask of a database.

:class:`TraceBackend` is the one interface for list, filter, search and detail queries.
:class:`~ctxviewer.store.TraceStore` (SQLite) implements it; a second backend -- a team's shared
trace store such as the OpenTelemetry collector's ClickHouse exporter tables -- implements the same
methods and the GUI needs no change. No Qt here.

Contract
--------
- **Filters** arrive as text (:class:`~ctxviewer.store.TraceQuery` ``.text``) in the display-filter
  language of :mod:`ctxviewer.filters`. The SQLite store compiles them with
  :func:`ctxviewer.filters.compile_filter` to ``(where, params)`` over its ``traces`` table; another
  backend walks the same parse tree (:func:`ctxviewer.filters.parse_filter`) into its own dialect
  and raises :class:`ctxviewer.filters.FilterError` for a field it cannot serve.
- **Lists** return narrow :class:`~ctxviewer.store.TraceRow` pages in the query's order with ties
  broken by ``trace_id``, never payloads; **counts** may be slow and are asked for off the GUI thread.
- **Search** returns :class:`~ctxviewer.store.fts.SearchPage` pages of
  :class:`~ctxviewer.store.fts.SearchHit` in the backend's order; the page's ``next`` (or a hit's
  ``cursor``) is opaque to callers and passed back as ``after``. The first page must not wait for
  a count or a ranking of all hits, and may be short when the backend stops a long scan.
- **Details** (:meth:`TraceBackend.load`, :meth:`TraceBackend.items`) are read for one selected trace.
- Every method raises :class:`~ctxviewer.store.StoreError` (naming the source) when the source
  cannot be read; ``load`` raises ``KeyError`` for an unknown trace id.

Mapping onto the ClickHouse exporter (``otel_traces``; one row per span)
------------------------------------------------------------------------
A ``chat`` span is one trace row: ``trace_id`` = ``TraceId || ':' || SpanId``, ``created`` =
``Timestamp``, ``service`` = ``ServiceName``, ``model`` = ``SpanAttributes['gen_ai.request.model']``,
``provider`` = ``SpanAttributes['gen_ai.provider.name']``, ``conversation`` =
``SpanAttributes['gen_ai.conversation.id']``, ``input`` = ``SpanAttributes['gen_ai.usage.input_tokens']``.
Facts the collector does not have (``state``, ``finding``, ``omitted``) need a side table written
by ``ctxviewer check``; search maps to a ``tokenbf_v1`` / ``ngrambf_v1`` skip index on the message
attributes. ``load`` rebuilds a :class:`~ctxviewer.model.RequestTrace` with the OTel importer
(:mod:`ctxviewer.importers.otel`) from the span's attributes and events.
"""

from __future__ import annotations

import builtins
from typing import Protocol, runtime_checkable

from ..model import ContextItem, RequestTrace
from .fts import SearchHit, SearchPage
from .query import TraceQuery, TraceRow


@runtime_checkable
class TraceBackend(Protocol):
    """The read side of a trace store (module docstring). Methods raise ``StoreError`` on a read
    failure; :meth:`load` raises ``KeyError`` for an unknown trace."""

    def count(self, query: TraceQuery | None = None) -> int:
        """Number of traces matching ``query`` (all when ``None``). May take a while on a large
        store: call it off the GUI thread."""
        ...

    def list(self, query: TraceQuery | None = None, offset: int = 0, limit: int = 200) -> builtins.list[TraceRow]:
        """One page of narrow rows matching ``query`` in its order (``limit`` < 0: all)."""
        ...

    def search(self, query: str, *, after: tuple[int, int, int] | None = None, limit: int = 50) -> SearchPage:
        """One page of full-text hits over item content after cursor ``after`` (opaque to the
        caller: a hit's ``cursor`` or the page's ``next``), with the cursor of the next page."""
        ...

    def search_hits(self, query: str, limit: int = 50) -> builtins.list[SearchHit]:
        """The first ``limit`` hits of ``query`` (negative: all)."""
        ...

    def load(self, trace_id: str) -> RequestTrace:
        """The full trace ``trace_id`` (details and items with content)."""
        ...

    def items(self, trace_id: str) -> tuple[ContextItem, ...]:
        """The items of one trace in final order, with content."""
        ...

    def blob(self, sha256: str) -> str | None:
        """Stored text by its UTF-8 sha256 (hex), or ``None``."""
        ...

    def session_trace_ids(self, session_id: str) -> builtins.list[str]:
        """Trace ids of one conversation, in send order."""
        ...
