"""Benchmark: importing one call holding a 3 MiB base64 image, per image form (issue 21: "a 3 MiB
image counts as 3,005,672 text tokens and takes 117 s to import").

Writes, for each form, a file with one model call whose message holds a text and one 2048×1536
PNG of 3 MiB (4.19 MB of base64): LangSmith runs with the LangChain blocks (langchain-core 0.3
``source_type: base64``, 1.0 ``base64``) and OpenAI ``image_url`` data URL, an OTel span with a
``blob`` part, and an Anthropic Messages request/response. Then per form, in this process:

* floor: ``json.loads`` of the file;
* import: ``ctxviewer.pipeline.importing.import_into`` into a new database, one worker (what
  ``ctxviewer import FILE -o DB -j 1`` runs), with the image placeholder and the item's tokens,
  after one warm-up import (loading the encodings is not the image's cost).

Prints seconds and the import as a ratio against the floor. Not a test: figures depend on the machine.

    python benchmarks/bench_image_import.py --dir /tmp/bench-image
"""

from __future__ import annotations

import argparse
import base64
import json
import struct
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def payload() -> str:
    """Base64 of a 2048×1536 PNG header followed by 3 MiB (the header is all the size reader needs)."""
    ihdr = struct.pack(">IIBBBBB", 2048, 1536, 8, 2, 0, 0, 0)
    head = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return base64.b64encode(head + bytes(range(256)) * (3 * 1024 * 1024 // 256)).decode()


def langsmith(block: dict[str, Any]) -> Any:
    human = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
             "kwargs": {"content": [{"type": "text", "text": "Describe."}, block], "type": "human"}}
    ai = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
          "kwargs": {"content": "A chart.", "usage_metadata": {"input_tokens": 770, "output_tokens": 3, "total_tokens": 773}}}
    return [{"id": "r1", "trace_id": "r1", "dotted_order": "20250301T100000000000Zr1", "run_type": "llm",
             "start_time": "2025-03-01T10:00:00", "end_time": "2025-03-01T10:00:02",
             "extra": {"metadata": {"ls_provider": "openai", "ls_model_name": "gpt-4o"}},
             "inputs": {"messages": [[human]]}, "outputs": {"generations": [[{"text": "A chart.", "message": ai}]]}}]


def otel(b64: str) -> Any:
    msgs = [{"role": "user", "parts": [{"type": "text", "content": "Describe."},
                                       {"type": "blob", "modality": "image", "mime_type": "image/png", "content": b64}]}]
    attrs = [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
             {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o"}},
             {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps(msgs)}}]
    span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "00000000000000a1", "name": "chat gpt-4o",
            "startTimeUnixNano": "1733220000000000000", "endTimeUnixNano": "1733220002000000000", "attributes": attrs}
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


def anthropic(b64: str) -> Any:
    return {"request": {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "Describe."},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64}}]}]},
        "response": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "A chart."}], "stop_reason": "end_turn",
                     "usage": {"input_tokens": 1600, "output_tokens": 3}}}


def main() -> None:
    from ctxviewer.pipeline.importing import import_into
    from ctxviewer.store import TraceStore

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=None, help="where to write the files (default: a temporary folder)")
    args = ap.parse_args()
    folder = Path(args.dir or tempfile.mkdtemp(prefix="bench-image-"))
    folder.mkdir(parents=True, exist_ok=True)
    b64 = payload()
    forms = {
        "langchain 0.3 source_type base64": langsmith({"type": "image", "source_type": "base64", "data": b64,
                                                        "mime_type": "image/png"}),
        "langchain 1.0 base64": langsmith({"type": "image", "base64": b64, "mime_type": "image/png"}),
        "openai image_url data URL (langsmith)": langsmith({"type": "image_url",
                                                            "image_url": {"url": f"data:image/png;base64,{b64}"}}),
        "otel blob part": otel(b64),
        "anthropic base64 source (provider-api)": anthropic(b64),
    }
    print(f"image: 2048x1536 PNG, {len(b64) * 3 // 4 / 1024 / 1024:.1f} MiB, {len(b64):,} base64 characters")
    print(f"{'form':42} {'floor s':>8} {'import s':>9} {'ratio':>7}  item")
    warm = folder / "warm-up.json"  # the first import loads the encodings and the checks: not the image's cost
    warm.write_text(json.dumps(forms["otel blob part"]), encoding="utf-8")
    (folder / "warm-up.db").unlink(missing_ok=True)
    import_into(folder / "warm-up.db", [warm], workers=1)
    for i, (name, doc) in enumerate(forms.items()):
        path = folder / f"image-{i}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        t0 = time.perf_counter()
        json.loads(path.read_text(encoding="utf-8"))
        floor = time.perf_counter() - t0
        db = folder / f"image-{i}.db"
        db.unlink(missing_ok=True)
        t0 = time.perf_counter()
        import_into(db, [path], workers=1)
        took = time.perf_counter() - t0
        with TraceStore.open(db) as store:
            [row] = store.list()
            item = store.load(row.trace_id).items[0]
        print(f"{name:42} {floor:8.3f} {took:9.3f} {took / floor:7.1f}  {item.tokens} tokens: {item.content!r}")


if __name__ == "__main__":
    main()
