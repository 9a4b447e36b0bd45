"""A LiteLLM StandardLoggingPayload with fields in shapes that cannot be read names each field
(new user nu2 #8: it imported as "ok" with only OpenTelemetry's "content not captured"), and a
failed call's zero counts are not provider-reported usage (nu2 #11: "input 0 · output 0, $0.000000")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxviewer.assess.trace_header import header_rows
from ctxviewer.importers import ImportProblem, get_importer
from ctxviewer.model.trace import RequestTrace


def _payload(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"id": "p1", "call_type": "acompletion", "model": "gpt-4o", "custom_llm_provider": "openai",
                            "status": "success", "messages": [{"role": "user", "content": "Hello"}],
                            "model_parameters": {}, "prompt_tokens": 8, "completion_tokens": 2,
                            "response": {"id": "chatcmpl-1", "model": "gpt-4o", "choices": [
                                {"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}]}}
    base.update(kw)
    return base


def _load(tmp_path: Path, payload: dict[str, Any]) -> tuple[RequestTrace, list[str]]:
    path = tmp_path / "payloads.json"
    path.write_text(json.dumps([payload]), encoding="utf-8")
    records = list(get_importer("litellm").load(path))
    (trace,) = [r for r in records if isinstance(r, RequestTrace)]
    return trace, [p.message for p in records if isinstance(p, ImportProblem)]


def test_each_unreadable_field_is_named(tmp_path: Path) -> None:
    trace, problems = _load(tmp_path, _payload(messages="not a list", prompt_tokens="lots",
                                               response={"id": "r", "choices": "x"}))
    assert problems == [
        "messages: expected a list of messages, got the text 'not a list'; the request's messages are not recorded",
        "response.choices: expected a list, got the text 'x'; the response is not recorded",
        "prompt_tokens: 'lots' is not a token count; shown as not recorded"]
    assert dict(header_rows(trace))["Content"] == "not captured: messages: recorded but not readable as messages"
    assert trace.usage.input_tokens is None and trace.usage.output_tokens == 2


def test_a_failed_calls_zero_counts_are_not_recorded_usage(tmp_path: Path) -> None:
    trace, _ = _load(tmp_path, _payload(status="failure", error_str="litellm.RateLimitError: 429", prompt_tokens=0,
                                        completion_tokens=0, response=None))
    assert (trace.usage.input_tokens, trace.usage.output_tokens) == (None, None)
    assert (trace.attributes["litellm.prompt_tokens"], trace.attributes["litellm.completion_tokens"]) == (0, 0)
    assert dict(header_rows(trace))["Cost"] == "not known: usage not recorded"
    ok, _ = _load(tmp_path, _payload(prompt_tokens=0, completion_tokens=0, response=None))  # a success keeps its counts
    assert (ok.usage.input_tokens, ok.usage.output_tokens) == (0, 0)
