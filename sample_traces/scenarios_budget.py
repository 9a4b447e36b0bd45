"""The chapter's 8,000-token example (section 3.1): ``budget-8k``, ``budget-8k-over`` and
``budget-8k-replay``.

Policy 800 + history 1,200 + evidence 3,000 + tools 600 + user 400 = 6,000 input tokens; with
1,200 reserved output tokens that is 7,200 of C = 8,000, leaving an 800-token margin.
"""

from __future__ import annotations

from dataclasses import replace

from ctxviewer.model.trace import ContextItem, Kind, RequestTrace

from .build import budget, trace
from .fitting import fit, fit_group, ntok
from .sources import doc_item, policy_item, raw, text, tool_items, turn_items, user_item

CAPACITY = 8000
DECLARED = budget(sys=800, hist=1200, evidence=3000, tools=600, user=400, out=1200)
SESSION = "sess-7f3c21"
USER = "cust-20417"

EVIDENCE_8K: list[tuple[str, str, float]] = [
    ("records_8k", "ORD-NW-4418207", 88.0),
    ("kb", "KB-1003", 80.0),
    ("kb", "KB-1002", 76.0),
    ("kb", "KB-1004", 70.0),
    ("records_8k", "INV-CF-TALUS-MID-W", 66.0),
    ("records_8k", "PARTS-NB-RIDGEBACK2", 60.0),
    ("kb", "KB-1001", 58.0),
    ("kb", "KB-1005", 55.0),
]
"""Retained evidence of ``budget-8k`` in final order (= reranker priority order)."""

EXTRA_OVER: list[tuple[str, float, str]] = [
    ("KB-1011", 15.0, "KB-1001"),
    ("KB-1013", 25.0, "KB-1001"),
    ("KB-1012", 18.0, "KB-1005"),
    ("KB-1014", 28.0, "KB-1004"),
    ("KB-1006", 22.0, "KB-1005"),
    ("KB-1015", 30.0, "PARTS-NB-RIDGEBACK2"),
]
"""The 1,500 extra evidence tokens of ``budget-8k-over``: (doc, priority, placed after). Listed in
fitting order: the last one is trimmed so that the six sum to exactly 1,500."""


def _history() -> list[ContextItem]:
    turns = turn_items("conv_8k")
    *head, last = turns
    rest = 1200 - sum(t.tokens or 0 for t in head)
    return head + [replace(last, content=fit(raw("conv_8k", last.id), rest), tokens=rest)]


def _evidence() -> list[ContextItem]:
    texts = [raw(f, d) for f, d, _ in EVIDENCE_8K]
    fitted = fit_group(texts, 3000)
    return [doc_item(f, d, p, content=c) for (f, d, p), c in zip(EVIDENCE_8K, fitted)]


def _tools() -> list[ContextItem]:
    return tool_items(["ship_replacement_part", "create_exchange", "lookup_order"], total=600)


def _user() -> ContextItem:
    return user_item(fit(raw("request_8k", "request-8k"), 400), turn=12)


def items_8k() -> list[ContextItem]:
    """The ``budget-8k`` items in final order: policy, tools, history, evidence, user request."""
    return [policy_item(800), *_tools(), *_history(), *_evidence(), _user()]


def _common(**kw):
    return dict(
        session_id=SESSION,
        user_id=USER,
        reserved_output=1200,
        safety_margin=800,
        declared=DECLARED,
        **kw,
    )


def budget_8k() -> RequestTrace:
    """``budget-8k``: exactly the chapter's allocation; verdict "fits, 800 tokens margin"."""
    return trace(
        "budget-8k",
        "2026-11-09T16:42:31.208",
        CAPACITY,
        items_8k(),
        answer=text("responses", "budget-8k"),
        attributes={"retrieval.top_k": 8, "reranker": "kb-rerank-v1", "history.policy": "recent turns"},
        **_common(),
    )


def budget_8k_over() -> RequestTrace:
    """``budget-8k-over``: 1,500 more evidence tokens of candidates (8,700 before trimming, over
    by 700); the lowest-priority passages, exactly 1,500 tokens, are omitted for budget."""
    extra_texts = [raw("kb", d) for d, _, _ in EXTRA_OVER]
    extra_fitted = fit_group(extra_texts, 1500)
    extras = {
        d: doc_item("kb", d, p, content=c, omitted="budget")
        for (d, p, _), c in zip(EXTRA_OVER, extra_fitted)
    }
    after: dict[str, list[str]] = {}
    for d, _, a in EXTRA_OVER:
        after.setdefault(a, []).append(d)
    items: list[ContextItem] = []
    for it in items_8k():
        items.append(it)
        for d in sorted(after.get(it.id, []), key=lambda x: -extras[x].priority):  # type: ignore[operator]
            items.append(extras[d])
    return trace(
        "budget-8k-over",
        "2026-11-09T16:44:05.731",
        CAPACITY,
        items,
        answer=text("responses", "budget-8k"),
        attributes={
            "retrieval.top_k": 14,
            "reranker": "kb-rerank-v1",
            "history.policy": "recent turns",
            "trim.rule": "drop lowest priority until input <= C - B_out - margin",
        },
        **_common(),
    )


def budget_8k_replay() -> RequestTrace:
    """``budget-8k-replay``: ``budget-8k`` replayed after a ranking change. KB-1004 is re-ranked
    (70 -> 50, so it moves to the end of the evidence) and the parts list is placed right after
    the missing-parts article; same item ids, same totals."""
    items = items_8k()
    by_id = {i.id: i for i in items}
    by_id["KB-1004"] = replace(by_id["KB-1004"], priority=50.0)
    evidence_order = [
        "ORD-NW-4418207", "KB-1003", "PARTS-NB-RIDGEBACK2", "KB-1002",
        "INV-CF-TALUS-MID-W", "KB-1001", "KB-1005", "KB-1004",
    ]
    head = [i for i in items if i.kind is not Kind.EVIDENCE and i.kind is not Kind.USER]
    final = head + [by_id[d] for d in evidence_order] + [by_id["user-request"]]
    return trace(
        "budget-8k-replay",
        "2026-11-12T10:03:47.015",
        CAPACITY,
        final,
        answer=text("responses", "budget-8k-replay"),
        replay_of="budget-8k",
        attributes={
            "retrieval.top_k": 8,
            "reranker": "kb-rerank-v2",
            "history.policy": "recent turns",
            "replay.change": "reranker v2: KB-1004 re-ranked 70 -> 50; parts list placed after KB-1003",
        },
        **_common(),
    )


def check_8k_totals(t: RequestTrace) -> None:
    """Assert the chapter's per-category numbers on a budget-8k style trace."""
    from ctxviewer.assess.budget import allocations

    used = {a.category.value: a.used for a in allocations(t)}
    assert used == {"sys": 800, "hist": 1200, "evidence": 3000, "tools": 600, "user": 400}, used
    assert all(i.tokens == ntok(i.content or "") for i in t.items)
