"""The OpenTelemetry GenAI importer (ctxviewer.importers.formats.otel) on every file of
``../shared/corpus/otel-genai/`` (values read back exactly) and on synthetic OTLP edge cases."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from otlp_factories import array as _array
from otlp_factories import chat_span, otlp_request
from otlp_factories import kv as _kv
from otlp_factories import kvlist as _kvlist
from otlp_factories import s as _s

from ctxviewer.importers import ImportProblem, detect, get_importer
from ctxviewer.model.serialize import trace_from_dict, trace_to_dict
from ctxviewer.model.trace import Kind, RequestTrace, Status, Trust

CORPUS_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "otel-genai"
SYSTEM = "You are a support agent. Use the tools you are given."
ORDER_Q = "Where is order A-1187?"
WEATHER = [("user", "user", "Weather in Paris?"),
           ("history", "assistant", 'Absolutely! Let me check the weather for you.\n'
            '{"type":"tool_call","id":"1234","name":"get_weather","arguments":{"location":"Paris"}}'),
           ("history", "tool", "rainy, 57°F")]
WEATHER_ANSWER = "The weather in Paris is currently rainy with a temperature of 57°F."
LOOKUP_DEF = ('{"type":"function","name":"lookup_order","description":"Look up an order by its identifier.",'
              '"parameters":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}}')

# Per corpus file: the traces it yields, in order. Keys: trace_id, model, provider, service, created,
# items [(kind, role, content)], user, tools [names], calls [(name, arguments, id)], usage
# (input, output, cached, cache_creation, reasoning), response (text, finish_reason, model, id),
# reserved. A file with no chat span maps to the problem text it must yield.
EXPECTED: dict[str, Any] = {
    "interlingua-raw-openai-v2.otlp.json": [dict(
        trace_id="053074667b1113278073667614bb3e19:03491beea3cb073d", model="gpt-4o-mini", provider="openai",
        service="capture", created=datetime(2026, 9, 7, 14, 41, 14, 27616, tzinfo=timezone.utc),
        items=[("policy", "system", SYSTEM), ("user", "user", ORDER_Q)], user=ORDER_Q, tools=[],
        calls=[("lookup_order", '{"order_id":"A-1187"}', "call_9RtYbK2mXqLp")],
        usage=(412, 27, None, None, None),
        response=(None, "tool_calls", "gpt-4o-mini-2024-07-18", "chatcmpl-CD8yqQ2y3kZs1o0Wm7bT"), reserved=1024)],
    "interlingua-openllmetry-openai.otlp.json": [dict(
        trace_id="77d66be22a4ffc8149309684b3a319f7:76a26812b532f640", model="gpt-4o-mini", provider="openai",
        service="capture", created=datetime(2026, 9, 7, 13, 54, 23, 812545, tzinfo=timezone.utc),
        items=[("policy", "system", SYSTEM), ("user", "user", ORDER_Q), ("tool", None, LOOKUP_DEF)],
        user=ORDER_Q, tools=["lookup_order"],
        calls=[("lookup_order", '{"order_id":"A-1187"}', "call_9RtYbK2mXqLp")],
        usage=(412, 27, 256, None, 8),
        response=(None, "tool_call", "gpt-4o-mini-2024-07-18", "chatcmpl-CD8yqQ2y3kZs1o0Wm7bT"), reserved=1024)],
    "interlingua-litellm-otel-callback.otlp.json": [dict(
        trace_id="b1d8ae1b3fb8f0217735e4f3496c3bdf:a5f632a15409374f", model="gpt-4o-mini", provider="openai",
        service="capture", created=datetime(2026, 9, 7, 13, 27, 43, 735867, tzinfo=timezone.utc),
        items=[("policy", "system", SYSTEM), ("user", "user", ORDER_Q), ("tool", None, LOOKUP_DEF)],
        user=ORDER_Q, tools=["lookup_order"],
        calls=[("lookup_order", '{"order_id": "A-1187"}', None)],  # legacy function_call: string as sent
        usage=(412, 27, 256, None, 8),  # cached/reasoning from the Python-repr metadata.usage_object
        response=(None, "tool_calls", "gpt-4o-mini-2024-07-18", "chatcmpl-CD8yqQ2y3kZs1o0Wm7bT"), reserved=1024)],
    "openinference-genai-fixture-otel-client-span-tool-calls.attrs.json": [dict(
        trace_id=None, model="gpt-4", provider="openai", service=None, created=None,
        items=WEATHER, user="Weather in Paris?", tools=[], calls=[], usage=(97, 52, None, None, None),
        response=(WEATHER_ANSWER, "stop", "gpt-4-0613", "chatcmpl-CQF10eCkoFphJZJQkzzN6EkTD0AVF"), reserved=200)],
    "openinference-genai-fixture-otel-deprecated-prompt-completion.attrs.json": [dict(
        trace_id=None, model="gpt-4", provider="openai", service=None, created=None,
        items=WEATHER, user="Weather in Paris?", tools=[], calls=[], usage=(97, 52, None, None, None),
        response=(WEATHER_ANSWER, "stop", "gpt-4-0613", "chatcmpl-CQF10eCkoFphJZJQkzzN6EkTD0AVF"), reserved=200)],
    # a lone execute_tool span is kept as its own trace: tests/importers/test_otel_shapes.py
    "openinference-genai-fixture-otel-execute-tool-span.attrs.json": "LONE_TOOL",
    "vercel-ai-sdk-v6-generateText-doGenerate.readablespan.json": [
        dict(trace_id="b3e700af9eab81e19f72f964d62a35af:39d6e9b3ddec9996", model="gpt-4o-mini",
             provider="openai.responses", service=None,
             created=datetime(2026, 2, 3, 15, 19, 52, 242000, tzinfo=timezone.utc),
             items=[("user", "user", "Write a haiku about programming.")], user="Write a haiku about programming.",
             tools=[], calls=[], usage=(14, 20, None, None, None),
             response=("Lines of code align,  \nLogic dances through the night—  \nDreams in data flow.", "stop",
                       "gpt-4o-mini-2024-07-18", "resp_0269f3aed1fd415900698212189ed88190b8bb13919d420b02"),
             reserved=None),
        dict(trace_id="edff2fc5854be6170e8cccccec0c82cf:6c0201026326855d", model="gpt-4o-mini",
             provider="openai.responses", service=None,
             created=datetime(2026, 2, 3, 15, 19, 54, 23000, tzinfo=timezone.utc),
             items=[("policy", "system", "You are a helpful assistant."), ("history", "user", "What is 2 + 2?"),
                    ("history", "assistant", "2 + 2 equals 4."), ("user", "user", "And what is 3 + 3?")],
             user="And what is 3 + 3?", tools=[], calls=[], usage=(50, 9, None, None, None),
             response=("3 + 3 equals 6.", "stop", "gpt-4o-mini-2024-07-18",
                       "resp_0056c25ba5cb2bd9006982121a510c81a1a31c11ddcf1abc73"), reserved=None),
    ],
}


def corpus_files() -> list[str]:
    """Every trace file of the OTel corpus folder (spec-schemas holds schemas, not traces)."""
    if not CORPUS_DIR.is_dir():
        return sorted(EXPECTED)
    return sorted(p.name for p in CORPUS_DIR.glob("*.json"))


def load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    recs = list(get_importer("otel").load(path))
    return [r for r in recs if isinstance(r, RequestTrace)], [r for r in recs if isinstance(r, ImportProblem)]


@pytest.mark.parametrize("name", corpus_files())
def test_corpus_file(shared: Path, name: str) -> None:
    path = shared / "corpus" / "otel-genai" / name
    assert name in EXPECTED, f"new corpus file {name}: add its expected values"
    assert detect(path).name == "otel"
    traces, problems = load(path)
    want = EXPECTED[name]
    if want == "LONE_TOOL":
        return
    if isinstance(want, str):
        assert traces == []
        assert [(p.record, p.message) for p in problems] == [("whole file", want)]
        return
    assert problems == []
    assert len(traces) == len(want)
    for t, w in zip(traces, want):
        if w["trace_id"] is None:
            assert t.trace_id.startswith("attrs-") and len(t.trace_id) == 22
        else:
            assert t.trace_id == w["trace_id"]
        assert (t.endpoint.model, t.endpoint.provider, t.service, t.created) == (
            w["model"], w["provider"], w["service"], w["created"])
        assert [(i.kind.value, i.role, i.content) for i in t.items] == w["items"]
        assert t.user_request == w["user"]
        assert [i.id for i in t.items if i.kind is Kind.TOOL] == w["tools"]
        assert [(c.name, c.arguments, c.id) for c in t.tool_calls] == w["calls"]
        u = t.usage
        assert (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.cache_creation_input_tokens,
                u.reasoning_tokens) == w["usage"]
        r = t.response
        assert r is not None and (r.text, r.finish_reason, r.model, r.id) == w["response"]
        assert t.reserved_output_tokens == w["reserved"]
        _check_invariants(t)


def _check_invariants(t: RequestTrace) -> None:
    assert [i.position for i in t.items] == list(range(1, len(t.items) + 1))
    assert all(i.status is Status.RETAINED and i.priority is None for i in t.items)
    assert all(i.tokens is None and i.tokens_provenance is None for i in t.items)  # the pipeline counts
    assert all((i.trust is Trust.TRUSTED) == (i.kind is Kind.POLICY) for i in t.items)  # tools are data too
    assert len({i.id for i in t.items}) == len(t.items)
    assert [i.kind for i in t.items].count(Kind.USER) <= 1
    assert t.endpoint.capacity is None and t.endpoint.encoding is None
    assert t.endpoint.accounting_rule == "item text only; per-item counts not recorded by the source"
    assert t.source_format == "otel" and t.input_tokens is None
    d = trace_to_dict(t)  # storable as native JSON (which keeps times to the millisecond)
    assert trace_to_dict(trace_from_dict(json.loads(json.dumps(d)))) == d


def test_corpus_ids_and_details(shared: Path) -> None:
    (t,), _ = load(shared / "corpus/otel-genai/interlingua-raw-openai-v2.otlp.json")
    assert [(i.id, i.source.turn if i.source else None) for i in t.items] == [("msg-0", 0), ("msg-1", 1)]
    assert t.attributes["gen_ai.request.temperature"] == 0.7 and t.attributes["gen_ai.request.top_p"] == 0.95
    assert "gen_ai.request.model" not in t.attributes
    (t,), _ = load(shared / "corpus/otel-genai/openinference-genai-fixture-otel-client-span-tool-calls.attrs.json")
    (t2,), _ = load(shared / "corpus/otel-genai/openinference-genai-fixture-otel-client-span-tool-calls.attrs.json")
    assert t.trace_id == t2.trace_id  # stable across imports


def test_openinference_otlp_is_left_for_its_own_importer(shared: Path) -> None:
    traces, problems = load(shared / "corpus/openinference/interlingua-openinference-openai.otlp.json")
    assert traces == [] and "no chat spans" in problems[0].message


# ---------------------------------------------------------------- synthetic OTLP


def _request(spans: list[dict[str, Any]]) -> dict[str, Any]:
    return otlp_request(*spans, resource={"service.name": "shop"})


def _chat_span(span_id: str = "00000000000000a1", trace_id: str = "0af7651916cd43dd8448eb211c80319c",
               **extra: Any) -> dict[str, Any]:
    return chat_span(span_id, trace_id, kind="SPAN_KIND_CLIENT", **{"gen_ai.provider.name": _s("anthropic"), **extra})


def test_jsonl_with_corrupt_line(tmp_path: Path) -> None:
    p = tmp_path / "collector.jsonl"
    p.write_text("\n".join([json.dumps(_request([_chat_span("00000000000000a1")])), "{not json",
                            json.dumps(_request([_chat_span("00000000000000a2")]))]) + "\n")
    assert detect(p).name == "otel"
    traces, problems = load(p)
    assert [t.trace_id.split(":")[1] for t in traces] == ["00000000000000a1", "00000000000000a2"]
    assert [pr.record for pr in problems] == ["line 2"]
    assert traces[0].service == "shop" and traces[0].user_request == "hi"
    assert traces[0].created == datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc)


@pytest.mark.parametrize("raw", ["412", 412])
def test_int_value_as_string_or_number(tmp_path: Path, raw: Any) -> None:
    p = tmp_path / "t.json"
    p.write_text(json.dumps(_request([_chat_span(**{
        "gen_ai.usage.input_tokens": {"intValue": raw},
        "gen_ai.usage.cache_creation.input_tokens": {"intValue": raw},
        "gen_ai.request.max_tokens": {"intValue": raw}})])))
    (t,), _ = load(p)
    assert (t.usage.input_tokens, t.usage.cache_creation_input_tokens, t.reserved_output_tokens) == (412, 412, 412)


def test_structured_kvlist_messages(tmp_path: Path) -> None:
    text = lambda s: _kvlist(type=_s("text"), content=_s(s))  # noqa: E731
    messages = _array(
        _kvlist(role=_s("user"), parts=_array(text("find order 7"))),
        _kvlist(role=_s("assistant"), parts=_array(_kvlist(
            type=_s("tool_call"), id=_s("c1"), name=_s("find"), arguments=_kvlist(order=_s("7"), n={"intValue": "2"})))),
        _kvlist(role=_s("tool"), parts=_array(_kvlist(type=_s("tool_call_response"), id=_s("c1"),
                                                     result=_kvlist(status=_s("shipped"))))),
        _kvlist(role=_s("user"), parts=_array(text("and the invoice?"), _kvlist(
            type=_s("blob"), modality=_s("image"), mime_type=_s("image/png"), content={"bytesValue": "A" * 12345}))),
    )
    span = _chat_span(**{
        "gen_ai.input.messages": messages,
        "gen_ai.system_instructions": _array(text("Be brief.")),
        "gen_ai.tool.definitions": _array(_kvlist(type=_s("function"), function=_kvlist(name=_s("find")))),
        "gen_ai.output.messages": _array(_kvlist(role=_s("assistant"), finish_reason=_s("tool_calls"), parts=_array(
            _kvlist(type=_s("tool_call"), id=_s("c2"), name=_s("invoice"), arguments=_kvlist(order=_s("7")))))),
        "gen_ai.conversation.id": _s("conv-9"),
    })
    assert [a["key"] for a in span["attributes"]].count("gen_ai.input.messages") == 1  # the default is replaced
    p = tmp_path / "kv.json"
    p.write_text(json.dumps(_request([span])))
    (t,), problems = load(p)
    assert problems == []
    assert [(i.id, i.kind.value, i.role, i.content) for i in t.items] == [
        ("system", "policy", "system", "Be brief."),
        ("msg-0", "history", "user", "find order 7"),
        ("msg-1", "history", "assistant", '{"type":"tool_call","id":"c1","name":"find","arguments":{"order":"7","n":2}}'),
        ("msg-2", "history", "tool", '{"status":"shipped"}'),
        ("msg-3", "user", "user", "and the invoice?\n[image/png blob, 12,345 bytes base64]"),
        ("find", "tool", None, '{"type":"function","function":{"name":"find"}}'),
    ]
    assert t.user_request == "and the invoice?\n[image/png blob, 12,345 bytes base64]"
    assert [(c.name, c.arguments, c.id) for c in t.tool_calls] == [("invoice", '{"order":"7"}', "c2")]
    assert t.response is not None and (t.response.text, t.response.finish_reason) == (None, "tool_calls")
    assert t.session_id == "conv-9" and t.endpoint.provider == "anthropic"


def test_base64_ids(tmp_path: Path) -> None:
    trace_hex, span_hex = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
    span = _chat_span(span_id=base64.b64encode(bytes.fromhex(span_hex)).decode(),
                      trace_id=base64.b64encode(bytes.fromhex(trace_hex)).decode())
    p = tmp_path / "b64.json"
    p.write_text(json.dumps(_request([span])))
    (t,), _ = load(p)
    assert t.trace_id == f"{trace_hex}:{span_hex}"


def test_python_repr_messages_and_legacy_attributes(tmp_path: Path) -> None:
    p = tmp_path / "legacy.attrs.json"
    p.write_text(json.dumps({
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-x",
        "gen_ai.input.messages": "[{'role': 'user', 'content': 'hello', 'name': None}]",
        "gen_ai.completion.0.tool_calls.0.id": "t1",
        "gen_ai.completion.0.tool_calls.0.name": "ping",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"x": 1}',
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "gen_ai.usage.prompt_tokens": 5,
        "gen_ai.usage.completion_tokens": 2,
    }))
    (t,), _ = load(p)
    assert t.endpoint.provider == "openai" and t.user_request == "hello"
    assert [(c.name, c.arguments, c.id) for c in t.tool_calls] == [("ping", '{"x": 1}', "t1")]
    assert (t.usage.input_tokens, t.usage.output_tokens) == (5, 2)


def test_non_chat_spans_skipped_and_bad_span_reported(tmp_path: Path) -> None:
    tool = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "00000000000000b1", "name": "execute_tool x",
            "attributes": [_kv("gen_ai.operation.name", _s("execute_tool"))]}
    agent = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "00000000000000b2", "name": "invoke_agent",
             "attributes": [_kv("gen_ai.operation.name", _s("invoke_agent")),
                            _kv("gen_ai.input.messages", _s("[]"))]}
    bad = _chat_span("00000000000000b3", **{"gen_ai.usage.input_tokens": {"intValue": "many"}})
    p = tmp_path / "mixed.json"
    p.write_text(json.dumps(_request([tool, agent, _chat_span(), bad])))
    traces, problems = load(p)
    # a bad attribute value drops that attribute, never the span (issue 12)
    assert [t.trace_id.split(":")[1] for t in traces] == ["00000000000000a1", "00000000000000b3"]
    assert traces[1].usage.input_tokens is None
    assert [(pr.record, pr.message) for pr in problems] == [
        ("resourceSpans[0].scopeSpans[0].spans[3] span 00000000000000b3",
         "attributes[4] (gen_ai.usage.input_tokens): intValue 'many' is not an integer; attribute left out")]


def test_sniff_rejects_other_json(tmp_path: Path) -> None:
    imp = get_importer("otel")
    assert not imp.sniff(tmp_path / "x", b'{"trace_id": "budget-8k", "items": []}')
    assert not imp.sniff(tmp_path / "x", b'{"llm.input_messages.0.message.role": "user"}')
    assert imp.sniff(tmp_path / "x", b'{"resourceSpans": [')
    assert imp.sniff(tmp_path / "x", b'{"gen_ai.operation.name": "chat"}')
