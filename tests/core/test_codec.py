"""One JSON form (issue 5 item 6): cattrs-backed ``to_builtins`` / ``from_builtins`` for model and
finding dataclasses, strict types, errors naming the JSON path, ISO 8601 UTC times."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from factories import make_rich_trace, make_trace

from ctxviewer.model.codec import TraceFormatError, format_created, from_builtins, to_builtins
from ctxviewer.model.findings import Evidence, Finding, Severity, TextSpan
from ctxviewer.model.serialize import trace_to_dict
from ctxviewer.model.trace import Endpoint, LimitMode, RequestTrace, ToolCall, ToolVerdict, Usage


def test_finding_to_builtins_has_values_lists_and_nulls() -> None:
    f = Finding("injection.override", Severity.CRITICAL, "ticket tells the model to ignore the policy",
                Evidence(item_ids=("ticket-1",), positions=(4,), spans=(TextSpan("ticket-1", 10, 42),)),
                table_row=5)
    assert to_builtins(f) == {
        "rule": "injection.override",
        "severity": "critical",
        "message": "ticket tells the model to ignore the policy",
        "evidence": {"item_ids": ["ticket-1"], "positions": [4], "fields": [],
                     "spans": [{"item_id": "ticket-1", "start": 10, "end": 42}], "tool_call_ids": []},
        "table_row": 5,
        "first_evidence": None,
        "repair": None,
    }
    assert from_builtins(Finding, to_builtins(f)) == f


def test_trace_to_builtins_is_json_ready_with_utc_z_times() -> None:
    t = make_rich_trace(created=datetime(2026, 11, 2, 10, 14, 5, 120000, tzinfo=timezone(timedelta(hours=1))),
                        attributes={"gen_ai.request.stop": ["a", "b"], "nested": {"k": [1, {"x": 2}]}})
    b = to_builtins(t)
    assert b["created"] == "2026-11-02T09:14:05.120Z" == format_created(t.created)
    assert b["attributes"] == {"gen_ai.request.stop": ["a", "b"], "nested": {"k": [1, {"x": 2}]}}
    assert type(b["attributes"]) is dict and type(b["items"]) is list
    assert b["endpoint"]["limit_mode"] == t.endpoint.limit_mode.value
    assert json.loads(json.dumps(b)) == b  # plain builtins only
    assert from_builtins(RequestTrace, b) == t


def test_compact_native_record_drops_nulls_but_full_form_keeps_them() -> None:
    t = make_trace()
    assert "response" not in trace_to_dict(t) and to_builtins(t)["response"] is None
    assert list(trace_to_dict(t))[0] == "trace_id" and list(trace_to_dict(t))[-1] == "items"


@pytest.mark.parametrize(
    "cls, data, message",
    [
        (Endpoint, {"capacity": "8000"}, "capacity: expected int, got str"),
        (Endpoint, {"capacity": True}, "capacity: expected an integer, got a boolean"),
        (Endpoint, {"limit_mode": "both"}, "limit_mode: 'both' is not one of shared, separate"),
        (Endpoint, {"limit_mode": ["shared"]}, "limit_mode: ['shared'] is not one of shared, separate"),
        (Endpoint, {"limit_mode": 1}, "limit_mode: 1 is not one of shared, separate"),
        (Usage, {"input_tokens": -1}, "input_tokens: token counts cannot be negative (-1)"),
        (Endpoint, [1, 2], "expected an object, got list"),
        (ToolCall, {"name": "refund", "arguments": None, "checks": [{"check": "allowlist", "passed": "yes"}]},
         "checks[0].passed: expected bool, got str"),
        (ToolCall, {"name": "refund", "arguments": None, "verdict": "maybe"},
         "verdict: 'maybe' is not one of permitted, blocked, needs_approval"),
        (RequestTrace, {"trace_id": "t", "budget": {"sys": 10, "misc": 5}},
         "budget.misc: 'misc' is not one of sys, hist, memory, evidence, tools, user, out"),
        (RequestTrace, {"trace_id": "t", "items": {"kind": "user"}}, "items: expected a list"),
        (RequestTrace, {"trace_id": "t", "items": [{"kind": "user", "id": "u", "priority": False}]},
         "items[0].priority: expected a number, got a boolean"),
        (RequestTrace, {"trace_id": "t", "items": [{"kind": "user", "id": "u", "tokens_provenance": {"encoding": "x"}}]},
         "items[0].tokens_provenance.source: is required"),
        (RequestTrace, {"trace_id": "t", "validations": [{"check": "json"}]}, "validations[0].passed: is required (true or false)"),
        (RequestTrace, {"trace_id": "t", "created": 1700000000}, "created: expected an ISO-8601 string, got int"),
    ],
)
def test_from_builtins_is_strict_and_names_the_path(cls: type, data: object, message: str) -> None:
    with pytest.raises(TraceFormatError) as exc:
        from_builtins(cls, data)
    assert str(exc.value) == message


def test_domain_defaults_on_reading() -> None:
    t = from_builtins(RequestTrace, {
        "trace_id": "t", "endpoint": None, "items": [
            {"kind": "policy", "id": "p", "source": {}},
            {"kind": "evidence", "id": "e", "status": None, "tokens_provenance": {}},
        ],
        "tool_calls": [{"name": "lookup", "checks": [{"passed": True}], "verdict": "permitted"}],
        "some_future_key": 1,
    })
    policy, evidence = t.items
    assert (policy.trust.value, evidence.trust.value, evidence.status.value) == ("trusted", "untrusted", "retained")
    assert (policy.source, evidence.tokens_provenance, t.endpoint) == (None, None, Endpoint())
    assert t.tool_calls[0].checks[0].check == "" and t.tool_calls[0].verdict is ToolVerdict.PERMITTED
    assert t.created is None and t.endpoint.limit_mode is None and LimitMode.SHARED.value == "shared"
