"""The native trace format: JSON Lines, one request trace per line (``docs/native-format.md``).

Each non-blank line is one JSON object, exactly :func:`ctxviewer.serialize.trace_to_dict` of a
trace, optionally with ``"format": "ctxviewer.trace/1"``. Files are UTF-8 (a leading BOM is
accepted). Applications write it with :func:`write_jsonl`; :data:`IMPORTER` (``native``) reads it.
Counts written without provenance are the application's: :func:`mark_recorded`. No Qt here.
"""

from __future__ import annotations

import codecs
import json
from dataclasses import replace
from pathlib import Path
from typing import IO, Iterable, Iterator

from ..model import RequestTrace, TokenProvenance, TokenSource
from ..serialize import TraceFormatError, trace_from_dict, trace_to_dict
from . import notes
from ._api import ImportFailed, ImportProblem, Record
from .containers import encoding_of, head_text, loads, path_of, read_text
from .peek import peek_json

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
        the field (``items[2].status: 'kept' is not one of retained, omitted``). Files are UTF-8
        (a BOM is accepted) or UTF-16/UTF-32 with a BOM. Bytes that are not valid UTF-8 become
        U+FFFD and the line still loads, followed by a problem naming the line and the field.
        Raises :class:`ImportFailed` when the file cannot be read.
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


def _parse_lines(file: str, lines: Iterable[bytes | str]) -> Iterator[Record]:
    # Split on \n only (str.splitlines would also split on U+2028 inside JSON strings).
    for n, raw in enumerate(lines, start=1):
        repaired = None
        if isinstance(raw, bytes):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = raw.decode("utf-8", "replace")
                repaired = f"byte {exc.start} of the line: {exc.reason}"
        else:
            line = raw
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        with notes.collecting(file) as noted:
            record = _parse_line(file, n, line)
        yield record
        yield from noted
        if repaired is not None and not isinstance(record, ImportProblem):
            field = _field_with(record, "\ufffd")
            yield ImportProblem(file, f"line {n}", f"{field}: not valid UTF-8 ({repaired}); "
                                                   "the bytes were replaced with U+FFFD")


def _field_with(trace: RequestTrace, ch: str) -> str:
    """The first field of ``trace`` (serialized form) whose text holds ``ch``, as a JSON path."""
    return path_of(trace_to_dict(trace), ch) or "a value"


def _parse_line(file: str, n: int, line: str) -> Record:
    record = f"line {n}"
    try:
        obj = loads(line, record)
    except json.JSONDecodeError as exc:
        return ImportProblem(file, record, f"invalid JSON: {exc.msg} (column {exc.colno})")
    if not isinstance(obj, dict):
        return ImportProblem(file, record, f"expected a JSON object, got {type(obj).__name__}")
    fmt = obj.pop("format", None)
    if fmt is not None and fmt != FORMAT_TAG:
        return ImportProblem(file, record, f"format: {fmt!r} is not {FORMAT_TAG!r}")
    try:
        trace = trace_from_dict(obj)
    except TraceFormatError as exc:
        return ImportProblem(file, record, str(exc))
    except RecursionError:
        return ImportProblem(file, record, "a value is nested too deep to read")
    if trace.source_format is None:
        trace = replace(trace, source_format="native")
    return mark_recorded(trace)


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
"""The ``native`` importer (listed in ``_registry.BUILTIN``)."""
