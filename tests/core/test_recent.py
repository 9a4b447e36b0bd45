"""ctxviewer.util.memo: a memo found by identity (issue 11: the trace-keyed lru_caches hashed every
whole trace at import and never hit). Same object: one computation; an equal copy: computed again
with the same answer; bounded."""

from __future__ import annotations

from dataclasses import replace

from ctxviewer.assess import budget
from ctxviewer.util.memo import ByIdentity
from tests.factories import make_trace


def test_the_same_object_is_computed_once_an_equal_copy_again_and_the_memo_is_bounded() -> None:
    calls: list[int] = []
    memo: ByIdentity[list[int], int] = ByIdentity(lambda xs: calls.append(len(xs)) or sum(xs), size=3)
    a, b = [1, 2], [1, 2]
    assert (memo(a), memo(a), memo(b)) == (3, 3, 3)
    assert calls == [2, 2]  # a once, its equal copy b once more
    others = [[n] for n in range(5)]
    assert [memo(o) for o in others] == [0, 1, 2, 3, 4]
    assert len(memo._memo) == 3  # bounded; the oldest (a, b) went first
    calls.clear()
    assert memo(a) == 3 and calls == [2]  # a was forgotten: computed again
    memo.cache_clear()
    assert memo._memo == {}


def test_capacity_is_shared_per_trace_object_and_equals_eq_3_1(monkeypatch) -> None:
    calls: list[str] = []
    real = budget.check_capacity
    monkeypatch.setattr(budget, "check_capacity", lambda t: calls.append(t.trace_id) or real(t))
    budget.capacity.cache_clear()
    t = make_trace()
    first = budget.capacity(t)
    assert budget.capacity(t) is first and calls == [t.trace_id]
    copy = replace(t)
    assert budget.capacity(copy) == first == real(t) and calls == [t.trace_id, t.trace_id]
