"""Keyset paging of the trace list: the cursor that ``ctxviewer list --after CURSOR`` takes and
prints, and the SQL condition that starts a page after it.

The list is in ``(created, trace_id)`` order (:class:`~ctxviewer.store.TraceQuery`'s default; a
NULL ``created`` sorts first), which the ``idx_traces_created`` index holds, so a page after a
cursor is an index range scan whatever its depth -- never an ``OFFSET`` that reads and drops the
rows before it. A cursor is the last row's ``created`` text as stored (or null) and its
``trace_id``, as compact JSON in URL-safe base64 without padding (one shell word, no quoting).
No Qt here.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any


class CursorError(ValueError):
    """A ``--after`` value that is not a cursor this module wrote (the message says why)."""


def encode_cursor(created: str | None, trace_id: str) -> str:
    """The cursor after the row whose stored ``created`` text (or ``None``) and ``trace_id`` are
    given: URL-safe base64 (no ``=`` padding) of ``["<created>", "<trace_id>"]``."""
    raw = json.dumps([created, trace_id], ensure_ascii=False, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> tuple[str | None, str]:
    """``(created, trace_id)`` of a cursor from :func:`encode_cursor`. Raises :class:`CursorError`
    for anything else (bad base64, bad JSON, not a ``[text-or-null, text]`` pair)."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value: Any = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError) as exc:
        raise CursorError(f"{cursor!r} is not a list cursor ({exc.__class__.__name__}); "
                          "give the one a previous page printed") from None
    if (not isinstance(value, list) or len(value) != 2 or not isinstance(value[1], str)
            or not (value[0] is None or isinstance(value[0], str))):
        raise CursorError(f"{cursor!r} is not a list cursor (not a [created, trace_id] pair); "
                          "give the one a previous page printed")
    return value[0], value[1]


def after_condition(created: str | None, trace_id: str) -> tuple[str, list[Any]]:
    """``(sql, params)``: the rows after ``(created, trace_id)`` in list order (NULL ``created``
    first). A row value comparison, so SQLite seeks ``idx_traces_created`` to the cursor."""
    if created is None:
        return "((created IS NULL AND trace_id > ?) OR created IS NOT NULL)", [trace_id]
    return "((created, trace_id) > (?, ?))", [created, trace_id]


def encode_search_cursor(cursor: tuple[int, int, int]) -> str:
    """The ``search --after`` cursor of a hit's :attr:`~ctxviewer.store.fts.SearchHit.cursor`
    ``(phase, blob rowid, item rowid)``, encoded as :func:`encode_cursor` encodes a list row's."""
    raw = json.dumps(list(cursor), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_search_cursor(cursor: str) -> tuple[int, int, int]:
    """``(phase, blob rowid, item rowid)`` of a cursor from :func:`encode_search_cursor`. Raises
    :class:`CursorError` for anything else."""
    try:
        value: Any = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8"))
    except (binascii.Error, ValueError) as exc:
        raise CursorError(f"{cursor!r} is not a search cursor ({exc.__class__.__name__}); "
                          "give the one a previous page printed") from None
    if (not isinstance(value, list) or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)):
        raise CursorError(f"{cursor!r} is not a search cursor (not three row numbers); "
                          "give the one a previous page printed")
    return value[0], value[1], value[2]
