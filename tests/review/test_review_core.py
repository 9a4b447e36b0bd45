"""Review queue core: collection over a DB, order, filters, counts, verdicts in their own file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ctxviewer.model.findings import Evidence, Finding, Severity, TextSpan
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.review import (
    FindingKey,
    ReviewFile,
    ReviewQueue,
    ReviewVerdict,
    collect,
    is_reviewable,
    key_of,
    review_path,
)
from ctxviewer.review.verdicts import ReviewFileError
from ctxviewer.store import TraceStore
from tests.factories import make_injected_trace, make_trace


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "traces.db"
    with TraceStore.create(path) as store:
        store.add(with_facts([make_injected_trace(n) for n in range(4)] + [make_trace()]))
    return path


def test_collect_sorts_and_counts(db: Path) -> None:
    with TraceStore.open(db) as store:
        queue = ReviewQueue(collect(store), ReviewFile(review_path(db)))
    assert len(queue.entries) == 20  # 4 traces x 5 hits; the clean trace adds none
    assert queue.entries[0].finding.severity is Severity.FAILURE  # the role marker, worst first
    assert [e.key.rule for e in queue.entries[:4]] == ["injection.role_marker"] * 4
    assert queue.counts_text() == "0 of 20 reviewed"
    assert queue.rules() == ["injection.address", "injection.hidden", "injection.override", "injection.role_marker",
                             "injection.tool_request"]
    assert queue.trace_ids() == ["inj-000", "inj-001", "inj-002", "inj-003"]
    assert len(queue.filtered(rule="injection.hidden")) == 4
    assert len(queue.filtered(trace_id="inj-002")) == 5


def test_verdicts_survive_reopen_and_reimport(db: Path) -> None:
    with TraceStore.open(db) as store:
        queue = ReviewQueue(collect(store), ReviewFile(review_path(db)))
    first, second = queue.entries[0], queue.entries[1]
    queue.record(first, ReviewVerdict.CONFIRMED, "ticket text told the model to approve")
    queue.record(second, ReviewVerdict.FALSE_POSITIVE)
    queue.note(second, "a quoted example in a training doc")
    assert queue.counts_text() == "2 of 20 reviewed"
    assert len(queue.filtered(status="unreviewed")) == 18
    assert [e.key for e in queue.filtered(status="confirmed")] == [first.key]
    queue.file.close()  # type: ignore[union-attr]
    # re-import the same traces (replace), reopen: verdicts are keyed by trace, item, rule, span
    with TraceStore.create(db) as store:
        store.add(with_facts([make_injected_trace(n) for n in range(4)]))
    with TraceStore.open(db) as store:
        again = ReviewQueue(collect(store), ReviewFile(review_path(db)))
    assert again.counts_text() == "2 of 20 reviewed"
    r = again.reviews[second.key]
    assert (r.verdict, r.note) == (ReviewVerdict.FALSE_POSITIVE, "a quoted example in a training doc")
    assert review_path(db).name == "traces.review.sqlite"
    # never written into the trace database
    tables = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "reviews" not in tables


def test_key_without_span_and_reviewable() -> None:
    f = Finding("injection.permitted_after_flag", Severity.CRITICAL, "m",
                Evidence(item_ids=("doc",), tool_call_ids=("c1",)))
    assert key_of("t", f) == FindingKey("t", "doc", "injection.permitted_after_flag", -1, -1)
    g = Finding("injection.override", Severity.WARNING, "m", Evidence(spans=(TextSpan("d", 3, 9),)))
    assert key_of("t", g) == FindingKey("t", "d", "injection.override", 3, 9)
    assert is_reviewable(f) and is_reviewable(g)
    assert not is_reviewable(Finding("budget.over_capacity", Severity.FAILURE, "m"))


def test_not_a_review_file(tmp_path: Path) -> None:
    bad = tmp_path / "x.review.sqlite"
    bad.write_text("hello, not sqlite" * 100)
    with pytest.raises(ReviewFileError, match="not a ctxviewer review file"):
        ReviewFile(bad)
