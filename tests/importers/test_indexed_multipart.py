"""OpenLLMetry's legacy indexed prompt holding the JSON of an OpenAI content array (text + a
base64 image): each block its own part, the image counted as an image, not as 270,000 tokens of
base64 text (new user 2026-12-07, F13: "failure: over capacity by 145,306 tokens" for a call the
provider counted at 780)."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

from click.testing import CliRunner
from otlp_factories import i, otlp_request, otlp_span, s

from ctxviewer.cli import cli
from ctxviewer.importers.common.messages import indexed_messages


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + b"\x00" * 3 * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


URL = "data:image/png;base64," + base64.b64encode(_png(1024, 1024)).decode()
CONTENT = json.dumps([{"type": "text", "text": "What is in this image?"},
                      {"type": "image_url", "image_url": {"url": URL}}])


def test_the_content_array_is_parts() -> None:
    [msg] = indexed_messages({"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": CONTENT}, "gen_ai.prompt")
    assert [p["type"] for p in msg["parts"]] == ["text", "blob"]
    assert msg["parts"][0]["content"] == "What is in this image?"
    # plain text, and JSON that is not a list of typed blocks, stay text
    for text in ("hello", '[1, 2]', '[{"a": 1}]', "[{not json"):
        [m] = indexed_messages({"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": text}, "gen_ai.prompt")
        assert m["parts"] == [{"type": "text", "content": text}]


def test_the_image_is_counted_as_an_image(tmp_path: Path) -> None:
    span = otlp_span(end="1700000001000000000", **{"gen_ai.system": s("openai"), "gen_ai.request.model": s("gpt-4o"),
                        "gen_ai.prompt.0.role": s("user"), "gen_ai.prompt.0.content": s(CONTENT),
                        "gen_ai.completion.0.role": s("assistant"), "gen_ai.completion.0.content": s("A black square."),
                        "gen_ai.usage.prompt_tokens": i(780), "gen_ai.usage.completion_tokens": i(4)})
    f = tmp_path / "mm.otlp.json"
    f.write_text(json.dumps(otlp_request(span)))
    db = tmp_path / "mm.db"
    assert CliRunner().invoke(cli, ["import", str(f), "-o", str(db)]).exit_code == 0
    [row] = json.loads(CliRunner().invoke(cli, ["list", str(db), "--json"]).output)
    assert (row["input_tokens"], row["state"]) == (771, "ok")  # 6 text + 765 for a 1024x1024 image (scaled to 768: 85 + 170 x 4 tiles)


def test_a_text_part_holding_a_stringified_content_array_with_an_image_is_its_parts() -> None:
    """The same array written into one OTel text part (f2 of the new user's multimodal.otlp.json:
    "over capacity by 2,603,187 tokens"); an array of text blocks only stays text."""
    from ctxviewer.importers.common.messages import normalise_message

    msg = normalise_message({"role": "user", "parts": [{"type": "text", "content": CONTENT}]})
    assert [p["type"] for p in msg["parts"]] == ["text", "blob"]
    text_only = json.dumps([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    assert normalise_message({"role": "user", "parts": [{"type": "text", "content": text_only}]})["parts"] == [
        {"type": "text", "content": text_only}]


def test_parts_that_are_no_list_are_kept_as_one_part() -> None:
    """New user 2026-12-07 (#14): ``"parts": "not a list"`` became an empty user message of 0 tokens."""
    from ctxviewer.importers.common.messages import normalise_message

    assert normalise_message({"role": "user", "parts": "not a list"})["parts"] == [
        {"type": "text", "content": "not a list"}]
    assert normalise_message({"role": "user", "parts": {"type": "text", "content": "one part"}})["parts"] == [
        {"type": "text", "content": "one part"}]
    assert normalise_message({"role": "user", "parts": None})["parts"] == []
