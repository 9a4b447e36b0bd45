"""LangSmith runs, LiteLLM StandardLoggingPayload and promptfoo exports: every corpus file of
these formats read back with its real values, plus golden pairs for the rules of issue 6."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.importers import ImportProblem, detect
from ctxviewer.model.trace import RequestTrace


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(detect(path).load(path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def _usage(t: RequestTrace) -> tuple[int | None, ...]:
    u = t.usage
    return (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.cache_creation_input_tokens, u.reasoning_tokens)


LANGSMITH = {
    "langsmith_py_wrap_openai.post-patch.json": (
        "d0d84d31-923d-4cb5-94a8-40a0a0087578", "gpt-4o-mini", (9, 9, 0, None, 0),
        "Howdy! How can I assist you today?", "chatcmpl-AHH0KBvLG7Wq3wfSEGQuxh0xE07Fl"),
    "langsmith_py_wrap_openai_stream.post-patch.json": (
        "fe8ffecb-72ce-4cd2-bdb7-01f34654c391", "gpt-4o-mini", (9, 9, 0, None, 0),
        "Howdy! How can I assist you today?", "chatcmpl-AHH0HKxF2K5Rnu1DJ51k9CPTcerd1"),
    "langsmith_py_wrap_openai_reasoning.post-patch.json": (
        "a8b34ded-ccd2-4fb7-bccb-9cd625066a14", "o1-mini", (43, 2497, 0, None, 1408), None,
        "chatcmpl-AHH0LWUyAupsCrDZu564ZHwRbNQeZ"),
}


def test_langsmith_corpus(shared: Path) -> None:
    for name, (rid, model, usage, text, resp_id) in LANGSMITH.items():
        path = shared / "corpus" / "langsmith" / name
        assert detect(path).name == "langsmith"
        traces, problems = _load(path)
        assert problems == [] and len(traces) == 1
        t = traces[0]
        assert (t.trace_id, t.endpoint.provider, t.endpoint.model) == (rid, "openai", model)
        assert [(i.kind.value, i.role) for i in t.items] == [("user", "user")]
        assert _usage(t) == usage
        assert t.response is not None and t.response.id == resp_id and t.response.finish_reason == "stop"
        if text:
            assert t.response.text == text
        assert (t.attributes["otel.status_code"], t.attributes["ctxviewer.completeness"]) == ("ok", "ended")
    t = _load(shared / "corpus/langsmith/langsmith_py_wrap_openai.post-patch.json")[0][0]
    assert t.items[0].content == "howdy"
    assert t.created == datetime(2024, 10, 11, 20, 58, 23, 298773, tzinfo=timezone.utc)


def test_langsmith_run_tree_with_retriever_and_langchain_messages(tmp_path: Path) -> None:
    tree = {"id": "r0", "trace_id": "r0", "run_type": "chain", "name": "agent", "dotted_order": "a",
            "start_time": 1700000000000, "end_time": 1700000001250,
            "extra": {"metadata": {"thread_id": "thread-9"}},
            "child_runs": [
                {"id": "r1", "run_type": "retriever", "name": "kb", "dotted_order": "a.b",
                 "outputs": {"documents": [{"page_content": "Refunds need approval.", "metadata": {"id": "doc-17"}}]}},
                {"id": "r2", "run_type": "llm", "dotted_order": "a.c", "start_time": 1700000000000,
                 "extra": {"metadata": {"ls_provider": "anthropic", "ls_model_name": "claude-x", "thread_id": "thread-9"}},
                 "inputs": {"messages": [[
                     {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "SystemMessage"],
                      "kwargs": {"content": "Policy v3."}},
                     {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
                      "kwargs": {"content": "Refund order 5?"}}]]},
                 "outputs": {"generations": [[{"text": "", "message": {
                     "lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
                     "kwargs": {"content": "", "tool_calls": [{"id": "t1", "name": "refund", "args": {"order": 5}}]}}}]],
                     "usage_metadata": {"input_tokens": 50, "output_tokens": 12,
                                        "input_token_details": {"cache_read": 40, "cache_creation": 5}}},
                 "error": "rate limited"}]}
    p = tmp_path / "tree.json"
    p.write_text(json.dumps(tree))
    traces, problems = _load(p)
    assert len(traces) == 1
    t = traces[0]
    assert [(i.kind.value, i.role, i.content) for i in t.items] == [
        ("policy", "system", "Policy v3."), ("user", "user", "Refund order 5?")]  # the document is not in the input
    assert [(r["id"], r["not_sent"]) for r in t.attributes["ctxviewer.documents"]] == [
        ("doc-17", "its text is not in the call's input")]
    assert [(c.name, c.arguments, c.id) for c in t.tool_calls] == [("refund", '{"order":5}', "t1")]
    assert _usage(t) == (50, 12, 40, 5, None)  # LangChain input already includes the cache
    assert t.session_id == "thread-9"
    assert (t.attributes["otel.status_code"], t.attributes["otel.status_message"]) == ("error", "rate limited")
    assert t.attributes["ctxviewer.completeness"] == "never ended"
    assert t.created == datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc)  # epoch ms (JS SDK)


def test_litellm_corpus(shared: Path) -> None:
    path = shared / "corpus/other/litellm/standard_logging_payload.json"
    assert detect(path).name == "litellm"
    traces, problems = _load(path)
    assert problems == [] and len(traces) == 1
    t = traces[0]
    assert (t.trace_id, t.endpoint.provider, t.endpoint.model) == (
        "chatcmpl-2299b6a2-82a3-465a-b47c-04e685a2227f", "openai", "gpt-4o")
    assert [(i.kind.value, i.role, i.content) for i in t.items] == [("user", "user", "Hello, world!")]
    assert _usage(t) == (10, 20, None, None, None)  # details null: not reported, never 0
    assert t.response is not None and (t.response.text, t.response.finish_reason) == ("hi", "stop")
    assert t.created == datetime(2025, 1, 24, 9, 20, 46, 847371, tzinfo=timezone.utc)
    assert t.attributes["ctxviewer.duration_ms"] == 4.583
    assert t.attributes["otel.status_code"] == "ok"


PROMPTFOO = [  # (result id, model, input, output, reasoning, answer start)
    ("b7df157c-b0cd-4852-a41a-72523ea294e7", "gpt-5-mini", 37, 245, 192, "Answer: An echo."),
    ("aa60b488-0ac5-4282-aebc-2203d04fc219", "gpt-5", 37, 204, 192, "An echo."),
    ("e1fa91fd-b690-4f0a-88f4-fb1fb154f99e", "gpt-5-mini", 41, 157, 128, "Because all the people"),
    ("e68ae70e-fefe-47fd-a289-0d2592378c6e", "gpt-5", 41, 102, 64, "Because “single”"),
]


def test_promptfoo_corpus(shared: Path) -> None:
    path = shared / "corpus/other/promptfoo/promptfoo-sample-export.json"
    assert detect(path).name == "promptfoo"
    traces, problems = _load(path)
    assert problems == []
    got = [(t.trace_id.rsplit(":", 1)[1], t.endpoint.model, t.usage.input_tokens, t.usage.output_tokens,
            t.usage.reasoning_tokens) for t in traces]
    assert got == [p[:5] for p in PROMPTFOO]
    for t, p in zip(traces, PROMPTFOO):
        assert t.endpoint.provider == "openai"
        assert t.response is not None and (t.response.text or "").startswith(p[5])
        assert t.items[0].content.startswith("Solve this riddle: ")
        assert t.attributes["otel.status_code"] == "ok"  # an assertion failed, the call did not
        assert t.attributes["promptfoo.failure"].startswith("Latency ")
    # latencyMs is the call's duration (it was "not recorded", beside "Latency 6197ms is greater than ...")
    assert [t.attributes["ctxviewer.duration_ms"] for t in traces] == [5794.0, 6197.0, 4669.0, 5027.0]
    assert {t.attributes["ctxviewer.completeness"] for t in traces} == {"ended"}


def test_promptfoo_chat_prompt_and_error(tmp_path: Path) -> None:
    doc: dict[str, Any] = {"evalId": "e1", "results": {"version": 3, "timestamp": "2025-01-01T00:00:00Z", "results": [
        {"id": "x", "provider": {"id": "anthropic:messages:claude-x"},
         "prompt": {"raw": json.dumps([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}])},
         "response": {"tokenUsage": {}}, "error": "API error 500", "failureReason": 2}]}}
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc))
    t = _load(p)[0][0]
    assert [(i.kind.value, i.content) for i in t.items] == [("policy", "S"), ("user", "U")]
    assert (t.endpoint.provider, t.endpoint.model) == ("anthropic", "claude-x")  # the API type is no model name
    assert (t.attributes["otel.status_code"], t.attributes["otel.status_message"]) == ("error", "API error 500")
    assert _usage(t) == (None, None, None, None, None)


def test_a_promptfoo_result_served_from_its_cache_has_no_duration() -> None:
    from ctxviewer.importers.formats.promptfoo import call_from_result

    row = {"id": "r1", "provider": {"id": "openai:gpt-4o"}, "prompt": {"raw": "hi"}, "latencyMs": 3,
           "response": {"output": "hello", "cached": True, "tokenUsage": {"prompt": 5, "completion": 1}}}
    assert call_from_result(row, "e", None).latency_ms is None  # no provider call was made in this run
    row["response"] = {**row["response"], "cached": False}
    assert call_from_result(row, "e", None).latency_ms == 3.0


@pytest.mark.parametrize(("pid", "provider", "model"), [
    ("openai:gpt-4o-mini", "openai", "gpt-4o-mini"),
    ("openai:chat:gpt-4o-mini", "openai", "gpt-4o-mini"),  # new user 2026-12-07 (#5): was model 'chat:gpt-4o-mini'
    ("openai:responses:o4-mini", "openai", "o4-mini"),
    ("anthropic:messages:claude-3-5-sonnet-20241022", "anthropic", "claude-3-5-sonnet-20241022"),
    ("azure:chat:my-gpt4o-deployment", "azure", "my-gpt4o-deployment"),
    ("ollama:chat:llama3.1:8b", "ollama", "llama3.1:8b"),
    ("bedrock:us.anthropic.claude-3-5-sonnet-20241022-v2:0", "bedrock", "us.anthropic.claude-3-5-sonnet-20241022-v2:0"),
    ("openrouter:anthropic/claude-3.5-sonnet", "openrouter", "anthropic/claude-3.5-sonnet"),
])
def test_promptfoo_provider_ids_with_an_api_type(pid: str, provider: str, model: str) -> None:
    from ctxviewer.importers.formats.promptfoo import provider_model

    assert provider_model(pid) == (provider, model)


def test_a_promptfoo_cache_hit_is_no_provider_prompt_caching(tmp_path: Path) -> None:
    """New user 2026-12-07 (#8): tokenUsage {cached: 40} of a row served from promptfoo's cache read
    'cached 40' (the provider's prompt caching) and an ordinary ok span."""
    doc: dict[str, Any] = {"evalId": "e1", "results": {"version": 3, "timestamp": "2025-01-01T00:00:00Z", "results": [
        {"id": "hit", "provider": {"id": "openai:chat:gpt-4o-mini"}, "prompt": {"raw": "Good morning"},
         "response": {"output": "おはよう", "cached": True, "tokenUsage": {"cached": 40, "total": 40}}, "latencyMs": 2}]}}
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    t = _load(p)[0][0]
    assert t.endpoint.model == "gpt-4o-mini"
    assert t.usage.cached_input_tokens is None and t.attributes["promptfoo.tokenUsage.cached"] == 40
    assert t.attributes["otel.status_message"] == "served from promptfoo's cache: no provider call was made for this row"
    from ctxviewer.assess.trace_header import span_line

    assert span_line(t).startswith("ok: served from promptfoo's cache: no provider call was made for this row")


def test_a_promptfoo_cache_hit_with_counts_is_not_priced(tmp_path: Path) -> None:
    """Review 2026-12-07: a cache hit recording prompt 1,000 / completion 200 was priced ($0.000270)
    beside "no provider call was made"."""
    doc: dict[str, Any] = {"evalId": "e1", "results": {"version": 3, "timestamp": "2025-01-01T00:00:00Z", "results": [
        {"id": "hit", "provider": {"id": "openai:chat:gpt-4o-mini"}, "prompt": {"raw": "hi"},
         "response": {"output": "hello", "cached": True, "tokenUsage": {"prompt": 1000, "completion": 200, "cached": 1200}}}]}}
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    t = _load(p)[0][0]
    assert (t.usage.input_tokens, t.usage.output_tokens) == (None, None)
    assert (t.attributes["promptfoo.tokenUsage.prompt"], t.attributes["promptfoo.tokenUsage.completion"]) == (1000, 200)
    from ctxviewer.assess.trace_header import cost_line

    assert cost_line(t) == "not known: usage not recorded"

