"""Assessing the traces of an import over the machine's cores, for import speed.

:meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` stores facts from one
:func:`ctxviewer.assess.assessment.assess` call per trace (eq. 3.1, state, findings), and that call --
mostly the injection scanner and the Table 3.1 checks -- costs far more than parsing or writing.
:func:`assessed` runs it in worker processes while the importing process parses, counts tokens
and writes:

* traces go to the workers in batches of :data:`BATCH`, at most :data:`IN_FLIGHT` batches per
  worker at a time (memory stays bounded on any file size), and come back **in input order**;
* a stream of fewer than :data:`POOL_AFTER` traces, or a machine with one core, is assessed in
  this process (starting workers costs about half a second); an import on fewer than
  :data:`POOL_MIN_CORES` cores asks for no workers (:func:`import_workers`: there the pool costs
  more than it saves);
* the workers are plain child processes (``python -c`` running :func:`serve`, talking pickles
  over their stdin and stdout), not :mod:`multiprocessing` ones: nothing is forked (the GUI
  imports on a thread of a Qt process, which must not be forked) and the caller's main module is
  never re-imported in a worker (a script calling :func:`ctxviewer.pipeline.importing.import_into`
  needs no ``if __name__ == "__main__"`` guard). They run in their own session, so Ctrl+C on the
  terminal reaches only the importing process, which cancels and stops them;
* cancel: the wait for a batch polls :func:`ctxviewer.util.interrupt.checkpoint` every
  :data:`POLL_S` seconds, and on any exception (a cancel, a store error) or when the caller stops
  reading, the workers are killed at once -- a worker deep inside a huge item does not make the
  cancel wait;
* a worker that dies (killed, out of memory, cannot start) is not an error: its batches and the
  rest of the stream are assessed in this process.

The facts computed in a worker equal the in-process ones: :func:`ctxviewer.pipeline.stored_facts.stored_facts`
is a pure function of the trace and the check configuration
(:func:`ctxviewer.assess.config.active`, e.g. the expected policy versions the GUI read beside the
database), which goes to the worker with each batch. Each worker remembers the scanner's results
per text, and the importing process keeps every worker's results by content hash for the run
(:class:`ScanMemo`) and sends them along with the batches that hold the same text: each distinct
untrusted text is scanned about once per import, not once per trace or per worker (the scanner
is a pure function of the text; :func:`ctxviewer.assess.scanner.scope.scan_items` decides from the item
alone whether it is scanned). The memo enters the scanner from the outside, in the worker only:
the worker points :mod:`ctxviewer.assess.scanner.scope`'s ``scan_text_cached`` at it.

No Qt here.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
from collections import deque
from itertools import chain, islice
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Iterable, Iterator

from ctxviewer.assess.context import AssessContext
from ctxviewer.pipeline.stored_facts import stored_facts
from ctxviewer.store.facts import StoredFacts
from ctxviewer.util.interrupt import checkpoint

if TYPE_CHECKING:
    from ctxviewer.assess.context import AssessContext
    from ctxviewer.model.trace import RequestTrace

BATCH = 16
"""Traces per task sent to a worker (pickled together; about 15 ms of assessment each)."""
IN_FLIGHT = 3
"""Batches per worker queued or running at once: enough to keep every worker busy while this
process parses and writes, few enough to bound memory and the work thrown away by a cancel."""
POOL_AFTER = 48
"""A stream of fewer traces than this is assessed in this process (no workers started)."""
POLL_S = 0.05
"""Seconds between cancel checks while waiting for a worker (cancel answers within this)."""


MEMO_ENTRIES = 500_000
"""Scan results the run remembers (about 100 bytes each: a 32-byte sha256 and usually no hits);
past it the memo starts again empty."""


class ScanMemo:
    """Scanner hits per untrusted text for one run, keyed by the text's sha256 digest (32 bytes)."""

    def __init__(self, limit: int = MEMO_ENTRIES) -> None:
        self.hits: dict[bytes, tuple[Any, ...]] = {}
        self.limit = limit

    def known_for(self, traces: list[RequestTrace]) -> dict[bytes, tuple[Any, ...]]:
        """The remembered hits of the scanned texts of ``traces`` (to send with them)."""
        from ctxviewer.assess.scanner.scope import Scope, scope_of

        out: dict[bytes, tuple[Any, ...]] = {}
        if not self.hits:
            return out
        for t in traces:
            for item in t.items:
                if item.content and scope_of(item) is Scope.UNTRUSTED:
                    key = digest(item.content)
                    hits = self.hits.get(key)
                    if hits is not None:
                        out[key] = hits
        return out

    def learn(self, fresh: dict[bytes, tuple[Any, ...]]) -> None:
        """Remember ``fresh`` results (from a worker)."""
        if len(self.hits) + len(fresh) > self.limit:
            self.hits.clear()
        self.hits.update(fresh)


def digest(text: str) -> bytes:
    """sha256 digest (32 bytes) of ``text`` as UTF-8 (lone surrogates kept), the memo's key."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


POOL_MIN_CORES = 3
"""Fewer cores than this: an import assesses in its own process by default (:func:`import_workers`).
On 2 cores the importing process parses, counts and writes on one of them already, and the pool's
feeding, pickling and reading cost more than the assessment it takes over: measured (interleaved
whole-process runs, 2-core machine shared with other work) the in-process import of 10,000
bench_perf traces took 0.85x the wall time and 0.80x the CPU of the two-worker one, of 2,000 0.96x
and 0.73x, of 3,000 bench_serve spans 0.92x and 0.70x. (A re-assessment, which only loads and
writes beside the workers, keeps :func:`default_workers`.)"""


def default_workers() -> int:
    """Worker processes for a re-assessment (:mod:`ctxviewer.pipeline.backfill`): the cores this
    process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def import_workers() -> int:
    """Worker processes for an import's assessment: :func:`default_workers` from
    :data:`POOL_MIN_CORES` cores, else 1 (assessed in the importing process)."""
    cores = default_workers()
    return cores if cores >= POOL_MIN_CORES else 1


def assessed(traces: Iterable[RequestTrace], workers: int | None = None, *, context: AssessContext | None = None,
             batch: int = BATCH, pool_after: int = POOL_AFTER) -> Iterator[tuple[RequestTrace, StoredFacts]]:
    """Each of ``traces`` with its :class:`~ctxviewer.store.facts.StoredFacts` in ``context`` (the
    target database's, :func:`ctxviewer.assess.context.context_for_db`), in input order.

    ``workers`` processes (default :func:`default_workers`) assess batches of ``batch`` traces
    once the stream has reached ``pool_after`` traces; ``workers`` < 2 or a shorter stream is
    assessed here. ``traces`` is read lazily, at most ``workers * IN_FLIGHT * batch`` traces ahead
    of what has been yielded. Raises what ``traces`` raises and
    :class:`ctxviewer.util.interrupt.Interrupted` when the surrounding
    :func:`ctxviewer.util.interrupt.watching` block is cancelled; the workers are stopped in every case.
    """
    from ctxviewer.assess.config import active

    if context is None:  # the checks' active configuration, as an in-process assessment would read it
        context = AssessContext(active())
    n = default_workers() if workers is None else workers
    source = iter(traces)
    head = list(islice(source, pool_after)) if n >= 2 else []
    if n < 2 or len(head) < pool_after:
        for t in chain(head, source):
            yield t, stored_facts(t, context)
        return
    pool = [Worker() for _ in range(n)]
    memo = ScanMemo()
    pending: deque[tuple[list[RequestTrace], Worker | None]] = deque()
    stream = chain(head, source)
    sent = 0
    more = True
    try:
        while True:
            while more and len(pending) < n * IN_FLIGHT:
                part = list(islice(stream, batch))
                if not part:
                    more = False
                    break
                worker = pool[sent % n] if pool else None
                if worker is not None:
                    worker.send((context, memo.known_for(part), part))
                pending.append((part, worker))
                sent += 1
            if not pending:
                return
            part, worker = pending.popleft()
            got = worker.receive() if worker is not None else None
            if got is not None:
                facts, fresh = got
                memo.learn(fresh)
            else:  # no pool, or a worker died: this batch and the rest are assessed here
                if pool:
                    stop_all(pool)
                    pool = []
                    pending = deque((p, None) for p, _ in pending)
                facts = [stored_facts(t, context) for t in part]
            yield from zip(part, facts)
    finally:
        stop_all(pool)


class Worker:
    """One worker process (``module``'s ``serve()``, by default this module's :func:`serve`) with a
    thread feeding it pickled tasks and one reading the pickled results."""

    def __init__(self, module: str = __name__) -> None:
        root = str(Path(__file__).resolve().parents[1])  # the directory holding the ctxviewer package
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        self._results: queue.Queue[Any] = queue.Queue()
        self._todo: queue.Queue[Any] = queue.Queue()
        try:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-c", f"from {module} import serve; serve()"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                start_new_session=os.name == "posix")
        except OSError:
            self.proc = None
            self._results.put(None)
            return
        assert self.proc.stdin is not None and self.proc.stdout is not None
        threading.Thread(target=self._feed, args=(self.proc.stdin,), daemon=True, name="assess-feed").start()
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True, name="assess-read").start()

    def send(self, task: Any) -> None:
        """Queue one task (a batch) for the worker (never blocks)."""
        self._todo.put(task)

    def receive(self) -> Any:
        """The result of the oldest task sent (here: the facts of a batch and the scan results
        the worker made for it), waiting for it (cancel checked every :data:`POLL_S`); ``None``
        when the worker died or could not start."""
        while True:
            checkpoint()
            try:
                got: Any = self._results.get(timeout=POLL_S)
                return got
            except queue.Empty:
                continue

    def stop(self) -> None:
        """Kill the process now (its stdin closed; the threads end on the broken pipes)."""
        self._todo.put(None)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()

    def wait(self) -> None:
        """Reap the process after :meth:`stop`."""
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def _feed(self, pipe: IO[bytes]) -> None:
        try:
            while (task := self._todo.get()) is not None:
                pickle.dump(task, pipe, protocol=pickle.HIGHEST_PROTOCOL)
                pipe.flush()
        except (OSError, ValueError):  # the worker died or was stopped
            pass
        finally:
            try:
                pipe.close()
            except OSError:
                pass

    def _read(self, pipe: IO[bytes]) -> None:
        try:
            while True:
                self._results.put(pickle.load(pipe))
        except Exception:  # EOF, a broken pipe, a torn message: the worker is gone
            self._results.put(None)


def stop_all(pool: list[Worker]) -> None:
    """Kill every worker of ``pool`` and reap them."""
    for w in pool:
        w.stop()
    for w in pool:
        w.wait()


def worker_streams(inp: IO[bytes] | None, out: IO[bytes] | None) -> tuple[IO[bytes], IO[bytes]]:
    """A worker process's ``(input, output)`` pickle streams: ``inp`` or stdin, and ``out`` or the
    original stdout -- which is then moved to a new descriptor, stdout becoming stderr, so anything
    the work prints cannot tear the stream. Ctrl+C is ignored: the importing process decides."""
    import signal

    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if out is None:
        out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return (inp if inp is not None else sys.stdin.buffer), out


def serve(inp: IO[bytes] | None = None, out: IO[bytes] | None = None) -> None:
    """A worker's main loop: read ``(config, known hits, traces)`` pickles from ``inp`` (default:
    stdin) until it closes, and write each batch's ``([StoredFacts, ...], fresh hits)`` to ``out``
    (default: the original stdout; anything the checks print goes to stderr instead, so it cannot
    tear the stream). Hits are ``{sha256 digest: (Hit, ...)}``: ``known`` are used instead of
    scanning, ``fresh`` are the texts this worker scanned for the batch."""
    inp, out = worker_streams(inp, out)
    from ctxviewer.assess.checks import load_checks
    from ctxviewer.assess.scanner import registry, scope

    load_checks()
    memo = ScanMemo()
    fresh: dict[bytes, tuple[Any, ...]] = {}

    def scan(text: str) -> tuple[Any, ...]:
        key = digest(text)
        hits = memo.hits.get(key)
        if hits is None:
            hits = registry.scan_text_cached(text)
            memo.learn({key: hits})
            fresh[key] = hits
        return hits

    setattr(scope, "scan_text_cached", scan)  # noqa: B010  (the memo enters the scanner from the outside)
    while True:
        try:
            context, known, traces = pickle.load(inp)
        except EOFError:
            return
        memo.learn(known)
        fresh = {}
        facts = [stored_facts(t, context) for t in traces]
        pickle.dump((facts, fresh), out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()
