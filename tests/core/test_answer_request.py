"""Issue 13, "Answer and request": the answer and the serialized request of a trace, worded once
(:mod:`ctxviewer.present.answer`, :mod:`ctxviewer.present.request_body`) for the window and ``ctxviewer show``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import make_trace

from ctxviewer.cli import cli
from ctxviewer.model.trace import SerializedRequest
from ctxviewer.present.answer import answer_lines, pretty_arguments
from ctxviewer.present.request_body import pretty_body, request_dict, request_notice, request_view
from ctxviewer.present.trace_attributes import attribute_rows
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
SHA = "eaaea95ab3086847641cbd4f3c48386e76c56dfe345345dacb2edfca73fcaf6c"


def sample(trace_id: str):  # type: ignore[no-untyped-def]
    with TraceStore.open(SAMPLES) as st:
        return st.load(trace_id)


def show(*args: str) -> str:
    res = CliRunner().invoke(cli, ["show", str(SAMPLES), *args])
    assert res.exit_code == 0, res.output
    return res.output


def test_refund_answer_is_printed_by_show_and_in_json() -> None:
    out = show("refund-approval-forgotten")
    assert "Response (finish reason stop · model gpt-4o-mini-2024-07-18 · id chatcmpl-b1cfcaa07ae09262e2f9fb27)" in out
    assert "your refund of 212.00 USD for the Alder 15 sleeping bag has been processed." in out
    d = json.loads(show("refund-approval-forgotten", "--json"))
    assert d["response"]["text"].startswith("Good news, Priya: your refund of 212.00 USD")
    assert d["response"]["finish_reason"] == "stop"
    req = d["request"]
    assert req["content"] is not None and json.loads(req["content"])["model"] == "gpt-4o-mini-2024-07-18"
    assert req["sha256"].startswith("4c319d815afa")
    assert req["exact_replay"] is True and req["redacted_fields"] == []


def test_redacted_request_in_json_and_text() -> None:
    d = json.loads(show("ticket-injection", "--json"))
    assert d["request"]["sha256"] == SHA
    assert d["request"]["exact_replay"] is False
    assert d["request"]["redacted_fields"] == ["messages[1].content", "user"]
    assert d["request"]["notice"] == ("serialized request kept (11,490 characters, sha256 eaaea95ab308…); "
                                      "exact replay impossible: fields messages[1].content, user redacted")
    out = show("ticket-injection")
    assert out.rstrip().endswith("Request: " + d["request"]["notice"])


def test_only_a_reference_kept() -> None:
    req = SerializedRequest(content=None, sha256=SHA, exact_replay=False, redacted_fields=("messages[1].content", "user"))
    t = make_trace(request=req)
    assert request_notice(req) == ("only a reference was kept (sha256 eaaea95ab308…); exact replay impossible: "
                                   "fields messages[1].content, user redacted")
    assert request_dict(t) == {"content": None, "sha256": SHA, "exact_replay": False,
                               "redacted_fields": ["messages[1].content", "user"], "notice": request_notice(req)}
    v = request_view(t)
    assert v.body is None and v.language is None
    assert request_notice(SerializedRequest(sha256=SHA, exact_replay=True)) == (
        "only a reference was kept (sha256 eaaea95ab308…); exact replay possible from the stored copy")
    assert request_notice(SerializedRequest(sha256=SHA, exact_replay=False, redacted_fields=("user",))).endswith(
        "exact replay impossible: field user redacted")


def test_request_not_recorded() -> None:
    assert request_notice(SerializedRequest()) == "serialized request not recorded"
    d = json.loads(show("policy-missing", "--json"))
    assert d["request"] == {"content": None, "sha256": None, "exact_replay": False, "redacted_fields": [],
                            "notice": "serialized request not recorded; exact replay impossible: the body was not stored"}
    assert d["response"] is None
    assert "Response: not recorded" in show("policy-missing")


def test_pretty_body_reindents_json_and_keeps_other_text() -> None:
    assert pretty_body('{"model":"m","messages":[{"role":"user","content":"héllo"}]}') == (
        '{\n  "model": "m",\n  "messages": [\n    {\n      "role": "user",\n      "content": "héllo"\n    }\n  ]\n}', "json")
    assert pretty_body("model=m\nmessages=...") == ("model=m\nmessages=...", None)
    assert pretty_body('"just a string"') == ('"just a string"', None)


def test_tool_call_arguments_checks_and_verdict() -> None:
    lines = answer_lines(sample("ticket-injection"))
    i = lines.index("Tool calls proposed (1)")
    assert lines[i + 1] == "    issue_refund → blocked by refunds.require_supervisor_approval"
    assert lines[i + 2 : i + 5] == ["        arguments:", "            {", '              "order_number": "NW-4490321",']
    assert "        ✖ resource: 349.00 USD exceeds the order total of 236.53 USD for NW-4490321" in lines
    assert "        ✔ allowlist: issue_refund is on the support assistant's allowlist" in lines
    assert pretty_arguments('{"a": 1') == '{"a": 1'  # invalid JSON: as sent, never repaired
    assert pretty_arguments(None) == "not recorded"


def test_validations_and_invisible_characters() -> None:
    lines = answer_lines(sample("json-unsupported"))
    assert "    ✖ cited_ids: cited KB-1021 is not in the retained evidence (retained: ORD-NW-4511264, KB-1001, KB-1003, KB-1011)" in lines
    from ctxviewer.model.trace import Response

    t = make_trace(response=Response(text="ok\u202eevil", finish_reason="stop"))
    assert answer_lines(t)[1] == "    ok⟨RLO⟩evil"
    assert answer_lines(t)[0] == "Response (finish reason stop · model not recorded · id not recorded)"


@pytest.mark.parametrize("key,value", [("session_id", "sess-3c5b90"), ("user_id", "cust-31877"),
                                       ("injection.source", "TCK-58213"), ("source_format", "native")])
def test_attribute_rows(key: str, value: str) -> None:
    assert dict(attribute_rows(sample("ticket-injection")))[key] == value
