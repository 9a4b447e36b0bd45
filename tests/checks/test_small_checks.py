"""Orphan tool results, exporter truncation, required items trimmed, failed validations, span state."""

from dataclasses import replace

from factories import make_trace

from ctxviewer.assess.checks.required import RequiredItemCheck
from ctxviewer.assess.checks.spans import SpanCheck
from ctxviewer.assess.checks.tool_results import ToolResultCheck
from ctxviewer.assess.checks.truncation import TruncationCheck
from ctxviewer.assess.checks.validations import ValidationCheck
from ctxviewer.model.findings import Severity, TextSpan
from ctxviewer.model.trace import ContextItem, Kind, Policy, Status, ValidationResult


def turn(item_id, role, status=Status.RETAINED, text="..."):
    return ContextItem(kind=Kind.HISTORY, id=item_id, content=text, role=role, status=status)


def with_history(*turns):
    t = make_trace()
    return replace(t, items=(t.items[0], *turns, *t.items[3:]))


def test_orphan_tool_result_when_its_call_turn_was_omitted():
    t = with_history(turn("u", "user"), turn("call", "assistant", Status.OMITTED), replace(turn("res", "tool"), position=3))
    [f] = ToolResultCheck().run(t)
    assert (f.rule, f.severity, f.evidence.item_ids) == ("tool_result.orphan", Severity.FAILURE, ("res", "call"))
    assert f.repair.startswith("Trim a tool call and its result together")


def test_benign_tool_result_after_its_call_or_both_omitted():
    assert list(ToolResultCheck().run(with_history(turn("call", "assistant"), turn("res", "tool")))) == []
    both = with_history(turn("call", "assistant", Status.OMITTED), turn("res", "tool", Status.OMITTED))
    assert list(ToolResultCheck().run(both)) == []


def test_truncation_marker_gives_a_span():
    text = "Order 4471 shipped via ParcelLine...[truncated 2048 chars]"
    t = with_history(turn("t0", "tool", text=text))
    [f] = TruncationCheck().run(t)
    assert f.rule == "content.truncated" and f.evidence.spans == (TextSpan("t0", 33, len(text)),)
    assert list(TruncationCheck().run(make_trace())) == []


def test_truncation_attribute():
    [f] = TruncationCheck().run(make_trace(attributes={"gen_ai.input.messages.truncated": True}))
    assert f.evidence.fields == ("gen_ai.input.messages.truncated",)


def test_required_item_trimmed():
    t = make_trace()
    items = tuple(replace(i, status=Status.OMITTED, position=None, omission_reason="budget")
                  if i.kind is Kind.USER else i for i in t.items)
    [f] = RequiredItemCheck().run(replace(t, items=items))
    assert (f.rule, f.severity, f.evidence.item_ids) == ("required.trimmed", Severity.FAILURE, ("user",))
    assert f.message == "required user item user was trimmed (budget)"
    assert list(RequiredItemCheck().run(t)) == []


def test_required_policy_skipped_when_unavailable():
    t = make_trace(policy=Policy(id="p", version="1", available=False))
    items = tuple(replace(i, status=Status.OMITTED, position=None) if i.kind is Kind.POLICY else i for i in t.items)
    assert list(RequiredItemCheck().run(replace(t, items=items))) == []


def test_failed_validations_map_to_table_rows():
    t = make_trace(validations=(ValidationResult("json_schema", True), ValidationResult("cited_ids", False, "doc-9"),
                                ValidationResult("tone", False)))
    got = [(f.rule, f.table_row, f.message, f.evidence.fields) for f in ValidationCheck().run(t)]
    assert got == [("validation.failed", 4, "validation cited_ids failed: doc-9", ("validations[1]",)),
                   ("validation.failed", None, "validation tone failed: no detail recorded", ("validations[2]",))]
    assert list(ValidationCheck().run(make_trace())) == []


def test_span_error_without_end_time_says_one_thing():
    """An error status and no end time: one finding, "ended in error, end time not recorded" (not
    also "never ended"); an open span without an error stays span.not_ended."""
    t = make_trace(attributes={"otel.status_code": "error", "otel.status_message": "429 rate limited",
                               "otel.span.ended": False})
    got = [(f.rule, f.severity, f.message, f.evidence.fields) for f in SpanCheck().run(t)]
    assert got == [("span.error", Severity.FAILURE,
                    "the span ended in error: 429 rate limited, end time not recorded",
                    ("attributes.otel.status_code", "attributes.otel.status_message",
                     "attributes.otel.span.ended"))]
    t = make_trace(attributes={"otel.status_code": "error", "otel.status_message": "429 rate limited"})
    assert [f.message for f in SpanCheck().run(t)] == ["the span ended in error: 429 rate limited"]
    got = [(f.rule, f.severity, f.message) for f in SpanCheck().run(make_trace(attributes={"otel.span.ended": False}))]
    assert got == [("span.not_ended", Severity.WARNING,
                    "the span never ended (no end time): the request may not have completed")]
    assert list(SpanCheck().run(make_trace(attributes={"otel.status_code": "ok"}))) == []


def test_truncation_marker_quick_refusal_gives_the_plain_search_answer():
    """_marker looks for a marker only when the text ends in ] > or ) (issue 11): the same answer
    as searching the last 120 characters of every text."""
    from ctxviewer.assess.truncated import MARKER
    from ctxviewer.assess.truncated import marker_span as _marker

    def plain(text: str) -> tuple[int, int] | None:
        end = len(text.rstrip())
        start = max(0, end - 120)
        m = MARKER.search(text[start:end])
        return None if m is None else (start + m.start(), start + m.end())

    texts = ["", "   ", "plain text", "ends in ]", "a [truncated]", "a...[TRUNCATED 12 chars]  \n",
             "b\u2026 <truncated 40 more>", "c (truncated)\n\n", "c (TRUNCATED)", "d [truncated\n]", "e <truncated>x",
             "f (truncated) and more", "[truncated]" + " " * 300, "x" * 500 + "...[truncated]", "(ok)", "<b>", "[1]"]
    got = [_marker(t) for t in texts]
    assert got == [plain(t) for t in texts]
    assert sum(g is not None for g in got) == 7
