"""The diff cases of issue 8 built from the test factory: reorder, policy bump, retained ->
omitted, re-tokenized, provider-reported accounting change, tool calls, identical traces."""

from __future__ import annotations

from dataclasses import replace

from factories import make_rich_trace, make_trace

from ctxviewer.diff import Change, diff_traces
from ctxviewer.diff.render import describe, format_diff_text, headline
from ctxviewer.diff.result import FieldChange
from ctxviewer.model.trace import (
    ContextItem,
    Kind,
    Policy,
    RequestTrace,
    Status,
    ToolCall,
    ToolCheck,
    ToolVerdict,
    Usage,
)


def _renumber(items):
    out, pos = [], 0
    for it in items:
        if it.status is Status.RETAINED:
            pos += 1
            out.append(replace(it, position=pos))
        else:
            out.append(replace(it, position=None))
    return tuple(out)


def _six_docs(order):
    base = make_trace()
    docs = {f"D{n}": ContextItem(Kind.EVIDENCE, f"D{n}", f"Document {n} text about delivery.", tokens=100 + n,
                                 priority=float(10 - n)) for n in range(1, 7)}
    items = (base.items[0], *(docs[d] for d in order), base.items[-1])
    return replace(base, trace_id="six-" + "".join(order), items=_renumber(items))


def test_identical_traces_are_no_change() -> None:
    t = make_rich_trace()
    d = diff_traces(t, replace(t, trace_id="copy"))
    assert d.no_change and headline(d) == "no change"
    assert {x.change for x in d.items} == {Change.UNCHANGED} and d.first_divergence is None


def test_reorder_of_six_documents_reports_moves_only() -> None:
    a = _six_docs(["D1", "D2", "D3", "D4", "D5", "D6"])
    b = _six_docs(["D2", "D4", "D6", "D5", "D3", "D1"])
    d = diff_traces(a, b)
    assert {x.change for x in d.items} == {Change.UNCHANGED, Change.MOVED}
    assert d.count(Change.ADDED) == d.count(Change.REMOVED) == 0
    moved = [(x.id, x.position_a, x.position_b, x.move_number) for x in d.items if x.change is Change.MOVED]
    # the fewest moves: D2, D4, D6 keep their relative order; D5, D3, D1 moved (numbered in B order)
    assert moved == [("D5", 6, 5, 1), ("D3", 4, 6, 2), ("D1", 2, 7, 3)]
    assert [x.id for x in d.items] == ["policy", "D2", "D4", "D6", "D5", "D3", "D1", "user"]
    assert all(c.delta == 0 for c in d.allocations)
    assert d.verdict_a == d.verdict_b
    assert [(e.id, e.rank_a, e.rank_b) for e in d.evidence] == [
        ("D2", 2, 1), ("D4", 4, 2), ("D6", 6, 3), ("D5", 5, 4), ("D3", 3, 5), ("D1", 1, 6)]
    assert d.first_divergence.position == 2


def test_policy_version_bump() -> None:
    a = make_trace()
    pol = a.items[0]
    b = replace(a, trace_id="bumped", policy=Policy(id="support-policy", version="v8", available=True),
                items=(replace(pol, content=pol.content + " Never share internal notes."), *a.items[1:]))
    d = diff_traces(a, b)
    assert d.policy.changed and (d.policy.version_a, d.policy.version_b) == ("v7", "v8")
    rows = [(x.change, x.id, x.position_a, x.position_b) for x in d.items if x.kind is Kind.POLICY]
    assert rows == [(Change.REMOVED, "policy", 1, None), (Change.ADDED, "policy", None, 1)]
    assert d.first_divergence.position == 1
    assert "support-policy v7 → support-policy v8" in format_diff_text(d)


def test_retained_to_omitted_with_both_reasons() -> None:
    a = make_trace()
    items = list(a.items)
    items[3] = replace(items[3], status=Status.OMITTED, omission_reason="budget")
    b = replace(a, trace_id="trimmed", items=_renumber(items))
    d = diff_traces(a, b)
    row = next(x for x in d.items if x.id == "ev-order-4471")
    assert row.changes == (Change.STATUS_CHANGED,)
    assert (row.a.status, row.b.status, row.position_a, row.position_b) == (Status.RETAINED, Status.OMITTED, 4, None)
    assert describe(row) == "retained → omitted (budget)"
    ev = next(c for c in d.allocations if c.category.value == "evidence")
    assert (ev.used_a, ev.used_b, ev.delta) == (row.a.tokens, 0, -row.a.tokens)
    # the still-omitted shipping-delays item keeps its reason on both sides and is unchanged
    other = next(x for x in d.items if x.id == "ev-shipping-delays")
    assert other.change is Change.UNCHANGED and other.a.omission_reason == other.b.omission_reason == "budget"
    assert d.first_divergence.position == 4


def test_provider_input_one_token_more_is_accounting_only() -> None:
    a = make_trace(usage=Usage(input_tokens=412, output_tokens=96))
    b = replace(a, trace_id="replay", usage=Usage(input_tokens=413, output_tokens=96))
    d = diff_traces(a, b)
    assert d.accounting == (FieldChange("usage.input_tokens", 412, 413),)
    assert d.accounting_only and d.first_divergence is None
    assert {x.change for x in d.items} == {Change.UNCHANGED}
    assert headline(d) == "accounting change only: content identical"


def test_item_retokenized() -> None:
    a = make_trace()
    items = list(a.items)
    items[1] = replace(items[1], tokens=items[1].tokens + 1)
    d = diff_traces(a, replace(a, items=tuple(items)))
    row = next(x for x in d.items if x.id == "turn-0")
    assert row.changes == (Change.RETOKENIZED,)
    assert describe(row) == (f"re-tokenized {row.tokens_a} → {row.tokens_a + 1} tokens: accounting change, "
                             "content identical")
    assert d.accounting_only and d.first_divergence is None


def test_content_change_added_and_message_matched_by_content() -> None:
    a = make_trace()
    items = list(a.items)
    items[2] = replace(items[2], content=items[2].content.replace("order number", "order id"))
    items[1] = replace(items[1], id="msg-7")  # same text under another id: paired by content
    items.insert(4, ContextItem(Kind.EVIDENCE, "ev-new", "New courier note.", tokens=4))
    d = diff_traces(a, replace(a, items=_renumber(items)))
    by_id = {x.id: x for x in d.items}
    assert by_id["turn-1"].changes == (Change.CONTENT_CHANGED,)
    assert by_id["msg-7"].change is Change.UNCHANGED and by_id["msg-7"].paired_by_content
    assert by_id["ev-new"].changes == (Change.ADDED,) and by_id["ev-new"].position_b == 5
    assert d.first_divergence.position == 3


def test_tool_calls_and_checks_before_after() -> None:
    a = make_rich_trace()
    call = a.tool_calls[0]
    fixed = replace(call, checks=(*call.checks[:1], ToolCheck("approval", True, rule="refunds.require_supervisor")),
                    verdict=ToolVerdict.PERMITTED)
    b = replace(a, trace_id="after", tool_calls=(fixed, ToolCall(name="notify", arguments="{}")))
    d = diff_traces(a, b)
    refund = d.tool_calls[0]
    assert (refund.name, refund.verdict_a, refund.verdict_b) == ("issue_refund", "needs_approval", "permitted")
    assert [(c.check, c.passed_a, c.passed_b) for c in refund.checks] == [
        ("allowlist", True, True), ("approval", False, True), ("identity", None, None)]
    assert [(t.name, t.in_a, t.in_b) for t in d.tool_calls] == [
        ("issue_refund", True, True), ("notify", False, True), ("lookup_order", True, False)]


def test_endpoint_and_reserve_changes() -> None:
    a = make_trace()
    b = replace(a, trace_id="b", endpoint=replace(a.endpoint, capacity=16000, model="gpt-4o"),
                reserved_output_tokens=2000)
    d = diff_traces(a, b)
    assert [(f.name, f.a, f.b) for f in d.fields] == [
        ("endpoint.model", "gpt-4o-mini", "gpt-4o"), ("endpoint.capacity", 8000, 16000),
        ("reserved_output_tokens", 1200, 2000)]
    assert d.verdict_a != d.verdict_b


def test_tool_definitions_pair_by_name_not_by_id() -> None:
    """A tool definition is the same item when its name is (issue 8: "tool definitions by name"):
    another importer's id and another JSON shape of the same tool is no removal + addition."""
    a = make_trace()
    items = list(a.items)
    tool_pos = next(n for n, i in enumerate(items) if i.kind is Kind.TOOL)
    plain = '{"name": "lookup_order", "parameters": {"type": "object"}}'
    wrapped = '{"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}'
    a_items, b_items = list(items), list(items)
    a_items[tool_pos] = replace(items[tool_pos], id="tool:lookup_order", content=plain)
    b_items[tool_pos] = replace(items[tool_pos], id="tool-lookup_order", content=wrapped)
    d = diff_traces(replace(a, items=tuple(a_items)), replace(a, trace_id="b", items=tuple(b_items)))
    (row,) = [x for x in d.items if x.kind is Kind.TOOL]
    assert (row.a.id, row.b.id, row.changes) == ("tool:lookup_order", "tool-lookup_order", (Change.CONTENT_CHANGED,))
    # the same id holding another tool is another item: removed + added
    renamed = list(a_items)
    renamed[tool_pos] = replace(a_items[tool_pos], content=plain.replace("lookup_order", "cancel_order"))
    d = diff_traces(replace(a, items=tuple(a_items)), replace(a, trace_id="c", items=tuple(renamed)))
    assert sorted((x.change.value, x.a.id if x.a else x.b.id) for x in d.items if x.kind is Kind.TOOL) == [
        ("added", "tool:lookup_order"), ("removed", "tool:lookup_order")]


def test_omitted_for_another_reason_is_a_status_change_with_both_reasons() -> None:
    a = make_trace()
    b_items = [replace(i, omission_reason="rank") if i.id == "ev-shipping-delays" else i for i in a.items]
    d = diff_traces(a, replace(a, trace_id="reranked", items=tuple(b_items)))
    row = next(x for x in d.items if x.id == "ev-shipping-delays")
    assert row.changes == (Change.STATUS_CHANGED,)
    assert describe(row) == "omitted (budget) → omitted (rank)"
    assert d.first_divergence is None and not d.no_change  # nothing sent changed; the record did


def test_a_positional_id_is_said_with_the_start_of_its_content() -> None:
    """New-user finding nu3 #12: OTel calls number their messages (``msg-0`` is each call's first),
    so "first divergence position 2: msg-0 → msg-0" named two different messages as one."""
    a = make_trace()
    first = next(i for i in a.items if i.status is Status.RETAINED)
    turn = ContextItem(id="msg-0", kind=Kind.HISTORY, content="I want to fly to Rome in May. My budget is 900 euros",
                       tokens=12, status=Status.RETAINED, role="user")
    later = replace(turn, content="May 10 to 17.\n\tThanks", tokens=6)
    d = diff_traces(replace(a, items=(first, turn, *a.items[1:])), replace(a, trace_id="b", items=(first, later, *a.items[1:])))
    at = d.first_divergence.position
    assert d.first_divergence.words() == (
        f'position {at}: msg-0 "I want to fly to Rome in May. My budget…" → msg-0 "May 10 to 17. Thanks"')
    assert (f'first divergence  position {at}: msg-0 "I want to fly to Rome in May. My budget…" → msg-0 "May 10 to 17. '
            'Thanks"' in format_diff_text(d).splitlines())
    other = replace(d.first_divergence, id_b="msg-1")  # different ids name themselves
    assert other.words() == f"position {at}: msg-0 → msg-1"


def _otel_call(*messages: tuple[Kind, str, str]) -> RequestTrace:
    """A call whose messages carry positional ids msg-0.. (as OTel imports them)."""
    items = tuple(ContextItem(kind, f"msg-{i}", text, tokens=len(text.split()), role=role)
                  for i, (kind, role, text) in enumerate(messages))
    return replace(make_trace(), items=items)


def test_positional_messages_pair_by_place_only_where_both_gaps_hold_as_many() -> None:
    """A new user's session diff paired call 1's first turn "I want to bake bread." with call 2's new
    question "And the oven temperature?" (its five earlier turns summarised away): 'content changed'
    with a word diff of two unrelated messages. A replay's edited question still pairs."""
    sys_ = (Kind.POLICY, "system", "You are a cooking assistant.")
    before = _otel_call(sys_, (Kind.HISTORY, "user", "I want to bake bread."),
                        (Kind.HISTORY, "assistant", "Great, sourdough or yeast?"),
                        (Kind.USER, "user", "How long to knead?"))
    after = _otel_call(sys_, (Kind.POLICY, "system", "Summary of the conversation so far: yeast bread."),
                       (Kind.USER, "user", "And the oven temperature?"))
    d = diff_traces(before, after)
    assert [(x.id, x.changes) for x in d.items if x.a is not None and x.a.role == "user"] == [
        ("msg-1", (Change.REMOVED,)), ("msg-3", (Change.REMOVED,))]
    edited = _otel_call(*before_items(before)[:3], (Kind.USER, "user", "How long should I knead it?"))
    e = {x.id: x.changes for x in diff_traces(before, edited).items}
    assert e["msg-3"] == (Change.CONTENT_CHANGED,)


def before_items(trace: RequestTrace) -> list[tuple[Kind, str, str]]:
    return [(i.kind, i.role or "", i.content or "") for i in trace.items]
