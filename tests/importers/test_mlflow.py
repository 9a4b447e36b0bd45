"""The MLflow trace (v3) importer: field mapping on the golden inputs (tests/importers/golden/mlflow/),
and malformed records as warnings naming the file and record while the rest loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviewer.importers import REGISTRY, ImportProblem
from ctxviewer.importers.formats.mlflow import IMPORTER, decode, execution_ms, mlflow_usage
from ctxviewer.model.trace import Kind, RequestTrace, Usage

GOLDEN = Path(__file__).resolve().parent / "golden" / "mlflow"


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(IMPORTER.load(path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def test_openai_chat_span_is_one_trace_with_tools_usage_and_assessments() -> None:
    path = GOLDEN / "openai-tool-call.trace.json"
    assert REGISTRY.detect(path, []).name == "mlflow"
    traces, problems = _load(path)
    assert problems == []
    (t,) = traces  # the AGENT and TOOL spans are not model calls
    assert t.trace_id == "tr-8d1f5c3b2a794e0f9c6b5a4d3e2f1a0b"
    assert (t.endpoint.provider, t.endpoint.model) == ("openai", "gpt-4o-mini")
    assert [(i.kind, i.id) for i in t.items] == [(Kind.POLICY, "msg-0"), (Kind.USER, "msg-1"), (Kind.TOOL, "get_weather")]
    assert t.user_request == "Is it raining in Lisbon?"
    assert [(c.name, c.arguments) for c in t.tool_calls] == [("get_weather", '{"city": "Lisbon"}')]
    assert t.usage == Usage(input_tokens=91, output_tokens=17)
    assert (t.session_id, t.user_id) == ("sess-42", "ana@example.com")
    assert t.attributes["mlflow.span_id"] == "5555666677778888"  # base64 of the binary span id, as hex
    assert t.attributes["mlflow.llm.cost"]["total_cost"] == 2.385e-05
    assert t.attributes["ctxviewer.duration_ms"] == 600.0
    assert list(t.attributes["ctxviewer.scores"]) == [
        {"name": "correctness", "value": "yes", "source": "mlflow assessment",
         "comment": "The answer matches the tool result."},
        {"name": "thumbs", "value": True, "source": "mlflow assessment", "comment": None},
        {"name": "expected_facts", "value": ("no rain",), "source": "mlflow assessment", "comment": None}]
    assert [s["source_type"] for s in t.attributes["mlflow.assessment_sources"]] == ["LLM_JUDGE", "HUMAN", "HUMAN"]


def test_anthropic_span_adds_cache_back_and_bad_records_are_named() -> None:
    path = GOLDEN / "anthropic-cache-and-bad-span.traces.json"
    traces, problems = _load(path)
    (t,) = traces
    # total 61 = 12 input + 9 output + 40 cache read: MLflow's input left the cache out (OTel rule: included)
    assert t.usage == Usage(input_tokens=52, output_tokens=9, cached_input_tokens=40, cache_creation_input_tokens=0)
    assert t.endpoint.provider == "anthropic"
    assert t.items[0].content == "You summarise tickets."
    assert t.response is not None and t.response.text == "Printer jams on the second page."
    assert t.attributes["otel.status_code"] == "error"
    assert t.attributes["otel.status_message"] == "RateLimitError after retry"
    assert [(p.record, p.message, p.dropped) for p in problems] == [
        ("traces[0] data.spans[1]", "span is str, not an object", 1),
        ("traces[1]", "data.spans is not a list", 1)]
    assert all(p.file == str(path) for p in problems)


def test_databricks_embedded_trace_a_plain_text_output_and_a_failed_call() -> None:
    (t, failed), problems = _load(GOLDEN / "databricks-embedded.response.json")
    assert problems == []
    assert (t.trace_id, failed.trace_id) == ("tr-1234abcd/0123456789abcdef", "tr-1234abcd/<redacted>")  # two calls
    assert failed.user_request == "tell me something flagged" and failed.response is None
    # the span's status message is empty; the exception event says what went wrong
    assert failed.attributes["otel.status_message"] == "BadRequestError: Error code: 400 - content_filter"
    assert failed.attributes["temperature"] == 0.5  # a raw span attribute, JSON-decoded, kept
    assert t.endpoint.provider is None  # not recorded: the request's shape does not say who served it
    assert t.endpoint.model == "databricks-claude"
    assert t.response is not None and t.response.text == "Hello"


def test_attribute_values_are_json_strings_even_for_scalars() -> None:
    assert decode('"LLM"') == "LLM"
    assert decode("12") == 12
    assert decode("not json") == "not json"
    assert mlflow_usage('{"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}') == Usage(input_tokens=5, output_tokens=2)
    assert mlflow_usage("[1]") is None


def _chat_span(n: int) -> dict[str, Any]:
    return {"span_id": f"{n:016x}", "name": f"chat {n}", "start_time_unix_nano": 1764745200000000000 + n,
            "end_time_unix_nano": 1764745200500000000 + n, "status": {"code": "OK"},
            "attributes": {"mlflow.spanType": json.dumps("CHAT_MODEL"),
                           "mlflow.spanInputs": json.dumps({"messages": [{"role": "user", "content": f"q{n}"}]}),
                           "mlflow.spanOutputs": json.dumps({"choices": [{"message": {"role": "assistant", "content": f"a{n}"}}]})}}


BAD = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2),
                st.fixed_dictionaries({"span_id": st.integers()}),
                st.fixed_dictionaries({"attributes": st.just({"mlflow.spanType": '"LLM"'}),
                                       "start_time_unix_nano": st.sampled_from(["soon", [1], True, 10**30])}))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bad=BAD, at=st.integers(0, 2))
def test_a_malformed_span_is_named_and_the_rest_still_loads(tmp_path: Path, bad: Any, at: int) -> None:
    spans: list[Any] = [_chat_span(0), _chat_span(1)]
    spans.insert(at, bad)
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"info": {"trace_id": "tr-abc", "trace_metadata": {"mlflow.trace_schema.version": "3"}},
                                "data": {"spans": spans}}), encoding="utf-8")
    traces, problems = _load(path)
    good = [t for t in traces if t.user_request in ("q0", "q1")]
    assert [t.user_request for t in good] == ["q0", "q1"]
    assert [t.response.text for t in good if t.response] == ["a0", "a1"]
    for p in problems:
        assert p.file == str(path) and p.record.startswith("document")
    if not isinstance(bad, dict):
        assert [(p.record, p.dropped) for p in problems] == [(f"document data.spans[{at}]", 1)]


def test_schema_v2_with_a_retriever_and_an_error() -> None:
    (t,), problems = _load(GOLDEN / "v2-retriever-error.trace.json")
    assert problems == []
    assert t.trace_id == "tr-7e57ab1e000000000000000000000002"
    # the retrieved text is not in the chat call's captured input: no evidence item, a row marked not sent
    assert [(i.kind, i.id, i.content) for i in t.items] == [(Kind.USER, "msg-0", "refund window?")]
    assert [(r["id"], r["store"], r["not_sent"]) for r in t.attributes["ctxviewer.documents"]] == [
        ("policy-3", "vector_search", "its text is not in the call's input")]
    assert t.attributes["mlflow.documents.metadata"][0]["metadata"]["doc_uri"] == "policy.md"
    assert t.attributes["mlflow.span_id"] == "0000000000000a03"  # v2 context.span_id, 0x hex
    assert (t.attributes["otel.status_code"], t.attributes["otel.status_message"]) == ("error", "Timeout")
    assert t.attributes["mlflow.span.events"][0]["attributes"]["exception.type"] == "TimeoutError"
    assert t.attributes["ctxviewer.duration_ms"] == 600.0
    assert t.attributes["mlflow.experiment_id"] == "12"
    assert t.response is None  # no spanOutputs: the call failed


def test_trace_data_alone_takes_its_id_from_the_spans() -> None:
    (t,), problems = _load(GOLDEN / "v2-spans-only.json")
    assert problems == []
    assert t.trace_id == "35b8000000000000000000000000abcd"  # mlflow.traceRequestId
    assert t.user_request == "When is the next launch window?"
    assert t.response is not None and t.response.text == "In December."
    assert t.usage.input_tokens is None and t.usage.output_tokens is None  # the response's usage is all null


def _one_span(attrs: dict[str, Any], tmp_path: Path) -> Path:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"info": {"trace_id": "tr-1"}, "data": {"spans": [
        {"span_id": "00000000000000a1", "name": "ChatOpenAI", "start_time_unix_nano": 1, "end_time_unix_nano": 2,
         "attributes": {"mlflow.spanType": '"CHAT_MODEL"', **{k: json.dumps(v) for k, v in attrs.items()}}}]}}))
    return path


def test_langchain_inputs_and_mlflow2_chat_messages(tmp_path: Path) -> None:
    path = _one_span({"mlflow.spanInputs": [[{"type": "system", "content": "Be terse."},
                                             {"type": "human", "content": "2+2?"}]],
                      "mlflow.spanOutputs": {"generations": [[{"text": "4"}]]},
                      "mlflow.chat.messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "2+2?"},
                                               {"role": "assistant", "content": "4"}]}, tmp_path)
    (t,), _problems = _load(path)
    assert [(i.kind, i.content) for i in t.items] == [(Kind.POLICY, "Be terse."), (Kind.USER, "2+2?")]
    assert t.response is not None and t.response.text == "4"
    path = _one_span({"mlflow.spanInputs": [[{"type": "human", "content": "3+3?"}]],
                      "mlflow.spanOutputs": {"generations": [[{"text": "6", "message": {"type": "ai", "content": "6"}}]]}},
                     tmp_path)
    (t,), _problems = _load(path)
    assert t.user_request == "3+3?" and t.response is not None and t.response.text == "6"
    path = _one_span({"mlflow.spanInputs": {"prompt_value": "opaque"},
                      "mlflow.chat.messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]},
                     tmp_path)
    (t,), _problems = _load(path)
    assert t.user_request == "2+2?" and t.response is not None and t.response.text == "4"


def test_otlp_with_mlflow_attributes_is_left_to_the_otel_importer(tmp_path: Path) -> None:
    head = b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": "mlflow.spanType"}]}]}]}]}'
    assert IMPORTER.sniff(tmp_path / "x.json", head) == 0.0


def test_langchain_anthropic_output_is_one_call_with_its_response_metadata(tmp_path: Path) -> None:
    """New user F5/F6 in MLflow's LangChain autolog: a ``tool_use`` block and its ``tool_calls`` copy
    (same id) are one call; ``response_metadata`` gives the response id, model and finish reason."""
    ai = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
          "kwargs": {"content": [{"type": "text", "text": "Checking."},
                                 {"type": "tool_use", "id": "toolu_m1", "name": "lookup", "input": {"q": "x"}}],
                     "tool_calls": [{"name": "lookup", "args": {"q": "x"}, "id": "toolu_m1", "type": "tool_call"}],
                     "response_metadata": {"id": "msg_m1", "model": "claude-3-5-haiku-20241022",
                                           "stop_reason": "tool_use"}}}
    path = _one_span({"mlflow.spanInputs": [[{"type": "human", "content": "Find x."}]],
                      "mlflow.spanOutputs": {"generations": [[{"text": "Checking.", "message": ai}]]}}, tmp_path)
    (t,), _problems = _load(path)
    assert [(c.id, c.name) for c in t.tool_calls] == [("toolu_m1", "lookup")]
    assert t.response is not None
    assert (t.response.id, t.response.model, t.response.finish_reason) == ("msg_m1", "claude-3-5-haiku-20241022",
                                                                           "tool_use")


def test_the_trace_duration_is_the_root_calls_when_its_span_records_no_times() -> None:
    """New user: MLflow 3's ``info.execution_duration`` (``"1.250s"``, a protobuf Duration) was not
    read: the call's duration said "not recorded" and the key was named unmapped."""
    traces, problems = _load(GOLDEN / "duration-only.trace.json")
    (t,) = traces
    assert problems == []
    assert t.attributes["ctxviewer.duration_ms"] == 1250.0
    assert t.attributes["ctxviewer.completeness"] == "ended"
    assert t.attributes["mlflow.execution_duration_ms"] == 1250.0
    assert "ctxviewer.unmapped" not in t.attributes


def test_a_span_with_its_own_times_keeps_its_duration_beside_the_traces() -> None:
    (t,), _problems = _load(GOLDEN / "openai-tool-call.trace.json")  # span 600 ms inside a trace of 812 ms
    assert (t.attributes["ctxviewer.duration_ms"], t.attributes["mlflow.execution_duration_ms"]) == (600.0, 812.0)
    (t,), _problems = _load(GOLDEN / "v2-retriever-error.trace.json")  # schema v2: execution_time_ms
    assert (t.attributes["ctxviewer.duration_ms"], t.attributes["mlflow.execution_duration_ms"]) == (600.0, 900.0)


def test_a_child_call_without_times_does_not_take_the_whole_traces_duration(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"info": {"trace_id": "tr-2", "execution_duration_ms": 4000}, "data": {"spans": [
        {"span_id": "00000000000000a0", "name": "agent", "start_time_unix_nano": 1, "end_time_unix_nano": 4_000_000_001,
         "attributes": {"mlflow.spanType": '"AGENT"'}},
        {"span_id": "00000000000000a1", "parent_span_id": "00000000000000a0", "name": "ChatOpenAI",
         "attributes": {"mlflow.spanType": '"CHAT_MODEL"', "mlflow.spanInputs": json.dumps("hi")}}]}}))
    (t,), _problems = _load(path)
    assert "ctxviewer.duration_ms" not in t.attributes  # the agent's 4 s include more than this call
    assert t.attributes["mlflow.execution_duration_ms"] == 4000.0


@given(ms=st.integers(1, 10**9))
def test_the_three_duration_keys_read_alike(ms: int) -> None:
    as_duration = f"{ms // 1000}.{ms % 1000:03d}s"  # protobuf Duration JSON, as MLflow 3's REST API writes it
    assert execution_ms({"execution_duration": as_duration}) == pytest.approx(ms)
    assert execution_ms({"execution_duration_ms": ms}) == execution_ms({"execution_time_ms": ms}) == ms


def test_a_trace_still_in_progress_records_no_duration() -> None:
    assert [execution_ms(info) for info in ({"execution_time_ms": 0}, {"execution_duration": "0s"},
                                            {"execution_duration": None}, {"execution_duration": "soon"}, {})] == [None] * 5


def test_a_duration_of_another_shape_is_read_or_left_out_never_a_failed_file() -> None:
    """Review 2026-12-07: ``{"seconds": 1, "nanos": 250000000}`` or ``[1250]`` raised TypeError and
    failed the whole file."""
    assert execution_ms({"execution_duration": {"seconds": 1, "nanos": 250000000}}) == 1250.0
    assert execution_ms({"execution_duration": [1250]}) is None
    assert execution_ms({"execution_duration": {"unit": "ms"}, "execution_time_ms": 812}) == 812.0
    assert execution_ms({"execution_duration_ms": "1e400"}) is None  # inf: no duration
