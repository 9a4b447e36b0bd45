"""Writes runs.json: the golden input of tests/importers/test_langchain_images.py.

LangSmith ``llm`` runs as the LangChain tracer records a chat model call (``inputs.messages`` a
batch of serialised messages, ``outputs.generations`` with the ``AIMessage`` holding
``usage_metadata``; ``llm_output`` without token usage, as ChatGoogleGenerativeAI and
ChatAnthropic write it):

* run ``lc-images`` (ChatOpenAI gpt-4o): one HumanMessage whose content holds the image forms
  LangChain writes -- OpenAI ``image_url`` with a ``data:`` URL, langchain-core 0.3
  ``{type: image, source_type: base64, data, mime_type}``, langchain-core 1.0
  ``{type: image, base64, mime_type}``, and a remote ``{type: image, source_type: url, url}``;
* run ``lc-gemini`` (ChatGoogleGenerativeAI gemini-2.5-flash): usage whose thinking tokens are only
  in ``total_tokens`` (input 210, output 312, total 834).

Run ``python tests/data/langchain_images/make_inputs.py`` to rewrite it (deterministic).
"""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from pathlib import Path
from typing import Any


def png(w: int, h: int, seed: int) -> bytes:
    """A ``w`` x ``h`` RGB PNG: noise for a small one, one colour (a few hundred bytes) for a large one."""
    rnd = random.Random(seed)
    row = (lambda: bytes(rnd.randrange(256) for _ in range(w * 3))) if w * h <= 4096 else (lambda: bytes(w * 3))
    raw = b"".join(b"\0" + row() for _ in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def lc(cls: str, **kwargs: Any) -> dict[str, Any]:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", cls], "kwargs": kwargs}


def run(rid: str, model: str, provider: str, content: Any, answer: str, usage: dict[str, Any]) -> dict[str, Any]:
    ai = lc("AIMessage", content=answer, type="ai", usage_metadata=usage, tool_calls=[], invalid_tool_calls=[])
    return {"id": rid, "trace_id": rid, "dotted_order": f"20250301T100000000000Z{rid}", "name": "chat",
            "run_type": "llm", "start_time": "2025-03-01T10:00:00.000000", "end_time": "2025-03-01T10:00:02.000000",
            "extra": {"metadata": {"ls_provider": provider, "ls_model_name": model, "ls_model_type": "chat"}},
            "inputs": {"messages": [[lc("HumanMessage", content=content, type="human")]]},
            "outputs": {"generations": [[{"text": answer, "generation_info": {"finish_reason": "stop"},
                                          "type": "ChatGeneration", "message": ai}]],
                        "llm_output": {}, "run": None, "type": "LLMResult"}}


def main() -> None:
    a, b, c = (base64.b64encode(png(w, h, i)).decode() for i, (w, h) in enumerate([(48, 36), (600, 400), (40, 30)]))
    content = [{"type": "text", "text": "What differs between these?"},
               {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{a}"}},
               {"type": "image", "source_type": "base64", "data": b, "mime_type": "image/png"},
               {"type": "image", "base64": c, "mime_type": "image/png"},
               {"type": "image", "source_type": "url", "url": "https://example.com/chart.png"}]
    runs = [run("lc-images", "gpt-4o", "openai", content, "The second is larger.",
                {"input_tokens": 1320, "output_tokens": 6, "total_tokens": 1326}),
            run("lc-gemini", "gemini-2.5-flash", "google_genai", "Plan a trip to Kyoto.", "Day 1: ...",
                {"input_tokens": 210, "output_tokens": 312, "total_tokens": 834})]
    Path(__file__).with_name("runs.json").write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
