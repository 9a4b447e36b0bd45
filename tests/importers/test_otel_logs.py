"""OTLP log records of GenAI message events (``otel-logs``): grouped by trace/span id into one call
each (golden input tests/importers/golden/otel-logs/), bad records named while the rest loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxviewer.importers import REGISTRY, ImportProblem
from ctxviewer.importers.formats.otel.logs import IMPORTER
from ctxviewer.model.trace import Kind, RequestTrace

GOLDEN = Path(__file__).resolve().parent / "golden" / "otel-logs" / "genai-events.logs.json"


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(IMPORTER.load(path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def test_records_are_grouped_by_span_into_calls() -> None:
    assert REGISTRY.detect(GOLDEN, []).name == "otel-logs"
    (first, second, loose), problems = _load(GOLDEN)
    assert first.trace_id == "5b8efff798038103d269b633813fc60c:eee19b7ec3c1b174"
    assert [(i.kind, i.role, i.content) for i in first.items] == [
        (Kind.POLICY, "system", "You are a helpful travel agent."),
        (Kind.USER, "user", "Book me a train to Porto tomorrow.")]
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [("call_1", "search_trains", '{"to": "Porto"}')]
    assert first.endpoint.provider == "openai" and first.service == "travel-agent"
    assert list(first.attributes["ctxviewer.unmapped"]) == ["log event http.request"]  # same span, other event
    assert first.attributes["ctxviewer.completeness"] == "end not recorded"
    assert [(i.kind, i.role) for i in second.items] == [(Kind.USER, "user"), (Kind.HISTORY, "assistant"),
                                                         (Kind.HISTORY, "tool")]
    assert second.items[2].content == "08:05 Lisboa-Porto, 24 EUR"
    assert second.response is not None and second.response.text == "The 08:05 train to Porto costs 24 EUR."
    assert second.attributes["otel.log_records"] == 4
    assert loose.user_request == "ping" and loose.response is not None and loose.response.text == "pong"
    assert loose.endpoint.provider == "anthropic"
    assert [(p.record, p.dropped) for p in problems] == [("resourceLogs[0].scopeLogs[0].logRecords[7]", 0),
                                                         ("resourceLogs[0].scopeLogs[0].logRecords[8]", 1)]


def test_a_file_with_spans_goes_to_the_otel_importer(tmp_path: Path) -> None:
    path = tmp_path / "both.json"
    path.write_text(json.dumps({"resourceSpans": [], "resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"eventName": "gen_ai.user.message", "body": {"stringValue": "hi"}}]}]}]}), encoding="utf-8")
    assert IMPORTER.sniff(path, path.read_bytes()) == 0.0


def _user(n: int, span: str) -> dict[str, Any]:
    return {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": span, "timeUnixNano": "1764745200000000000",
            "eventName": "gen_ai.user.message", "body": {"kvlistValue": {"values": [
                {"key": "content", "value": {"stringValue": f"q{n}"}}]}}}


BAD = st.one_of(st.none(), st.integers(), st.text(max_size=4), st.lists(st.booleans(), max_size=2),
                st.fixed_dictionaries({"eventName": st.just("gen_ai.user.message"),
                                       "timeUnixNano": st.sampled_from(["soon", "1e9", "-5"])}),
                st.fixed_dictionaries({"eventName": st.just("gen_ai.user.message"), "spanId": st.just("0000000000000009"),
                                       "attributes": st.sampled_from([[1], "x", [{"key": 3}]])}))


@settings(max_examples=40, deadline=None)
@given(bad=BAD, at=st.integers(0, 2))
def test_a_malformed_record_is_named_and_the_rest_still_loads(bad: Any, at: int) -> None:
    import tempfile
    recs: list[Any] = [_user(0, "00000000000000a0"), _user(1, "00000000000000a1")]
    recs.insert(at, bad)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "logs.json"
        path.write_text(json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": recs}]}]}), encoding="utf-8")
        traces, problems = _load(path)
    requests = [t.user_request for t in traces]
    assert [r for r in requests if r in ("q0", "q1")] == ["q0", "q1"]
    for p in problems:
        assert p.file == str(path)
        assert p.record == f"resourceLogs[0].scopeLogs[0].logRecords[{at}]"  # only the bad record is named
    if not isinstance(bad, dict):
        assert [(p.record, p.dropped) for p in problems] == [(f"resourceLogs[0].scopeLogs[0].logRecords[{at}]", 1)]


def _logs(*recs: dict[str, Any]) -> dict[str, Any]:
    return {"resourceLogs": [{"scopeLogs": [{"logRecords": list(recs)}]}]}


def test_log_records_beside_their_spans_join_them_and_the_rest_is_named(tmp_path: Path) -> None:
    from ctxviewer.importers.formats.otel import IMPORTER as OTEL

    span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "00000000000000a0", "name": "chat gpt-4o",
            "startTimeUnixNano": "1764745200000000000", "endTimeUnixNano": "1764745201000000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                           {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o"}}]}
    no_span = dict(_user(7, ""), spanId="")
    elsewhere = _user(8, "00000000000000ff")  # a span this file does not hold
    for name, text in (("lines.jsonl", "\n".join(json.dumps(d) for d in (
            {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}, _logs(_user(0, "00000000000000a0"), no_span, elsewhere)))),
            ("one.json", json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}],
                                     **_logs(_user(0, "00000000000000a0"), no_span, elsewhere)}))):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        records = list(OTEL.load(path))
        traces = [r for r in records if isinstance(r, RequestTrace)]
        problems = [r for r in records if isinstance(r, ImportProblem)]
        assert [t.user_request for t in traces] == ["q0"], name
        assert [(p.record, p.dropped) for p in problems] == [("whole file", 2)], name
        assert problems[0].message.startswith("2 GenAI log record(s) joined no span in this file")
