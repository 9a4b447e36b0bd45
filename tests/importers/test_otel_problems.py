"""OTel GenAI importer (ctxviewer.importers.formats.otel): bad attribute values become "not recorded" with a
warning naming the span and the attribute, the trace still imports and round-trips through the
store, and a file whose only span was rejected does not also claim it has no chat spans."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from otlp_factories import chat_span, otlp_request
from otlp_factories import kv as _kv
from otlp_factories import s as _s

from ctxviewer.importers import ImportProblem, get_importer, load_records
from ctxviewer.importers.formats.otel import token_count
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore

RECORD = "resourceSpans[0].scopeSpans[0].spans[0] span 00000000000000a1"
TRACE_ID = "0af7651916cd43dd8448eb211c80319c:00000000000000a1"
NOT_COUNT = "is not a token count; shown as not recorded"


def _span(span_id: str = "00000000000000a1", start: Any = "1700000000000000000", **extra: Any) -> dict[str, Any]:
    usage = {"gen_ai.usage.input_tokens": {"intValue": "412"}, "gen_ai.usage.output_tokens": {"intValue": 27}}
    return chat_span(span_id, start=start, **{**usage, **extra})


def _load(tmp_path: Path, doc: Any) -> tuple[Path, list[RequestTrace], list[ImportProblem]]:
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    recs = list(get_importer("otel").load(p))
    return (p, [r for r in recs if isinstance(r, RequestTrace)], [r for r in recs if isinstance(r, ImportProblem)])


def _otlp(*spans: dict[str, Any]) -> dict[str, Any]:
    return otlp_request(*spans)


def _round_trip(tmp_path: Path, trace: RequestTrace) -> RequestTrace:
    with TraceStore.create(tmp_path / "x.db") as store:
        assert store.add(with_facts([trace])) == 1
        back = store.load(trace.trace_id)
    assert back.usage == trace.usage and back.reserved_output_tokens == trace.reserved_output_tokens
    assert back.items == trace.items and back.user_request == trace.user_request
    return back


def _usage(t: RequestTrace) -> tuple[Any, ...]:
    u = t.usage
    return (u.input_tokens, u.output_tokens, u.cached_input_tokens, t.reserved_output_tokens)


# ---------------------------------------------------------------- bug 1: token counts


@pytest.mark.parametrize("attr, value, shown, usage", [
    ("gen_ai.usage.output_tokens", {"doubleValue": -3.5}, "-3.5", (412, None, None, None)),
    ("gen_ai.request.max_tokens", {"intValue": "-100"}, "-100", (412, 27, None, None)),
    ("gen_ai.usage.input_tokens", _s("lots"), "'lots'", (None, 27, None, None)),
    ("gen_ai.usage.input_tokens", {"doubleValue": 27.9}, "27.9", (None, 27, None, None)),
    ("gen_ai.usage.output_tokens", {"boolValue": True}, "True", (412, None, None, None)),
    ("gen_ai.usage.output_tokens", {"doubleValue": "NaN"}, "nan", (412, None, None, None)),
    ("gen_ai.usage.cache_read.input_tokens", _s("-5"), "'-5'", (412, 27, None, None)),
])
def test_bad_token_count_is_not_recorded_with_a_warning(
        tmp_path: Path, attr: str, value: Any, shown: str, usage: tuple[Any, ...]) -> None:
    p, (t,), problems = _load(tmp_path, _otlp(_span(**{attr: value})))
    assert problems == [ImportProblem(str(p), RECORD, f"{attr}: {shown} {NOT_COUNT}")]
    assert _usage(t) == usage
    assert t.trace_id == TRACE_ID and t.user_request == "hi" and t.endpoint.model == "m-1"
    assert _usage(_round_trip(tmp_path, t)) == usage


def test_integral_float_and_numeric_string_token_counts_are_fine(tmp_path: Path) -> None:
    _p, (t,), problems = _load(tmp_path, _otlp(_span(**{
        "gen_ai.usage.output_tokens": {"doubleValue": 27.0},
        "gen_ai.usage.cache_read.input_tokens": _s("256"),
        "gen_ai.request.max_tokens": _s("1024"),
        "gen_ai.usage.total_tokens": _s("439")})))
    assert problems == []
    assert _usage(t) == (412, 27, 256, 1024)
    assert t.attributes["gen_ai.usage.total_tokens"] == 439
    _round_trip(tmp_path, t)


def test_bad_total_tokens_is_dropped_from_attributes(tmp_path: Path) -> None:
    p, (t,), problems = _load(tmp_path, _otlp(_span(**{"gen_ai.usage.total_tokens": {"intValue": "-1"}})))
    assert problems == [ImportProblem(str(p), RECORD, f"gen_ai.usage.total_tokens: -1 {NOT_COUNT}")]
    assert "gen_ai.usage.total_tokens" not in t.attributes


def test_bad_counts_in_an_attribute_map_name_the_key_that_was_read(tmp_path: Path) -> None:
    p, (t,), problems = _load(tmp_path, {
        "ai.operationId": "ai.generateText.doGenerate",
        "ai.prompt.messages": json.dumps([{"role": "user", "content": "hi"}]),
        "ai.usage.promptTokens": -7,
        "ai.usage.completionTokens": 3.0,
        "metadata.usage_object": "{'prompt_tokens_details': {'cached_tokens': 1.5}}",
    })
    assert [(pr.file, pr.record, pr.message) for pr in problems] == [
        (str(p), "attributes", f"ai.usage.promptTokens: -7 {NOT_COUNT}"),
        (str(p), "attributes", f"metadata.usage_object prompt_tokens_details.cached_tokens: 1.5 {NOT_COUNT}"),
    ]
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.cached_input_tokens) == (None, 3, None)


def test_token_count_rules() -> None:
    assert [token_count(v) for v in (None, "", 0, 412, 27.0, "412", " 27.0 ", "1e3")] == [
        None, None, 0, 412, 27, 412, 27, 1000]
    for bad in (-1, -3.5, 27.9, True, False, "lots", "-100", float("inf"), [1], {"n": 1}):
        with pytest.raises(ValueError) as exc:
            token_count(bad)
        assert str(exc.value) == f"{bad!r} is not a token count"


# ---------------------------------------------------------------- bug 2: messages not a list


@pytest.mark.parametrize("value, got", [
    ({"intValue": "5"}, "int"),
    (_s("5"), "int"),
    ({"boolValue": True}, "bool"),
    (_s("just some words"), "str"),
    ({"kvlistValue": {"values": [_kv("role", _s("user"))]}}, "dict"),
])
def test_input_messages_not_a_list(tmp_path: Path, value: Any, got: str) -> None:
    p, (t,), problems = _load(tmp_path, _otlp(_span(**{"gen_ai.input.messages": value})))
    assert problems == [ImportProblem(str(p), RECORD, f"gen_ai.input.messages: expected a list of messages, got {got}")]
    assert t.items == () and t.user_request is None  # not recorded, as for a span without messages
    assert (t.trace_id, t.endpoint.model, _usage(t)) == (TRACE_ID, "m-1", (412, 27, None, None))
    # new-user finding N6: a single object was read as captured content (no policy sent, input 0)
    assert t.attributes.get("ctxviewer.content") == "not captured"
    assert t.attributes.get("ctxviewer.content_note") == (
        "gen_ai.input.messages: recorded but not readable as messages; usage and metadata only")
    back = _round_trip(tmp_path, t)
    assert back.items == () and back.user_request is None


def test_output_messages_not_a_list(tmp_path: Path) -> None:
    p, (t,), problems = _load(tmp_path, _otlp(_span(**{
        "gen_ai.output.messages": {"intValue": "5"}, "gen_ai.response.id": _s("r-1")})))
    assert problems == [ImportProblem(str(p), RECORD, "gen_ai.output.messages: expected a list of messages, got int")]
    assert t.response is not None and (t.response.text, t.response.id) == (None, "r-1")
    assert t.user_request == "hi"
    _round_trip(tmp_path, t)


# ---------------------------------------------------------------- bug 3: rejected spans


def _load_all(tmp_path: Path, doc: Any) -> tuple[Path, list[RequestTrace], list[ImportProblem]]:
    """As the import runs it: through the registry, so the readers' warnings arrive too."""
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    recs = list(load_records(get_importer("otel"), p))
    return (p, [r for r in recs if isinstance(r, RequestTrace)], [r for r in recs if isinstance(r, ImportProblem)])


def test_unreadable_start_time_is_a_warning_and_the_span_is_kept(tmp_path: Path) -> None:
    p, traces, problems = _load_all(tmp_path, _otlp(_span(start="yesterday")))
    [t] = traces
    assert (t.created, t.usage.input_tokens) == (None, 412)
    assert problems[0] == ImportProblem(str(p), "resourceSpans[0].scopeSpans[0].spans[0]",
                                        "startTimeUnixNano: 'yesterday' is not a time; the time is imported as "
                                        "not recorded, the span is kept")


def test_unreadable_or_out_of_range_end_is_not_recorded_never_never_ended(tmp_path: Path) -> None:
    p, traces, problems = _load_all(tmp_path, _otlp(_span(end="9" * 30)))
    [t] = traces
    assert t.attributes["ctxviewer.completeness"] == "end not recorded"
    assert "endTimeUnixNano" in problems[0].message and "out of the range of dates" in problems[0].message


def test_protobufjs_long_times_are_read(tmp_path: Path) -> None:
    ns = 1_770_000_000_123_456_789
    span = _span()
    span["startTimeUnixNano"] = {"low": ns & 0xFFFFFFFF, "high": ns >> 32, "unsigned": True}
    _, [t], _ = _load_all(tmp_path, _otlp(span))
    assert t.created is not None and t.created.timestamp() == pytest.approx(ns / 1e9, abs=1e-6)


def test_no_chat_spans_still_reported_without_rejections(tmp_path: Path) -> None:
    tool = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "00000000000000b1", "name": "execute_tool x",
            "attributes": [_kv("gen_ai.operation.name", _s("execute_tool"))]}
    p, traces, problems = _load(tmp_path, _otlp(tool))
    assert traces == []
    assert problems == [ImportProblem(str(p), "whole file", "no chat spans found (1 other span(s): execute_tool)")]
    _p, traces, problems = _load(tmp_path, {"resourceSpans": []})
    assert [(pr.record, pr.message) for pr in problems] == [("whole file", "no chat spans found (no spans)")]


def test_a_request_whose_lists_are_not_lists_is_one_problem_each_and_the_rest_loads(tmp_path: Path) -> None:
    # A new user's file: one JSON Lines record {"resourceSpans": 5} beside a good request. It was
    # "whole file: importer failed in load: TypeError" -- now each bad list is named by its path.
    p = tmp_path / "t.jsonl"
    good = _otlp(_span())
    bad_scope = {"resourceSpans": [{"scopeSpans": "x"}]}
    bad_spans = {"resourceSpans": [{"scopeSpans": [{"spans": {"a": 1}}]}]}
    p.write_text("\n".join(json.dumps(d) for d in (good, {"resourceSpans": 5}, bad_scope, bad_spans)) + "\n")
    recs = list(get_importer("otel").load(p))
    traces = [r for r in recs if isinstance(r, RequestTrace)]
    problems = [(r.record, r.message) for r in recs if isinstance(r, ImportProblem)]
    assert [t.trace_id for t in traces] == [TRACE_ID]
    assert problems == [
        ("line 2 resourceSpans", "expected a list, got the number 5"),
        ("line 3 resourceSpans[0]", "scopeSpans: expected a list, got a string"),
        ("line 4 resourceSpans[0].scopeSpans[0].spans", "expected a list, got an object"),
    ]


@pytest.mark.parametrize("raw", ["Infinity", "-Infinity", "NaN"])
def test_a_non_finite_attribute_is_left_out_with_a_warning_so_export_writes_valid_json(tmp_path: Path, raw: str) -> None:
    # new user: a temperature of Infinity reached export's embedded record as a bare Infinity (not JSON)
    from click.testing import CliRunner

    from ctxviewer.cli import cli

    p, (t,), problems = _load(tmp_path, _otlp(_span(**{"gen_ai.request.temperature": {"doubleValue": raw},
                                                        "gen_ai.request.top_p": {"doubleValue": 0.5}})))
    shown = repr(float(raw))
    assert problems == [ImportProblem(str(p), RECORD,
                                      f"gen_ai.request.temperature: {shown} is not a finite number; left out (not recorded)")]
    assert "gen_ai.request.temperature" not in t.attributes and t.attributes["gen_ai.request.top_p"] == 0.5
    db, out = tmp_path / "x.db", tmp_path / "e.jsonl"
    with TraceStore.create(db) as store:
        assert store.add(with_facts([t])) == 1

    def strict(text: str) -> Any:
        return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in JSON output"))

    shown_json = CliRunner().invoke(cli, ["show", str(db), t.trace_id, "--json"])
    assert shown_json.exit_code == 0 and strict(shown_json.stdout)["trace_id"] == t.trace_id
    exported = CliRunner().invoke(cli, ["export", str(db), t.trace_id, "-o", str(out), "--format", "otlp"])
    assert exported.exit_code == 0, exported.output
    line = out.read_text(encoding="utf-8").splitlines()[0]
    strict(line)
    embedded = re.findall(r'"key": ?"ctxviewer\.trace", ?"value": ?\{"stringValue": ?("(?:[^"\\]|\\.)*")', line)
    assert len(embedded) == 1  # the native record inside the span, itself JSON
    assert strict(json.loads(embedded[0]))["trace_id"] == t.trace_id


def test_an_array_valued_model_is_no_name_and_a_self_parent_is_a_cycle(tmp_path: Path) -> None:
    """New-user finding F12: ``['gpt-4o']`` was stored as the model (its price then "not known"),
    and a span naming itself as its parent was reported as "not in the file"."""
    from otlp_factories import array

    from ctxviewer.present.run_tree import build_tree, step_line

    span = _span(**{"gen_ai.request.model": array(_s("gpt-4o"))})
    span["parentSpanId"] = span["spanId"]
    _, traces, problems = _load(tmp_path, _otlp(span))
    assert traces[0].endpoint.model is None
    assert [p.message for p in problems] == [
        "gen_ai.request.model: ['gpt-4o'] is not a name (a list); shown as not recorded",
        "span 00000000000000a1 (chat m-1): names itself as its parent span (a cycle); imported as a root of its trace"]

    class Step:
        def __init__(self, span_id: str, parent_id: str | None) -> None:
            self.span = type("S", (), {"span_id": span_id, "parent_id": parent_id, "kind": "llm", "name": "chat",
                                       "status": "ok", "end": 1, "start": 0, "trace_id": None})()
            self.duration_ms = 5.0

    roots = build_tree([Step("a6", "a6"), Step("b1", "c2"), Step("c2", "b1"), Step("d3", "zz")])
    assert [step_line(n) for n in roots] == [
        "llm chat · 5 ms · ok · parent a6 is the span itself (a cycle)",
        "llm chat · 5 ms · ok · parent c2 is under this span (a cycle)",
        "llm chat · 5 ms · ok · parent b1 is under this span (a cycle)",
        "llm chat · 5 ms · ok · parent zz not in the file"]
    # review R10: a span whose parent is in a cycle it is not part of hangs under that parent
    roots = build_tree([Step("a", "b"), Step("b", "a"), Step("c", "a")])
    assert [(n.step.span.span_id, n.cycle, [k.step.span.span_id for k in n.children]) for n in roots] == [
        ("a", True, ["c"]), ("b", True, [])]


def test_a_span_without_a_trace_id_is_kept_and_said(tmp_path: Path) -> None:
    """New user nu2 #10: a span with no traceId imported as '-:e…03' without a word."""
    span = _span()
    del span["traceId"]
    _, traces, problems = _load(tmp_path, _otlp(span))
    assert [t.trace_id for t in traces] == ["-:00000000000000a1"]
    assert [p.message for p in problems] == [
        "traceId: not recorded (OTLP requires one); the span is kept as trace '-:00000000000000a1'"]


def test_a_span_without_any_id_names_the_id_it_is_kept_as(tmp_path: Path) -> None:
    """New user nu3 #14: with no span id either the warning said "shown as '-'" and the list showed
    an attrs-… id, which reads like a flat attribute map."""
    span = _span()
    span["traceId"] = span["spanId"] = ""
    _, [trace], problems = _load(tmp_path, _otlp(span))
    assert trace.trace_id.startswith("attrs-") and len(trace.trace_id) == len("attrs-") + 16
    assert [p.message for p in problems] == [
        f"traceId: not recorded (OTLP requires one); the span is kept as trace '{trace.trace_id}' "
        "(no span id either: an id made from its attributes)"]


def test_two_different_spans_under_one_span_id_name_the_one_left_out(tmp_path: Path) -> None:
    """nu2 #10: a repeated span id silently replaced the earlier span (and warned about that span's times)."""
    first, second = _span(start="1700000000000000000"), _span(start="1700000100000000000")
    first["endTimeUnixNano"], second["endTimeUnixNano"] = "1700000001000000000", "1700000101000000000"
    _, traces, problems = _load(tmp_path, _otlp(first, second))
    assert [t.created.isoformat() if t.created else None for t in traces] == ["2023-11-14T22:15:00+00:00"]
    assert [(p.record, p.message, p.dropped) for p in problems] == [(
        "resourceSpans[0].scopeSpans[0].spans[0]",
        f"span 00000000000000a1 of trace {traces[0].trace_id.split(':')[0]} appears again at "
        "resourceSpans[0].scopeSpans[0].spans[1]; the later span is kept and this one is not imported", 1)]


@pytest.mark.parametrize(("doc", "where", "said"), [
    ({"resourceSpans": [[]]}, "resourceSpans[0]", "expected an object (ResourceSpans), got a list"),
    ({"resourceSpans": [{"resource": [1]}]}, "resourceSpans[0].resource", "expected an object, got a list"),
])
def test_a_malformed_container_is_said_in_words(tmp_path: Path, doc: dict, where: str, said: str) -> None:  # type: ignore[type-arg]
    """New user nu3 #15: ``{"resourceSpans": [[]]}`` was said as a raw Python exception
    ("'list' object has no attribute 'get'")."""
    path = tmp_path / "bad.otlp.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    problems = [r for r in get_importer("otel").load(path) if isinstance(r, ImportProblem)]
    assert [(p.record, p.message, p.dropped) for p in problems] == [(where, said, 1)]
