"""The chapter's 16,000-token example (section 3.4, "The remaining history budget"): ``history-16k``.

Policy 800 + tools 1,600 (policy and tools 2,400), evidence capped at 5,000, user request 600,
reserved output 2,000: 10,000 fixed, so at most 6,000 remain for history. Recent exact turns use
4,500, leaving 1,500 for summaries of older history. The oldest turns of today's session are
omitted (budget); their rolling summary is one of the summaries.
"""

from __future__ import annotations

from dataclasses import replace

from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, SourceRef

from .build import budget, item, trace
from .fitting import fit, fit_group
from .sources import blocks, doc_item, policy_item, raw, text, tool_items, turn_items, user_item

CAPACITY = 16000
DECLARED = budget(sys=800, hist=6000, evidence=5000, tools=1600, user=600, out=2000)
RECENT_FROM = 8
"""First turn of today's session kept exactly; earlier turns are summarized and omitted."""

TOOLS_16K = [
    "lookup_order", "get_tracking", "check_inventory", "cancel_backorder_item",
    "request_price_adjustment", "issue_refund", "start_return", "handoff_to_agent",
    "create_exchange",
]

SUMMARIES = ["SUM-sess-a03f9c", "SUM-sess-b7a210", "SUM-sess-b9e415", "SUM-sess-c1f852", "SUM-sess-d40c18-a"]
"""Summaries in chronological order; the last (today's rolling summary) is trimmed to fit."""

EVIDENCE_16K: list[tuple[str, str, float]] = [
    ("records_16k", "ORD-NW-4502266", 90.0),
    ("records_16k", "TCK-57602", 88.0),
    ("records_16k", "INV-SLEEPING-BAGS-LONG", 86.0),
    ("kb", "KB-1007", 84.0),
    ("records_16k", "SUP-ALDER15", 82.0),
    ("kb", "KB-1008", 80.0),
    ("kb", "KB-1005", 78.0),
    ("kb", "KB-1001", 75.0),
    ("kb", "KB-1006", 72.0),
    ("kb", "KB-1012", 68.0),
    ("kb", "KB-1016", 66.0),
    ("records_16k", "TCK-57140", 63.0),
    ("kb", "KB-1011", 60.0),
    ("kb", "KB-1020", 57.0),
    ("kb", "KB-1009", 55.0),
    ("kb", "KB-1010", 52.0),
    ("kb", "KB-1002", 50.0),
    ("kb", "KB-1018", 47.0),
    ("kb", "KB-1015", 45.0),
]
"""Evidence in final order; the last passage is cut at the 5,000-token evidence cap."""

OVER_CAP: list[tuple[str, float]] = [("KB-1013", 40.0), ("KB-1014", 36.0), ("KB-1017", 30.0)]
"""Candidates below the evidence cap, omitted for budget."""


def _history() -> list[ContextItem]:
    turns = turn_items("conv_16k", **{f"turn_{n:02d}": "budget" for n in range(RECENT_FROM)})
    older = [t for t in turns if t.source and t.source.turn is not None and t.source.turn < RECENT_FROM]
    recent = [t for t in turns if t not in older]
    *head, last = recent
    rest = 4500 - sum(t.tokens or 0 for t in head)
    recent = head + [replace(last, content=fit(raw("conv_16k", last.id), rest), tokens=rest)]
    summaries = fit_group([raw("memory_16k", s) for s in SUMMARIES], 1500)
    summary_items = [
        item(Kind.SUMMARY, s, c, 70.0 + n, source=SourceRef(store="summaries", document_id=s), role="user")
        for n, (s, c) in enumerate(zip(SUMMARIES, summaries))
    ]
    return older + summary_items + recent


def _evidence() -> list[ContextItem]:
    fitted = fit_group([raw(f, d) for f, d, _ in EVIDENCE_16K], 5000)
    kept = [doc_item(f, d, p, content=c) for (f, d, p), c in zip(EVIDENCE_16K, fitted)]
    cut = [doc_item("kb", d, p, omitted="budget") for d, p in OVER_CAP]
    return kept + cut


def history_16k() -> RequestTrace:
    """``history-16k``: 800 + 1,600 + 6,000 (4,500 recent + 1,500 summaries) + 5,000 + 600 input,
    2,000 reserved output, C = 16,000: fits with 0 tokens margin."""
    items = [
        policy_item(800),
        *tool_items(TOOLS_16K, total=1600),
        *_history(),
        *_evidence(),
        user_item(fit(raw("request_16k", "request-16k"), 600), turn=len([b for b in blocks("conv_16k") if b.startswith("turn-")])),
    ]
    return trace(
        "history-16k",
        "2026-11-06T21:14:52.380",
        CAPACITY,
        items,
        session_id="sess-d40c18",
        user_id="cust-27733",
        reserved_output=2000,
        safety_margin=0,
        declared=DECLARED,
        answer=text("responses", "history-16k"),
        attributes={
            "history.policy": "recent exact turns + session summaries",
            "history.recent_from_turn": RECENT_FROM,
            "evidence.cap": 5000,
            "retrieval.top_k": 22,
            "reranker": "kb-rerank-v1",
        },
    )


def check_16k(t: RequestTrace) -> dict[str, int]:
    """The chapter's numbers for ``history-16k``; raises AssertionError when they do not hold."""
    def used(pred) -> int:
        return sum(i.tokens or 0 for i in t.retained if pred(i))

    nums = {
        "policy_tools": used(lambda i: i.kind in (Kind.POLICY, Kind.TOOL)),
        "evidence": used(lambda i: i.kind is Kind.EVIDENCE),
        "user": used(lambda i: i.kind is Kind.USER),
        "recent": used(lambda i: i.kind is Kind.HISTORY),
        "summaries": used(lambda i: i.kind is Kind.SUMMARY),
    }
    assert nums == {"policy_tools": 2400, "evidence": 5000, "user": 600, "recent": 4500, "summaries": 1500}, nums
    return nums
