"""A big OTel JSON Lines file of an import read over the cores: parsing, mapping, repair, token
counting and assessment in worker processes, chunk by chunk, while the importing process only
keeps the run's books and writes.

The seam is a chunk of whole traces of one file (:mod:`ctxviewer.importers.formats.otel.chunks`:
cut after a line where no trace is open), read to the end short of writing in a worker
(:func:`ctxviewer.pipeline.ingest_chunk.read_chunk`). Chunks come back **in file order** and
their records enter the run exactly where the serial read puts them, so the database written is
the same, byte for byte (``benchmarks/db_same.py``), and so are the report's problems:

* the file-wide state (the end-of-file problems; whether a span was rejected before a lone tool
  execution) is added up chunk by chunk in file order; a chunk holding a named tool execution,
  read while spans had been rejected in earlier chunks, is read again here knowing it;
* the spans without a regex-found trace id, and the end-of-file problems, are read here after
  the last chunk, as the serial read does;
* an importer bug ending a chunk ends the file there (the later chunks are dropped), as it ends
  the serial read; a read failure part-way comes after the traces read before it;
* a trace id seen twice in the run or already stored, the counts of the report and the
  conversations' derived omissions stay with :mod:`ctxviewer.pipeline.importing` (the run's books).

Workers: plain child processes over pipes (:class:`ctxviewer.pipeline.assess_pool.Worker`:
nothing forked, the GUI imports too), :data:`IN_FLIGHT` chunks each at a time -- memory is bounded
by ``workers x IN_FLIGHT`` chunks of :data:`CHUNK_LINES` lines or :data:`CHUNK_CHARS`
characters, whatever the file's size. Cancel: the wait for a chunk polls
:func:`ctxviewer.util.interrupt.checkpoint`, and the workers are killed on any exit that leaves
chunks unread. A worker that dies is not an error: its chunks and the rest are read here.

When: :func:`use_pool` -- the built-in ``otel`` importer, no separate logs file to join, at least
two workers, and a file of :data:`POOL_MIN_BYTES` or more; :data:`ENV` (or ``import_files(pool=)``)
forces either way (tests). No Qt here.
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ctxviewer.importers import ImportFailed, Registry
from ctxviewer.importers.formats.otel import IMPORTER as OTEL
from ctxviewer.importers.formats.otel.chunks import ChunkReader, index, line_chunks, load_rest, new_state
from ctxviewer.pipeline.assess_pool import Worker, stop_all
from ctxviewer.pipeline.ingest_chunk import Chunk, Ready, read_chunk

if TYPE_CHECKING:
    from ctxviewer.assess.context import AssessContext
    from ctxviewer.importers.common.spans.span import SpanRecord
    from ctxviewer.importers.contract import Companions, Importer, Record
    from ctxviewer.model.run import RunSpan
    from ctxviewer.model.trace import RequestTrace
    from ctxviewer.store.facts import StoredFacts

POOL_MIN_BYTES = 8_000_000
"""A file smaller than this (bytes on disk) is read in the importing process. Each worker costs
about 0.75 s of CPU to start (imports 0.3 s, the checks, 0.4 s loading the o200k encoding) and
its traces are pickled back; measured (paired whole-process runs of ``ctxviewer import``, pool
vs serial, 2-core machine shared with other work) on bench_perf spans files: 2.1 MB (700
traces) wall 0.95x, CPU 1.33x; 6.0 MB (2,000) wall 0.95x, CPU 1.17x; 24 MB (8,000) wall 0.99x,
CPU 1.18x. Below ~8 MB the start-up is a large share of the run; above it the pool is the
default, for the wall time two free cores give (this process's own CPU is ~45 % of the serial
run's: the ceiling is ~2.2x) and for memory bounded by the chunks in flight."""
CHUNK_LINES = 96
"""Lines per chunk sent to a worker (cut at the first line after it where no trace is open)..."""
CHUNK_CHARS = 400_000
"""...or fewer, once the lines reach this many characters (bounds memory on long lines)."""
IN_FLIGHT = 2
"""Chunks per worker queued or running at once: one in work, one waiting."""
ENV = "CTXVIEWER_INGEST_POOL"
"""Environment variable forcing the choice: ``pool`` (any file size) or ``serial`` (never)."""


def forced() -> bool | None:
    """What :data:`ENV` forces: True (``pool``), False (``serial``), else None."""
    value = os.environ.get(ENV, "").strip().lower()
    return True if value == "pool" else False if value == "serial" else None


def use_pool(path: Path, importer: Importer | None, companions: Companions | None, workers: int,
             force: bool | None = None) -> bool:
    """Whether the file ``path``, read by ``importer``, is read over ``workers`` processes: the
    built-in ``otel`` importer, no ``otel-logs`` file of the run to join, ``workers`` >= 2, and a
    file of :data:`POOL_MIN_BYTES` or more -- the size waived by ``force`` True (default: :func:`forced`);
    ``force`` False: never. (Whether the file's shape allows chunks is known after its first pass.)"""
    force = forced() if force is None else force
    if force is False or workers < 2 or importer is not OTEL:
        return False
    if companions is not None and companions.of("otel-logs"):
        return False
    try:
        return bool(force) or os.path.getsize(path) >= POOL_MIN_BYTES
    except OSError:  # unreadable: the serial read says so
        return False


class Pool:
    """The workers of one import run: started at its first pooled file, stopped by :meth:`close`."""

    def __init__(self, workers: int) -> None:
        self.n = workers
        self.workers: list[Worker] = []
        self.dead = False  # a worker died: the rest of the run is read in-process

    def started(self) -> list[Worker]:
        """The running workers (started now when none are), ``[]`` after a worker died."""
        if not self.workers and not self.dead:
            self.workers = [Worker("ctxviewer.pipeline.ingest_chunk") for _ in range(self.n)]
        return self.workers

    def close(self, dead: bool = False) -> None:
        """Kill and reap the workers (a later file starts new ones unless ``dead``)."""
        stop_all(self.workers)
        self.workers = []
        self.dead = self.dead or dead


def pooled(path: Path, pool: Pool, context: AssessContext, runs: list[RunSpan],
           counts: Callable[[dict[tuple[bytes, str], int]], None],
           serial: Callable[[], Iterator[Record]]) -> Iterator[Record | Ready]:
    """The records of the OTel file ``path`` in file order, as ``registry.load`` gives them (run
    steps appended to ``runs``), its traces as :class:`~ctxviewer.pipeline.ingest_chunk.Ready`
    (repaired, counted, assessed in ``context``: the trace's :class:`~ctxviewer.store.facts.StoredFacts`
    and stored form) -- except the records read here at the end of the file, plain as
    ``registry.load`` gives them. ``counts(made)`` hears the token counts the workers made;
    ``serial()`` is the serial read, used for a file whose shape allows no chunks.
    Raises :class:`ImportFailed` as the serial read does (after the records read before it) and
    :class:`ctxviewer.util.interrupt.Interrupted` on a cancel."""
    file = str(path)
    registry = Registry(builtin=(), group=None)
    found = index(path)
    if found is None:  # not chunked: the serial read
        yield from serial()
        return
    starts, last = found
    state = new_state()
    left: list[SpanRecord] = []
    chunks = line_chunks(path, starts, last, CHUNK_LINES, CHUNK_CHARS)
    pending: deque[tuple[list[tuple[int, str]], dict[str, int] | None, Worker | None]] = deque()
    failure: ImportFailed | None = None
    sent = 0
    more = True
    try:
        while True:
            workers = pool.started()
            while more and len(pending) < max(1, len(workers)) * IN_FLIGHT:
                try:
                    lines, lasts = next(chunks)
                except StopIteration:
                    more = False
                    break
                except ImportFailed as exc:
                    failure, more = exc, False
                    break
                worker = workers[sent % len(workers)] if workers else None
                if worker is not None:
                    worker.send((file, lines, context, lasts))
                pending.append((lines, lasts, worker))
                sent += 1
            if not pending:
                break
            lines, lasts, worker = pending.popleft()
            got = worker.receive() if worker is not None else None
            if isinstance(got, Exception):
                raise got
            if not isinstance(got, Chunk):  # no pool, or a worker died: this chunk and the rest are read here
                if workers:
                    pool.close(dead=True)
                    pending = deque((p, q, None) for p, q, _w in pending)
                got = read_chunk(file, lines, context, state.rejected, lasts)
            elif state.rejected and got.state.lone_tools:  # its lone tools depend on the spans rejected before
                got = read_chunk(file, lines, context, state.rejected, lasts)
            state.absorb(got.state)
            runs.extend(got.runs)
            left.extend(got.left)
            counts(got.counts)
            yield from got.records
            if got.aborted:  # an importer bug: the serial read ends the file here
                return
    finally:
        if pending:  # chunks sent and not read (a cancel, an error, an early end): the workers hold them
            pool.close()
    if failure is not None:
        raise failure
    yield from registry.load(ChunkReader(load_rest(left, file, state)), path, runs)  # type: ignore[arg-type]


def staged(stream: Iterator[RequestTrace | Ready],
           serial: Callable[[Iterator[RequestTrace]], Iterator[tuple[RequestTrace, StoredFacts]]],
           ready_forms: dict[str, tuple[RequestTrace, dict[str, Any] | None]],
           ) -> Iterator[tuple[RequestTrace, StoredFacts]]:
    """``(trace, facts)`` of each of ``stream`` in order: a run of plain traces through ``serial``
    (counted and assessed here), a :class:`~ctxviewer.pipeline.ingest_chunk.Ready` one as its
    worker made it (its stored form kept in ``ready_forms`` for the write)."""
    head: list[Ready] = []

    def plain() -> Iterator[RequestTrace]:  # the plain traces up to the next ready one (kept in head)
        for got in stream:
            if isinstance(got, Ready):
                head.append(got)
                return
            yield got

    while True:
        yield from serial(plain())
        if not head:
            return
        ready = head.pop()
        assert ready.trace is not None and ready.facts is not None  # importing passes only kept traces
        ready_forms[ready.trace.trace_id] = (ready.trace, ready.form)
        yield ready.trace, ready.facts


__all__ = ["ENV", "POOL_MIN_BYTES", "Pool", "Ready", "forced", "pooled", "staged", "use_pool"]
