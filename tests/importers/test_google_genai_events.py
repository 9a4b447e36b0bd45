"""opentelemetry-instrumentation-google-genai in its default mode (not ``gen_ai_latest_experimental``):
log records ``gen_ai.system.message`` / ``gen_ai.user.message`` ``{content}`` and ``gen_ai.choice``
``{index, finish_reason, content}`` whose content is google-genai's ``Content`` as ``model_dump()``
writes it (``{role, parts}``, every unset ``Part`` field null), or ``"<elided>"`` with content
capture off (ctxviewer.importers.formats.otel.gemini_events).

New user nu4 #2 and #4: the response showed as a Python repr ``{'role': 'model', 'parts': [...]}``,
the function call was lost, and ``<elided>`` was imported as an 8-token conversation.
Input: tests/data/google_genai/ (3 calls: text, a function call, content capture off), built from the
instrumentation's tests ``tests/generate_content/nonstreaming_base.py`` (``test_records_response_as_log``,
``test_does_not_record_*_if_disabled_by_env``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from otlp_factories import array, chat_span, kv, kvlist, otlp_request, otlp_span, s

from ctxviewer.assess.budget import check_capacity
from ctxviewer.assess.input_source import NOT_CAPTURED_SOURCE
from ctxviewer.assess.trace_header import capture_rows
from ctxviewer.importers import REGISTRY, ImportProblem, get_importer
from ctxviewer.model.trace import Kind, RequestTrace
from ctxviewer.pipeline.companion_files import plan

DATA = Path(__file__).resolve().parents[1] / "data" / "google_genai"
SPANS, LOGS = DATA / "default-mode.spans.otlp.json", DATA / "default-mode.logs.otlp.json"
T = "7d1c0a5e2b3f4a6b8c9d0e1f2a3b4c5d"
ELIDED_NOTE = ("the google-genai instrumentation wrote '<elided>' for 3 event bodies (gen_ai.system.message, "
               "gen_ai.user.message, gen_ai.choice): message content capture is off "
               "(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT); usage and metadata only")


def _records(paths: list[Path]) -> list[Any]:
    planned, companions = plan(paths, None, REGISTRY)
    return [r for p in planned for r in REGISTRY.load(p.importer, p.path, None, companions)]  # type: ignore[arg-type]


def _traces(records: list[Any]) -> dict[str, RequestTrace]:
    return {r.trace_id: r for r in records if isinstance(r, RequestTrace)}


def test_the_choice_content_is_read_as_a_message_not_a_repr() -> None:
    t = _traces(_records([SPANS, LOGS]))[f"{T}:00000000000000b1"]
    assert [(i.kind, i.role, i.content) for i in t.items] == [
        (Kind.POLICY, "system", "help me please."), (Kind.USER, "user", "Some input")]
    assert t.response is not None
    assert (t.response.text, t.response.finish_reason) == ("Some response content", "STOP")
    assert t.tool_calls == ()
    assert "ctxviewer.content" not in t.attributes


def test_a_function_call_part_is_the_proposed_tool_call() -> None:
    t = _traces(_records([SPANS, LOGS]))[f"{T}:00000000000000b2"]
    assert [(c.name, c.arguments, c.id) for c in t.tool_calls] == [("get_weather", '{"city":"Oslo"}', None)]
    assert t.response is not None and t.response.text is None
    assert t.user_request == "What's the weather in Oslo?"


def test_elided_bodies_are_content_not_captured_and_eq_3_1_takes_the_reported_input() -> None:
    records = _records([SPANS, LOGS])
    t = _traces(records)[f"{T}:00000000000000b3"]
    assert t.items == () and t.response is not None
    assert (t.response.text, t.response.finish_reason) == (None, "stop")  # the span's gen_ai.response.finish_reasons
    assert t.attributes["ctxviewer.content"] == "not captured"
    assert capture_rows(t) == [("Content", f"not captured: {ELIDED_NOTE}")]
    cap = check_capacity(t)
    assert (cap.input_tokens, cap.input_source) == (12, NOT_CAPTURED_SOURCE)
    assert [p.message for p in records if isinstance(p, ImportProblem) and "elided" in p.message] == [
        f"no message content captured: {ELIDED_NOTE}"]


def test_the_logs_alone_read_the_same_shapes() -> None:
    traces = _traces(list(get_importer("otel-logs").load(LOGS)))
    a, f, e = (traces[f"{T}:00000000000000b{n}"] for n in (1, 2, 3))
    assert a.response is not None and a.response.text == "Some response content"
    assert [(c.name, c.arguments) for c in f.tool_calls] == [("get_weather", '{"city":"Oslo"}')]
    assert e.items == () and e.attributes["ctxviewer.content"] == "not captured"
    assert e.response is not None and (e.response.text, e.response.finish_reason) == (None, "STOP")  # the choice's


def _event_span(tmp_path: Path, system: str, *events: tuple[str, dict[str, Any]],
                **span_attrs: dict[str, Any]) -> list[Any]:
    """Import one span of ``system`` whose span events are ``events`` (name, ``content`` AnyValue;
    a ``gen_ai.choice`` given as a kvlist is its whole body)."""
    span = otlp_span("00000000000000c1", name="generate_content gemini-2.0-flash", end="1700000001000000000",
                     **{"gen_ai.operation.name": s("generate_content"), "gen_ai.system": s(system),
                        "gen_ai.request.model": s("gemini-2.0-flash"), **span_attrs})
    span["events"] = [{"name": name, "timeUnixNano": "1700000000500000000",
                       "attributes": [kv("gen_ai.system", s(system)), kv("content", body)] if name != "gen_ai.choice"
                       else [kv("gen_ai.system", s(system)), kv("gen_ai.event.content", body)]}
                      for name, body in events]
    path = tmp_path / "span-events.otlp.json"
    path.write_text(json.dumps(otlp_request(span)), encoding="utf-8")
    return list(get_importer("otel").load(path))


def test_history_turns_keep_the_roles_their_content_names(tmp_path: Path) -> None:
    call = kvlist(parts=array(kvlist(function_call=kvlist(args=kvlist(city=s("Oslo")), name=s("get_weather")))),
                  role=s("model"))
    result = kvlist(parts=array(kvlist(function_response=kvlist(name=s("get_weather"),
                                                                response=kvlist(temp=s("4 °C"))))), role=s("user"))
    question = kvlist(parts=array(kvlist(text=s("Und morgen?"), thought={})), role=s("user"))
    [t] = [r for r in _event_span(tmp_path, "gemini", ("gen_ai.user.message", call), ("gen_ai.user.message", result),
                                  ("gen_ai.user.message", question)) if isinstance(r, RequestTrace)]
    assert [(i.kind, i.role, i.content) for i in t.items] == [
        (Kind.HISTORY, "assistant", '{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}'),
        (Kind.HISTORY, "tool", '{"temp":"4 °C"}'),
        (Kind.USER, "user", "Und morgen?")]


def test_an_object_of_no_message_shape_is_compact_json_with_a_note(tmp_path: Path) -> None:
    records = _event_span(tmp_path, "gemini", ("gen_ai.user.message", kvlist(ort=s("Zürich"), n={"intValue": 2})))
    [t] = [r for r in records if isinstance(r, RequestTrace)]
    assert [(i.kind, i.content) for i in t.items] == [(Kind.USER, '{"ort":"Zürich","n":2}')]
    assert [p.message for p in records if isinstance(p, ImportProblem)] == [
        "event gen_ai.user.message: content is an object of no message shape; kept as JSON text"]


def test_a_list_with_parts_of_no_known_shape_is_json_with_a_note(tmp_path: Path) -> None:
    content = array(kvlist(type=s("text"), text=s("Hallo")), kvlist(widget=s("Größe")))
    records = _event_span(tmp_path, "gemini", ("gen_ai.user.message", content))
    [t] = [r for r in records if isinstance(r, RequestTrace)]
    assert [(i.kind, i.content) for i in t.items] == [(Kind.USER, 'Hallo\n{"widget":"Größe"}')]
    assert [p.message for p in records if isinstance(p, ImportProblem)] == [
        "event gen_ai.user.message: content holds 1 part(s) of no known shape; kept as JSON text"]


def _chunk(n: int, text: str, reason: str | None = None) -> tuple[str, dict[str, Any]]:
    body = {"index": n, "content": {"role": "model", "parts": [{"text": text, "thought": None}]}}
    return "gen_ai.choice", s(json.dumps({**body, **({"finish_reason": reason} if reason else {})}))


def test_the_choices_of_a_streamed_call_are_one_answer(tmp_path: Path) -> None:
    """generate_content_stream logs one gen_ai.choice per chunk, index counting on."""
    stream = {"code.function.name": s("google.genai.Models.generate_content_stream")}
    records = _event_span(tmp_path, "gemini", ("gen_ai.user.message", s("Grüß mich")), _chunk(0, "Hel"),
                          _chunk(1, "lo "), _chunk(2, "world", "STOP"), **stream)
    [t] = [r for r in records if isinstance(r, RequestTrace)]
    assert t.response is not None and (t.response.text, t.response.finish_reason) == ("Hello world", "STOP")
    assert "ctxviewer.other_choices" not in t.attributes
    two = {"code.function.name": s("google.genai.Models.generate_content"), "gen_ai.request.choice.count": {"intValue": 2}}
    records = _event_span(tmp_path, "gemini", ("gen_ai.user.message", s("Hi")), _chunk(0, "A", "STOP"),
                          _chunk(1, "B", "STOP"), **two)
    [t] = [r for r in records if isinstance(r, RequestTrace)]
    assert t.response is not None and t.response.text == "A"  # two candidates asked for: choices, not chunks
    assert [c["text"] for c in t.attributes["ctxviewer.other_choices"]] == ["B"]


def test_elided_written_by_a_user_elsewhere_is_kept_as_text(tmp_path: Path) -> None:
    """Only the instrumentation's own placeholder, in its event bodies, means "not captured"."""
    [other] = [r for r in _event_span(tmp_path, "openai", ("gen_ai.user.message", s("<elided>")))
               if isinstance(r, RequestTrace)]
    assert [(i.kind, i.content) for i in other.items] == [(Kind.USER, "<elided>")]
    assert "ctxviewer.content" not in other.attributes
    span = chat_span(messages=[{"role": "user", "parts": [{"type": "text", "content": "<elided>"}]}],
                     **{"gen_ai.system": s("gemini")})
    path = tmp_path / "attr.otlp.json"
    path.write_text(json.dumps(otlp_request(span)), encoding="utf-8")
    [t] = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert t.user_request == "<elided>" and "ctxviewer.content" not in t.attributes
    part = kvlist(parts=array(kvlist(text=s("<elided>"))), role=s("user"))  # a Content whose text it is
    [g] = [r for r in _event_span(tmp_path, "gemini", ("gen_ai.user.message", part)) if isinstance(r, RequestTrace)]
    assert g.user_request == "<elided>" and "ctxviewer.content" not in g.attributes
