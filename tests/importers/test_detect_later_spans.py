"""Detection reads records until it can decide: an OTel console-exporter file (pretty-printed span
objects one after another) whose first span is not a GenAI span is still recognised as otel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.importers import ImportFailed, detect, load_records
from ctxviewer.model.trace import RequestTrace

CTX = {"trace_id": "0x" + "1" * 32, "trace_state": "[]"}


def _span(name: str, span_id: str, attrs: dict[str, object], parent: str | None = None) -> dict[str, object]:
    return {"name": name, "context": dict(CTX, span_id="0x" + span_id), "kind": "SpanKind.INTERNAL",
            "parent_id": parent, "start_time": "2025-01-01T00:00:00.000000Z", "end_time": "2025-01-01T00:00:01.000000Z",
            "status": {"status_code": "UNSET"}, "attributes": attrs, "events": [], "links": [],
            "resource": {"attributes": {"service.name": "app"}, "schema_url": ""}}


def test_console_exporter_file_whose_first_span_is_not_genai(tmp_path: Path) -> None:
    first = _span("workflow.build", "a" * 16, {"workflow.step": "build"})
    chat = _span("chat gpt-4o-mini", "b" * 16, {
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 12,
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}])},
        parent="0x" + "a" * 16)
    p = tmp_path / "console.json"
    p.write_text(json.dumps(first, indent=4) + "\n" + json.dumps(chat, indent=4) + "\n")
    imp = detect(p)
    assert imp.name == "otel"
    [t] = [r for r in load_records(imp, p) if isinstance(r, RequestTrace)]
    assert (t.endpoint.model, t.user_request, t.usage.input_tokens) == ("gpt-4o-mini", "Hi", 12)


def test_console_file_with_no_genai_span_is_still_not_recognised(tmp_path: Path) -> None:
    p = tmp_path / "plain.json"
    p.write_text(json.dumps(_span("a", "a" * 16, {"x": 1}), indent=4) + "\n" + json.dumps(_span("b", "b" * 16, {}), indent=4))
    with pytest.raises(ImportFailed, match="not a recognised trace file"):
        detect(p)
