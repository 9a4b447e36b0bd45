"""Writes logfire-cuts.otlp.json: the golden input of tests/importers/test_exporter_cut.py.

Two chat spans in OTLP/JSON as the Logfire SDK exports them (semconv ``gen_ai.input.messages``):

* span ...b1: a user message holding two PNG images (48x36 and 36x48, noise so the base64 is long),
  its JSON text shortened by Logfire's ``truncate_string`` rule (pydantic/logfire
  ``logfire/_internal/utils.py``: keep ``(max_length - 3) // 2`` characters from each end, ``...``
  between), which still parses: one blob part whose base64 is the head of image 1 and the tail
  of image 2;
* span ...b2: an answer Logfire's backend shortened (``logfire.truncated`` lists
  ``gen_ai.output.messages``; the text itself shows no marker).

Run ``python tests/data/truncation/make_inputs.py`` to rewrite it (deterministic).
"""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from pathlib import Path


def png(w: int, h: int, seed: int) -> bytes:
    rnd = random.Random(seed)
    raw = b"".join(b"\0" + bytes(rnd.randrange(256) for _ in range(w * 3)) for _ in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b""))


def logfire_cut(s: str, max_length: int) -> str:
    half = (max_length - 3) // 2
    return s if len(s) <= max_length else s[:half] + "..." + s[-half:]


def s(v: str) -> dict[str, str]:
    return {"stringValue": v}


def kv(k: str, v: dict[str, object]) -> dict[str, object]:
    return {"key": k, "value": v}


def span(sid: str, attrs: list[dict[str, object]]) -> dict[str, object]:
    return {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": sid, "name": "chat gpt-4o",
            "kind": 3, "startTimeUnixNano": "1733220000000000000", "endTimeUnixNano": "1733220002000000000",
            "attributes": attrs, "status": {}}


def main() -> None:
    a, b = (base64.b64encode(png(48, 36, 1)).decode(), base64.b64encode(png(36, 48, 2)).decode())
    msgs = [{"role": "user", "parts": [
        {"type": "text", "content": "Compare these two charts."},
        {"type": "blob", "modality": "image", "mime_type": "image/png", "content": a},
        {"type": "text", "content": "The second one is from March."},
        {"type": "blob", "modality": "image", "mime_type": "image/png", "content": b}]}]
    text = json.dumps(msgs, separators=(",", ":"))
    cut = logfire_cut(text, max_length=len(text) - len(a) // 2 - len(b) // 2)
    json.loads(cut)  # still parses
    common = [kv("gen_ai.operation.name", s("chat")), kv("gen_ai.provider.name", s("openai")),
              kv("gen_ai.request.model", s("gpt-4o"))]
    one = span("00000000000000b1", [*common, kv("gen_ai.input.messages", s(cut)),
                                    kv("gen_ai.usage.input_tokens", {"intValue": "1130"}),
                                    kv("gen_ai.usage.output_tokens", {"intValue": "9"})])
    out = [{"role": "assistant", "parts": [{"type": "text", "content": "Sales rose in March, then"}],
            "finish_reason": "stop"}]
    two = span("00000000000000b2", [
        *common, kv("gen_ai.input.messages", s('[{"role":"user","parts":[{"type":"text","content":"Summarise Q1."}]}]')),
        kv("gen_ai.output.messages", s(json.dumps(out))),
        kv("logfire.truncated", {"arrayValue": {"values": [s("gen_ai.output.messages")]}})])
    doc = {"resourceSpans": [{"resource": {"attributes": [kv("service.name", s("charts"))]},
                              "scopeSpans": [{"scope": {"name": "logfire"}, "spans": [one, two]}]}]}
    Path(__file__).with_name("logfire-cuts.otlp.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
