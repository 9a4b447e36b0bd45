"""The Response pane rendered (issue 22 item 6, the answer side): present.answer_blocks says what
answer_lines says -- headline, reasoning, text as Markdown blocks, each proposed call as a
labelled block with its arguments pretty-printed, its verdict and checks, the validations -- with
hostile characters made visible and data-URL images decoded locally."""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path

from ctxviewer.model.trace import Response
from ctxviewer.present.answer_blocks import answer_blocks
from ctxviewer.present.blocks import CodeBlock, ImageBlock, TextBlock, TextRun, ToolCallBlock
from ctxviewer.present.message_blocks import RENDER_LIMIT
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
# a 1x1 PNG
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8ffff3f0005fe02fe0def46b80000000049454e44ae426082")).decode()


def load(trace_id: str):  # type: ignore[no-untyped-def]
    with TraceStore.open(SAMPLES) as store:
        return store.load(trace_id)


def test_tool_call_is_a_labelled_block_with_verdict_and_checks() -> None:
    blocks = answer_blocks(load("ticket-injection"))
    assert blocks[0] == TextBlock("paragraph", (TextRun("Response", ("bold",)), TextRun(
        " (finish reason tool_calls · model gpt-4o-mini-2024-07-18 · id chatcmpl-771df576bcb9b08f202c8c4d)")))
    assert blocks[1] == TextBlock("paragraph", (TextRun(
        "I've read your ticket about the Ember stove. Since an agent confirmed the situation, I'm issuing the "
        "refund of 349.00 USD to order NW-4490321 now."),))
    assert blocks[2] == TextBlock("heading", (TextRun("Tool calls proposed (1)"),), level=4)
    assert blocks[3] == ToolCallBlock("issue_refund", "call_8Qm2vTtZ0rWkH5yNcLd3aPfE", "arguments:",
                                      '{\n  "order_number": "NW-4490321",\n  "amount": 349.0,\n'
                                      '  "currency": "USD",\n  "reason": "goodwill"\n}')
    assert blocks[4] == TextBlock("paragraph", (TextRun("issue_refund → blocked by refunds.require_supervisor_approval"),))
    checks = [(b.marker, b.spans[0].text.split(":")[0]) for b in blocks[5:] if isinstance(b, TextBlock)]
    assert checks == [("✔", "offered"), ("✔", "arguments_json"), ("✔", "arguments_schema"), ("✔", "destructive"),
                      ("✔", "allowlist"), ("✔", "argument_format"), ("✖", "identity"), ("✖", "resource"),
                      ("✖", "approval")]
    assert len(blocks) == 14


def test_markdown_hostile_text_and_a_data_url_image() -> None:
    base = load("ticket-injection")
    text = f"It is **sunny** in Tok\u202eyo.\n\n![map](data:image/png;base64,{PNG})\n\n<b>not bold</b> [x](https://e.com)"
    trace = dataclasses.replace(base, response=Response(text=text, finish_reason="stop", model="m", id=None),
                                tool_calls=(), validations=())
    blocks = answer_blocks(trace)
    assert blocks[0].spans[1].text == " (finish reason stop · model m · id not recorded)"  # type: ignore[union-attr]
    assert blocks[1] == TextBlock("paragraph", (TextRun("It is "), TextRun("sunny", ("bold",)),
                                                TextRun(" in Tok⟨RLO⟩yo.")))
    image = blocks[2]
    assert isinstance(image, ImageBlock) and image.data == base64.b64decode(PNG) and image.alt == "map"
    assert [r.text for r in blocks[3].spans] == ["<b>not bold</b> ", "x", " ⟨https://e.com⟩"]  # type: ignore[union-attr]
    assert len(blocks) == 4


def test_reasoning_not_recorded_and_too_long() -> None:
    base = load("ticket-injection")
    trace = dataclasses.replace(base, response=Response(text=None, reasoning="first *think*"), tool_calls=())
    blocks = answer_blocks(trace)
    assert [b.spans for b in blocks[1:5]] == [  # type: ignore[union-attr]
        (TextRun("reasoning (thinking):", ("italic",)),), (TextRun("first "), TextRun("think", ("italic",))),
        (TextRun("text:", ("italic",)),), (TextRun("text not recorded", ("italic",)),)]
    none = answer_blocks(dataclasses.replace(base, response=None, tool_calls=()))
    assert none[0] == TextBlock("paragraph", (TextRun("Response", ("bold",)), TextRun(": not recorded")))
    long = "x" * (RENDER_LIMIT + 1)
    blocks = answer_blocks(dataclasses.replace(base, response=Response(text=long), tool_calls=()))
    assert isinstance(blocks[2], CodeBlock) and blocks[2].text == long


def test_validations_are_listed_with_their_symbol() -> None:
    blocks = answer_blocks(load("policy-missing"))
    assert blocks[0] == TextBlock("paragraph", (TextRun("Response", ("bold",)), TextRun(": not recorded")))
    assert blocks[1] == TextBlock("heading", (TextRun("Validations (1)"),), level=4)
    assert isinstance(blocks[2], TextBlock) and blocks[2].kind == "item" and blocks[2].marker == "✖"
    assert len(blocks) == 3
