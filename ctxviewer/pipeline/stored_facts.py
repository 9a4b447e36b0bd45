"""The facts the store keeps of one trace's assessment, computed here where the assessment and the
store meet (the store never assesses; the assessment never knows the store).

:func:`stored_facts` assesses one trace (:func:`ctxviewer.assess.assessment.conclude`: eq. 3.1,
findings, state, verdict -- without the chart figure and header rows, which the store does not
keep) and returns its :class:`~ctxviewer.store.facts.StoredFacts`; :func:`with_facts` pairs each
trace of a stream with them, the shape :meth:`TraceStore.add <ctxviewer.store.TraceStore.add>`
takes. An import assesses over the cores instead (:func:`ctxviewer.pipeline.assess_pool.assessed`,
the same facts). No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ctxviewer.assess.assessment import Assessment, Conclusion, conclude
from ctxviewer.assess.budget import CapacityCheck
from ctxviewer.assess.context import AssessContext, context_for_db
from ctxviewer.model.trace import LimitMode, RequestTrace
from ctxviewer.store import TraceStore
from ctxviewer.store.facts import StoredFacts


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def window_use(c: CapacityCheck) -> tuple[int | None, int | None]:
    """``(used, window)`` in tokens: what eq. 3.1 set against the context window for check ``c`` and
    that window, as the header decided it -- what ``stats`` bands as used / C
    (:data:`~ctxviewer.store.group_sums.WINDOW_BANDS`). The window is C, recorded or assumed (the
    model catalogue, ``ctxviewer.toml``, a provider's refusal naming it), or the input limit in
    separate-limit mode; used is that window minus the margin (:attr:`CapacityCheck.margin`): input
    + B_out by whichever input decided (the provider's count when it did, the tokens a refusal says
    were sent), the input alone in separate-limit mode or when B_out is not recorded. ``(None,
    None)`` when eq. 3.1 was not decided (``c.fits is None``: no input, no C, or an assumed C the call
    itself refutes) or no margin is known."""
    window = c.max_input if c.limit_mode is LimitMode.SEPARATE else c.capacity
    if c.fits is None or c.margin is None or window is None:
        return None, None
    return window - c.margin, window


def fact_values(a: Assessment | Conclusion) -> tuple[Any, ...]:
    """The :data:`~ctxviewer.store.facts.FACT_COLUMNS` values of assessment ``a`` (or its
    :class:`~ctxviewer.assess.assessment.Conclusion`) as SQLite values: booleans as 0/1, unknowns
    as NULL, the state and worst severity as their words (``failure``)."""
    top = a.worst
    return (
        int(a.omissions_recorded),
        a.capacity.margin,
        _flag(a.capacity.fits),
        a.state.value,
        top.rule if top is not None else None,
        top.severity.value if top is not None else None,
        a.verdict,
        a.context,
        *window_use(a.capacity),
    )


def finding_rows(trace_id: str, a: Assessment | Conclusion) -> list[tuple[str, str, str, int]]:
    """``trace_findings`` rows of assessment ``a``: ``(trace_id, rule, severity, count)`` once per
    rule, with the severity of its worst finding (findings come worst first) and how many there are."""
    rows: dict[str, list[Any]] = {}
    for f in a.findings:
        if f.rule in rows:
            rows[f.rule][3] += 1
        else:
            rows[f.rule] = [trace_id, f.rule, f.severity.value, 1]
    return [(r[0], r[1], r[2], r[3]) for r in rows.values()]


def facts_of(a: Assessment | Conclusion) -> StoredFacts:
    """The :class:`~ctxviewer.store.facts.StoredFacts` of assessment ``a`` (no assessing)."""
    return StoredFacts(a.trace_id, a.capacity.input_tokens, fact_values(a),
                       tuple((r[1], r[2], r[3]) for r in finding_rows(a.trace_id, a)))


def stored_facts(trace: RequestTrace, context: AssessContext | None = None) -> StoredFacts:
    """Assess ``trace`` once in ``context`` (:func:`~ctxviewer.assess.assessment.conclude`; the
    database's :func:`~ctxviewer.assess.context.context_for_db`) and keep what the store writes.
    A pure function of the trace and the context."""
    return facts_of(conclude(trace, context))


def with_facts(traces: Iterable[RequestTrace], context: AssessContext | None = None) -> Iterator[tuple[RequestTrace, StoredFacts]]:
    """Each of ``traces`` with its :func:`stored_facts` in ``context``, lazily and in order, in this
    process: what :meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` takes
    (``store.add(with_facts([t], context_for_db(path)))``)."""
    for t in traces:
        yield t, stored_facts(t, context)


def save_traces(path: str | Path, traces: Iterable[RequestTrace]) -> int:
    """Assess ``traces`` and store them with their facts in the trace database at ``path`` (created
    when missing), in one transaction: what an application that builds its own requests
    (:mod:`ctxviewer.builder`) calls to keep them for ``ctxviewer``. Returns the traces written.
    Raises :class:`~ctxviewer.store.StoreError` (the file is not a trace database, is read-only,
    or SQLite refuses the write) and ``ValueError`` for a broken ``ctxviewer.toml`` or marks file
    beside it (the context the traces are assessed in, :func:`~ctxviewer.assess.context.context_for_db`)."""
    with TraceStore.create(path) as store:
        return store.add(with_facts(traces, context_for_db(path)))
