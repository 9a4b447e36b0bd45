"""A request that continues a conversation the provider holds, and a standalone tool span, in the
policy and accounting checks (reviewer 2026-12-07, items 2 and 9): the earlier turns the provider
holds may carry the system instructions and count as input, and a tool's execution sends no policy.
The real traces (the OpenAI Responses round trip, the Microsoft Agent Framework's second call, the
lone ``execute_tool`` span) are in ``tests/corpus_findings/expected.json``."""

from __future__ import annotations

from dataclasses import replace

from factories import make_trace

from ctxviewer.assess.checks.policy import PolicyCheck
from ctxviewer.model.findings import Severity
from ctxviewer.model.trace import Kind, Policy


def _no_policy(**overrides: object):
    t = make_trace(**overrides)
    return replace(t, items=tuple(i for i in t.items if i.kind is not Kind.POLICY))


def _policy(trace) -> list[tuple[str, Severity, str]]:
    return [(f.rule, f.severity, f.message) for f in PolicyCheck().run(trace)]


def test_a_required_policy_missing_from_a_self_contained_request_is_a_failure() -> None:
    assert _policy(_no_policy()) == [("policy.missing", Severity.FAILURE,
                                      "policy support-policy was required but no policy item was sent")]


def test_a_continued_conversation_says_the_earlier_turns_may_carry_it() -> None:
    """Review 2026-12-07 item 5: OpenAI does not carry an earlier request's ``instructions`` over
    with ``previous_response_id``, so a required policy stays a warning, not an info."""
    t = _no_policy(attributes={"openai.previous_response_id": "resp_0b7f"})
    tail = ("no policy (system instructions) in this request, which continues a conversation the provider holds "
            "(previous_response_id resp_0b7f): a system message in its earlier turns would count, but an earlier "
            "request's instructions are not carried over; which was used is not recorded")
    assert _policy(t) == [("policy.missing", Severity.WARNING, "policy support-policy is required; " + tail)]
    unnamed = replace(t, policy=Policy(id=None, version=None, available=None))
    assert _policy(unnamed) == [("policy.missing", Severity.INFO, tail)]
    # input messages not captured: what was sent is not known, said as such (not the provider-state words)
    blind = replace(unnamed, attributes={**unnamed.attributes, "ctxviewer.content": "not captured"})
    assert _policy(blind) == []


def test_a_tool_span_sends_no_policy() -> None:
    t = _no_policy(attributes={"gen_ai.operation.name": "execute_tool"})
    assert _policy(replace(t, policy=Policy(id=None, version=None, available=None))) == []


def test_the_rows_repair_is_attached_only_where_a_policy_is_required() -> None:
    """Reviewer 2026-12-07 item 9: "Reject the request when the required policy version is
    unavailable" under "no policy was sent" on a "Hello, world!" call that requires none."""
    none_required = replace(_no_policy(), policy=Policy(id=None, version=None, available=None))
    [f] = PolicyCheck().run(none_required)
    assert (f.table_row, f.first_evidence, f.repair) == (1, "Policy loader and version pin", None)
    [g] = PolicyCheck().run(_no_policy())
    assert g.repair == "Reject the request when the required policy version is unavailable"
    [h] = PolicyCheck().run(replace(none_required, attributes={"openai.previous_response_id": "resp_1"}))
    assert h.repair is None
