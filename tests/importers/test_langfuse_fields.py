"""Langfuse observation fields a new user found lost without a word (new user 2026-12-07, items
3, 9, 11, 17): ``toolCalls`` / ``toolCallNames``, the flattened ``inputUsage`` / ``outputUsage``,
``level: WARNING`` with its ``statusMessage``, ``trace.environment`` and ``completionStartTime``.

Inputs: ``tests/importers/golden/langfuse/*.json`` (small, written by hand after the new user's
files; the shapes are those of Langfuse's ``Observation``, FORMATS.md section 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxviewer.assess.checks import run_checks
from ctxviewer.importers import ImportProblem, detect
from ctxviewer.importers.common.llm_call import build_trace
from ctxviewer.importers.formats.langfuse import call_from_observation
from ctxviewer.model.trace import RequestTrace

GOLDEN = Path(__file__).resolve().parent / "golden" / "langfuse"


def _load(name: str) -> tuple[list[RequestTrace], list[str]]:
    path = GOLDEN / name
    records = list(detect(path).load(path))
    return ([r for r in records if isinstance(r, RequestTrace)],
            [r.message for r in records if isinstance(r, ImportProblem)])


def _trace(obs: dict[str, Any], trace: dict[str, Any] | None = None) -> tuple[RequestTrace, list[str]]:
    base = {"id": "g", "traceId": "t", "type": "GENERATION", "startTime": "2025-11-03T10:00:00.000Z",
            "endTime": "2025-11-03T10:00:01.000Z", "model": "gpt-4o-mini",
            "input": [{"role": "user", "content": "hi"}]}
    return build_trace(call_from_observation(dict(base, **obs), {}, trace or {"id": "t"}))


def _calls(t: RequestTrace) -> list[tuple[str, str | None, str | None]]:
    return [(c.name, c.arguments, c.id) for c in t.tool_calls]


# ---------------------------------------------------------------- 1. toolCalls / toolCallNames

def test_toolcalls_json_strings_are_the_proposed_calls_and_the_destructive_check_applies() -> None:
    (t,), _ = _load("toolcalls-field-warning.json")
    assert _calls(t) == [("shell", '{"cmd": "rm -rf ~/old"}', "call_rm")]
    assert [i.content[:20] for i in t.items if i.kind.value == "tool"] == ['{"type":"function","']  # offered
    findings = {f.rule: f.message for f in run_checks(t)}
    assert findings["tool.unsafe_no_verdict"] == ("shell proposed and no verdict recorded although 1 check(s) "
                                                  "failed: destructive")
    assert "ctxviewer.unmapped" not in t.attributes


def test_a_call_the_output_holds_is_not_added_twice() -> None:
    out = {"role": "assistant", "content": None,
           "tool_calls": [{"id": "call_a", "type": "function", "function": {"name": "ls", "arguments": '{"p": "."}'}}]}
    same_id = '{"id": "call_a", "name": "ls", "arguments": "{\\"p\\": \\".\\"}"}'
    same_args = '{"name": "ls", "arguments": "{\\"p\\":\\".\\"}"}'  # no id, same call (spacing differs)
    other = '{"id": "call_b", "name": "rm", "arguments": "{\\"p\\": \\"x\\"}"}'
    t, _ = _trace({"output": out, "toolCalls": [same_id, same_args, other], "toolCallNames": ["ls", "ls", "rm"]})
    assert _calls(t) == [("ls", '{"p": "."}', "call_a"), ("rm", '{"p": "x"}', "call_b")]


def test_an_entry_without_a_name_takes_it_from_toolcallnames_and_names_alone_are_calls() -> None:
    t, warnings = _trace({"output": None, "toolCalls": ['{"id": "c1", "arguments": "{}", "type": "function"}'],
                          "toolCallNames": ["search", "fetch"]})
    assert _calls(t) == [("search", "{}", "c1"), ("fetch", None, None)]
    assert "tool call fetch: arguments missing; kept as not recorded" in warnings


def test_tool_definitions_as_langfuse_stores_them_a_name_map() -> None:
    t, _ = _trace({"toolDefinitions": {"shell": '{"description": "run", "parameters": {"type": "object"}}'}})
    assert [i.content for i in t.items if i.kind.value == "tool"] == [
        '{"type":"function","name":"shell","description":"run","parameters":{"type":"object"}}']


# ---------------------------------------------------------------- 2. flattened usage

def _usage(t: RequestTrace) -> tuple[int | None, ...]:
    u = t.usage
    return (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.reasoning_tokens)


def test_flattened_usage_alone_is_read() -> None:
    (t,), problems = _load("flat-usage.json")
    assert _usage(t) == (170, 12, None, None)
    assert problems == []


def test_flattened_zeros_stay_not_recorded() -> None:
    """Langfuse writes 0 when usageDetails holds no input key (``reduced.input ?? 0``)."""
    t, warnings = _trace({"usageDetails": {}, "inputUsage": 0, "outputUsage": 0, "totalUsage": 0})
    assert _usage(t) == (None, None, None, None)
    assert warnings == []


def test_usage_details_win_and_agreeing_flat_sums_say_nothing() -> None:
    """inputUsage is Langfuse's sum of the input keys (cache reads included): 276 + 1024 = 1300."""
    t, warnings = _trace({"usageDetails": {"input": 276, "input_cached_tokens": 1024, "output": 40, "total": 1340},
                          "inputUsage": 1300, "outputUsage": 40, "totalUsage": 1340,
                          "usage": {"input": 1300, "output": 40, "total": 1340, "unit": "TOKENS"}})
    assert _usage(t) == (1300, 40, 1024, None)
    assert [w for w in warnings if w.startswith("usage")] == []


def test_disagreeing_usage_objects_are_said_once() -> None:
    t, warnings = _trace({"usageDetails": {"input": 160, "output": 12, "total": 172},
                          "usage": {"input": 150, "output": 12, "total": 162},
                          "inputUsage": 170, "outputUsage": 12, "totalUsage": 182})
    assert _usage(t) == (160, 12, None, None)
    assert [w for w in warnings if w.startswith("usage")] == [
        "usage: usage (input 150, output 12) and inputUsage/outputUsage (input 170, output 12) disagree with "
        "usageDetails (input 160, output 12); usageDetails is read (the more detailed)"]


def test_the_deprecated_usage_object_wins_over_the_flat_counts() -> None:
    t, warnings = _trace({"usage": {"input": 100, "output": 9}, "inputUsage": 100, "outputUsage": 9})
    assert _usage(t) == (100, 9, None, None)
    assert [w for w in warnings if w.startswith("usage")] == []
    t, warnings = _trace({"inputUsage": "lots", "outputUsage": 9})
    assert _usage(t) == (None, 9, None, None)
    assert "inputUsage: 'lots' is not a token count; shown as not recorded" in warnings


# ---------------------------------------------------------------- 3. level WARNING

def test_a_warning_is_kept_and_said_on_the_span_line_not_as_an_error() -> None:
    from ctxviewer.assess.trace_header import span_line
    from ctxviewer.report.trace_report import _call_fields

    (t,), _ = _load("toolcalls-field-warning.json")
    assert t.attributes["langfuse.level"] == "WARNING"
    assert t.attributes["langfuse.status_message"] == "content filter partially triggered"
    assert t.attributes["otel.status_code"] == "ok"
    assert span_line(t) == "ok · warning: content filter partially triggered · ended after 1,000 ms"
    assert _call_fields(t)["status"] == {"code": "ok", "message": None, "completeness": "ended",
                                         "warning": "content filter partially triggered"}
    assert "span.error" not in {f.rule for f in run_checks(t)}


def test_a_warning_without_a_message_and_the_other_levels() -> None:
    from ctxviewer.assess.trace_header import span_line

    t, _ = _trace({"level": "WARNING"})
    assert span_line(t) == "ok · warning: no message recorded · ended after 1,000 ms"
    t, _ = _trace({"level": "DEFAULT", "statusMessage": "retried once"})
    assert (t.attributes.get("langfuse.level"), t.attributes["langfuse.status_message"]) == (None, "retried once")
    assert span_line(t) == "ok · ended after 1,000 ms"
    t, _ = _trace({"level": "ERROR", "statusMessage": "openai.APITimeoutError"})
    assert span_line(t) == "ERROR: openai.APITimeoutError · ended after 1,000 ms"
    assert "span.error" in {f.rule for f in run_checks(t)}  # the rule the WARNING call does not raise
    assert "langfuse.level" not in t.attributes and "langfuse.status_message" not in t.attributes


# ---------------------------------------------------------------- 4. environment, completionStartTime

def test_the_traces_environment_and_the_time_to_first_token_are_kept_and_shown() -> None:
    from ctxviewer.assess.trace_header import FIRST_TOKEN_KEY, header_rows
    from ctxviewer.importers.formats.langfuse import extras

    (t,), problems = _load("environment-first-token.json")
    assert problems == []
    assert FIRST_TOKEN_KEY == extras.FIRST_TOKEN_KEY  # the importer and the header name one attribute
    assert (t.attributes["langfuse.environment"], t.attributes[FIRST_TOKEN_KEY]) == ("production", 900.0)
    rows = dict(header_rows(t))
    assert rows["Service"] == "not recorded · environment production"
    assert rows["Span"] == "ok · ended after 1,400 ms · first token after 900 ms"
    assert "ctxviewer.unmapped" not in t.attributes


def test_the_observations_environment_wins_and_langfuses_default_is_named() -> None:
    from ctxviewer.assess.trace_header import header_rows

    t, _ = _trace({"environment": "staging"}, {"id": "t", "environment": "production"})
    assert t.attributes["langfuse.environment"] == "staging"
    t, _ = _trace({"environment": "default"})
    assert dict(header_rows(t))["Service"] == ("not recorded · environment default "
                                               "(Langfuse's when the application names none)")


def test_time_to_first_token_from_the_api_field_and_an_impossible_one() -> None:
    t, _ = _trace({"timeToFirstToken": 0.25})  # the public API's, seconds
    assert t.attributes["langfuse.time_to_first_token_ms"] == 250.0
    t, warnings = _trace({"completionStartTime": "2025-11-03T09:59:59.500Z"})
    assert "langfuse.time_to_first_token_ms" not in t.attributes
    assert "completionStartTime is 500 ms before startTime; time to first token not recorded" in warnings
