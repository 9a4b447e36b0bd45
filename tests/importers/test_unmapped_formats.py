"""The account of every field for the formats that record whole exchanges or ctxviewer's own
records (provider-api, cassette, native, ctxviewer-otlp, langfuse-chatml): each golden input of
tests/data/unmapped names exactly the keys not mapped, and keeps what it maps."""

from __future__ import annotations

import json
from pathlib import Path

from ctxviewer.importers import ImportProblem, detect, load_records
from ctxviewer.model.trace import RequestTrace

DATA = Path(__file__).resolve().parents[1] / "data" / "unmapped"


def _one(path: Path, fmt: str) -> RequestTrace:
    importer = detect(path)
    assert importer is not None and importer.name == fmt
    records = list(load_records(importer, path))
    assert [r.message for r in records if isinstance(r, ImportProblem)] == []
    [trace] = [r for r in records if isinstance(r, RequestTrace)]
    return trace


def test_provider_api_names_unread_response_keys_and_keeps_request_parameters() -> None:
    t = _one(DATA / "openai-chat.exchange.json", "provider-api")
    assert list(t.attributes["ctxviewer.unmapped"]) == [
        "http.response.status.message", "response.obfuscation",
        "response.usage.completion_tokens_details.accepted_prediction_tokens"]  # the zero counts carry nothing
    a = t.attributes
    assert (a["gen_ai.request.temperature"], a["gen_ai.request.choice.count"], a["gen_ai.request.logprobs"],
            dict(a["gen_ai.request.response_format"]), a["gen_ai.request.x_vendor_flag"]) == (
        0.2, 1, True, {"type": "json_object"}, "on")
    assert (a["gen_ai.response.system_fingerprint"], a["gen_ai.response.service_tier"], t.user_id) == (
        "fp_44709d6fcb", "default", "user-7")
    assert "gen_ai.request.user" not in a


def test_cassette_names_headers_status_phrase_and_unread_usage() -> None:
    t = _one(DATA / "anthropic.vcr.yaml", "cassette")
    assert list(t.attributes["ctxviewer.unmapped"]) == [
        "http.request.headers", "http.response.headers", "http.response.status.message",
        "response.usage.server_tool_use"]
    assert (t.user_id, t.attributes["gen_ai.request.top_k"], dict(t.attributes["gen_ai.request.metadata"])) == (
        "user-9", 5, {"user_id": "user-9"})
    assert "DUMMY" not in json.dumps(dict(t.attributes))  # headers are named, never imported


def test_responses_api_echoed_settings_equal_to_the_request_are_read(tmp_path: Path) -> None:
    req = {"model": "gpt-5", "input": "Hi", "temperature": 0.5, "text": {"format": {"type": "text"}}}
    resp = {"id": "resp_1", "object": "response", "created_at": 1735689600, "completed_at": 1735689602,
            "status": "completed", "model": "gpt-5", "temperature": 0.5, "top_p": 1.0, "text": {"format": {"type": "text"}},
            "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello"}]}],
            "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}
    p = tmp_path / "r.json"
    p.write_text(json.dumps({"request": req, "response": resp}))
    t = _one(p, "provider-api")
    assert list(t.attributes["ctxviewer.unmapped"]) == ["response.top_p"]  # a default the request did not send
    assert t.attributes["ctxviewer.duration_ms"] == 2000  # completed_at is the end


def test_native_names_keys_the_model_does_not_know_and_keeps_the_first_imports_list() -> None:
    t = _one(DATA / "native.jsonl", "native")
    assert list(t.attributes["ctxviewer.unmapped"]) == [
        "colour", "endpoint.region", "extra.runtime", "items.N.score", "items.N.source.page", "usage.audio_tokens"]
    assert dict(t.attributes["anything"]) == {"goes": 1}  # attributes are free-form: never walked


def test_ctxviewer_otlp_names_span_attributes_it_did_not_write(tmp_path: Path) -> None:
    from ctxviewer.report.export_otlp import export_request

    [line] = (DATA / "native.jsonl").read_text().splitlines()
    src = json.loads(line)
    src.pop("colour")
    doc = export_request([_trace_of(src)])
    span = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["attributes"].append({"key": "collector.hop", "value": {"stringValue": "eu-1"}})
    p = tmp_path / "export.otlp.json"
    p.write_text(json.dumps(doc))
    t = _one(p, "ctxviewer-otlp")
    assert list(t.attributes["ctxviewer.unmapped"]) == ["extra.runtime", "span.collector.hop"]


def _trace_of(record: dict[str, object]) -> RequestTrace:
    from ctxviewer.model.serialize import trace_from_dict

    return trace_from_dict(record)


def test_langfuse_chatml_names_entry_and_message_keys_not_read() -> None:
    t = _one(DATA / "chatml.expected-chatml.json", "langfuse-chatml")
    assert list(t.attributes["ctxviewer.unmapped"]) == ["input.data.N.x_ref", "note"]
