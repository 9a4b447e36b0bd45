"""One chunk of an import read to the end short of writing: the lines of a JSON Lines OTel file
mapped, repaired, token-counted and assessed -- in a worker process of
:mod:`ctxviewer.pipeline.ingest_pool` (:func:`serve`), or in the importing process (a chunk that
must be read again knowing the chunks before it).

Everything done here is what the serial import does to the same records, in the same order:
the registry's isolation of importer bugs and its notes (:meth:`ctxviewer.importers.registry.Registry.load`),
:func:`repaired` (the repair and check of :mod:`ctxviewer.pipeline.sanitize`, the plausibility
problems), :func:`ctxviewer.pipeline.missing_counts.counted` and
:func:`ctxviewer.pipeline.stored_facts.stored_facts` -- each a pure function of the trace (and the
check configuration). What depends on the whole run (a trace id seen twice, one already stored,
the conversations' derived omissions) stays with the importing process. Token counts are
counted here without the database's cache (a count is a pure function of text and encoding) and
sent back to be written into it, as the serial import writes the counts it made.

No Qt here.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from ctxviewer.assess.plausibility import implausible
from ctxviewer.diff.conversation import conversation_key
from ctxviewer.importers import ImportProblem, Registry
from ctxviewer.importers.formats.otel.chunks import ChunkReader, Lines, load_chunk, new_state
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.missing_counts import counted, counting_encoding_of, encoding_problem, needs_counting
from ctxviewer.pipeline.sanitize import CheckedForms, checked, repair
from ctxviewer.pipeline.stored_facts import stored_facts

if TYPE_CHECKING:
    from ctxviewer.assess.context import AssessContext
    from ctxviewer.importers.common.spans.span import SpanRecord
    from ctxviewer.model.run import RunSpan
    from ctxviewer.store import TraceStore
    from ctxviewer.store.facts import StoredFacts

COUNTS_KEPT = 200_000
"""Token counts a worker remembers across its chunks (``(sha256, encoding) -> tokens``); past it, it starts again."""


@dataclass
class Ready:
    """One trace of a chunk, read to the end short of writing. ``trace`` ``None``: left out
    (``repairs`` says why). ``conversation``: it may have dropped earlier turns (its derived
    omissions are computed after the write)."""

    trace: RequestTrace | None
    facts: StoredFacts | None
    form: dict[str, Any] | None
    repairs: list[ImportProblem]
    conversation: bool = False


@dataclass
class Chunk:
    """What one chunk gave: ``records`` in file order (problems and :class:`Ready` traces), the
    run steps, the file state learnt (``_FileState``), the spans left for the end of the file,
    the token counts made (``(sha256 digest, encoding) -> tokens``), and ``aborted`` when an
    importer bug ended the chunk (the serial read ends the file there)."""

    records: list[ImportProblem | Ready] = field(default_factory=list)
    runs: list[RunSpan] = field(default_factory=list)
    state: Any = None
    left: list[SpanRecord] = field(default_factory=list)
    counts: dict[tuple[bytes, str], int] = field(default_factory=dict)
    aborted: bool = False


class _Counts:
    """The token counts of a worker, in place of the store's cache (:meth:`TraceStore.token_counts`'s shape)."""

    def __init__(self) -> None:
        self.known: dict[tuple[bytes, str], int] = {}
        self.fresh: dict[tuple[bytes, str], int] = {}

    def token_counts(self, texts: list[str], encoding: str) -> list[int]:
        from ctxviewer.store.rows import content_digest
        from ctxviewer.tokens.counting import count_many

        keys = {t: (content_digest(t), encoding) for t in dict.fromkeys(texts)}
        missing = [t for t, k in keys.items() if k not in self.known]
        if len(self.known) + len(missing) > COUNTS_KEPT:
            self.known.clear()
            missing = list(keys)
        for text, n in zip(missing, count_many(missing, encoding) if missing else ()):
            self.known[keys[text]] = n
        for k in keys.values():
            self.fresh[k] = self.known[k]
        return [self.known[keys[t]] for t in texts]


_REGISTRY: list[Registry] = []
_COUNTS: list[_Counts] = []


def read_chunk(file: str, lines: Lines, context: AssessContext, rejected_before: int = 0,
               last: dict[str, int] | None = None) -> Chunk:
    """The :class:`Chunk` of ``lines`` of the JSON Lines OTel file ``file``, assessed in
    ``context``, as if ``rejected_before`` spans or lines had been rejected earlier in the file
    (``last`` as for :func:`ctxviewer.importers.formats.otel.chunks.load_chunk`).
    Raises what the importer raises that the registry lets through (:class:`ImportFailed`)."""
    if not _REGISTRY:
        _REGISTRY.append(Registry(builtin=(), group=None))
        _COUNTS.append(_Counts())
    counts = _COUNTS[0]
    counts.fresh = {}
    out = Chunk(state=new_state(rejected_before))
    reader = ChunkReader(load_chunk(lines, file, out.state, out.left, last))
    forms = CheckedForms()
    traces: list[RequestTrace] = []
    for record in _REGISTRY[0].load(reader, Path(file), out.runs):  # type: ignore[arg-type]
        if isinstance(record, ImportProblem):
            out.records.append(record)
            continue
        repairs: list[ImportProblem] = []
        trace = repaired(record, file, repairs, forms)
        conv = trace is not None and not trace.omissions_recorded and conversation_key(trace) is not None
        out.records.append(Ready(trace, None, None, repairs, conv))
        if trace is not None:
            traces.append(trace)
    out.aborted = not reader.done
    out.state.rejected -= rejected_before
    done = iter(counted(iter(traces), cast("TraceStore", counts)))
    for ready in out.records:
        if isinstance(ready, Ready) and ready.trace is not None:
            ready.trace = next(done)
            ready.form = forms.take(ready.trace)
            ready.facts = stored_facts(ready.trace, context)
    out.counts = counts.fresh
    return out


def repaired(trace: RequestTrace, file: str, problems: list[ImportProblem],
             forms: CheckedForms | None = None) -> RequestTrace | None:
    """``trace`` made storable (:func:`ctxviewer.pipeline.sanitize.repair`), its implausible values named
    (:func:`ctxviewer.assess.plausibility.implausible`); one problem per repaired or implausible field.
    ``None`` when the store still could not read it back (:func:`ctxviewer.pipeline.sanitize.unreadable`),
    with a problem naming the field (``"items[2].id: duplicate item id 'system'; the trace was left
    out"``): no importer stores a trace that ``show`` cannot open.
    When items need counting under an encoding that is not available offline, a problem says so
    here (in file order) and the items keep ``tokens=None`` (the counting then skips them).
    ``forms`` keeps the record the check converted (:func:`ctxviewer.pipeline.sanitize.checked`)."""
    record = f"trace {trace.trace_id}" if trace.trace_id else "trace without an id"
    trace, fixed = repair(trace)
    problems.extend(ImportProblem(file, record, message) for message in fixed)
    why, form = checked(trace)
    if forms is not None:
        forms.keep(trace, form)
    if why is not None:
        problems.append(ImportProblem(file, record, f"{why}; the trace was left out", dropped=1))
        return None
    said = {m.split(":", 1)[0] for m in fixed}  # a dropped number is warned about once (repair said it)
    problems.extend(ImportProblem(file, record, message) for field, message in implausible(trace) if field not in said)
    if needs_counting(trace):
        problem = encoding_problem(counting_encoding_of(trace)[0])
        if problem is not None:
            problems.append(ImportProblem(file, record, f"token counts not recorded and not counted: {problem}"))
    return trace


def serve(inp: IO[bytes] | None = None, out: IO[bytes] | None = None) -> None:
    """A worker's main loop: read ``(file, lines, context, last)`` pickles from ``inp`` (default: stdin)
    until it closes, and write each chunk's :class:`Chunk` to ``out`` (default: the original
    stdout; anything printed goes to stderr, so it cannot tear the stream). An exception a chunk
    raises is sent instead of its :class:`Chunk`."""
    from ctxviewer.pipeline.assess_pool import worker_streams

    inp, out = worker_streams(inp, out)
    from ctxviewer.assess.checks import load_checks

    load_checks()
    while True:
        try:
            file, lines, context, last = pickle.load(inp)
        except EOFError:
            return
        got: Chunk | Exception
        try:
            got = read_chunk(file, lines, context, 0, last)
        except Exception as exc:  # given back to the importing process, which raises it in its place)
            got = exc
        pickle.dump(got, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

