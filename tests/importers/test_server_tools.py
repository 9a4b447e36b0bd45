"""Tools an OpenAI Responses call ran on the provider's side (``web_search_call``...) are kept and
named: in the header ("Server tool") and as the reason the reported input is above the count (new
user nu2 #14: the search appeared nowhere and the 8,055-token gap got a generic explanation)."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.assess.checks import run_checks
from ctxviewer.assess.trace_header import header_rows
from ctxviewer.importers import detect
from ctxviewer.model.trace import RequestTrace

FILE = Path(__file__).resolve().parents[1] / "data" / "openai" / "responses-web-search.extracted.json"


def test_the_web_search_is_named_in_the_header_and_the_gap() -> None:
    (trace,) = [r for r in detect(FILE).load(FILE) if isinstance(r, RequestTrace)]
    assert [dict(t) for t in trace.attributes["openai.response.server_tool_calls"]] == [
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "query": "ECB decision this week"}]
    assert dict(header_rows(trace))["Server tool"] == (
        "web_search_call ws_1 (completed): 'ECB decision this week'\n"
        "(run by the provider itself: no proposal the application checks)")
    assert [c.name for c in trace.tool_calls] == ["save_note"]  # the search is no proposed call
    gap = [f.message for f in run_checks(trace) if f.rule == "accounting.reported_gap"]
    assert len(gap) == 1 and gap[0].endswith(
        "the provider ran web_search_call itself, and what it fed the model (search results, files) counts as "
        "input but is not in the trace")
