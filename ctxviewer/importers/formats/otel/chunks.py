"""One OTel JSON Lines file read in chunks of whole traces, each chunk on its own (in another
process: :mod:`ctxviewer.pipeline.ingest_pool`), giving the records
:meth:`~ctxviewer.importers.formats.otel.OtelImporter.load_runs` gives for those lines.

The cut: :func:`index` reads the file once (as
:func:`~ctxviewer.importers.common.spans.read.read_span_groups`' first pass does: trace ids by a
regex on the raw line) and notes, for each line a trace starts on, the last line of the traces
starting there; :func:`line_chunks` then cuts only after a line where no trace is still open, so
every span of a trace is in one chunk, and :func:`load_chunk` reads a chunk's lines with the same
per-line loop (:func:`~ctxviewer.importers.common.spans.read.line_groups`) and the same group
mapping. What spans across chunks -- the file's ``_FileState`` (counts for the end-of-file
problems, and whether a span was rejected before a lone tool execution) -- comes back with each
chunk and is added up in file order (``_FileState.absorb``); the spans without a trace id the
regex found are read last, together (:func:`load_rest`), as the serial read does.

Not chunked (the caller reads the file whole, as before): protobuf, a file that is not JSON Lines,
and a file with OTLP log records (``resourceLogs``: they join spans of any line). No Qt here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

from ctxviewer.importers.common.containers import first_line_is_json, iter_lines
from ctxviewer.importers.common.spans.read import is_protobuf, line_groups, line_trace_ids
from ctxviewer.importers.common.spans.span import SpanRecord
from ctxviewer.importers.contract import ImportFailed

if TYPE_CHECKING:
    from ctxviewer.importers.contract import RunRecord
    from ctxviewer.importers.formats.otel import _FileState

Lines = Sequence[tuple[int, str]]
"""``(N, line)`` of a JSON Lines file, N 1-based, as :func:`~ctxviewer.importers.common.containers.iter_lines` gives them."""


def new_state(rejected: int = 0) -> _FileState:
    """A fresh per-file state, as if ``rejected`` spans or lines had been rejected before."""
    from ctxviewer.importers.formats.otel import _FileState

    state = _FileState()
    state.rejected = rejected
    return state


def index(path: Path) -> tuple[dict[int, int], dict[str, int]] | None:
    """``({first line of a trace: the last line of the traces starting there}, {trace id: its
    last line})`` of the JSON Lines file ``path``, or ``None`` when it is not to be chunked
    (protobuf, not JSON Lines, OTLP log records in it). Raises
    :class:`~ctxviewer.importers.ImportFailed` when it cannot be read."""
    if is_protobuf(path) or not first_line_is_json(path):
        return None
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for n, line in iter_lines(path):
        if '"resourceLogs"' in line:
            return None
        for tid in line_trace_ids(line):
            first.setdefault(tid, n)
            last[tid] = n
    starts: dict[int, int] = {}
    for tid, n in first.items():
        starts[n] = max(starts.get(n, n), last[tid])
    return starts, last


def line_chunks(path: Path, starts: dict[int, int], last: dict[str, int], max_lines: int,
                max_chars: int) -> Iterator[tuple[list[tuple[int, str]], dict[str, int] | None]]:
    """The lines of ``path`` in chunks of at least ``max_lines`` lines or ``max_chars``
    characters (the last one shorter), each cut after a line where no trace of ``starts``
    (:func:`index`) is open, each with ``None``. Raises :class:`~ctxviewer.importers.ImportFailed`
    when the file cannot be read on -- after the chunks read before it and the lines read since
    the last cut, which come with their traces' last lines in the file (from ``last``: the
    traces still open there are not read, as the serial read leaves them)."""
    part: list[tuple[int, str]] = []
    chars = 0
    open_until = 0
    try:
        for n, line in iter_lines(path):
            part.append((n, line))
            chars += len(line)
            open_until = max(open_until, starts.get(n, n))
            if n >= open_until and (len(part) >= max_lines or chars >= max_chars):
                yield part, None
                part, chars = [], 0
    except ImportFailed:
        if part:  # read as far as the serial read gets: the traces closed before the bad line
            yield part, {tid: last[tid] for _n, line in part for tid in line_trace_ids(line) if tid in last}
        raise
    if part:
        yield part, None


def load_chunk(lines: Lines, file: str, state: _FileState, left: list[SpanRecord],
               last: dict[str, int] | None = None) -> Iterator[RunRecord]:
    """The records (traces, problems, run steps) of one chunk of whole traces of ``file``, as
    :meth:`~ctxviewer.importers.formats.otel.OtelImporter.load_runs` yields them for these lines;
    what they teach the file's state goes into ``state``, and the spans without a trace id the
    regex found (read at the end of the file: :func:`load_rest`) into ``left``. ``last``: the
    last line of each trace id in the file (given for the lines read before a read failure, whose
    traces may go on past them; by default found in ``lines``)."""
    from ctxviewer.importers.formats.otel import _load_group

    if last is None:
        last = {}
        for n, line in lines:
            for tid in line_trace_ids(line):
                last[tid] = n
    held: dict[str | None, list[SpanRecord]] = {}
    for group in line_groups(lines, file, last, {}, held, set()):
        yield from _load_group(group, file, state, with_runs=True)
    left.extend(sp for group in held.values() for sp in group)


def load_rest(rest: list[SpanRecord], file: str, state: _FileState) -> Iterator[RunRecord]:
    """The records after the file's last chunk: the spans of ``rest`` (every chunk's ``left``, in
    file order) as one last group, then the end-of-file problems of the whole file's ``state``."""
    from ctxviewer.importers.formats.otel import _load_group, file_end

    if rest:
        yield from _load_group(rest, file, state, with_runs=True)
    yield from file_end(state, file)


class ChunkReader:
    """``records`` as an importer's ``load_runs`` (named ``otel``), for
    :meth:`ctxviewer.importers.registry.Registry.load` to isolate and sort as it does a file's:
    ``done`` turns True once ``records`` ran to its end (not cut by a bug)."""

    name = "otel"
    records_omissions = False
    description = "a chunk of an OTel JSON Lines file"

    def __init__(self, records: Iterator[RunRecord]) -> None:
        self.done = False
        self._records = records

    def sniff(self, path: Path, head: bytes) -> float:
        """Never picked by detection (0.0)."""
        return 0.0

    def load(self, path: Path) -> Iterator[RunRecord]:
        """The records (what :meth:`load_runs` gives)."""
        return self.load_runs(path)

    def load_runs(self, path: Path) -> Iterator[RunRecord]:
        """The records given, then ``done``."""
        yield from self._records
        self.done = True
