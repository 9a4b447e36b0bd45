"""Loading from the trace database: one trace whole (:meth:`TraceLoading.load`), its items in
final order (:meth:`~TraceLoading.items`), a stored text by its sha256 (:meth:`~TraceLoading.blob`)
and the traces of one conversation (:meth:`~TraceLoading.session_trace_ids`). An ``items`` row is
built into its item directly, and through the general JSON codec only when a value is not what the
codec would accept unchanged (which then names what is wrong). No Qt here.
"""

from __future__ import annotations

import builtins
import functools
import json
import sqlite3
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ctxviewer.model.times import TraceFormatError
from ctxviewer.store import record
from ctxviewer.store.connection import StoreConnection
from ctxviewer.store.damage import missing_item_blob
from ctxviewer.store.errors import StoreError
from ctxviewer.store.record import restore, restore_attributes
from ctxviewer.store.rows import ITEM_COLUMNS

if TYPE_CHECKING:  # the model is imported on the first item read: a list needs none of it
    from ctxviewer.model.trace import ContextItem, RequestTrace

_RECORD_COLUMNS = (*record.COLUMNS, *record.ATTRIBUTE_COLUMNS)
_LOAD_SQL = (f"SELECT d.json, d.request_hash, {', '.join('t.' + c for c in _RECORD_COLUMNS)} FROM details d "
             "LEFT JOIN traces t ON t.trace_id = d.trace_id WHERE d.trace_id = ?")
"""One trace's record, its request's address and the row columns the record may leave out (:mod:`~ctxviewer.store.record`)."""


def trace_from_dict(d: dict[str, Any]) -> RequestTrace:
    """:func:`ctxviewer.model.serialize.trace_from_dict`, the codec imported on the first load (a
    list needs no cattrs)."""
    from ctxviewer.model.serialize import trace_from_dict as codec

    return codec(d)


def item_from_dict(d: dict[str, Any], path: str) -> ContextItem:
    """:func:`ctxviewer.model.serialize.item_from_dict`, imported when first needed (an item the
    direct path of :meth:`TraceLoading.items` cannot build)."""
    from ctxviewer.model.serialize import item_from_dict as codec

    return codec(d, path)

_ITEM_KEYS = {"item_id": "id"}  # items column -> serialize.item_to_dict key, where they differ
_PROVENANCE_COLUMNS = {"tokens_source": "source", "tokens_encoding": "encoding"}
"""items columns -> keys of ``item_to_dict``'s ``tokens_provenance`` object."""


_SOURCE_KEYS = {"store": str, "document_id": str, "url": str, "turn": int}


@functools.cache
def _trace_model() -> Any:
    """:mod:`ctxviewer.model.trace`, imported on the first item read (a list needs none of it) and
    then taken from here, not imported again per row."""
    from ctxviewer.model import trace

    return trace


def _item_from_row(item_id: Any, kind: Any, status: Any, position: Any, priority: Any, trust: Any, tokens: Any,
                   omission_reason: Any, role: Any, source: Any, tokens_source: Any, tokens_encoding: Any,
                   text: Any) -> ContextItem | None:
    """The item of one ``items`` row built directly (selecting a 500-item trace spent most
    of its time in the general JSON codec), or ``None`` when any value is not exactly what
    :func:`~ctxviewer.model.serialize.item_from_dict` would accept unchanged -- the caller then takes
    that slower path, which names what is wrong."""
    m = _trace_model()
    Kind, SourceRef, Status = m.Kind, m.SourceRef, m.Status
    TokenProvenance, TokenSource, Trust = m.TokenProvenance, m.TokenSource, m.Trust
    try:
        if type(item_id) is not str or not item_id.strip() or not all(v is None or type(v) is str for v in (omission_reason, role, tokens_encoding, text)):
            return None
        if not all(v is None or (type(v) is int and v >= 0) for v in (tokens, position)):
            return None
        if priority is not None and type(priority) not in (int, float):
            return None
        src = None
        if source is not None:
            d = json.loads(source)
            if not isinstance(d, dict) or not all(k in _SOURCE_KEYS and type(v) is _SOURCE_KEYS[k] for k, v in d.items()):
                return None
            if d.get("turn", 0) < 0:
                return None
            src = SourceRef(**d) if d else None
        prov = None
        if tokens_source is not None:
            prov = TokenProvenance(TokenSource(tokens_source), tokens_encoding)
        elif tokens_encoding is not None:
            return None
        item: ContextItem = m.ContextItem(kind=Kind(kind), id=item_id, content=text, status=Status(status), tokens=tokens,
                                        position=position, priority=priority, trust=Trust(trust), source=src,
                                        omission_reason=omission_reason, role=role, tokens_provenance=prov)
        return item
    except (ValueError, TypeError):
        return None


class TraceLoading(StoreConnection):
    """The loading part of :class:`~ctxviewer.store.TraceStore` (the one-trace methods of
    :class:`~ctxviewer.store.TraceSource`)."""

    def load(self, trace_id: str) -> RequestTrace:
        """The full trace ``trace_id``, exactly as :meth:`add` stored it.

        The serialized request content comes back from ``blobs`` with ``request.sha256`` set to
        its hash. Raises ``KeyError`` if no such trace; :class:`StoreError` if its record is damaged.
        """
        try:
            row = self._conn.execute(_LOAD_SQL, (trace_id,)).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail(f"cannot read trace {trace_id!r}", exc) from None
        if row is None:
            raise KeyError(trace_id)
        items = self.items(trace_id)
        try:
            d = json.loads(row[0])
            if not isinstance(d, dict):
                raise ValueError(f"the record is JSON {type(d).__name__}, not an object")
            columns = dict(zip(_RECORD_COLUMNS, row[2:]))
            restore(d, columns, [i.content for i in items])
            restore_attributes(d, columns)  # schema 13
            d.setdefault("trace_id", trace_id)
            if row[1] is not None:
                request = self._blob(row[1])
                if request is None:
                    raise StoreError(self.path, f"trace {trace_id!r} is damaged: request content blob missing")
                d.setdefault("request", {})["content"] = request
            d["items"] = []
            if "omissions_recorded" not in d:  # written before it was a field: the row's stored fact says
                d["omissions_recorded"] = self._stored_omissions_fact(trace_id)
            trace = trace_from_dict(d)
        except (ValueError, TypeError) as exc:  # TraceFormatError and json errors are ValueErrors
            raise self._fail(f"trace {trace_id!r} is damaged", exc) from None
        return replace(trace, items=items)

    def _stored_omissions_fact(self, trace_id: str) -> bool:
        """The ``omissions_recorded`` fact on ``trace_id``'s row, for a record written before the
        trace had the field: True when the row has none (NULL) or cannot be read (the damage is
        reported by :meth:`damage`, not here)."""
        try:
            got = self._conn.execute("SELECT omissions_recorded FROM traces WHERE trace_id = ?", (trace_id,)).fetchone()
        except sqlite3.DatabaseError:
            return True
        return not (got is not None and got[0] == 0)

    def blob(self, sha256: str) -> str | None:
        """The stored text whose UTF-8 sha256 is ``sha256``, given as 64 hex characters (as users
        see it: ``request.sha256``, :func:`content_hash`; the database keys it by the 32-byte
        digest), or ``None`` if not stored or ``sha256`` is not hex."""
        try:
            digest = bytes.fromhex(sha256)
        except ValueError:
            return None
        return self._blob(digest)

    def _blob(self, digest: bytes) -> str | None:
        """The stored text whose key in ``blobs`` is ``digest`` (32 bytes), or ``None``."""
        try:
            row = self._conn.execute("SELECT text FROM blobs WHERE hash = ?", (digest,)).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read content", exc) from None
        return None if row is None else str(row[0])

    def items(self, trace_id: str) -> tuple[ContextItem, ...]:
        """The items of one trace in final order, without reading the rest of the trace.

        Returns ``()`` for an unknown trace_id or a trace without items. :class:`StoreError` when
        damaged, e.g. a content blob missing (``trace 'T' is damaged: item 'I': content blob missing``).
        """
        cols = ", ".join(f"i.{c}" for c in ITEM_COLUMNS[1:-1])
        sql = (
            f"SELECT {cols}, b.text FROM items i LEFT JOIN blobs b ON b.hash = i.content_hash "
            "WHERE i.trace_id = ? ORDER BY i.ordinal"
        )
        try:
            rows = self._conn.execute(sql, (trace_id,)).fetchall()
            lost = missing_item_blob(self._conn, trace_id) if any(r[-1] is None for r in rows) else None
        except sqlite3.DatabaseError as exc:
            raise self._fail(f"cannot read items of trace {trace_id!r}", exc) from None
        if lost is not None:
            raise StoreError(self.path, f"trace {trace_id!r} is damaged: item {lost!r}: content blob missing")
        out: builtins.list[ContextItem] = []
        for row in rows:
            fast = _item_from_row(*row[1:])
            if fast is not None:
                out.append(fast)
                continue
            d: dict[str, Any] = {}
            for col, value in zip(ITEM_COLUMNS[2:-1], row[1:-1]):
                if value is None:
                    continue
                if col in _PROVENANCE_COLUMNS:
                    d.setdefault("tokens_provenance", {})[_PROVENANCE_COLUMNS[col]] = value
                else:
                    d[_ITEM_KEYS.get(col, col)] = json.loads(value) if col == "source" else value
            if row[-1] is not None:
                d["content"] = row[-1]
            try:
                out.append(item_from_dict(d, f"items[{row[0]}]"))
            except TraceFormatError as exc:
                raise self._fail(f"trace {trace_id!r} is damaged", exc) from None
        return tuple(out)

    def session_trace_ids(self, session_id: str) -> builtins.list[str]:
        """trace_ids of the traces whose ``session_id`` is ``session_id`` (one conversation), in
        send order. Reads the ``traces.session_id`` index (schema 3). Raises :class:`StoreError`
        when the database cannot be read."""
        sql = "SELECT trace_id FROM traces WHERE session_id = ? ORDER BY created, trace_id"
        try:
            return [str(r[0]) for r in self._conn.execute(sql, (session_id,))]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read conversation", exc) from None
