"""The one store interface the viewer reads through: :class:`TraceSource`.

The window (:mod:`ctxviewer.gui`) and the CLI read traces only through these methods: list,
filter, search and detail queries. :class:`~ctxviewer.store.TraceStore` (SQLite) is the first
implementation; a second backend -- a team's shared trace store such as the OpenTelemetry
collector's ClickHouse exporter tables -- is another class with the same methods, and the GUI needs
no change (``tests/gui/test_trace_source_fake.py`` drives the trace list and the detail panes from
an in-memory implementation). ``docs/store-interface.md`` explains it for a backend's author.

Vocabulary
----------
*row key* -- an opaque ``int`` naming one trace row, stable while the source is open (SQLite: the
``traces.rowid``; ClickHouse: e.g. ``cityHash64(TraceId, SpanId)``). The trace list keeps only an
array of keys (8 bytes per trace) and asks for rows by key, page by page.

*filter* -- display-filter text (:mod:`ctxviewer.store.filters`, carried by
:class:`~ctxviewer.store.TraceQuery`) goes in through :meth:`TraceSource.filter_where`, which
returns the source's own compiled form ``(where, params)``: for SQLite a boolean SQL expression over
the narrow ``traces`` row (:data:`~ctxviewer.store.query.ROW_COLUMNS`) without the word ``WHERE``,
with positional ``?`` parameters, ``""`` for every trace. Callers treat it as opaque and hand it back
to the same source's list methods. Another backend compiles the grammar's parse tree
(:func:`ctxviewer.store.filters.parse_filter`) into its dialect and raises
:class:`ctxviewer.store.filters.FilterError` for a field it cannot serve.

*order* -- a member of :data:`~ctxviewer.store.SORTABLE`; ties are broken by ``trace_id`` in the
same direction, so the order is total and stable.

Contract
--------
* List queries return narrow :class:`~ctxviewer.store.TraceRow` rows, never payloads (item
  contents, request bodies, details), and the window's never skip rows with ``OFFSET``: the first
  page is a keyset query (:meth:`TraceSource.first_rows`), the rest is read by key.
  (:meth:`TraceSource.list` / :meth:`TraceSource.count` are the CLI's simple paging form.)
* :meth:`TraceSource.row_keys`, :meth:`TraceSource.count_where` and :meth:`TraceSource.count` may
  take a second or more on a million traces: the window runs them off the GUI thread, on a handle
  of their own (:meth:`TraceSource.reader`).
* Search returns :class:`~ctxviewer.store.fts.SearchPage` pages of
  :class:`~ctxviewer.store.fts.SearchHit` in the source's order; the page's ``next`` (or a hit's
  ``cursor``) is opaque and passed back as ``after``. The first page never waits for a count or a
  ranking of all hits and may be short when the source stops a long scan.
* Details (:meth:`TraceSource.load`, :meth:`TraceSource.items`) are read for the one selected
  trace; item text (:meth:`TraceSource.blob`) for one item where the caller can.
* Errors: every method raises :class:`~ctxviewer.store.StoreError` (its message names the source)
  when the source cannot be read; ``ValueError`` for an ``order`` outside ``SORTABLE``;
  :meth:`TraceSource.load` raises ``KeyError`` for an unknown trace id.

Mapping onto the ClickHouse exporter (``otel_traces``; one row per span)
------------------------------------------------------------------------
A ``chat`` span is one trace row: ``trace_id`` = ``TraceId || ':' || SpanId``, ``created`` =
``Timestamp``, ``service`` = ``ServiceName``, ``model`` = ``SpanAttributes['gen_ai.request.model']``,
``provider`` = ``SpanAttributes['gen_ai.provider.name']``, ``session_id`` =
``SpanAttributes['gen_ai.conversation.id']``, ``input_tokens`` =
``SpanAttributes['gen_ai.usage.input_tokens']``. Facts the collector does not have (``state``,
``worst_rule``, ``omitted_count``) need a side table written by ``ctxviewer check``; search maps to
a ``tokenbf_v1`` / ``ngrambf_v1`` skip index on the message attributes. ``load`` rebuilds a
:class:`~ctxviewer.model.trace.RequestTrace` with the OTel importer (:mod:`ctxviewer.importers.formats.otel`) from
the span's attributes and events. That backend is :mod:`ctxviewer.pipeline.clickhouse` (on the
pipeline floor: it needs the importers' mapping, which the store never imports); its first slice
serves the list, ``load`` and counts, not yet filters, search or the side table.

No Qt here.
"""

from __future__ import annotations

import builtins
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol, Sequence, runtime_checkable

from ctxviewer.store.query import TraceQuery, TraceRow

if TYPE_CHECKING:  # annotations only: ``list`` opens a source without the trace model or search
    from ctxviewer.model.trace import ContextItem, RequestTrace
    from ctxviewer.store.fts import SearchHit, SearchPage
    from ctxviewer.store.trace_store import TraceStore


@runtime_checkable
class TraceSource(Protocol):
    """What the viewer needs from a trace store (see the module docstring for the terms)."""

    path: Path
    """Where the source lives (a file; for a server, a display name); used in messages."""

    def reader(self) -> TraceSource:
        """A new read-only handle on the same source, for another thread."""
        ...

    def close(self) -> None:
        """Release the connection. Idempotent."""
        ...

    # -- filters
    def filter_where(self, query: TraceQuery | None) -> tuple[str, builtins.list[Any]]:
        """``query``'s display filter compiled for this source: ``(where, params)`` for the list
        methods below (``"1"`` or ``""`` for none). Raises :class:`~ctxviewer.store.filters.FilterError`
        (a ``ValueError``) for a filter the source cannot serve. May probe the source (SQLite: index
        counts of a few milliseconds): the window runs it with the list queries, off the GUI thread."""
        ...

    # -- the list (keyed: the window)
    def first_rows(self, where: str = "", params: Sequence[Any] = (), order: str = "created",
                   descending: bool = False, limit: int = 100) -> builtins.list[tuple[int, TraceRow]]:
        """The first ``limit`` rows of the filtered, ordered list as ``(key, row)`` (a keyset
        query: fast for the orders with an index)."""
        ...

    def row_keys(self, where: str = "", params: Sequence[Any] = (), order: str = "created",
                 descending: bool = False, cancelled: Callable[[], bool] | None = None) -> array[int]:
        """Every matching key in list order; the length is the exact count. ``cancelled()`` is
        polled between chunks."""
        ...

    def key_chunks(self, where: str = "", params: Sequence[Any] = (), order: str = "created",
                   descending: bool = False) -> Iterator[array[int]]:
        """The keys of :meth:`row_keys` as consecutive chunks, read as they are consumed (so the
        caller can show the first rows' keys and keep only one chunk of them in flight)."""
        ...

    def rows_by_key(self, keys: Sequence[int]) -> builtins.list[TraceRow | None]:
        """The rows of ``keys`` in the order given (``None`` for a key no longer there)."""
        ...

    def key_of(self, trace_id: str) -> int | None:
        """The key of ``trace_id``, or ``None``."""
        ...

    def count_where(self, where: str = "", params: Sequence[Any] = ()) -> int:
        """Exact number of matching traces."""
        ...

    def estimate_count(self, where: str = "") -> int | None:
        """An upper bound of the count known without scanning (``None`` when there is none for this
        filter): the window shows it as "≤ N" until the exact count comes."""
        ...

    # -- the list (paged: the CLI)
    def count(self, query: TraceQuery | None = None) -> int:
        """Number of traces matching ``query`` (all when ``None``)."""
        ...

    def list(self, query: TraceQuery | None = None, offset: int = 0, limit: int = 200) -> builtins.list[TraceRow]:
        """One page of rows matching ``query`` in its order (``limit`` < 0: all)."""
        ...

    # -- search
    def search(self, query: str, *, after: tuple[int, int, int] | None = None, limit: int = 50,
               cancelled: Callable[[], bool] | None = None) -> SearchPage:
        """One page of full-text hits over item content after cursor ``after``, with the cursor
        of the next page (``None`` at the end). A source whose page may scan long polls
        ``cancelled()`` and returns what it found so far once it turns true (the search dock runs
        pages off the GUI thread and cancels them on a new query)."""
        ...

    def search_hits(self, query: str, limit: int = 50) -> builtins.list[SearchHit]:
        """The first ``limit`` hits of ``query`` (negative: all)."""
        ...

    # -- one trace
    def load(self, trace_id: str) -> RequestTrace:
        """The whole trace: details and items with content (``KeyError`` for an unknown id)."""
        ...

    def items(self, trace_id: str) -> tuple[ContextItem, ...]:
        """The trace's items in final order, with their text (``()`` for an unknown id)."""
        ...

    def blob(self, sha256: str) -> str | None:
        """The stored text whose UTF-8 sha256 is ``sha256``, given as 64 hex characters (as users
        see it in ``request.sha256``; how a backend keys it inside is its own affair), or ``None``."""
        ...

    def session_trace_ids(self, session_id: str) -> builtins.list[str]:
        """Trace ids of one conversation (``gen_ai.conversation.id``), in send order."""
        ...


def private_reader(source: TraceSource) -> TraceSource:
    """A read handle on ``source`` for another thread whose queries are its own: the source's
    ``own_reader()`` where it has one (a ClickHouse store: on chDB its :meth:`~TraceSource.reader`
    is the source itself, so a cancel -- ``KILL QUERY`` by the handle's query ids -- would reach
    the window's other readers), else :meth:`~TraceSource.reader`. Raises what they raise."""
    opener = getattr(source, "own_reader", None)
    return opener() if callable(opener) else source.reader()


def _implements(store: TraceStore) -> TraceSource:
    """Typing aid: mypy checks here that :class:`~ctxviewer.store.TraceStore` is a
    :class:`TraceSource` (``tests/store/test_source.py`` checks it at run time)."""
    return store
