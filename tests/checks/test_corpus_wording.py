"""Conclusions a reviewer found false or misleading on real corpus traces (review of 2026-12-07),
held to the right words on the file each came from (``../shared/corpus``, never copied here).

* Item 5a: the Vercel AI SDK v5 keeps a tool's schema under ``inputSchema`` (``ai.prompt.tools``);
  it was not read, so the schema check said "the tool declares no parameter schema".
* Item 5b: where no tool definition is recorded the schema is unknown, not absent; a lone
  ``execute_tool`` span that records ``gen_ai.tool.description`` says so.
* Item 8: OpenInference spans with output messages and no input messages (and no usage) read
  "Content not captured: the span has usage and metadata only".
* Item 11: a tool-call answer reads "no text (tool calls only)", not "text not recorded".
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from shared_data import CORPUS, needs_corpus

from ctxviewer.assess.assessment import assess
from ctxviewer.assess.tool_review import review_calls
from ctxviewer.assess.trace_header import header_rows
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.importing import import_files
from ctxviewer.present.answer import answer_lines
from ctxviewer.present.conversation_view import conversation
from ctxviewer.store import TraceStore

pytestmark = needs_corpus


@cache
def corpus_import(relative: str) -> tuple[dict[str, RequestTrace], tuple[str, ...]]:
    """Trace id -> trace of one corpus file imported as a user would (its own temporary
    database), and the import's warnings as ``"record: message"``."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, TraceStore.create(Path(tmp) / "c.db") as store:
        report = import_files([CORPUS / relative], store, workers=1)
        traces = {row.trace_id: store.load(row.trace_id) for row in store.list(None, 0, -1)}
    return traces, tuple(f"{p.record}: {p.message}" for p in report.problems)


def trace_of(relative: str, trace_id: str) -> RequestTrace:
    """The trace ``trace_id`` (or the one whose id starts with it) of a corpus file."""
    traces = corpus_import(relative)[0]
    [tid] = [t for t in traces if t == trace_id or t.startswith(trace_id)]
    return traces[tid]


def details(trace: RequestTrace, n: int = 0) -> dict[str, tuple[bool | None, str]]:
    """Check name -> (outcome, detail) of the trace's ``n``-th proposed call."""
    return {c.name: (c.passed, c.detail) for c in review_calls(trace)[n].checks}


def test_the_ai_sdk_input_schema_is_the_schema_checked() -> None:
    t = trace_of("langfuse/vercel-aisdk-2025-11-17.trace.json", "91a17a2274bfd23f")
    d = details(t)
    assert d["offered"] == (True, "getWeather offered by item getWeather")
    assert d["arguments_schema"] == (True, "arguments match the tool's parameter schema")
    # the schema is counted too: name:description plus the location property line (was 8 tokens)
    assert [(i.id, i.tokens) for i in t.items if i.is_tool_definition] == [("getWeather", 17)]


NO_DEFINITION = (None, "no tool definition recorded: the arguments cannot be checked against a schema")


@pytest.mark.parametrize("relative,trace_id", [
    ("langfuse/koog-2025-08-26.trace.json", "042f9350c3729147"),
    ("otel-genai/interlingua-raw-openai-v2.otlp.json", "053074667b1113278073667614bb3e19"),
    ("openinference/spec-examples/llm-spans-md-examples.json", "attrs-b5346dda47fefede"),
])
def test_no_recorded_definition_leaves_the_schema_unknown(relative: str, trace_id: str) -> None:
    d = details(trace_of(relative, trace_id))
    assert d["offered"] == (None, "the trace records no tool definitions")
    assert d["arguments_schema"] == NO_DEFINITION


def test_a_tool_span_with_a_description_only_says_so() -> None:
    t = trace_of("otel-genai/openinference-genai-fixture-otel-execute-tool-span.attrs.json", "attrs-75e352a20c8d60a5")
    d = details(t)
    assert d["offered"] == (None, "the trace records the tool's description only (gen_ai.tool.description), "
                                  "not a definition offered in a request")
    assert d["arguments_schema"] == (None, "no tool definition recorded (only its description): "
                                           "the arguments cannot be checked against a schema")


OI_EXAMPLES = "openinference/spec-examples/llm-spans-md-examples.json"


@pytest.mark.parametrize("trace_id", ["attrs-b147d639cd43839f", "attrs-594a7a7723ff7cec", "attrs-eaf2d70755a0eecd",
                                      "attrs-b5346dda47fefede"])  # examples[3..6]
def test_a_span_with_output_and_no_input_says_the_input_is_missing(trace_id: str) -> None:
    rows = dict(header_rows(trace_of(OI_EXAMPLES, trace_id)))
    assert rows["Content"] == "input not captured: the span records its output and no input messages"


def test_the_import_warns_of_the_missing_input() -> None:
    warnings = [w for w in corpus_import(OI_EXAMPLES)[1] if "captured" in w]
    assert warnings == [f"examples[{n}]: no input messages captured: the span records its output only"
                        for n in (3, 4, 5, 6)]


def test_redacted_reasoning_is_recorded_output() -> None:
    """examples[5] holds one reasoning part of encrypted ``message_content.data`` only."""
    r = trace_of(OI_EXAMPLES, "attrs-eaf2d70755a0eecd").response
    assert r is not None and (r.text, r.reasoning) == (None, "[reasoning redacted by the provider: encrypted, not shown]")


@pytest.mark.parametrize("relative,trace_id", [
    ("otel-genai/interlingua-openllmetry-openai.otlp.json", "77d66be22a4ffc81"),
    ("provider-api/openai/chat-completions-tool-calls-two-turn.otel-contrib.extracted.json",
     "chatcmpl-ASYMU9Ntix7ePttk0MSuerJstef6U"),  # "content": null beside tool_calls
])
def test_a_tool_call_answer_has_no_text_rather_than_text_not_recorded(relative: str, trace_id: str) -> None:
    """Item 11a: the trace records that the answer was tool calls, not a gap in capture."""
    t = trace_of(relative, trace_id)
    assert t.response is not None and t.response.text is None and t.tool_calls
    lines = answer_lines(t)
    assert lines[1] == "    no text (tool calls only)"
    assert conversation(t)[-1].text == "no text (tool calls only)"
    assert "text not recorded" not in "\n".join(lines)


@pytest.mark.parametrize("relative,trace_id", [
    ("otel-genai/interlingua-openllmetry-openai.otlp.json", "77d66be22a4ffc81"),
    ("otel-genai/interlingua-raw-openai-v2.otlp.json", "053074667b1113278073667614bb3e19"),
])
def test_an_empty_otlp_status_is_unset(relative: str, trace_id: str) -> None:
    """Item 11b: ``"status": {}`` is OTLP's UNSET (the default code left out), as the Vercel trace's ``{"code": 0}``."""
    t = trace_of(relative, trace_id)
    assert t.attributes["otel.status_code"] == "unset"
    assert dict(header_rows(t))["Span"].startswith("unset · ended after ")


def test_the_catalogue_without_a_window_is_the_context_window_one() -> None:
    """Item 11c: genai-prices prices babbage-002 but gives it no context window; "the model
    catalogue does not know 'babbage-002'" beside its price read as a contradiction."""
    t = trace_of(OI_EXAMPLES, "12345678-1234-5678-1234-567812345678")
    a = assess(t)
    assert [f.message for f in a.findings if f.rule == "budget.not_checked"] == [
        "eq. 3.1 cannot be checked: capacity not recorded; the context-window catalogue "
        "(genai-prices' context windows, the endpoint profiles) has no window for 'babbage-002'"]
    assert dict(header_rows(t))["Cost"].startswith("$0.000022 · babbage-002, genai-prices ")


def test_a_correction_in_the_scores_column_is_labelled_one(tmp_path: Path) -> None:
    """Item 11e: pydantic-ai 5cb389a3bdd21a6e's Langfuse score of ``dataType`` CORRECTION read
    ``output: Langfuse is a tool…`` in list's Scores column, unlabelled (show says "correction")."""
    with TraceStore.create(tmp_path / "c.db") as store:
        import_files([CORPUS / "langfuse" / "pydantic-ai-tools-2025-06-06.trace.json"], store, workers=1)
        [row] = [r for r in store.list(None, 0, -1) if r.trace_id == "5cb389a3bdd21a6e"]
        shown = dict(header_rows(store.load(row.trace_id)))["Scores"]
    assert row.scores is not None and row.scores.startswith("output (correction): Langfuse is a tool designed for ")
    assert shown.endswith("(langfuse ANNOTATION correction on trace)")
