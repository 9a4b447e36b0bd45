"""Provider API exchanges (ctxviewer.importers.formats.provider_api) and YAML cassettes
(ctxviewer.importers.formats.cassette): every ``../shared/corpus/provider-api`` file, read back with the
values its request/response carries, and the per-provider usage rules of issue 6."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.importers import ImportProblem, detect, get_importer
from ctxviewer.model.trace import RequestTrace
from tests.shared_data import CORPUS, needs_corpus

CASES: dict[str, dict[str, Any]] = {
    "anthropic/messages-cache-token-usage": dict(
        traces=[dict(id="msg_01DVteM3nnSHbb43ErkL7NH2", provider="anthropic", model="claude-3-5-haiku-20241022",
                     items=[("user", "user", "Hello!")], tools=[], calls=[],
                     usage=(107, 21, 2, 5, None),  # 100 + cache read 2 + cache creation 5
                     response=("end_turn", "claude-3-5-haiku-20241022"), status="ok")]),
    "anthropic/messages-image-input-base64": dict(
        traces=[dict(id="msg_01DijAsAzrH5wFcik1mPQjPn", provider="anthropic", model="claude-3-5-sonnet-20240620",
                     items=[("user", "user", "What do you see in this image? Describe it in detail.\n"
                             "[image/png blob, 228×148, 9,240 bytes base64]")], tools=[], calls=[],
                     usage=(78, 263, 0, 0, None), response=("end_turn", "claude-3-5-sonnet-20240620"), status="ok")]),
    "anthropic/messages-tool-result-in-history": dict(
        traces=[dict(id="msg_013r8xmbHsaDMebw7MeyGvhH", provider="anthropic", model="claude-sonnet-4-6",
                     items=[("user", "user", "What is the weather like in San Francisco in Fahrenheit?"),
                            ("history", "assistant", None), ("history", "tool", '{"weather": "sunny", "temperature": "75"}'),
                            ("tool", None, None)], tools=["get_weather"], calls=[],
                     usage=(772, 47, 0, 0, None), response=("end_turn", "claude-sonnet-4-6"), status="ok")]),
    "openai/chat-completions-parallel-tool-calls": dict(
        traces=[dict(id="chatcmpl-DD5NFnwbig885vzBzWKxq6GtDvWda", provider="openai", model="gpt-4o-mini",
                     items=[("history", "assistant", None), ("history", "tool", '{"city": "New York", "weather": "fine"}'),
                            ("history", "tool", '{"city": "New York", "weather": "large"}'),
                            ("history", "assistant", "In New York the weather is fine and the population is large."),
                            ("user", "user", "What's the weather and population in San Francisco?"),
                            ("tool", None, None), ("tool", None, None)],
                     tools=["get_weather", "get_population"],
                     calls=[("get_weather", '{"city": "San Francisco"}', "call_S1xa8vawU2HXSrvSeUcqSCZm"),
                            ("get_population", '{"city": "San Francisco"}', "call_ZfEORmbRGEJZ4b7dAuVSPnaf")],
                     usage=(207, 46, 0, None, 0), response=("tool_calls", "gpt-4o-mini-2024-07-18"), status="ok")]),
    "openai/chat-completions-tool-calls-two-turn.otel-contrib": dict(
        traces=[dict(id="chatcmpl-ASYMU9Ntix7ePttk0MSuerJstef6U", provider="openai", model="gpt-4o-mini",
                     items=[("policy", "system", "You're a helpful assistant."),
                            ("user", "user", "What's the weather in Seattle and San Francisco today?"), ("tool", None, None)],
                     tools=["get_current_weather"],
                     calls=[("get_current_weather", '{"location": "Seattle, WA"}', "call_JpNb8OiAkbIbHzDggfpdDHpi"),
                            ("get_current_weather", '{"location": "San Francisco, CA"}', "call_vaFQc3zK6hHTRZKXRI5Eo2cJ")],
                     usage=(75, 51, 0, None, 0), response=("tool_calls", "gpt-4o-mini-2024-07-18"), status="ok"),
                dict(id="chatcmpl-ASYMVzdmBGDbUoHFmt6R16tdtZUzR", provider="openai", model="gpt-4o-mini",
                     items=[("policy", "system", "You're a helpful assistant."),
                            ("user", "user", "What's the weather in Seattle and San Francisco today?"),
                            ("history", "assistant", None), ("history", "tool", "50 degrees and raining"),
                            ("history", "tool", "70 degrees and sunny")],
                     tools=[], calls=[], usage=(99, 25, 0, None, 0), response=("stop", "gpt-4o-mini-2024-07-18"),
                     status="ok")]),
    "openai/responses-api-function-call-roundtrip": dict(
        traces=[dict(id="resp_0b7fb495b8662b690069d6f97bb22c8193912f647d165d6ee2", provider="openai", model="gpt-4o-mini",
                     items=[("policy", "system", "You are a weather assistant. Use the get_weather tool when asked about weather."),
                            ("user", "user", "What's the weather in San Francisco?"), ("tool", None, None)],
                     tools=["get_weather"], calls=[("get_weather", '{"location":"San Francisco"}', "call_mhr5WBWG8kgyIy15JTItue8Q")],
                     usage=(73, 16, 0, None, 0), response=("tool_calls", "gpt-4o-mini-2024-07-18"), status="ok"),
                dict(id="resp_0b7fb495b8662b690069d6f97cd1648193bfded925efce1a9d", provider="openai", model="gpt-4o-mini",
                     items=[("history", "tool", "The weather in San Francisco is sunny and 72°F"), ("tool", None, None)],
                     tools=["get_weather"], calls=[], usage=(108, 17, 0, None, 0),
                     response=("completed", "gpt-4o-mini-2024-07-18"), status="ok")],
        warnings=["previous_response_id resp_0b7fb495b8662b690069d6f97bb22c8193912f647d165d6ee2: earlier turns are "
                  "held server-side and are not in this request"]),
    "openai/responses-api-reasoning-tokens.otel-contrib": dict(
        traces=[dict(id="resp_05177a4994c7df3a0069e2f402f00881a1b9eda520cb779fef", provider="openai", model="gpt-5.4",
                     items=[("user", "user", None)], tools=[], calls=[],
                     usage=(44, 288, 0, None, 9), response=("completed", "gpt-5.4-2026-03-05"), status="ok")]),
}


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(detect(path).load(path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def _check(trace: RequestTrace, exp: dict[str, Any]) -> None:
    assert trace.trace_id == exp["id"]
    assert (trace.endpoint.provider, trace.endpoint.model) == (exp["provider"], exp["model"])
    got = [(i.kind.value, i.role, i.content) for i in trace.items]
    assert [g[:2] for g in got] == [e[:2] for e in exp["items"]]
    for g, e in zip(got, exp["items"]):
        if e[2] is not None:
            assert g[2] == e[2]
    assert all(i.tokens is None for i in trace.items)  # importers never count; the pipeline does
    assert [i.id for i in trace.items if i.kind.value == "tool"] == exp["tools"]
    assert [(c.name, c.arguments, c.id) for c in trace.tool_calls] == exp["calls"]
    u = trace.usage
    assert (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.cache_creation_input_tokens,
            u.reasoning_tokens) == exp["usage"]
    assert trace.response is not None
    assert (trace.response.finish_reason, trace.response.model, trace.response.id) == (*exp["response"], exp["id"])
    assert trace.attributes["otel.status_code"] == exp["status"]


@pytest.mark.parametrize("stem", sorted(CASES))
@pytest.mark.parametrize("suffix,importer", [(".vcr.yaml", "cassette"), (".extracted.json", "provider-api")])
def test_corpus_file(shared: Path, stem: str, suffix: str, importer: str) -> None:
    path = shared / "corpus" / "provider-api" / (stem + suffix)
    assert detect(path).name == importer
    traces, problems = _load(path)
    assert len(traces) == len(CASES[stem]["traces"])
    for t, exp in zip(traces, CASES[stem]["traces"]):
        _check(t, exp)
    assert [p.message for p in problems] == CASES[stem].get("warnings", [])


def test_cassette_and_extracted_agree(shared: Path) -> None:
    for stem in CASES:
        base = shared / "corpus" / "provider-api" / stem
        a, _ = _load(Path(str(base) + ".vcr.yaml"))
        b, _ = _load(Path(str(base) + ".extracted.json"))
        assert [(t.items, t.usage, t.response, t.tool_calls) for t in a] == \
            [(t.items, t.usage, t.response, t.tool_calls) for t in b]


def test_a_cassette_cut_short_says_so(shared: Path, tmp_path: Path) -> None:
    """New-user finding F20: the first 1,500 bytes of a cassette are still YAML, and imported
    silently as a request with no response."""
    src = shared / "corpus" / "provider-api" / "openai" / "chat-completions-parallel-tool-calls.vcr.yaml"
    cut = tmp_path / "cut.vcr.yaml"
    cut.write_bytes(src.read_bytes()[:1500])
    traces, problems = _load(cut)
    assert len(traces) == 1 and traces[0].response is None
    assert [(p.record, p.message, p.dropped) for p in problems] == [
        ("interactions[0]", "no response recorded (a recorder writes one with every request: was the file cut "
                            "short?); imported with the response not recorded", 0)]


def test_image_tokens_never_counted_as_text(shared: Path) -> None:
    trace = _load(shared / "corpus/provider-api/anthropic/messages-image-input-base64.extracted.json")[0][0]
    assert "iVBOR" not in (trace.items[0].content or "")  # the PNG's base64 is not the item's text


# ---------------------------------------------------------------- golden pairs (synthetic)

def _write(tmp_path: Path, obj: Any, name: str = "x.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(obj), encoding="utf-8")
    return p


CHAT_REQ = {"model": "gpt-4o", "messages": [{"role": "system", "content": "Be brief."},
                                            {"role": "user", "content": "hi"}]}


def test_openai_cached_is_part_of_prompt_tokens(tmp_path: Path) -> None:
    resp = {"id": "c1", "choices": [{"message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "prompt_tokens_details": {"cached_tokens": 1024},
                      "completion_tokens_details": {"reasoning_tokens": 200}}}
    traces, problems = _load(_write(tmp_path, {"request": CHAT_REQ, "response": resp}))
    u = traces[0].usage
    assert (u.input_tokens, u.cached_input_tokens, u.output_tokens, u.reasoning_tokens) == (1200, 1024, 300, 200)
    assert problems == []


def test_anthropic_input_is_the_sum_of_uncached_and_cache(tmp_path: Path) -> None:
    req = {"model": "claude-x", "system": "Policy.", "max_tokens": 512, "messages": [{"role": "user", "content": "q"}]}
    resp = {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "a"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 300,
                      "output_tokens": 5}}
    t = _load(_write(tmp_path, {"request": {"uri": "https://api.anthropic.com/v1/messages", "body": req},
                                "response": {"status": 200, "body": resp}}))[0][0]
    assert (t.usage.input_tokens, t.usage.cached_input_tokens, t.usage.cache_creation_input_tokens) == (2310, 2000, 300)
    assert [(i.kind.value, i.id, i.content) for i in t.items] == [("policy", "system", "Policy."), ("user", "msg-0", "q")]
    assert t.reserved_output_tokens == 512


def test_reasoning_above_output_is_a_warning_not_a_negative(tmp_path: Path) -> None:
    resp = {"id": "c2", "choices": [{"message": {"role": "assistant", "content": "x"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": {"reasoning_tokens": 9}}}
    traces, problems = _load(_write(tmp_path, {"request": CHAT_REQ, "response": resp}))
    assert (traces[0].usage.output_tokens, traces[0].usage.reasoning_tokens) == (5, 9)
    assert [p.message for p in problems] == [
        "usage: reasoning tokens (9) exceed output tokens (5); both kept as reported"]


def _sse(chunks: list[dict[str, Any]]) -> str:
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


STREAM = [
    {"id": "s1", "model": "gpt-4o-2024", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]},
    {"id": "s1", "choices": [{"index": 0, "delta": {"content": "lo"}}]},
    {"id": "s1", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": "{\"a\""}}]}}]},
    {"id": "s1", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ":1}"}}]}, "finish_reason": "tool_calls"}]},
]


def test_stream_usage_comes_from_the_final_chunk(tmp_path: Path) -> None:
    chunks = STREAM + [{"id": "s1", "choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 7}}]
    t = _load(_write(tmp_path, {"request": dict(CHAT_REQ, stream=True),
                                "response": {"status": 200, "body": _sse(chunks)}}))[0][0]
    assert t.response is not None and (t.response.text, t.response.finish_reason) == ("Hello", "tool_calls")
    assert [(c.name, c.arguments, c.id) for c in t.tool_calls] == [("f", '{"a":1}', "call_1")]
    assert (t.usage.input_tokens, t.usage.output_tokens) == (30, 7)


def test_stream_without_usage_is_not_reported_never_zero(tmp_path: Path) -> None:
    traces, problems = _load(_write(tmp_path, {"request": dict(CHAT_REQ, stream=True), "response": {"body": _sse(STREAM)}}))
    assert (traces[0].usage.input_tokens, traces[0].usage.output_tokens) == (None, None)
    assert "stream without a final usage chunk: usage not reported" in [p.message for p in problems]


def test_error_status_is_kept_with_its_message(tmp_path: Path) -> None:
    resp = {"status": 429, "body": {"error": {"message": "Rate limit reached", "type": "requests"}}}
    t = _load(_write(tmp_path, {"request": {"uri": "https://api.openai.com/v1/chat/completions", "body": CHAT_REQ},
                                "response": resp}))[0][0]
    assert (t.attributes["otel.status_code"], t.attributes["otel.status_message"]) == ("error", "Rate limit reached")
    assert t.usage.input_tokens is None


def test_bad_tool_arguments_kept_raw_with_a_warning(tmp_path: Path) -> None:
    resp = {"id": "c3", "choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [
        {"id": "k1", "type": "function", "function": {"name": "lookup", "arguments": "{\"id\": 4"}},
        {"id": "k2", "type": "function", "function": {"name": "lookup", "arguments": "[1,2]"}}]}}]}
    traces, problems = _load(_write(tmp_path, {"request": CHAT_REQ, "response": resp}))
    assert [c.arguments for c in traces[0].tool_calls] == ['{"id": 4', "[1,2]"]
    assert [p.message for p in problems] == ["tool call lookup (k1): arguments are not valid JSON; kept raw as sent",
                                            "tool call lookup (k2): arguments are not a JSON object; kept raw as sent"]


def test_jsonl_of_pairs_gzip_and_utf16(tmp_path: Path) -> None:
    resp = {"id": "c-{n}", "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}
    lines = "\n".join(json.dumps({"request": CHAT_REQ, "response": dict(resp, id=f"c-{n}")}) for n in range(3))
    gz = tmp_path / "pairs.jsonl.gz"
    gz.write_bytes(gzip.compress(lines.encode("utf-8")))
    u16 = tmp_path / "pairs.jsonl"
    u16.write_bytes(lines.encode("utf-16"))  # with BOM, as PowerShell writes
    for p in (gz, u16):
        assert detect(p).name == "provider-api"
        traces, problems = _load(p)
        assert [t.trace_id for t in traces] == ["c-0", "c-1", "c-2"] and problems == []
        assert traces[0].items[0].content == "Be brief."


def test_responses_image_is_a_typed_part(tmp_path: Path) -> None:
    req = {"model": "gpt-4.1", "instructions": "Describe.", "input": [{"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "what is it"},
        {"type": "input_image", "image_url": "data:image/jpeg;base64," + "A" * 4000}]}]}
    resp = {"id": "r1", "object": "response", "status": "completed", "output": [
        {"type": "reasoning", "id": "rs", "summary": [{"type": "summary_text", "text": "think"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a cat"}]}],
        "usage": {"input_tokens": 900, "output_tokens": 40, "output_tokens_details": {"reasoning_tokens": 32}}}
    t = _load(_write(tmp_path, {"request": req, "response": resp}))[0][0]
    assert [i.content for i in t.items] == ["Describe.", "what is it\n[image/jpeg blob, 4,000 bytes base64]"]
    assert t.response is not None and t.response.text == "a cat"
    assert (t.usage.output_tokens, t.usage.reasoning_tokens) == (40, 32)


def test_forced_format_on_wrong_file_is_a_problem(tmp_path: Path) -> None:
    p = _write(tmp_path, {"hello": 1})
    with pytest.raises(Exception, match="no request/response pairs"):
        list(get_importer("provider-api").load(p))


def test_thinking_is_reasoning_text_and_signatures_and_redacted_blobs_are_not(tmp_path: Path) -> None:
    """Issue 6: reasoning ("thinking") parts are kept as reasoning content and counted as text;
    their signatures and redacted blobs are not text."""
    from ctxviewer.pipeline.importing import import_into
    from ctxviewer.store import TraceStore
    from ctxviewer.tokens.counting import count_tokens

    signature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDZoh0ZkHJ3q3TXZQiMF" * 4
    blob = "EmwKAhgBEgy3va3pzix0LnrdDy0ahTq7Gc0R9wj2ZWKv" * 6
    req = {"model": "claude-sonnet-4-6", "max_tokens": 2048, "messages": [
        {"role": "user", "content": "Is 97 prime?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Check divisors up to 9: 2, 3, 5, 7 do not divide 97.",
             "signature": signature},
            {"type": "redacted_thinking", "data": blob},
            {"type": "text", "text": "Yes, 97 is prime."}]},
        {"role": "user", "content": "And 91?"}]}
    resp = {"id": "msg_think", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [{"type": "thinking", "thinking": "91 = 7 * 13.", "signature": signature},
                        {"type": "text", "text": "No: 91 = 7 x 13."}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 60, "output_tokens": 40}}
    path = _write(tmp_path, {"request": {"uri": "https://api.anthropic.com/v1/messages", "body": req},
                             "response": {"status": 200, "body": resp}})
    t = _load(path)[0][0]
    assistant = t.items[1]
    assert assistant.role == "assistant"
    assert assistant.content == ("[reasoning] Check divisors up to 9: 2, 3, 5, 7 do not divide 97.\n"
                                 "[reasoning redacted by the provider: encrypted, not shown]\n"
                                 "Yes, 97 is prime.")  # the redacted part: marked, no blob
    assert signature[:20] not in assistant.content and blob[:20] not in assistant.content
    assert t.response is not None and t.response.text == "No: 91 = 7 x 13."
    assert t.response.reasoning == "91 = 7 * 13."
    import_into(tmp_path / "t.db", [path])
    with TraceStore.open(tmp_path / "t.db") as store:
        stored = store.load("msg_think")
    # the reasoning text counts (its label and the redacted marker do not) ...
    assert stored.items[1].tokens == count_tokens("Check divisors up to 9: 2, 3, 5, 7 do not divide 97.\n"
                                                  "Yes, 97 is prime.")
    assert stored.items[1].tokens < count_tokens(signature)  # ... the signature and the blob do not


def test_missing_tool_arguments_are_not_recorded_with_a_warning(tmp_path: Path) -> None:
    resp = {"id": "c4", "choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [
        {"id": "k3", "type": "function", "function": {"name": "ping"}}]}}]}
    traces, problems = _load(_write(tmp_path, {"request": CHAT_REQ, "response": resp}))
    assert [(c.name, c.arguments, c.id) for c in traces[0].tool_calls] == [("ping", None, "k3")]
    assert [p.message for p in problems] == ["tool call ping (k3): arguments missing; kept as not recorded"]


@needs_corpus
def test_a_bad_usage_count_is_said_and_a_content_object_is_not_a_python_repr(tmp_path: Path) -> None:
    """New-user finding N11: a negative cache read vanished in silence, and message content given as
    one object was stored as its Python repr (``{'oops': 1}``)."""
    doc = json.loads((CORPUS / "provider-api" / "anthropic" / "messages-cache-token-usage.extracted.json").read_text())
    ex = doc["interactions"][0]
    ex["response"]["body"]["usage"] = {"input_tokens": "100", "cache_read_input_tokens": -2, "output_tokens": None}
    ex["request"]["body"]["messages"] = [{"role": "user", "content": {"oops": 1}}]
    path = tmp_path / "p.extracted.json"
    path.write_text(json.dumps(doc))
    (trace,), problems = _load(path)
    assert (trace.usage.input_tokens, trace.usage.cached_input_tokens, trace.usage.output_tokens) == (100, None, None)
    assert [p.message for p in problems if "token count" in p.message] == [
        "usage.cache_read_input_tokens: -2 is not a token count; shown as not recorded"]
    assert [i.content for i in trace.items] == ['{"oops":1}']
