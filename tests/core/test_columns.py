"""Column cell text: the core decides what each cell of the trace list and item table says."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from ctxviewer.model.trace import NOT_RECORDED, ContextItem, Kind, SourceRef, Status, Trust
from ctxviewer.model.words import fmt_priority
from ctxviewer.present.columns import DASH, ITEM_COLUMNS, TRACE_COLUMNS, column


@dataclass
class Row:
    trace_id: str = "budget-8k"
    created: datetime | None = datetime(2025, 3, 4, 9, 15, 2, tzinfo=timezone.utc)
    service: str | None = None
    provider: str | None = "openai"
    model: str | None = "gpt-4o-mini"
    capacity: int | None = 8000
    input_tokens: int | None = 6000
    reserved_output_tokens: int | None = 1200
    retained_count: int | None = 6
    omitted_count: int | None = 1
    replay_of: str | None = None
    source_format: str | None = "native"
    omissions_recorded: bool | None = True
    state: str | None = "failure"
    verdict: str | None = "over capacity by 700 tokens"
    worst_rule: str | None = "budget.over_capacity"
    session_id: str | None = "sess-7f3c21"
    worst_severity: str | None = "failure"
    span_status: str | None = None
    status_message: str | None = None
    agent: str | None = None
    operation: str | None = None
    cost: float | None = 0.00024


def cells(row: object) -> dict[str, str]:
    return {c.key: c.format(row) for c in TRACE_COLUMNS}


def test_trace_columns_values() -> None:
    assert [c.title for c in TRACE_COLUMNS] == [
        "Time (UTC)", "Trace id", "Model", "Input / capacity", "Retained / omitted", "State",
        "Worst", "Call (span)", "Conversation", "Span status", "Agent / operation", "Cost", "Scores"]
    assert [c.key for c in TRACE_COLUMNS if c.hidden_by_default] == [
        "input_capacity", "worst", "call", "conversation", "span_status", "agent", "cost", "scores"]
    assert cells(Row()) == {
        "created": "2025-03-04 09:15:02",
        "trace_id": "budget-8k",
        "model": "gpt-4o-mini",
        "input_capacity": "6,000 / 8,000",
        "retained_omitted": "6 / 1",
        "state": "failure",
        "worst": "\u2716 failure",
        "call": "\u2014",
        "conversation": "sess-7f3c21",
        "span_status": NOT_RECORDED,
        "agent": NOT_RECORDED,
        "cost": "$0.000240",
        "scores": "\u2014",
    }
    assert cells(Row(cost=None))["cost"] == "not known"  # never "$0"
    state = column(TRACE_COLUMNS, "state")
    assert state.tooltip is not None
    assert state.tooltip(Row()) == "over capacity by 700 tokens\nworst finding: budget.over_capacity"


def test_omitted_count_reads_the_stored_fact() -> None:
    assert cells(Row(omissions_recorded=False, omitted_count=0))["retained_omitted"] == "6 / not recorded"
    assert cells(Row(omissions_recorded=False))["retained_omitted"] == "6 / ≥1"  # the trace itself records one
    assert cells(Row(omissions_recorded=True, source_format="otel"))["retained_omitted"] == "6 / 1"


def test_trace_columns_none_is_not_recorded_never_zero() -> None:
    c = cells(Row(created=None, model=None, capacity=None, input_tokens=None))
    assert c["created"] == NOT_RECORDED
    assert c["model"] == NOT_RECORDED
    assert c["input_capacity"] == NOT_RECORDED
    c = cells(Row(capacity=None))
    assert c["input_capacity"] == "6,000 / not recorded"
    assert all("0 /" not in v for v in cells(Row(input_tokens=None)).values())


def test_trace_columns_sort_keys_are_store_fields() -> None:
    keys = {c.key: c.sort_key for c in TRACE_COLUMNS}
    assert keys["created"] == "created"
    assert keys["input_capacity"] == "input_tokens"
    for c in TRACE_COLUMNS:
        assert c.sort_key is None or c.sort_key in Row.__dataclass_fields__
    assert keys["worst"] is None  # no severity-ordered key in the store: not sortable


def test_worst_severity_column_says_symbol_and_word_and_the_rule_in_its_tooltip() -> None:
    worst = column(TRACE_COLUMNS, "worst")
    critical = Row(worst_severity="critical", worst_rule="tool.permitted_despite_failed_check")
    assert worst.format(critical) == "\u203c critical"  # the state would say only "failure"
    assert worst.tooltip is not None
    assert worst.tooltip(critical) == "worst finding: tool.permitted_despite_failed_check (critical)"
    assert worst.format(Row(state="ok", worst_severity="info", worst_rule="budget.over_before_trim")) == "\u2139 info"
    none = Row(state="ok", worst_severity=None, worst_rule=None)
    assert (worst.format(none), worst.tooltip(none)) == (DASH, "no finding")
    assert worst.format(Row(state=None, worst_severity=None, worst_rule=None)) == NOT_RECORDED  # facts never computed


def test_time_converted_to_utc() -> None:
    from datetime import timedelta

    t = datetime(2025, 3, 4, 10, 15, 2, tzinfo=timezone(timedelta(hours=1)))
    assert column(TRACE_COLUMNS, "created").format(Row(created=t)) == "2025-03-04 09:15:02"


def item_cells(item: ContextItem) -> list[str]:
    return [c.format(item) for c in ITEM_COLUMNS]


def test_item_columns_retained_and_omitted() -> None:
    kept = ContextItem(Kind.EVIDENCE, "doc-17", "text", Status.RETAINED, tokens=1500, position=4,
                       priority=0.85, trust=Trust.UNTRUSTED, source=SourceRef(store="kb", document_id="doc-17"))
    dropped = ContextItem(Kind.EVIDENCE, "doc-18", "text", Status.OMITTED, tokens=1500, priority=2.0,
                          omission_reason="budget")
    assert [c.key for c in ITEM_COLUMNS] == [
        "position", "kind", "id", "source", "trust", "priority", "tokens", "status", "reason"]
    assert item_cells(kept) == ["4", "evidence", "doc-17", "kb:doc-17", "untrusted", "0.85", "1,500", "retained", DASH]
    assert item_cells(dropped) == [DASH, "evidence", "doc-18", NOT_RECORDED, "untrusted", "2", "1,500",
                                   "omitted", "budget"]
    status = column(ITEM_COLUMNS, "status")
    assert status.tooltip is not None and "budget" in (status.tooltip(dropped) or "")
    assert status.tooltip(kept) is None


def test_item_columns_unknown_values() -> None:
    it = ContextItem(Kind.HISTORY, "turn-1", None, Status.OMITTED)
    cells_ = item_cells(it)
    assert cells_[5] == NOT_RECORDED  # priority
    assert cells_[6] == NOT_RECORDED  # tokens, never 0
    assert cells_[7:] == ["omitted", NOT_RECORDED]
    from ctxviewer.present.columns import item_status_words
    assert item_status_words(it) == "omitted: reason not recorded"
    assert fmt_priority(None) == NOT_RECORDED


def test_worst_severity_of_every_sample_trace() -> None:
    from pathlib import Path

    from ctxviewer.store import TraceQuery, TraceStore

    db = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
    worst = column(TRACE_COLUMNS, "worst")
    assert worst.tooltip is not None
    with TraceStore.open(db) as store:
        got = {r.trace_id: (worst.format(r), worst.tooltip(r)) for r in store.list(TraceQuery(), 0, -1)}
    assert got == {
        "history-16k": ("\u2716 failure", "worst finding: budget.over_capacity (failure)"),
        "budget-8k": (DASH, "no finding"),
        "budget-8k-over": ("\u2139 info", "worst finding: budget.over_before_trim (info)"),
        "evidence-in-middle": ("\u26a0 warning", "worst finding: evidence.needed_in_middle (warning)"),
        "budget-8k-replay": (DASH, "no finding"),
        "refund-approval-forgotten": ("\u26a0 warning", "worst finding: commitment.forgotten (warning)"),
        "ticket-injection": ("\u26a0 warning", "worst finding: injection.action_linkage (warning)"),
        "policy-missing": ("\u2716 failure", "worst finding: policy.unavailable (failure)"),
        "json-unsupported": ("\u2716 failure", "worst finding: output.cited_id_not_retained (failure)"),
    }


def test_conversation_column_shows_the_session_id_the_filter_matches() -> None:
    # Issues 6 and 13: the one session field (RequestTrace.session_id, stored as traces.session_id)
    # is a hideable trace-list column, and `conversation == ...` filters on the same value.
    from pathlib import Path

    from ctxviewer.store import TraceQuery, TraceStore

    db = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
    conv = column(TRACE_COLUMNS, "conversation")
    assert conv.hidden_by_default and conv.title == "Conversation"
    with TraceStore.open(db) as store:
        cells = {r.trace_id: conv.format(r) for r in store.list(TraceQuery(), 0, -1)}
        filtered = [r.trace_id for r in store.list(TraceQuery(text='conversation == "sess-7f3c21"'), 0, -1)]
    assert cells["budget-8k"] == cells["budget-8k-replay"] == "sess-7f3c21"
    assert cells["ticket-injection"] == "sess-3c5b90"
    assert sorted(filtered) == ["budget-8k", "budget-8k-over", "budget-8k-replay"]
    assert {t for t, c in cells.items() if c == "sess-7f3c21"} == set(filtered)


def test_span_status_cells_and_tooltips() -> None:
    status = column(TRACE_COLUMNS, "span_status")
    assert status.tooltip is not None
    err = Row(span_status="error", status_message="429 rate limited")
    assert status.format(err) == "error"
    assert status.tooltip(err) == "span ended in error: 429 rate limited"
    assert status.tooltip(Row(span_status="error")) == "span ended in error (no message recorded)"
    open_span = Row(span_status="unfinished")
    assert status.format(open_span) == "never ended"
    assert status.tooltip(open_span).endswith("filter: status == unfinished")
    assert status.format(Row(span_status="ok")) == "ok"
    assert status.format(Row(span_status="unset")) == "unset"
    assert status.format(Row()) == NOT_RECORDED
    # trace text: a control character in the message is shown as a marker, never acted on
    assert "\u202e" not in (status.tooltip(Row(span_status="error", status_message="a\u202eb")) or "")


def test_agent_operation_cells() -> None:
    agent = column(TRACE_COLUMNS, "agent")
    assert agent.tooltip is not None
    assert agent.format(Row(agent="qa_agent", operation="chat")) == "qa_agent \u00b7 chat"
    assert agent.format(Row(operation="chat")) == "chat"
    assert agent.format(Row(agent="Hello world")) == "Hello world"
    assert agent.format(Row()) == NOT_RECORDED
    assert agent.tooltip(Row(agent="qa_agent")) == "agent: qa_agent\noperation: not recorded"
    assert agent.tooltip(Row()) is None
    assert "\u202e" not in agent.format(Row(agent="evil\u202eagent"))


def test_a_tool_result_in_history_is_labelled_so_and_still_counts_as_history() -> None:
    """A tool message's result (role ``tool`` / ``function``, as the OTel GenAI and OpenAI importers
    map it) is a history item: the item table, the item title and the conversation view say
    "history (tool result)", eq. 3.1 still counts it in B_hist (the label says which), and the
    scanner's scope of it stays untrusted data."""
    from dataclasses import replace

    from ctxviewer.assess.budget import allocations, category_of
    from ctxviewer.assess.scanner.scope import Scope, scope_of
    from ctxviewer.model.trace import Category
    from ctxviewer.present.conversation_view import conversation
    from ctxviewer.present.item_title import item_title
    from tests.factories import make_trace

    result = ContextItem(kind=Kind.HISTORY, id="msg-3", content="50 degrees and raining", tokens=7, role="tool",
                         trust=Trust.UNTRUSTED)
    legacy = replace(result, id="msg-4", role="function")
    turn = replace(result, id="msg-2", role="assistant")
    assert [column(ITEM_COLUMNS, "kind").format(i) for i in (result, legacy, turn)] == [
        "history (tool result)", "history (tool result)", "history"]
    assert item_title(result) == "msg-3 — history (tool result), untrusted, 7 tokens, retained"
    base = make_trace()
    trace = replace(base, items=(*base.items[:-1], turn, result, base.items[-1]))
    assert category_of(result, trace) is Category.HIST
    hist = next(a for a in allocations(trace) if a.category is Category.HIST)
    assert hist.used == sum(i.tokens or 0 for i in trace.retained if i.kind is Kind.HISTORY)
    assert scope_of(result) is Scope.UNTRUSTED
    assert [t.heading.split(" · ", 1)[1] for t in conversation(trace) if t.item_id in ("msg-2", "msg-3")] == [
        "assistant · history msg-2 · 7 tokens", "tool · history (tool result) msg-3 · 7 tokens"]
