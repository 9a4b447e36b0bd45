"""LangChain image blocks in LangSmith runs (issue 21): every form LangChain writes -- OpenAI
``image_url`` data URLs, langchain-core 0.3 ``{type: image, source_type: base64, data}``, 1.0
``{type: image, base64}``, remote ``source_type: url`` -- is an image placeholder counted by the
model's image rule (never base64 text), the usage the AIMessage reports is kept, and a 3 MiB
image is one placeholder, not millions of text tokens.

Input: tests/data/langchain_images/runs.json (written by make_inputs.py beside it)."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

from factories import imported
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxviewer.importers import detect, load_records
from ctxviewer.importers.common.part_shapes import langchain_part

DATA = Path(__file__).resolve().parents[1] / "data" / "langchain_images"


_stored = imported


def test_every_langchain_image_form_is_an_image_counted_by_the_tile_rule(tmp_path: Path) -> None:
    t = _stored(tmp_path, DATA / "runs.json")["lc-images"]
    [msg] = t.items
    assert msg.content == ("What differs between these?\n[image/png blob, 48×36, 7,052 bytes base64]\n"
                           "[image/png blob, 600×400, 1,040 bytes base64]\n[image/png blob, 40×30, 4,932 bytes base64]\n"
                           "[image uri: https://example.com/chart.png]")
    # gpt-4o tiles (85 + 170 per 512 px tile): 255 + 85 + 170 * 2 + 255, the remote one at 1024x1024 assumed
    # (768 x 768 -> 4 tiles: 765), plus the text's 5 tokens
    assert msg.tokens == 255 + 425 + 255 + 765 + 5
    assert (t.usage.input_tokens, t.usage.output_tokens) == (1320, 6)  # the AIMessage's usage_metadata
    assert t.response is not None and t.response.text == "The second is larger."
    assert "ctxviewer.unmapped" not in t.attributes


def _png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


def test_a_3_mib_base64_image_is_one_placeholder(tmp_path: Path) -> None:
    """Issue 21: "a 3 MiB image counts as 3,005,672 text tokens". The speed is measured in
    benchmarks/bench_image_import.py (no timed assertion here)."""
    payload = base64.b64encode(_png_header(2048, 1536) + bytes(3 * 1024 * 1024)).decode()
    runs = json.loads((DATA / "runs.json").read_text())
    runs = [r for r in runs if r["id"] == "lc-images"]
    runs[0]["inputs"]["messages"][0][0]["kwargs"]["content"] = [
        {"type": "text", "text": "Describe."},
        {"type": "image", "source_type": "base64", "data": payload, "mime_type": "image/png"}]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(runs))
    [msg] = _stored(tmp_path, path)["lc-images"].items
    assert msg.content == f"Describe.\n[image/png blob, 2048×1536, {len(payload):,} bytes base64]"
    assert msg.tokens == 765 + 2  # 2048x1536 -> 1024x768 -> 2 x 2 tiles, and "Describe."


def test_langchain_blocks_map_to_parts() -> None:
    assert langchain_part({"type": "file", "source_type": "base64", "data": "JVBERi0=", "mime_type": "application/pdf"}) \
        == {"type": "blob", "modality": "document", "mime_type": "application/pdf", "content": "JVBERi0="}
    assert langchain_part({"type": "image", "file_id": "file-abc"}) == \
        {"type": "file", "modality": "image", "mime_type": None, "file_id": "file-abc"}
    assert langchain_part({"type": "image", "source_type": "id", "id": "file-x"})["file_id"] == "file-x"
    assert langchain_part({"type": "image", "url": "data:image/png;base64,iVBO"})["type"] == "blob"
    assert langchain_part({"type": "text-plain", "text": "notes"}) == {"type": "text", "content": "notes"}
    assert langchain_part({"type": "image", "source": {"type": "base64"}}) is None  # Anthropic's, not LangChain's
    assert langchain_part({"type": "file", "file": {"file_id": "f"}}) is None  # OpenAI's


@settings(max_examples=50)
@given(st.binary(min_size=1, max_size=2000), st.sampled_from(["v0.3", "v1", "data-url"]))
def test_no_base64_payload_reaches_the_item_text(data: bytes, form: str) -> None:
    b64 = base64.b64encode(data).decode()
    block: dict[str, Any] = {"v0.3": {"type": "image", "source_type": "base64", "data": b64, "mime_type": "image/png"},
                             "v1": {"type": "image", "base64": b64, "mime_type": "image/png"},
                             "data-url": {"type": "image", "url": f"data:image/png;base64,{b64}"}}[form]
    part = langchain_part(block)
    assert part is not None and part["type"] == "blob" and part["content"] == b64
    from ctxviewer.importers.common.messages import part_text
    assert part_text(part).startswith("[image/png blob") and (len(b64) < 12 or b64 not in part_text(part))


def test_records_load_without_problems() -> None:
    p = DATA / "runs.json"
    assert [type(r).__name__ for r in load_records(detect(p), p)] == ["RequestTrace", "RequestTrace"]
