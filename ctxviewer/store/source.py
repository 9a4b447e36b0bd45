"""The store interface the viewer reads through: :class:`TraceSource` (issue 11).

The GUI and the CLI read traces only through these methods, so a second backend -- a team's
shared trace store such as the OpenTelemetry collector's ClickHouse exporter tables
(``otel_traces``: one row per span, ``TraceId``, ``Timestamp``, ``SpanAttributes`` map with the
GenAI attributes) -- can be added as another class with the same methods, without touching the
GUI. :class:`~ctxviewer.store.TraceStore` (SQLite) is the first implementation.

Vocabulary
----------
*row key* -- an opaque ``int`` naming one trace row, stable while the source is open
(SQLite: the ``traces.rowid``; ClickHouse: e.g. ``cityHash64(TraceId)``). The trace list keeps
only an array of keys (8 bytes per trace) and asks for rows by key, page by page.

*where, params* -- a filter as a SQL boolean expression over the narrow trace row's columns
(:data:`~ctxviewer.store.query.ROW_COLUMNS`), without the word ``WHERE``, with positional ``?``
parameters; ``""`` means every trace. The display-filter grammar compiles to this form. A second
backend translates it (its columns have the same names in a view) or compiles the grammar itself.

*order* -- a member of :data:`~ctxviewer.store.SORTABLE`; ties are broken by ``trace_id`` in the
same direction, so the order is total and stable.

Contract
--------
* List queries never read payloads (item contents, request bodies, details) and never skip rows
  with ``OFFSET``: the first page is a keyset query, the rest is read by key.
* :meth:`TraceSource.row_keys` and :meth:`TraceSource.count_where` may take a second or more on a
  million traces: callers run them off the GUI thread, on a connection of their own
  (:meth:`TraceSource.reader`).
* Details (:meth:`TraceSource.load`) are read for the one selected trace; item text
  (:meth:`TraceSource.blob`) for the one selected item where the caller can.
* Errors: every method raises :class:`~ctxviewer.store.StoreError` (its message names the source)
  when the source cannot be read; ``ValueError`` for an ``order`` outside ``SORTABLE``.

No Qt here.
"""

from __future__ import annotations

import builtins
from array import array
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from ..model import ContextItem, RequestTrace
from .query import TraceRow


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

    # -- the list
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
        """A count known without scanning (``None`` when there is none for this filter)."""
        ...

    # -- one trace
    def load(self, trace_id: str) -> RequestTrace:
        """The whole trace (raises ``KeyError`` for an unknown id)."""
        ...

    def items(self, trace_id: str) -> tuple[ContextItem, ...]:
        """The trace's items in final order, with their text."""
        ...

    def blob(self, sha256: str) -> str | None:
        """The stored text with this content hash, or ``None``."""
        ...


def _implements(store: Any) -> TraceSource:
    """Typing aid: mypy checks here that :class:`~ctxviewer.store.TraceStore` is a
    :class:`TraceSource` (see ``tests/store/test_source.py`` for the runtime check)."""
    from .store import TraceStore

    checked: TraceSource = TraceStore.open(store) if not isinstance(store, TraceStore) else store
    return checked
