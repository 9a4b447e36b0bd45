"""Inspect AI eval logs (ctxviewer.importers.formats.inspect_ai): the three corpus logs with their real
values, and a ``.eval`` zip whose sample member is zstd-compressed (method 93)."""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from datetime import datetime, timezone
from pathlib import Path

import zstandard

from ctxviewer.importers import ImportProblem, detect
from ctxviewer.model.trace import RequestTrace

CORPUS = "corpus/other/inspect_ai"


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(detect(path).load(path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def test_browser_agent_log(shared: Path) -> None:
    path = shared / CORPUS / "inspect-browser-tools-gpt-4o-mini.json"
    assert detect(path).name == "inspect_ai"
    traces, problems = _load(path)
    assert problems == []
    assert [t.trace_id for t in traces] == [f"ZB2vu5GNujYaBdPSReCeop/1/1/{n}" for n in range(5)]
    assert {(t.endpoint.provider, t.endpoint.model) for t in traces} == {("openai", "gpt-4o-mini")}
    assert [(t.usage.input_tokens, t.usage.output_tokens, t.usage.cached_input_tokens) for t in traces] == [
        (1124, 23, 0), (1568, 17, 1024), (2732, 17, 1536), (3896, 17, 2688), (5915, 207, 3840)]
    assert [len([i for i in t.items if i.kind.value == "history"]) for t in traces] == [0, 2, 4, 6, 8]
    tools = [i.id for i in traces[0].items if i.kind.value == "tool"]
    assert tools == ["web_browser_go", "web_browser_click", "web_browser_type_submit", "web_browser_type",
                     "web_browser_scroll", "web_browser_back", "web_browser_forward", "web_browser_refresh"]
    assert [[(c.name, c.arguments, c.id) for c in t.tool_calls] for t in traces[:2]] == [
        [("web_browser_go", '{"url":"https://www.aisi.gov.uk/"}', "call_35FTpd6shR9efioDgeEBZ33s")],
        [("web_browser_click", '{"element_id":151}', "call_O6fzXOPUvPtYflWdOH94RTWy")]]
    last = traces[-1]
    assert last.response is not None and last.response.finish_reason == "stop"
    assert last.response.text.startswith("The AI Security Institute (AISI) is the premier governmental organization")
    # attachment:// indirection resolved: the tool result is page text, not a reference
    assert traces[1].items[2].content.startswith('[132] link "We are now the AI Security Institute"')
    assert traces[0].created == datetime(2025, 5, 13, 0, 27, 38, 462180, tzinfo=timezone.utc)
    assert traces[0].session_id == "ATYFNjyWUz4mZ5Dgj6yd4f"


def test_image_log(shared: Path) -> None:
    traces, problems = _load(shared / CORPUS / "inspect-log-images.json")
    assert problems == [] and len(traces) == 1
    t = traces[0]
    assert [(i.kind.value, i.role) for i in t.items] == [("policy", "system"), ("user", "user")]
    assert t.items[1].content == "What is this a picture of?\n[image/png blob, 34×30, 8,528 bytes base64]"
    assert (t.usage.input_tokens, t.usage.output_tokens) == (323, 3)
    assert t.response is not None and (t.response.text, t.response.model) == ("[Abstract]", "gpt-4o-2024-08-06")


def test_eval_zip(shared: Path) -> None:
    path = shared / CORPUS / "inspect-log-read-sample.eval"
    assert detect(path).name == "inspect_ai"
    traces, problems = _load(path)
    assert problems == [] and len(traces) == 1
    t = traces[0]
    assert (t.endpoint.provider, t.endpoint.model, t.trace_id) == ("ollama", "gemma3", "C3pqnFnsCUx6ZpmsRU9Ape/1/1/0")
    assert [(i.kind.value, i.role) for i in t.items] == [("policy", "system"), ("user", "user")]
    assert t.items[1].content.startswith("Is the following statement something you would say?")
    assert (t.usage.input_tokens, t.usage.output_tokens) == (66, 3)
    assert t.response is not None and (t.response.text, t.response.id) == ("Yes\n", "chatcmpl-684")


def _zstd_eval(tmp_path: Path) -> Path:
    sample = {"id": "s1", "epoch": 1, "attachments": {"h1": "Long system text."}, "messages": [
        {"role": "system", "content": "attachment://h1"}, {"role": "user", "content": "Q?"},
        {"role": "assistant", "content": [{"type": "reasoning", "reasoning": "", "redacted": True, "signature": "sig"},
                                          {"type": "text", "text": "A."}]}],
        "events": [{"event": "model", "model": "anthropic/claude-x", "input_refs": [[0, 2]], "tools": [],
                    "timestamp": "2025-01-01T00:00:00Z", "completed": "2025-01-01T00:00:01.25Z",
                    "output": {"model": "claude-x-1", "choices": [{"message": {"role": "assistant", "content": "A."},
                                                                   "stop_reason": "stop"}],
                               "usage": {"input_tokens": 10, "output_tokens": 2, "input_tokens_cache_read": 100,
                                         "input_tokens_cache_write": 20}}}]}
    raw = json.dumps(sample).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("header.json", json.dumps({"version": 2, "eval": {"eval_id": "E", "model": "anthropic/claude-x"}}))
        zf.writestr("samples/s1_epoch_1.json", zstandard.ZstdCompressor().compress(raw))
    data = bytearray(buf.getvalue())
    name = b"samples/s1_epoch_1.json"
    for sig, method_at, crc_at, size_at in ((b"PK\x03\x04", 8, 14, 22), (b"PK\x01\x02", 10, 16, 24)):
        pos = 0
        while (pos := data.find(sig, pos)) >= 0:
            name_at = pos + (30 if sig == b"PK\x03\x04" else 46)
            if data[name_at:name_at + len(name)] == name:
                struct.pack_into("<H", data, pos + method_at, 93)
                struct.pack_into("<I", data, pos + crc_at, zlib.crc32(raw))
                struct.pack_into("<I", data, pos + size_at, len(raw))
            pos += 4
    p = tmp_path / "log.eval"
    p.write_bytes(bytes(data))
    return p


def test_zstd_member_and_input_refs(tmp_path: Path) -> None:
    p = _zstd_eval(tmp_path)
    assert zipfile.ZipFile(p).getinfo("samples/s1_epoch_1.json").compress_type == 93
    traces, problems = _load(p)
    assert problems == [] and len(traces) == 1
    t = traces[0]
    assert [(i.kind.value, i.content) for i in t.items] == [("policy", "Long system text."), ("user", "Q?")]
    # Anthropic through Inspect: input_tokens excludes the cache, so input = 10 + 100 + 20
    assert (t.usage.input_tokens, t.usage.cached_input_tokens, t.usage.cache_creation_input_tokens) == (130, 100, 20)
    assert t.attributes["ctxviewer.duration_ms"] == 1250.0
