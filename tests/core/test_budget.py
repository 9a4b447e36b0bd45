"""eq. 3.1 checks on hand-built traces (the chapter's 8,000-token example and variants)."""

from __future__ import annotations

from dataclasses import replace

from ctxviewer.assess.bars import declared_bar, used_bar
from ctxviewer.assess.budget import allocations, category_of, check_capacity
from ctxviewer.assess.verdict import verdict_text
from ctxviewer.model.trace import (
    Category,
    ContextItem,
    Endpoint,
    Kind,
    LimitMode,
    Policy,
    RequestTrace,
    Status,
    Trust,
    Usage,
)


def _item(kind: Kind, iid: str, tokens: int | None, status: Status = Status.RETAINED) -> ContextItem:
    return ContextItem(kind=kind, id=iid, content=None, tokens=tokens, status=status)


def chapter_8k(evidence_extra: int = 0, trim: bool = False) -> RequestTrace:
    """Chapter 3.1: policy 800, history 1,200, evidence 3,000, tools 600, user 400, output 1,200."""
    items = [
        _item(Kind.POLICY, "policy", 800),
        _item(Kind.HISTORY, "h1", 700),
        _item(Kind.HISTORY, "h2", 500),
        _item(Kind.EVIDENCE, "e1", 3000),
    ]
    if evidence_extra:
        items.append(_item(Kind.EVIDENCE, "e2", evidence_extra, Status.OMITTED if trim else Status.RETAINED))
    items += [_item(Kind.TOOL, "t1", 600), _item(Kind.USER, "user", 400)]
    return RequestTrace(
        trace_id="t",
        created=None,
        endpoint=Endpoint(capacity=8000, limit_mode=LimitMode.SHARED),
        policy=Policy(id="p", version="1"),
        user_request="q",
        items=tuple(items),
        budget={Category.SYS: 800, Category.HIST: 1200, Category.EVIDENCE: 3000,
                Category.TOOLS: 600, Category.USER: 400, Category.OUT: 1200},
        reserved_output_tokens=1200,
        safety_margin=800,
    )


def test_chapter_example_fits_with_800_margin() -> None:
    t = chapter_8k()
    chk = check_capacity(t)
    assert chk.input_tokens == 6000
    assert chk.margin == 800
    assert chk.fits is True
    assert verdict_text(chk) == "fits, 800 tokens margin"
    used = {a.category: a.used for a in allocations(t)}
    assert used == {Category.SYS: 800, Category.HIST: 1200, Category.EVIDENCE: 3000,
                    Category.TOOLS: 600, Category.USER: 400}


def test_evidence_grown_by_1500_is_over_by_700() -> None:
    chk = check_capacity(chapter_8k(evidence_extra=1500))
    assert chk.margin == -700
    assert chk.fits is False
    assert verdict_text(chk) == "over capacity by 700 tokens: had 6,800 tokens left, needed 7,500"


def test_trimmed_record_fits_and_remembers_overflow() -> None:
    t = chapter_8k(evidence_extra=1500, trim=True)
    chk = check_capacity(t)
    assert verdict_text(chk) == "fits, 800 tokens margin"
    assert chk.input_before_trim == 7500
    assert chk.over_before_trim == 700
    ev = [a for a in allocations(t) if a.category is Category.EVIDENCE][0]
    assert (ev.used, ev.omitted, ev.retained_count, ev.omitted_count) == (3000, 1500, 1, 1)


def test_used_bar_segments_end_at_capacity() -> None:
    segs = used_bar(chapter_8k())
    assert [(s.key, s.start, s.tokens) for s in segs] == [
        ("sys", 0, 800), ("hist", 800, 1200), ("evidence", 2000, 3000), ("tools", 5000, 600),
        ("user", 5600, 400), ("out", 6000, 1200), ("margin", 7200, 800),
    ]
    assert [s.key for s in declared_bar(chapter_8k())] == ["sys", "hist", "evidence", "tools", "user", "out"]


def test_over_capacity_bar_has_over_segment() -> None:
    segs = used_bar(chapter_8k(evidence_extra=1500))
    assert (segs[-1].key, segs[-1].start, segs[-1].tokens) == ("over", 8000, 700)


def test_a_request_over_c_by_the_provider_report_draws_the_reported_part_and_the_overflow() -> None:
    """Counted 6,000 + B_out 1,200 of C = 8,000 fits by 800, but the provider reported 8,000 input
    tokens: the verdict is over capacity by 1,200 by the provider-reported input, so the bar shows the
    2,000 reported beyond the count and the 1,200 past C (history-16k drew a full bar and no overflow)."""
    t = replace(chapter_8k(), usage=Usage(input_tokens=8_000))
    assert verdict_text(check_capacity(t)).startswith("over capacity by 1,200 tokens by the provider-reported input")
    assert [(s.key, s.start, s.tokens) for s in used_bar(t)][-3:] == [
        ("out", 6000, 1200), ("unaccounted", 7200, 2000), ("over", 8000, 1200)]


def test_unknown_quantities_are_not_zero() -> None:
    t = replace(chapter_8k(), endpoint=Endpoint(), reserved_output_tokens=None)
    chk = check_capacity(t)
    assert chk.fits is None and chk.margin is None
    assert verdict_text(chk) == "capacity not recorded"
    t2 = replace(chapter_8k(), reserved_output_tokens=None)  # B_out not recorded: the input alone is checked
    chk2 = check_capacity(t2)
    assert (chk2.fits, chk2.margin, chk2.output_assumed) == (True, 2_000, True)
    assert verdict_text(chk2) == "fits, 2,000 tokens margin (reserved output not recorded: input alone checked)"
    t3 = replace(chapter_8k(), items=(_item(Kind.USER, "u", None),))
    assert check_capacity(t3).input_tokens is None
    assert verdict_text(check_capacity(t3)) == "input tokens not recorded"


def test_separate_limits_check_both() -> None:
    t = replace(
        chapter_8k(),
        endpoint=Endpoint(limit_mode=LimitMode.SEPARATE, max_input_tokens=6500, max_output_tokens=1000),
    )
    chk = check_capacity(t)
    assert (chk.input_fits, chk.output_fits, chk.fits) == (True, False, False)
    assert verdict_text(chk) == "input fits, 500 tokens to spare; output reserve over limit by 200 tokens"


def test_memory_counts_as_history_unless_declared() -> None:
    t = chapter_8k()
    mem = ContextItem(kind=Kind.MEMORY, id="m", content=None, tokens=50, trust=Trust.UNTRUSTED)
    assert category_of(mem, t) is Category.HIST
    t2 = replace(t, budget={**t.budget, Category.MEMORY: 100}, items=t.items + (mem,))
    assert category_of(mem, t2) is Category.MEMORY
    assert [a.category for a in allocations(t2)][:3] == [Category.SYS, Category.HIST, Category.MEMORY]
