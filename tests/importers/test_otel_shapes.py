"""Every OTel GenAI shape of issue 6 and the values real files get wrong, each with its right value:
span events, log events and the operation-details event; system instructions written as whole
messages; indexed prompts keyed by role; multi-span traces (inherited instructions, tool spans,
orphans); status and completeness; console-exporter dumps; protobuf; ids, times, enums, int64;
typed binary parts; bad tool arguments; truncated values; content not captured."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

from otlp_factories import TRACE_ID, array, chat_span, i, kv, otlp_request, otlp_span, s

from ctxviewer.importers import ImportProblem, detect
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import TraceStore
from ctxviewer.tokens.counting import count_tokens


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    assert detect(path).name == "otel"
    records = list(detect(path).load(path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def _write(tmp_path: Path, doc: Any, name: str = "t.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(doc), encoding="utf-8")
    return p


def _ev(name: str, **attrs: Any) -> dict[str, Any]:
    return {"name": name, "timeUnixNano": "1700000000100000000", "attributes": [kv(k, v) for k, v in attrs.items()]}


def test_lone_execute_tool_corpus_span_is_kept(shared: Path) -> None:
    traces, problems = _load(shared / "corpus/otel-genai/openinference-genai-fixture-otel-execute-tool-span.attrs.json")
    assert len(traces) == 1
    t = traces[0]
    assert [(c.name, c.arguments, c.id) for c in t.tool_calls] == [("get_weather", '{"city": "New York"}', "1234")]
    assert [(i.role, i.content) for i in t.items] == [("tool", '{"status": "success", "report": "The weather in New '
                                                       'York is sunny with a temperature of 25 degrees Celsius (77 '
                                                       'degrees Fahrenheit)."}')]
    assert t.attributes["gen_ai.tool.description"] == "Retrieves the current weather report for a specified city."
    assert [p.message for p in problems] == [
        "execute_tool span fed no chat span in this file; imported on its own (its call and result)"]


def test_per_message_span_events_never_import_zero_items(tmp_path: Path) -> None:
    span = otlp_span(**{"gen_ai.operation.name": s("chat"), "gen_ai.request.model": s("gpt-4o"),
                        "gen_ai.usage.input_tokens": i("40")})
    span["events"] = [
        _ev("gen_ai.system.message", **{"gen_ai.system": s("openai"), "content": s("Be brief.")}),
        _ev("gen_ai.user.message", content=s("Refund order 7?")),
        _ev("gen_ai.assistant.message", tool_calls=s(json.dumps(
            [{"id": "c1", "type": "function", "function": {"name": "refund", "arguments": "{\"order\": 7}"}}]))),
        _ev("gen_ai.tool.message", content=s("refunded"), id=s("c1")),
        _ev("gen_ai.choice", body=s(json.dumps({"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": "Done."}}))),
    ]
    traces, problems = _load(_write(tmp_path, otlp_request(span)))
    t = traces[0]
    assert [(i.kind.value, i.role, i.content) for i in t.items] == [
        ("policy", "system", "Be brief."), ("user", "user", "Refund order 7?"),
        ("history", "assistant", '{"type":"tool_call","id":"c1","name":"refund","arguments":{"order":7}}'),
        ("history", "tool", "refunded")]
    assert t.response is not None and (t.response.text, t.response.finish_reason) == ("Done.", "stop")
    assert problems == []


def test_operation_details_event_and_log_records(tmp_path: Path) -> None:
    msgs = [{"role": "user", "parts": [{"type": "text", "content": "from details"}]}]
    span = otlp_span(**{"gen_ai.operation.name": s("chat")})
    span["events"] = [_ev("gen_ai.client.inference.operation.details", **{"gen_ai.input.messages": s(json.dumps(msgs))})]
    t = _load(_write(tmp_path, otlp_request(span)))[0][0]
    assert [i.content for i in t.items] == ["from details"]
    # the same content as OTLP log records in the same JSON Lines file, correlated by span id
    logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"spanId": "00000000000000a1", "traceId": TRACE_ID, "eventName": "gen_ai.user.message",
         "body": {"kvlistValue": {"values": [kv("content", s("from a log"))]}}}]}]}]}
    p = tmp_path / "mixed.jsonl"
    p.write_text(json.dumps(otlp_request(otlp_span(**{"gen_ai.operation.name": s("chat")}))) + "\n" + json.dumps(logs) + "\n")
    t = _load(p)[0][0]
    assert [(i.role, i.content) for i in t.items] == [("user", "from a log")]


def test_system_instructions_as_whole_messages_count_the_policy_text_only(tmp_path: Path) -> None:
    text = "Answer in English and cite the ticket id in every reply."
    sysmsg = [{"role": "system", "parts": [{"type": "text", "content": text}]}]
    p = _write(tmp_path, otlp_request(chat_span(**{"gen_ai.system_instructions": s(json.dumps(sysmsg))})))
    t = _load(p)[0][0]
    assert (t.items[0].kind.value, t.items[0].content) == ("policy", text)
    import_into(tmp_path / "x.db", [p])
    with TraceStore.open(tmp_path / "x.db") as store:
        stored = store.load(t.trace_id)
    assert stored.items[0].tokens == count_tokens(text) == 12  # the instruction only,
    assert count_tokens(json.dumps(sysmsg)) == 35  # not the JSON message around it


def test_indexed_prompt_keyed_by_role_keeps_the_text(tmp_path: Path) -> None:
    span = otlp_span(**{"gen_ai.prompt.0.system": s("Rules."), "gen_ai.prompt.1.user": s("hello there")})
    traces, problems = _load(_write(tmp_path, otlp_request(span)))
    assert [(i.kind.value, i.role, i.content) for i in traces[0].items] == [
        ("policy", "system", "Rules."), ("user", "user", "hello there")]
    assert [p.message for p in problems] == [
        "gen_ai.prompt.0.system: indexed prompt keyed by role; kept as a system message",
        "gen_ai.prompt.1.user: indexed prompt keyed by role; kept as a user message"]


def test_usage_without_messages_is_content_not_captured(tmp_path: Path) -> None:
    span = otlp_span(**{"gen_ai.operation.name": s("chat"), "gen_ai.request.model": s("m"),
                        "gen_ai.usage.input_tokens": i(512), "gen_ai.usage.output_tokens": i("9")})
    traces, problems = _load(_write(tmp_path, otlp_request(span)))
    t = traces[0]
    assert t.items == () and t.attributes["ctxviewer.content"] == "not captured"
    assert (t.usage.input_tokens, t.usage.output_tokens) == (512, 9)  # int64 as number and as string
    assert [p.message for p in problems] == [
        "no message content captured on this span (content capture is opt-in: "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT); usage and metadata only"]


def test_multi_span_trace(tmp_path: Path) -> None:
    agent = otlp_span("00000000000000f0", name="invoke_agent support", start="1700000000000000000",
                      end="1700000009000000000", **{"gen_ai.operation.name": s("invoke_agent"),
                                                    "gen_ai.system_instructions": s('[{"type":"text","content":"Policy v2."}]'),
                                                    "gen_ai.conversation.id": s("conv-42")})
    first = chat_span("00000000000000a1", start="1700000001000000000", end="1700000002000000000")
    tool = otlp_span("00000000000000b1", name="execute_tool lookup", start="1700000003000000000",
                     end="1700000003500000000", **{"gen_ai.operation.name": s("execute_tool"),
                                                   "gen_ai.tool.name": s("lookup")})
    second = chat_span("00000000000000a2", start="1700000004000000000", end="1700000005250000000")
    for sp in (first, tool, second):
        sp["parentSpanId"] = "00000000000000f0"
    orphan = chat_span("00000000000000c1", start="1700000006000000000")
    orphan["parentSpanId"] = "00000000000000ee"  # parent not in the file
    p = _write(tmp_path, otlp_request(orphan, second, tool, first, agent))  # children before parents
    traces, problems = _load(p)
    by = {t.trace_id.split(":")[1]: t for t in traces}
    assert sorted(by) == ["00000000000000a1", "00000000000000a2", "00000000000000c1"]
    for sid in ("00000000000000a1", "00000000000000a2"):
        t = by[sid]
        assert [(i.kind.value, i.id, i.content) for i in t.items] == [("policy", "system", "Policy v2."),
                                                                      ("user", "msg-0", "hi")]
        assert t.attributes["ctxviewer.system_inherited_from"] == "span invoke_agent support (00000000000000f0)"
        assert t.session_id == "conv-42"
    assert by["00000000000000a2"].attributes["ctxviewer.fed_by"] == ("tool lookup (span 00000000000000b1)",)
    assert "ctxviewer.fed_by" not in by["00000000000000a1"].attributes
    assert by["00000000000000a2"].attributes["ctxviewer.duration_ms"] == 1250.0  # ns integers: exactly 1.25 s
    o = by["00000000000000c1"]
    assert o.attributes["ctxviewer.completeness"] == "never ended" and o.attributes["otel.span.ended"] is False
    assert [i.kind.value for i in o.items] == ["user"]  # no inheritance without the parent
    assert [(pr.file, pr.record, pr.message) for pr in problems] == [  # said so, naming file, span and parent
        (str(p), "resourceSpans[0].scopeSpans[0].spans[0]",
         "span 00000000000000c1 (chat m-1): parent span 00000000000000ee is not in this file; imported without "
         "it (what its ancestors record -- session, agent, system instructions -- is not known)")]


def test_status_error_enum_names_and_numbers(tmp_path: Path) -> None:
    a = chat_span("00000000000000a1", kind="SPAN_KIND_CLIENT", end="1700000001000000000",
                  status={"code": "STATUS_CODE_ERROR", "message": "429 rate limited"})
    b = chat_span("00000000000000a2", kind=3, end=1700000001000000000, status={"code": 2, "message": "timeout"})
    c = chat_span("00000000000000a3", start=None, end=None)
    traces, _ = _load(_write(tmp_path, otlp_request(a, b, c)))
    got = [(t.attributes.get("otel.status_code"), t.attributes.get("otel.status_message"),
            t.attributes["ctxviewer.completeness"]) for t in traces]
    assert got == [("error", "429 rate limited", "ended"), ("error", "timeout", "ended"),
                   (None, None, "times not recorded")]


def test_ids_hex_0x_base64_uuid(tmp_path: Path) -> None:
    raw = bytes.fromhex(TRACE_ID)
    spans = [chat_span("00000000000000a1", trace_id=TRACE_ID.upper()),
             chat_span(base64.b64encode(bytes.fromhex("00000000000000a2")).decode(), trace_id=base64.b64encode(raw).decode()),
             chat_span("0xa3", trace_id="0x" + TRACE_ID),
             chat_span("00000000000000a4", trace_id="409df945-e058-4829-b240-cfbdd2ff4488")]
    traces, _ = _load(_write(tmp_path, otlp_request(*spans)))
    assert [t.trace_id for t in traces] == [f"{TRACE_ID}:00000000000000a1", f"{TRACE_ID}:00000000000000a2",
                                           f"{TRACE_ID}:00000000000000a3",
                                           "409df945-e058-4829-b240-cfbdd2ff4488:00000000000000a4"]


CONSOLE = '''{
    "name": "chat gpt-4o",
    "context": {"trace_id": "0x0af7651916cd43dd8448eb211c80319c", "span_id": "0x00000000000000a1"},
    "kind": "SpanKind.CLIENT",
    "parent_id": null,
    "start_time": "2023-11-14T22:13:20.000000Z",
    "end_time": null,
    "status": {"status_code": "UNSET"},
    "attributes": {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}
}

{
    "name": "chat gpt-4o",
    "context": {"trace_id": "0x0af7651916cd43dd8448eb211c80319c", "span_id": "0x00000000000000a1"},
    "kind": "SpanKind.CLIENT",
    "parent_id": null,
    "start_time": "2023-11-14T22:13:20.000000Z",
    "end_time": "2023-11-14T22:13:21.250000Z",
    "status": {"status_code": "OK"},
    "attributes": {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                   "gen_ai.input.messages": "[{\\"role\\": \\"user\\", \\"parts\\": [{\\"type\\": \\"text\\", \\"content\\": \\"hi\\"}]}]",
                   "gen_ai.usage.input_tokens": 8}
}
'''


def test_console_exporter_dump_span_printed_twice(tmp_path: Path) -> None:
    p = tmp_path / "console.txt"
    p.write_text(CONSOLE, encoding="utf-8")
    traces, problems = _load(p)
    assert len(traces) == 1 and problems == []
    t = traces[0]
    assert t.trace_id == f"{TRACE_ID}:00000000000000a1"
    assert (t.attributes["otel.status_code"], t.attributes["ctxviewer.completeness"]) == ("ok", "ended")
    assert t.attributes["ctxviewer.duration_ms"] == 1250.0
    assert [i.content for i in t.items] == ["hi"] and t.usage.input_tokens == 8


def test_gzip_utf16_and_protobuf_give_the_same_trace(tmp_path: Path) -> None:
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    doc = otlp_request(chat_span(end="1700000001000000000", **{"gen_ai.usage.input_tokens": i("412")}),
                       resource={"service.name": "shop"})
    base = _load(_write(tmp_path, doc))[0][0]
    gz = tmp_path / "t.json.gz"
    gz.write_bytes(gzip.compress(json.dumps(doc).encode("utf-8")))
    u16 = tmp_path / "t16.json"
    u16.write_bytes(json.dumps(doc).encode("utf-16"))
    pb_doc = json.loads(json.dumps(doc))
    for sp in pb_doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:  # protobuf JSON takes ids as base64
        sp["traceId"] = base64.b64encode(bytes.fromhex(sp["traceId"])).decode()
        sp["spanId"] = base64.b64encode(bytes.fromhex(sp["spanId"])).decode()
    pb = tmp_path / "t.pb"
    pb.write_bytes(ParseDict(pb_doc, ExportTraceServiceRequest()).SerializeToString())
    for p in (gz, u16, pb):
        t = _load(p)[0][0]
        assert (t.trace_id, t.items, t.usage, t.service, t.created) == (
            base.trace_id, base.items, base.usage, "shop", base.created), p.name


def test_binary_parts_bad_arguments_and_truncated_values(tmp_path: Path) -> None:
    png = base64.b64encode(b"\x89PNG" + b"\0" * 3000).decode()
    msgs = [{"role": "user", "parts": [{"type": "text", "content": "what is this"},
                                       {"type": "blob", "modality": "image", "mime_type": "image/png", "content": png}]}]
    out = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "k1", "name": "f", "arguments": "{\"a\": "}]}]
    a = chat_span("00000000000000a1", messages=msgs, **{"gen_ai.output.messages": s(json.dumps(out))})
    b = chat_span("00000000000000a2", **{"gen_ai.input.messages": s('[{"role":"user","parts":[{"type":"text","content":"cut he')})
    traces, problems = _load(_write(tmp_path, otlp_request(a, b)))
    ta, tb = traces
    assert ta.items[0].content == f"what is this\n[image/png blob, {len(png):,} bytes base64]"
    assert png[:40] not in ta.items[0].content
    assert [(c.name, c.arguments) for c in ta.tool_calls] == [("f", '{"a": ')]
    assert tb.items[0].content == '[{"role":"user","parts":[{"type":"text","content":"cut he'
    assert tb.attributes["ctxviewer.truncated"] == ("gen_ai.input.messages",)
    assert tb.attributes["ctxviewer.content"] == "truncated"
    assert [p.message for p in problems] == [
        "tool call f (k1): arguments are not valid JSON; kept raw as sent",
        "gen_ai.input.messages: value cut mid-JSON (truncated capture); kept as raw text, so reported usage "
        "exceeds what was captured"]


def test_structured_python_repr_and_json_messages_agree(tmp_path: Path) -> None:
    msgs = [{"role": "user", "parts": [{"type": "text", "content": "same"}]}]
    structured = array({"kvlistValue": {"values": [kv("role", s("user")), kv("parts", array(
        {"kvlistValue": {"values": [kv("type", s("text")), kv("content", s("same"))]}}))]}})
    spans = [chat_span("00000000000000a1", messages=msgs),
             chat_span("00000000000000a2", **{"gen_ai.input.messages": structured}),
             chat_span("00000000000000a3", **{"gen_ai.input.messages": s(repr(msgs))})]
    traces, problems = _load(_write(tmp_path, otlp_request(*spans)))
    assert [[i.content for i in t.items] for t in traces] == [["same"]] * 3 and problems == []


def test_span_lists_wrapped_in_an_object_give_the_bare_lists_traces(tmp_path: Path) -> None:
    """Issue 6 Containers: "span lists and span lists wrapped in an object" -- ``{"spans": [...]}``,
    Phoenix REST ``{"data": [...], "next_cursor": ...}``, MLflow ``{"info": ..., "data": {"spans": [...]}}``."""
    a = chat_span("00000000000000a1", end="1700000001000000000")
    b = chat_span("00000000000000a2", end="1700000002000000000", status={"code": 2, "message": "timeout"})
    bare, bare_problems = _load(_write(tmp_path, [a, b], "bare.json"))
    assert [t.trace_id for t in bare] == [f"{TRACE_ID}:00000000000000a1", f"{TRACE_ID}:00000000000000a2"]
    for name, doc in (("spans.json", {"source": "export", "spans": [a, b]}),
                      ("phoenix.json", {"data": [a, b], "next_cursor": None}),
                      ("mlflow.json", {"info": {"trace_id": "tr-1"}, "data": {"spans": [a, b]}})):
        path = _write(tmp_path, doc, name)
        assert detect(path).name == "otel", name
        traces, problems = _load(path)
        assert traces == bare and problems == bare_problems == [], name
    path = _write(tmp_path, {"data": {"spans": [a, {"x": 1}]}}, "bad.json")
    traces, problems = _load(path)
    assert [t.trace_id for t in traces] == [bare[0].trace_id]
    assert problems == [ImportProblem(str(path), "data.spans[1]", "not a span object (no spanContext, context or attributes)")]


def test_a_whole_json_value_followed_by_text_is_not_called_a_cut(tmp_path: Path) -> None:
    """New user 2026-12-07: text appended after complete gen_ai.input.messages JSON was reported as
    'value cut mid-JSON (truncated capture) ... reported usage exceeds what was captured'."""
    joined = '[{"role":"user","parts":[{"type":"text","content":"hello"}]}] and then some'
    t_span = chat_span("00000000000000a3", **{"gen_ai.input.messages": s(joined)})
    traces, problems = _load(_write(tmp_path, otlp_request(t_span)))
    [t] = traces
    assert t.items[0].content == joined  # kept as raw text, whole
    assert "ctxviewer.truncated" not in t.attributes and t.attributes.get("ctxviewer.content") != "truncated"
    assert [p.message for p in problems] == [
        "gen_ai.input.messages: a whole JSON value followed by other text; kept as raw text"]


def test_user_on_an_ancestor_span_reaches_the_chat_span_and_its_own_wins(tmp_path: Path) -> None:
    agent = otlp_span("00000000000000f0", name="invoke_agent support", **{"gen_ai.operation.name": s("invoke_agent"),
                                                                          "session.id": s("sess-1"), "user.id": s("u-7")})
    inherits = chat_span("00000000000000a1")
    own = chat_span("00000000000000a2", **{"user.id": s("u-own")})
    for sp in (inherits, own):
        sp["parentSpanId"] = "00000000000000f0"
    traces, _problems = _load(_write(tmp_path, otlp_request(inherits, own, agent)))
    assert [(t.session_id, t.user_id) for t in traces] == [("sess-1", "u-7"), ("sess-1", "u-own")]
