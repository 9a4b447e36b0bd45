"""The JSON form of a trace: exact round trip and errors that name the field."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ctxviewer.model.serialize import TraceFormatError, trace_from_dict, trace_to_dict
from ctxviewer.model.trace import (
    Category,
    ContextItem,
    Endpoint,
    Kind,
    LimitMode,
    Policy,
    RequestTrace,
    Response,
    SerializedRequest,
    SourceRef,
    Status,
    ToolCall,
    ToolCheck,
    ToolVerdict,
    Trust,
    Usage,
    ValidationResult,
)


def rich_trace() -> RequestTrace:
    return RequestTrace(
        trace_id="rt-1",
        created=datetime(2026, 11, 2, 9, 14, 5, 120000, tzinfo=timezone.utc),
        service="support-assistant", session_id="s-9", user_id="u-[redacted]", replay_of="rt-0",
        endpoint=Endpoint("openai", "gpt-4o-mini", 8000, LimitMode.SHARED, None, None, "cl100k_base", "text+3/msg"),
        policy=Policy("support-policy", "2026-10-03", True),
        user_request="Where is my order? 😀",
        items=(
            ContextItem(Kind.POLICY, "policy", "Be kind.", Status.RETAINED, 3, 1, 10.0, Trust.TRUSTED,
                        SourceRef(store="policies", document_id="support-policy@2026-10-03"), None, "system"),
            ContextItem(Kind.EVIDENCE, "kb-7", "Returns take 5 days.", Status.OMITTED, 5, None, 0.2,
                        Trust.UNTRUSTED, SourceRef(store="kb", document_id="7", url="https://kb/7"), "budget"),
            ContextItem(Kind.USER, "user", "Where is my order? 😀", tokens=7, position=2, role="user"),
        ),
        budget={Category.SYS: 800, Category.MEMORY: 100, Category.OUT: 1200},
        reserved_output_tokens=1200, input_tokens=10, safety_margin=800,
        usage=Usage(412, 27, 256, 0, 8),
        request=SerializedRequest('{"model":"x"}', "ab" * 32, False, ("messages[1].content",)),
        response=Response("It ships today.", "stop", "gpt-4o-mini-2024-07-18", "resp-1"),
        tool_calls=(ToolCall("issue_refund", '{"order":"A-1"}', "call_1",
                             (ToolCheck("allowlist", True, "tools.allow", "on list"),
                              ToolCheck("approval", False, "refunds.require_supervisor", None)),
                             ToolVerdict.BLOCKED, "refunds.require_supervisor"),),
        validations=(ValidationResult("cited_ids", False, "doc-99 not retained"),),
        source_format="native",
        attributes={"gen_ai.request.temperature": 0.7},
    )


def test_round_trip_is_exact() -> None:
    t = rich_trace()
    assert trace_from_dict(trace_to_dict(t)) == t
    assert trace_to_dict(t)["created"] == "2026-11-02T09:14:05.120Z"


def test_missing_fields_are_none_not_zero() -> None:
    t = trace_from_dict({"trace_id": "x", "items": []})
    assert t.endpoint.capacity is None and t.reserved_output_tokens is None and t.usage.input_tokens is None


@pytest.mark.parametrize(
    "patch, message",
    [
        ({"items": [{"kind": "policy", "id": "p", "status": "kept"}]},
         "items[0].status: 'kept' is not one of retained, omitted"),
        ({"items": [{"kind": "doc", "id": "p"}]}, "items[0].kind: 'doc' is not one of"),
        ({"items": [{"kind": "user", "id": "u", "tokens": -3}]}, "items[0].tokens: token counts cannot be negative"),
        ({"items": [{"kind": "user", "id": "u"}, {"kind": "user", "id": "u"}]}, "items[1].id: duplicate item id 'u'"),
        ({"endpoint": {"capacity": "8k"}}, "endpoint.capacity: expected int, got str"),
        ({"created": "yesterday"}, "created: 'yesterday' is not an ISO-8601 time"),
        ({"trace_id": ""}, "trace_id: is required"),
    ],
)
def test_errors_name_the_field(patch: dict, message: str) -> None:
    d = {"trace_id": "x", "items": []}
    d.update(patch)
    with pytest.raises(TraceFormatError) as exc:
        trace_from_dict(d)
    assert message in str(exc.value)
