"""The native trace format: JSON Lines, one request trace per line (``docs/native-format.md``).

Each non-blank line is one JSON object, exactly :func:`ctxviewer.model.serialize.trace_to_dict` of a
trace, optionally with ``"format": "ctxviewer.trace/1"``. Files are UTF-8 (a leading BOM is
accepted). Applications write it with :func:`write_jsonl`; :data:`IMPORTER` (``native``) reads it.
Counts written without provenance are the application's: :func:`mark_recorded`. Keys the model
does not know are named in the trace's ``ctxviewer.unmapped`` (:func:`~ctxviewer.importers.common.model_account.with_unknown_keys`). No Qt here.
"""

from __future__ import annotations

import codecs
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from ctxviewer.importers.common import notes
from ctxviewer.importers.common.containers import decode_noting, encoding_of, head_text, loads, read_text
from ctxviewer.importers.common.model_account import with_unknown_keys
from ctxviewer.importers.common.peek import peek_json
from ctxviewer.importers.contract import ImportFailed, ImportProblem, Record
from ctxviewer.model.serialize import TraceFormatError, trace_from_dict, trace_to_dict
from ctxviewer.model.trace import RequestTrace, TokenProvenance, TokenSource

FORMAT_TAG = "ctxviewer.trace/1"
"""Value of the optional ``format`` key on each line."""


class NativeImporter:
    """Importer for the native JSON Lines format (see module docstring)."""

    name = "native"
    description = "ctxviewer native JSON Lines (one trace per line)"
    records_omissions = True  # items carry status retained/omitted

    def sniff(self, path: Path, head: bytes) -> float:
        """1.0 if the first line's object carries ``"format": "ctxviewer.trace/1"``; 0.9 if it
        has ``trace_id`` and ``items``; 0.5 if it starts with ``trace_id`` but is cut off before
        ``items`` (the registry then reads further); else 0. Never raises."""
        doc = peek_json(head_text(head).encode("utf-8"))  # UTF-16 BOMs undone first
        if doc.kind != "object":
            return 0.0
        keys = doc.keys()
        if "format" in keys and doc.first("format") == FORMAT_TAG:
            return 1.0
        if "trace_id" in keys and "items" in keys:
            return 0.9
        return 0.5 if keys[:1] == ["trace_id"] and not doc.complete else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """Yield the traces of ``path`` in line order; a bad line yields an ImportProblem instead.

        The problem's record is ``"line N"`` (1-based); its message is the JSON error
        (``invalid JSON: Expecting ',' delimiter (column 17)``) or the TraceFormatError naming
        the field (``items[2].status: 'kept' is not one of retained, omitted``; a position two items share:
        ``items[2].position: 1 is already items[0]'s``). Only the first
        :data:`MAX_INVALID_LINES_NOTED` lines that are not JSON are named; one last problem counts
        the rest (``lines 6 to 153``: ``… and 148 more lines of invalid JSON``). Files are UTF-8
        (a BOM is accepted) or UTF-16/UTF-32 with a BOM. Bytes that are not valid UTF-8 become
        U+FFFD and the line still loads, followed by one problem per field that held them
        (:func:`_utf8_problems`). Raises :class:`ImportFailed` when the file cannot be read.
        """
        try:
            with open(path, "rb") as fh:
                bom = fh.read(4)
                if encoding_of(bom) not in ("utf-8", "utf-8-sig"):  # UTF-16/32 with a BOM: rare, read whole
                    lines: Iterable[bytes | str] = read_text(path).split("\n")
                    yield from _parse_lines(str(path), lines)
                    return
                fh.seek(len(codecs.BOM_UTF8) if bom.startswith(codecs.BOM_UTF8) else 0)
                yield from _parse_lines(str(path), fh)
        except OSError as exc:
            raise ImportFailed(f"{path}: cannot read file: {exc.strerror or exc}") from None


MAX_INVALID_LINES_NOTED = 5
"""Lines that are not JSON named one by one in a file; the rest are counted in one last problem
(a pretty-printed JSON file forced to ``--format native`` would otherwise give one per line)."""

MAX_BAD_FIELDS_NOTED = 5
"""Fields of one line whose bytes were not valid UTF-8 named one by one; the rest are counted."""

INVALID_JSON = "invalid JSON: "
"""How the problem of a line that is not JSON starts."""


def _parse_lines(file: str, lines: Iterable[bytes | str]) -> Iterator[Record]:
    # Split on \n only (str.splitlines would also split on U+2028 inside JSON strings).
    invalid: list[int] = []  # lines that were not JSON
    for n, raw in enumerate(lines, start=1):
        runs: list[tuple[int, int, str]] = []
        if isinstance(raw, bytes):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line, runs = decode_noting(raw)
        else:
            line = raw
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        with notes.collecting(file) as noted:
            record = _parse_line(file, n, line)
        if isinstance(record, ImportProblem) and record.message.startswith(INVALID_JSON):
            invalid.append(n)
            if len(invalid) > MAX_INVALID_LINES_NOTED:
                yield from noted
                continue
        yield record
        yield from noted
        if runs and isinstance(raw, bytes) and not isinstance(record, ImportProblem):
            yield from _utf8_problems(file, n, raw, runs)
    if len(invalid) > MAX_INVALID_LINES_NOTED:
        rest = invalid[MAX_INVALID_LINES_NOTED:]
        where = f"line {rest[0]}" if len(rest) == 1 else f"lines {rest[0]} to {rest[-1]}"
        yield ImportProblem(file, where, f"\u2026 and {len(rest)} more line{'s' if len(rest) > 1 else ''} of invalid JSON",
                            dropped=len(rest))


def _utf8_problems(file: str, n: int, raw: bytes, runs: list[tuple[int, int, str]]) -> Iterator[ImportProblem]:
    """One problem per field of line ``n`` (bytes ``raw``) that held bytes not valid UTF-8 (the
    ``runs`` replaced with U+FFFD): ``request.content: not valid UTF-8 (byte 47 of the line:
    invalid start byte); the bytes were replaced with U+FFFD``, the first run of the field named
    and any further runs in it counted; after :data:`MAX_BAD_FIELDS_NOTED` fields, one counting the rest."""
    from ctxviewer.importers.common.json_where import (
        field_paths,  # ijson: loaded only when there are bad bytes (start-up)
    )

    by_field: dict[str, list[tuple[int, str]]] = {}
    for (start, _end, reason), field in zip(runs, field_paths(raw, [(s, e) for s, e, _ in runs])):
        by_field.setdefault(field or "a value", []).append((start, reason))
    record = f"line {n}"
    for field, hits in list(by_field.items())[:MAX_BAD_FIELDS_NOTED]:
        start, reason = hits[0]
        more = f"; {len(hits) - 1} more run(s) in this field" if len(hits) > 1 else ""
        yield ImportProblem(file, record, f"{field}: not valid UTF-8 (byte {start} of the line: {reason}{more}); "
                                          "the bytes were replaced with U+FFFD")
    if len(by_field) > MAX_BAD_FIELDS_NOTED:
        yield ImportProblem(file, record, f"{len(by_field) - MAX_BAD_FIELDS_NOTED} more field(s) not valid UTF-8; "
                                          "the bytes were replaced with U+FFFD")


def _parse_line(file: str, n: int, line: str) -> Record:
    record = f"line {n}"
    try:
        obj = loads(line, record)
    except json.JSONDecodeError as exc:
        return ImportProblem(file, record, f"{INVALID_JSON}{exc.msg} (column {exc.colno})", dropped=1)
    if not isinstance(obj, dict):
        return ImportProblem(file, record, f"expected a JSON object, got {type(obj).__name__}", dropped=1)
    if "NaN" in line or "Infinity" in line:  # Python's JSON reader takes them; JSON has no such number
        obj = _finite(obj, record, "")
    fmt = obj.pop("format", None)
    if fmt is not None and fmt != FORMAT_TAG:
        return ImportProblem(file, record, f"format: {fmt!r} is not {FORMAT_TAG!r}", dropped=1)
    try:
        trace = trace_from_dict(obj)
    except TraceFormatError as exc:
        return ImportProblem(file, record, str(exc), dropped=1)
    except RecursionError:
        return ImportProblem(file, record, "a value is nested too deep to read", dropped=1)
    trace = _unsent_positions_dropped(trace, record)  # first: only the places of items sent can clash
    repeated = _repeated_position(trace)
    if repeated is not None:
        return ImportProblem(file, record, repeated, dropped=1)
    if trace.source_format is None:
        trace = replace(trace, source_format="native")
    return mark_recorded(with_unknown_keys(trace, obj))


def _repeated_position(trace: RequestTrace) -> str | None:
    """``"items[2].position: 1 is already items[0]'s"`` for the first retained position two items
    share, else ``None``: the final order the views show would not be the file's (new-user
    finding F11). Native records only: the importers of other formats number positions themselves."""
    at: dict[int, int] = {}
    for n, it in enumerate(trace.items):
        if it.position is not None:
            if it.position in at:
                return f"items[{n}].position: {it.position} is already items[{at[it.position]}]'s"
            at[it.position] = n
    return None


def _unsent_positions_dropped(trace: RequestTrace, record: str) -> RequestTrace:
    """``trace`` with the position of every omitted item dropped, each with a warning
    (``items[3].position: 3 on an omitted item; dropped (an omitted item was not sent, so it has no
    place in the request)``): the views would list it at that place as if sent (new-user finding
    N17; docs/native-format.md: "omitted items have none")."""
    from ctxviewer.model.trace import Status

    placed = [n for n, it in enumerate(trace.items) if it.status is Status.OMITTED and it.position is not None]
    for n in placed:
        notes.warn(record, f"items[{n}].position: {trace.items[n].position} on an omitted item; dropped (an "
                           "omitted item was not sent, so it has no place in the request)")
    if not placed:
        return trace
    return replace(trace, items=tuple(replace(it, position=None) if n in placed else it
                                      for n, it in enumerate(trace.items)))


def _finite(value: Any, record: str, path: str) -> Any:
    """``value`` with every ``NaN``, ``Infinity`` and ``-Infinity`` (numbers JSON does not have,
    which Python's reader accepts) replaced by ``None`` -- not recorded -- each with a warning
    naming ``record`` and its JSON path (``items[0].priority: Infinity is not a number; stored as
    not recorded``), so no output built from the trace (``show --json``, ``export``) holds one."""
    if isinstance(value, float) and not math.isfinite(value):
        word = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        notes.warn(record, f"{path or 'a value'}: {word} is not a number; stored as not recorded")
        return None
    if isinstance(value, dict):
        return {k: _finite(v, record, f"{path}.{k}" if path else k) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v, record, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def mark_recorded(trace: RequestTrace) -> RequestTrace:
    """``trace`` with every count that has no provenance marked ``recorded`` in the trace's
    ``endpoint.encoding`` (``None`` when the trace names none): the application wrote it.
    Counts that say where they came from (``tokens_provenance`` on the line) are kept."""
    recorded = TokenProvenance(TokenSource.RECORDED, trace.endpoint.encoding)
    if not any(i.tokens is not None and i.tokens_provenance is None for i in trace.items):
        return trace
    items = tuple(
        replace(i, tokens_provenance=recorded) if i.tokens is not None and i.tokens_provenance is None else i
        for i in trace.items
    )
    return replace(trace, items=items)


def trace_line(trace: RequestTrace) -> str:
    """One line of the format (no newline): ``{"format": "ctxviewer.trace/1", ...trace_to_dict}``."""
    return json.dumps({"format": FORMAT_TAG, **trace_to_dict(trace)}, ensure_ascii=False, separators=(",", ":"))


def write_jsonl(traces: Iterable[RequestTrace], dest: str | Path | IO[str]) -> int:
    """Write ``traces`` as native JSON Lines to a path (UTF-8, created or overwritten) or a text file.

    Returns the number of traces written. Raises ``OSError`` if the file cannot be written.
    """
    if isinstance(dest, (str, Path)):
        with open(dest, "w", encoding="utf-8", newline="\n") as fh:
            return write_jsonl(traces, fh)
    n = 0
    for trace in traces:
        dest.write(trace_line(trace) + "\n")
        n += 1
    return n


IMPORTER = NativeImporter()
"""The ``native`` importer (listed in :data:`ctxviewer.importers.registry.BUILTIN`)."""
