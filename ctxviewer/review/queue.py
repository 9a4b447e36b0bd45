"""Collecting reviewable findings over a trace database, and the review queue over them.

:func:`collect` runs the registered checks (:func:`ctxviewer.assess.checks.run_checks`) on every trace
of a store and keeps the findings a reviewer of prompt injection works through
(:func:`is_reviewable`): the scanner's and the action linkage's ``injection.*`` findings and the
tool-call checks' findings (rules ``tool.*`` / ``tool_call.*``, or any finding that names a
proposed tool call). :class:`ReviewQueue` is the one view the GUI audit view, SARIF and the HTML
report read: entries sorted by severity (worst first), then trace, item and span; filters by
rule, trace and status; counts ("37 of 112 reviewed"); verdicts written through the
:class:`~.verdicts.ReviewFile`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from ctxviewer.assess.checks import run_checks
from ctxviewer.assess.context import EMPTY, AssessContext, context_for_db
from ctxviewer.diff.conversation import derive_for_display
from ctxviewer.model.findings import Finding
from ctxviewer.model.trace import ContextItem, RequestTrace, ToolCall
from ctxviewer.review.keys import FindingKey, Review, ReviewVerdict, key_of
from ctxviewer.review.verdicts import ReviewFile
from ctxviewer.store import TraceQuery, TraceStore

UNREVIEWED = "unreviewed"
REVIEWED = "reviewed"
STATUSES = (UNREVIEWED, REVIEWED, *(v.value for v in ReviewVerdict))
"""Status filter values: ``unreviewed``, ``reviewed`` (any verdict) or one verdict's value."""


def is_reviewable(finding: Finding) -> bool:
    """True for injection findings and tool-call findings (see the module docstring)."""
    return (finding.rule.startswith(("injection.", "tool.", "tool_call.", "tools."))
            or bool(finding.evidence.tool_call_ids))


@dataclass(frozen=True)
class ReviewEntry:
    """One finding to review, with what the audit view shows beside it."""

    key: FindingKey
    finding: Finding
    item: ContextItem | None
    """The item the span indexes (``None`` when the finding names no item)."""
    tool_calls: tuple[ToolCall, ...]
    """The proposed tool calls the finding is linked to."""


def entries_for(trace: RequestTrace, findings: Iterable[Finding]) -> list[ReviewEntry]:
    """The review entries of ``trace`` for the reviewable ones among ``findings`` (deduplicated by key)."""
    refs = {(c.id or f"#{n}"): c for n, c in enumerate(trace.tool_calls)}
    out: dict[FindingKey, ReviewEntry] = {}
    for f in findings:
        if not is_reviewable(f):
            continue
        key = key_of(trace.trace_id, f)
        try:
            item = trace.item(key.item_id) if key.item_id else None
        except KeyError:
            item = None
        calls = tuple(refs[r] for r in f.evidence.tool_call_ids if r in refs)
        out.setdefault(key, ReviewEntry(key, f, item, calls))
    return list(out.values())


def collect(store: TraceStore, progress: Callable[[int, int], None] | None = None,
            cancelled: Callable[[], bool] | None = None, trace_ids: Iterable[str] | None = None,
            context: AssessContext | None = None) -> list[ReviewEntry]:
    """Reviewable findings of every trace in ``store`` (or of ``trace_ids``), unsorted, each trace
    read as every surface reads it: with the messages dropped between calls derived
    (:func:`ctxviewer.diff.conversation.derive_for_display`) and checked in ``context`` (the
    database's, :func:`ctxviewer.assess.context.context_for_db`; ``None``: the store's own).

    ``progress(done, total)`` is called per trace; when ``cancelled()`` turns true the traces read
    so far are returned. A trace that cannot be loaded is skipped (its id is not reported here).
    """
    ids = list(trace_ids) if trace_ids is not None else [r.trace_id for r in store.list(TraceQuery(), 0, -1)]
    ctx = context if context is not None else _own_context(store)
    out: list[ReviewEntry] = []
    for n, tid in enumerate(ids):
        if cancelled and cancelled():
            break
        try:
            trace = derive_for_display(store, store.load(tid))
        except Exception:  # a damaged trace never stops the queue
            continue
        out.extend(entries_for(trace, run_checks(trace, ctx.config)))
        if progress:
            progress(n + 1, len(ids))
    return out


def _own_context(store: TraceStore) -> AssessContext:
    """The store's context; without it (a broken ``ctxviewer.toml`` or marks file) the empty one:
    the queue still lists the findings, as the window says the file's error beside it."""
    try:
        return context_for_db(store.path)
    except ValueError:
        return EMPTY


def _order(e: ReviewEntry) -> tuple[int, str, str, int, str]:
    return (-e.finding.severity.rank, e.key.trace_id, e.key.item_id, e.key.start, e.key.rule)


class ReviewQueue:
    """The sorted, filterable queue of :class:`ReviewEntry` with the reviewer's :class:`Review` s."""

    def __init__(self, entries: Iterable[ReviewEntry], review_file: ReviewFile | None = None,
                 reviewer: str | None = None) -> None:
        self.entries: list[ReviewEntry] = sorted(entries, key=_order)
        self.file = review_file
        self.reviewer = reviewer
        """The name every verdict and note is recorded with (:mod:`.reviewer`; ``None``: not recorded)."""
        self.reviews: dict[FindingKey, Review] = review_file.all() if review_file else {}

    def review(self, entry: ReviewEntry) -> Review | None:
        """The recorded review of ``entry`` (``None`` when never touched)."""
        return self.reviews.get(entry.key)

    def status(self, entry: ReviewEntry) -> str:
        """``unreviewed`` or the verdict's value."""
        r = self.reviews.get(entry.key)
        return r.verdict.value if r and r.verdict else UNREVIEWED

    def filtered(self, rule: str | None = None, trace_id: str | None = None,
                 status: str | None = None) -> list[ReviewEntry]:
        """Entries matching every given filter, in queue order. ``status`` is one of :data:`STATUSES`."""
        out = []
        for e in self.entries:
            if (rule and e.key.rule != rule) or (trace_id and e.key.trace_id != trace_id):
                continue
            if status:
                s = self.status(e)
                if (status == REVIEWED and s == UNREVIEWED) or (status != REVIEWED and s != status):
                    continue
            out.append(e)
        return out

    def counts(self, entries: list[ReviewEntry] | None = None) -> tuple[int, int]:
        """``(reviewed, total)`` over ``entries`` (default: the whole queue)."""
        entries = self.entries if entries is None else entries
        return sum(self.status(e) != UNREVIEWED for e in entries), len(entries)

    def counts_text(self, entries: list[ReviewEntry] | None = None) -> str:
        """``"37 of 112 reviewed"``."""
        done, total = self.counts(entries)
        return f"{done} of {total} reviewed"

    def rules(self) -> list[str]:
        """Distinct rule ids in the queue, sorted (for the rule filter)."""
        return sorted({e.key.rule for e in self.entries})

    def trace_ids(self) -> list[str]:
        """Distinct trace ids in the queue, sorted (for the trace filter)."""
        return sorted({e.key.trace_id for e in self.entries})

    def record(self, entry: ReviewEntry, verdict: ReviewVerdict | None, note: str | None = None) -> Review:
        """Write ``verdict`` (and ``note``; ``None`` keeps the current note) for ``entry`` to the
        review file in one transaction, with :attr:`reviewer` and the time. Raises ``RuntimeError`` when the queue has no review file and
        :class:`~.verdicts.ReviewFileError` when it cannot be written (the queue is unchanged then)."""
        if self.file is None:
            raise RuntimeError("this review queue has no review file to write to")
        old = self.reviews.get(entry.key)
        if note is None:
            note = old.note if old else ""
        review = self.file.write(entry.key, verdict, note, self.reviewer)
        self.reviews[entry.key] = review
        return review

    def note(self, entry: ReviewEntry, note: str) -> Review:
        """Write ``note`` for ``entry``, keeping its verdict."""
        old = self.reviews.get(entry.key)
        return self.record(entry, old.verdict if old else None, note)


def status_label(status: str) -> str:
    """Words for a status value: ``"unreviewed"``, ``"confirmed injection"``, ..."""
    return ReviewVerdict(status).label if status in {v.value for v in ReviewVerdict} else status


def cells(queue: ReviewQueue, entry: ReviewEntry) -> list[str]:
    """What each column of the review table says for ``entry`` (titles in :data:`COLUMN_TITLES`)."""
    k = entry.key
    span = f"{k.start}–{k.end}" if k.start >= 0 else ""
    return [entry.finding.severity.value, status_label(queue.status(entry)), k.rule, k.trace_id, k.item_id, span,
            entry.finding.message]


COLUMN_TITLES = ("severity", "status", "rule", "trace", "item", "span", "message")
"""Column titles of the review table (the core decides what each cell says: :func:`cells`)."""
