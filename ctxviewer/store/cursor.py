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


LIST_EXAMPLE = "WyIyMDI2LTExLTA5VDE2OjQyOjMxLjIwOFoiLCJidWRnZXQtOGsiXQ"
"""A list cursor (:func:`encode_cursor` of ``budget-8k``'s row), shown in the message of a bad one."""
SEARCH_EXAMPLE = "WzAsMTA1LDE2MV0"
"""A search cursor (:func:`encode_search_cursor` of ``(0, 105, 161)``), shown in the message of a bad one."""


def _list_error(cursor: str, why: str) -> CursorError:
    return CursorError(f"{cursor!r} is not a list cursor ({why}); a list cursor is URL-safe base64 of the last "
                       f"row's [created, trace_id], such as {LIST_EXAMPLE}: copy it from the 'more rows: "
                       "ctxviewer list … --after CURSOR' line a page printed on standard error")


def _search_error(cursor: str, why: str) -> CursorError:
    return CursorError(f"{cursor!r} is not a search cursor ({why}); a search cursor is URL-safe base64 of three "
                       f"row numbers, such as {SEARCH_EXAMPLE}: copy it from the '(first N hits; … --after CURSOR)' "
                       "line a page printed on standard error")


def _decoded(cursor: str) -> Any:
    """The JSON value inside ``cursor``. Raises ``ValueError`` (``binascii.Error`` included)."""
    return json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8"))


def _is_search_value(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value))


def _is_list_value(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2 and isinstance(value[1], str)
            and (value[0] is None or isinstance(value[0], str)))


def decode_cursor(cursor: str) -> tuple[str | None, str]:
    """``(created, trace_id)`` of a cursor from :func:`encode_cursor`. Raises :class:`CursorError`
    for anything else (bad base64, bad JSON, not a ``[text-or-null, text]`` pair, a search
    cursor), its message saying what a list cursor looks like and where to copy it from."""
    try:
        value: Any = _decoded(cursor)
    except (binascii.Error, ValueError):
        raise _list_error(cursor, "not base64 of JSON") from None
    if _is_search_value(value):
        raise _list_error(cursor, "it is a cursor of ctxviewer search") from None
    if not _is_list_value(value):
        raise _list_error(cursor, "not a [created, trace_id] pair")
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
    :class:`CursorError` for anything else (a list cursor too), its message saying what a search
    cursor looks like and where to copy it from."""
    try:
        value: Any = _decoded(cursor)
    except (binascii.Error, ValueError):
        raise _search_error(cursor, "not base64 of JSON") from None
    if _is_list_value(value):
        raise _search_error(cursor, "it is a cursor of ctxviewer list")
    if not _is_search_value(value):
        raise _search_error(cursor, "not three row numbers")
    return value[0], value[1], value[2]
