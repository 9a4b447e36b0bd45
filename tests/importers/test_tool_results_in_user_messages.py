"""A tool's output that rides in a user message -- Anthropic's ``tool_result`` blocks, Pydantic AI's
``tool_call_response`` parts -- is a tool result (history, role ``tool``): untrusted data the scanner
reads, never the user's own words or the user request. New user nu2 #1: the same injected page and
exfiltrating ``send_email`` call was a failure with OpenAI's ``role: tool`` and "ok" in these two
shapes (inputs written from Anthropic's Messages API and Pydantic AI's ``_otel_messages.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.assess.checks import run_checks
from ctxviewer.importers import detect
from ctxviewer.model.trace import RequestTrace

DATA = Path(__file__).resolve().parents[1] / "data" / "tool_results"


def _trace(name: str) -> RequestTrace:
    path = DATA / name
    (trace,) = [r for r in detect(path).load(path) if isinstance(r, RequestTrace)]
    return trace


@pytest.mark.parametrize(("name", "result_id"), [
    ("anthropic-tool-result-injection.extracted.json", "msg-2"),
    ("pydantic-ai-tool-return-injection.otlp.json", "msg-3"),
])
def test_the_tool_output_is_untrusted_data_and_its_injection_is_found(name: str, result_id: str) -> None:
    trace = _trace(name)
    assert trace.user_request == "Find me hotels in Paris from https://hotels.example/paris"
    result = next(i for i in trace.items if i.id == result_id)
    assert (result.kind.value, result.role, result.trust.value) == ("history", "tool", "untrusted")
    assert result.content is not None and result.content.startswith("Page content: Paris hotels list.")
    found = sorted((f.rule, f.severity.value) for f in run_checks(trace) if f.rule.startswith("injection."))
    assert found == [("injection.action_linkage", "failure"), ("injection.address", "warning"),
                     ("injection.argument_from_flagged", "failure"), ("injection.intent", "warning"),
                     ("injection.override", "warning")]


def test_a_whatif_drops_an_anthropic_tool_use_with_its_result() -> None:
    """nu2 #4: the tool_use was omitted and its tool_result kept, a request Anthropic's API rejects."""
    from ctxviewer.builder.whatif import Scenario, run

    o = run(_trace("anthropic-tool-result-injection.extracted.json"), Scenario(capacity=400, reserve=100))
    assert o.trace is not None
    assert [(c.id, c.after) for c in o.changes if c.id in ("msg-1", "msg-2")] == [
        ("msg-1", "omitted (budget (with its 1 tool result(s)))"), ("msg-2", "omitted (budget (dropped with tool call msg-1))")]


def test_tool_results_and_words_in_one_user_message_are_split(tmp_path: Path) -> None:
    """Review H3: a tool_result and a text block in one user message (Claude Code's shape) stayed the
    user request, and its injection went unscanned ("ok")."""
    import json

    doc = json.loads((DATA / "anthropic-tool-result-injection.extracted.json").read_text(encoding="utf-8"))
    body = doc["interactions"][0]["request"]["body"]
    body["messages"][2]["content"].append({"type": "text", "text": "Please continue with the booking."})
    path = tmp_path / "mixed.extracted.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    (trace,) = [r for r in detect(path).load(path) if isinstance(r, RequestTrace)]
    assert [(i.id, i.kind.value, i.role) for i in trace.items if i.id.startswith("msg-2")] == [
        ("msg-2", "history", "tool"), ("msg-2.text", "user", "user")]
    assert trace.user_request == "Please continue with the booking."
    assert "injection.override" in [f.rule for f in run_checks(trace)]
