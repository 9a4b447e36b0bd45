"""A run step's long attribute values stored once, in ``span_values`` (schema 13): the agent span's
``gen_ai.system_instructions``, the model call's ``gen_ai.tool.definitions`` and the like recur, the
same text, on every step of every run of an application; ``run_spans.attributes`` kept a copy each.

:func:`split` takes a step's attributes (a JSON object, key order as recorded) and moves every
attribute whose ``[key, value]`` JSON text is at least :data:`MIN_CHARS` characters into a row of
``span_values`` keyed by the sha256 of that text (:func:`~ctxviewer.store.rows.content_digest`; a
table of its own, WITHOUT ROWID, so ``blobs`` and its search index stay as they were);
``run_spans.attribute_refs`` then holds, per moved attribute, one byte (its 0-based place among the
attributes) and the value's 32-byte digest. :func:`join` is
the inverse: every reader of :mod:`~ctxviewer.store.runs` sees the attributes as recorded, in
their order. A row whose ``attribute_refs`` is NULL (every row before schema 13, a short-valued
step) holds all its attributes in ``attributes``. :func:`compact_runs` moves the long values of an
existing database's rows (the schema-13 step). No Qt here.

On 2,000 OTel GenAI agent runs (``benchmarks/bench_perf.py --spans 2000``), ``run_spans`` fell from
1,370 to 1,024 bytes a trace (an agent span and a model call each; ``idx_run_spans_trace`` 182 -> 121).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ctxviewer.store.rows import content_digest

SPAN_VALUES_SQL = ("CREATE TABLE IF NOT EXISTS span_values (hash BLOB NOT NULL PRIMARY KEY, text TEXT NOT NULL) "
                   "WITHOUT ROWID")
"""DDL of ``span_values`` (schema 13): ``hash`` the sha256 digest of ``text`` (32 bytes), ``text`` one
moved attribute's ``[key, value]`` JSON. Rows are never rewritten (a step replaced or removed may
leave one no step references)."""
MIN_CHARS = 100
"""Shortest ``[key, value]`` JSON text (characters) moved to ``span_values``: below it the reference
(33 bytes) and the value's row and key would save little or cost more than the copy."""
MAX_PLACES = 256
"""Attributes past the 256th (their place does not fit the reference's one byte) stay inline."""
REF_BYTES = 33
"""Bytes per moved attribute in ``attribute_refs``: its place (1 byte) and the sha256 digest of its ``[key, value]`` JSON (32)."""
CHUNK = 2000
"""Rows :func:`compact_runs` reads and rewrites at a time."""


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def split(attributes: Mapping[str, Any]) -> tuple[str | None, bytes | None, dict[bytes, str]]:
    """``(attributes JSON, attribute_refs, blobs)`` of one step's ``attributes`` (JSON values):
    the JSON object of the attributes kept inline (``None`` when there are none at all), the
    references of those moved (``None`` when none was), and the values to store in ``span_values`` (digest -> text:
    the moved attribute's ``[key, value]`` JSON). Values JSON cannot hold become their ``str``
    (as ``run_spans`` always stored them)."""
    if not attributes:
        return None, None, {}
    kept: dict[str, Any] = {}
    refs = bytearray()
    blobs: dict[bytes, str] = {}
    for place, (key, value) in enumerate(attributes.items()):
        if place < MAX_PLACES and (isinstance(value, (dict, list, tuple)) or
                                   (isinstance(value, str) and len(value) + len(key) + 7 >= MIN_CHARS)):
            pair = _text([key, value])
            if len(pair) >= MIN_CHARS:
                digest = content_digest(pair)
                blobs[digest] = pair
                refs += bytes((place,)) + digest
                continue
        kept[key] = value
    return _text(kept), (bytes(refs) if refs else None), blobs


def join(attributes: str | None, refs: bytes | None, blob: Callable[[bytes], str | None]) -> dict[str, Any]:
    """The attributes of a stored step: ``attributes`` (its JSON object, or NULL) with each
    attribute ``refs`` names put back at its place from ``span_values`` (``blob(digest)`` gives the text,
    ``None`` when missing). Raises ``ValueError`` when a value is missing or ``refs`` is damaged."""
    kept = json.loads(attributes) if attributes else {}
    if not refs:
        return kept
    if not isinstance(kept, dict) or len(refs) % REF_BYTES:
        raise ValueError("the step's attribute references are damaged")
    pairs = list(kept.items())
    for k in range(0, len(refs), REF_BYTES):
        place, digest = refs[k], bytes(refs[k + 1:k + REF_BYTES])
        text = blob(digest)
        if text is None:
            raise ValueError(f"span value {digest.hex()} missing")
        key, value = json.loads(text)
        pairs.insert(place, (key, value))
    return dict(pairs)


def store_values(conn: sqlite3.Connection, blobs: Mapping[bytes, str]) -> None:
    """Store ``blobs`` (digest -> text, :func:`split`'s) in ``span_values``, each once (a stored one stays)."""
    if blobs:
        conn.executemany("INSERT OR IGNORE INTO span_values (hash, text) VALUES (?, ?)", blobs.items())


def value_reader(conn: sqlite3.Connection) -> Callable[[bytes], str | None]:
    """``blob(digest)`` for :func:`join` over ``conn`` (``span_values``), each digest read once per reader."""
    seen: dict[bytes, str | None] = {}

    def blob(digest: bytes) -> str | None:
        if digest not in seen:
            row = conn.execute("SELECT text FROM span_values WHERE hash = ?", (digest,)).fetchone()
            seen[digest] = None if row is None else str(row[0])
        return seen[digest]

    return blob


def compact_runs(conn: sqlite3.Connection) -> int:
    """Schema 13 on an existing database, in the caller's transaction: every ``run_spans`` row's
    attributes split (:func:`split`) and written back compact. A row whose ``attributes`` is not a
    JSON object stays as it is (its reader names the damage as before). Returns the rows rewritten."""
    select = ("SELECT run_id, span_id, attributes FROM run_spans WHERE attribute_refs IS NULL AND attributes IS NOT NULL "
              "AND (run_id, span_id) > (?, ?) ORDER BY run_id, span_id LIMIT ?")
    after: tuple[str, str] = ("", "")
    n = 0
    while True:
        rows = conn.execute(select, (*after, CHUNK)).fetchall()
        if not rows:
            return n
        out: list[tuple[Any, ...]] = []
        blobs: dict[bytes, str] = {}
        for run_id, span_id, text in rows:
            out.extend(_rewritten(run_id, span_id, text, blobs))
        store_values(conn, blobs)
        conn.executemany("UPDATE run_spans SET attributes = ?, attribute_refs = ? WHERE run_id = ? AND span_id = ?", out)
        n += len(out)
        after = (rows[-1][0], rows[-1][1])


def _rewritten(run_id: str, span_id: str, text: Any, blobs: dict[bytes, str]) -> Iterable[tuple[Any, ...]]:
    try:
        attributes = json.loads(text)
    except (TypeError, ValueError):
        return ()
    if not isinstance(attributes, dict):
        return ()
    kept, refs, moved = split(attributes)
    blobs.update(moved)
    return ((kept if kept is not None else text, refs, run_id, span_id),)
