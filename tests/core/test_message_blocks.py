"""Rendered messages in the core: Markdown from a sanitised subset, tool calls and results as
labelled blocks, images from data URLs and the recorded request, hostile text made visible
(ctxviewer.present.message_blocks, markdown_blocks, message_images). Exact block lists."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxviewer.pipeline.importing import import_files
from ctxviewer.present.blocks import (
    CodeBlock,
    ImageBlock,
    TableBlock,
    TextBlock,
    TextRun,
    ToolCallBlock,
    ToolResultBlock,
)
from ctxviewer.present.markdown_blocks import markdown_blocks
from ctxviewer.present.message_blocks import ToolLink, message_blocks, tool_links
from ctxviewer.present.message_images import MAX_IMAGE_BYTES, base64_image, data_url_image, recorded_images
from ctxviewer.store import TraceStore
from ctxviewer.util.visible import needs_reveal

PNG_1X1 = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def test_markdown_subset_exact_blocks() -> None:
    text = ("# Title *x*\n\n- a **b** `c`\n  - nested\n3. three\n\n> quoted ~~gone~~\n\n"
            "```py\nx = 1\n```\n\n| h1 | h2 |\n|----|----|\n| 1 | 2 |\n\n---\n")
    assert markdown_blocks(text) == [
        TextBlock("heading", (TextRun("Title "), TextRun("x", ("italic",))), 1),
        TextBlock("item", (TextRun("a "), TextRun("b", ("bold",)), TextRun(" "), TextRun("c", ("code",))), 1, "•"),
        TextBlock("item", (TextRun("nested"),), 2, "•"),
        TextBlock("item", (TextRun("three"),), 1, "3."),
        TextBlock("paragraph", (TextRun("quoted "), TextRun("gone", ("strike",))), quote=1),
        CodeBlock("x = 1", "py"),
        TableBlock(((TextRun("h1"),), (TextRun("h2"),)), (((TextRun("1"),), (TextRun("2"),)),)),
        TextBlock("rule", ()),
    ]


def test_raw_html_stays_literal_text_and_links_show_their_url() -> None:
    blocks = markdown_blocks('<b>bold?</b> <img src="http://evil.example/x.png"> [docs](https://e.com/a) '
                             "<https://auto.example> [js](javascript:alert(1))\n\n<div>block</div>")
    assert blocks == [
        TextBlock("paragraph", (
            TextRun('<b>bold?</b> <img src="http://evil.example/x.png"> '),
            TextRun("docs", ("link",)), TextRun(" ⟨https://e.com/a⟩", ("url",)), TextRun(" "),
            TextRun("https://auto.example", ("link",)),  # an autolink shows its URL once
            TextRun(" [js](javascript:alert(1))"),  # an unsafe scheme is not a link at all
        )),
        TextBlock("paragraph", (TextRun("<div>block</div>"),)),
    ]


def test_remote_image_is_never_fetched_and_a_data_url_is_decoded_locally() -> None:
    blocks = markdown_blocks(f"see ![cat](http://x.example/cat.png) and ![dot](data:image/png;base64,{PNG_1X1})")
    assert blocks[0] == TextBlock("paragraph", (TextRun("see "),))
    assert blocks[1] == ImageBlock("remote image, not fetched: http://x.example/cat.png", None, "cat")
    assert blocks[2] == TextBlock("paragraph", (TextRun(" and "),))
    img = blocks[3]
    assert isinstance(img, ImageBlock) and img.alt == "dot" and img.data == base64.b64decode(PNG_1X1)
    assert img.label == "image/png 1×1, 70 bytes (from a data: URL in the text)"


def test_hostile_text_is_visible_inside_rendered_blocks() -> None:
    text = "**ev\u202eil** zero\u200bwidth `nul\x00` &#x202E; entity\n\n```\nesc\x1b[31m\n```"
    blocks = markdown_blocks(text)
    assert blocks == [
        TextBlock("paragraph", (TextRun("ev⟨RLO⟩il", ("bold",)), TextRun(" zero⟨ZWSP⟩width "), TextRun("nul␀", ("code",)),
                                TextRun(" ⟨RLO⟩ entity"))),
        CodeBlock("esc␛[31m"),
    ]
    shown = "".join(s.text for b in blocks if isinstance(b, TextBlock) for s in b.spans)
    assert "\u202e" not in shown and "\u200b" not in shown and "\x00" not in shown


def test_tool_call_lines_become_labelled_blocks_with_arguments_pretty_printed() -> None:
    text = ('Let me look.\n{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}\n'
            '{"type":"tool_call","name":"run","arguments":"{not json"}\n'
            '{"type":"tool_call","id":"c3","name":"noargs"}')
    assert message_blocks(text, role="assistant") == (
        TextBlock("paragraph", (TextRun("Let me look."),)),
        ToolCallBlock("get_weather", "call_1", "arguments:", '{\n  "city": "Paris"\n}'),
        ToolCallBlock("run", None, "arguments: not valid JSON, shown exactly as sent:", "{not json"),
        ToolCallBlock("noargs", "c3", "arguments not recorded", None),
    )


def test_tool_results_json_reindented_text_verbatim() -> None:
    link = ToolLink("call_1", "get_weather")
    assert message_blocks('{"t": 75, "sky": "sunny"}', role="tool", result_of=link) == (
        ToolResultBlock("tool result for get_weather (call call_1)", "result (JSON, re-indented):",
                        '{\n  "t": 75,\n  "sky": "sunny"\n}'),)
    assert message_blocks("# not markdown\nraw\x07", role="tool") == (
        ToolResultBlock("tool result (the call it answers is not recorded)", "result (text, as sent):",
                        "# not markdown\nraw␇"),)


def test_image_caps_and_garbage_give_labelled_placeholders() -> None:
    huge = "A" * ((MAX_IMAGE_BYTES + 3) * 4 // 3 + 8)
    big = base64_image("image/png", huge, "test")
    assert big.data is None and big.label == "image/png image of 8.0 MiB, over the 8.0 MiB shown: not decoded (test)"
    bad = base64_image("image/png", "not*base64!", "test")
    assert bad.data is None and bad.label == "image/png image whose data is not valid base64: not shown (test)"
    svg = data_url_image("data:image/svg+xml,<svg onload=x>", "test")
    assert svg.data is None and svg.label == "data: URL of image/svg+xml, not a base64 image: not shown"


def test_placeholder_without_the_payload_says_not_kept() -> None:
    blocks = message_blocks("look\n[image/png blob, 34×30, 8,528 bytes base64]\n[image uri: https://x.example/a.png]")
    assert blocks == (
        TextBlock("paragraph", (TextRun("look"),)),
        ImageBlock("image/png blob, 34×30, 8,528 bytes base64: the image data was not kept "
                   "(the request body does not hold it)"),
        ImageBlock("remote image, not fetched: https://x.example/a.png"),
    )


def _corpus_trace(shared: Path, tmp_path: Path, rel: str):  # type: ignore[no-untyped-def]
    with TraceStore.create(tmp_path / "c.db") as store:
        report = import_files([shared / "corpus" / rel], store)
        assert report.problems == []
        return store.load(store.list()[0].trace_id)


def test_corpus_anthropic_image_is_decoded_from_the_recorded_request(shared: Path, tmp_path: Path) -> None:
    trace = _corpus_trace(shared, tmp_path, "provider-api/anthropic/messages-image-input-base64.vcr.yaml")
    images = recorded_images(trace.request.content)
    payload = json.loads(trace.request.content)["messages"][0]["content"][1]["source"]["data"]
    assert images == {("image/png", "blob", 9240): ("image/png", payload, "from the recorded request")}
    blocks = message_blocks(trace.items[0].content, role="user", images=images)
    assert blocks[0] == TextBlock("paragraph", (TextRun("What do you see in this image? Describe it in detail."),))
    img = blocks[1]
    assert isinstance(img, ImageBlock) and img.data == base64.b64decode(payload)
    assert img.data[:3] == b"\xff\xd8\xff"  # the record says image/png; the bytes are a JPEG (decoded by content)
    assert img.label == "image/png 228×148, 6.8 KiB (from the recorded request)"


def test_corpus_parallel_tool_calls_pair_results_with_their_calls(shared: Path, tmp_path: Path) -> None:
    trace = _corpus_trace(shared, tmp_path, "provider-api/openai/chat-completions-parallel-tool-calls.vcr.yaml")
    links = tool_links(trace)
    assert [(i, links[i]) for i in sorted(links)] == [
        ("msg-1", ToolLink("call_62136355", "get_weather")), ("msg-2", ToolLink("call_62136356", "get_population"))]
    first = {i.id: i for i in trace.items}["msg-0"]
    assert message_blocks(first.content, role="assistant") == (
        ToolCallBlock("get_weather", "call_62136355", "arguments:", '{\n  "city": "New York"\n}'),
        ToolCallBlock("get_population", "call_62136356", "arguments:", '{\n  "city": "New York"\n}'))


def test_corpus_anthropic_tool_result_in_user_turn_is_paired_as_a_result(shared: Path, tmp_path: Path) -> None:
    # its tool_result block makes the user turn a tool result (role tool), so the pairing is no assumption
    trace = _corpus_trace(shared, tmp_path, "provider-api/anthropic/messages-tool-result-in-history.vcr.yaml")
    link = tool_links(trace)["msg-2"]
    assert (link.call_id, link.name, link.assumed) == ("toolu_01KBqpqR73qWGsMaW3vBzEjz", "get_weather", None)


def test_a_json_document_is_shown_reindented() -> None:
    tool_def = '{"name":"lookup_order","parameters":{"type":"object"}}'
    assert message_blocks(tool_def) == (
        TextBlock("paragraph", (TextRun("JSON, re-indented:", ("italic",)),)),
        CodeBlock('{\n  "name": "lookup_order",\n  "parameters": {\n    "type": "object"\n  }\n}', "json"))
    assert message_blocks("[1, 2") == (TextBlock("paragraph", (TextRun("[1, 2"),)),)  # not JSON: Markdown text


HOSTILE = "\u202e\u200b\u2066\x00\x1b\x07\ufeff\U000e0041\u00ad"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("ab *_`#>-|[]()!<>&;:/\n1.") + list(HOSTILE) + ["&#x202E;", "&#0;", "```\n"]),
                max_size=60).map("".join))
def test_no_invisible_character_survives_rendering(text: str) -> None:
    """Whatever the Markdown, every text a block holds is revealed: no bidi, zero-width, tag or
    control character reaches the window (line breaks aside)."""
    for b in message_blocks(text):
        parts = [b.text] if isinstance(b, CodeBlock) else [s.text for s in getattr(b, "spans", ())]
        if isinstance(b, TableBlock):
            parts = [s.text for row in (b.header, *b.rows) for cell in row for s in cell]
        parts += [getattr(b, "label", ""), getattr(b, "alt", "")]
        for p in parts:
            assert not needs_reveal(p), (text, b)


def test_openai_image_url_data_url_is_decoded_from_the_recorded_request(tmp_path: Path) -> None:
    gif = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"  # a 1x1 GIF
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "what is it?"},
        {"type": "image_url", "image_url": {"url": f"data:image/gif;base64,{gif}", "detail": "low"}}]}]}
    resp = {"id": "chatcmpl-img", "object": "chat.completion", "created": 1772011293, "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "a dot"}}],
            "usage": {"prompt_tokens": 90, "completion_tokens": 2, "total_tokens": 92}}
    path = tmp_path / "img.extracted.json"
    path.write_text(json.dumps({"interactions": [{"request": {
        "method": "POST", "uri": "https://api.openai.com/v1/chat/completions", "body": body},
        "response": {"status": 200, "body": resp}}]}), encoding="utf-8")
    with TraceStore.create(tmp_path / "i.db") as store:
        assert import_files([path], store).problems == []
        trace = store.load("chatcmpl-img")
    item = trace.items[0]
    assert item.content == f"what is it?\n[image/gif blob, 1×1, detail low, {len(gif):,} bytes base64]"
    blocks = message_blocks(item.content, role="user", images=recorded_images(trace.request.content))
    assert blocks[1] == ImageBlock("image/gif 1×1, 42 bytes (from the recorded request)", base64.b64decode(gif))


def test_a_payload_the_exporter_cut_says_so_not_invalid_base64() -> None:
    # Logfire joins a cut value's two ends with "...": the payload cannot decode, and the label says why
    payload = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 40).decode()
    cut = payload[:20] + "..." + payload[-12:]
    images = {("image/png", "blob", len(cut)): ("image/png", cut, "from the recorded request")}
    line = f"[image/png blob, {len(cut)} bytes base64, cut by the exporter]"
    assert message_blocks(line, images=images) == (
        ImageBlock("image/png image cut by the exporter: not shown (from the recorded request)"),)
    uncut = f"[image/png blob, {len(cut)} bytes base64]"  # the same bytes without the marker: garbage
    assert message_blocks(uncut, images=images) == (
        ImageBlock("image/png image whose data is not valid base64: not shown (from the recorded request)"),)


def test_an_image_a_span_holds_is_shown_without_a_request_body(tmp_path: Path) -> None:
    """New user 2026-12-07 (#6): an OTel GenAI ``blob`` part and an OpenAI ``image_url`` data URL in
    a span (no request body recorded) said "the image data was not kept" although the file held it."""
    from otlp_factories import chat_span, otlp_request

    from ctxviewer.present.message_images import placeholder_image, trace_images
    from ctxviewer.present.trace_attributes import attribute_rows
    from ctxviewer.tokens.placeholders import IMAGE_PAYLOADS

    png = PNG_1X1
    messages = [{"role": "user", "parts": [{"type": "text", "content": "what is this?"},
                                           {"type": "blob", "modality": "image", "mime_type": "image/png", "content": png}]}]
    path = tmp_path / "s.otlp.json"
    path.write_text(json.dumps(otlp_request(chat_span(messages=messages))), encoding="utf-8")
    store = TraceStore.create(tmp_path / "t.db")
    assert import_files([path], store).imported == 1
    [row] = store.list()
    trace = store.load(row.trace_id)
    assert trace.request.content is None
    assert [list(e) for e in trace.attributes[IMAGE_PAYLOADS]] == [["image/png", "blob", len(png), png]]
    [line] = [ln for i in trace.items for ln in (i.content or "").splitlines() if ln.startswith("[image")]
    block = placeholder_image(line, trace_images(trace))
    assert block is not None and block.data == base64.b64decode(PNG_1X1) and block.label.startswith("image/png 1×1")
    assert dict(attribute_rows(trace))[IMAGE_PAYLOADS] == f"1 image(s) kept to show them: image/png blob {len(png)} base64 characters"


def test_two_images_under_one_key_show_neither_and_kept_ones_say_so() -> None:
    """Review 2026-12-07: a red and a blue 1x1 PNG of equal length in one span: only the first was
    kept, and both placeholders showed it, labelled "from the recorded request" with no body recorded."""
    from dataclasses import replace

    from factories import make_trace

    from ctxviewer.importers.common.image_payloads import image_payloads
    from ctxviewer.present.message_images import placeholder_image, trace_images
    from ctxviewer.tokens.placeholders import IMAGE_PAYLOADS

    red = PNG_1X1
    blue = red[:-8] + ("A" if red[-8] != "A" else "B") + red[-7:]
    msg = {"role": "user", "parts": [{"type": "blob", "mime_type": "image/png", "content": red},
                                     {"type": "blob", "mime_type": "image/png", "content": blue},
                                     {"type": "blob", "mime_type": "image/png", "content": red}]}
    kept = image_payloads([msg])
    assert [e[3] for e in kept] == [red, blue]  # the same image twice once; two images of one key both
    line = f"[image/png blob, 1×1, {len(red)} bytes base64]"
    base = make_trace()
    t = replace(base, items=(replace(base.items[0], content=line), *base.items[1:]), attributes={IMAGE_PAYLOADS: kept})
    block = placeholder_image(line, trace_images(t))
    assert block is not None and block.data is None and "the image data was not kept" in block.label
    one = replace(t, attributes={IMAGE_PAYLOADS: kept[:1]})
    shown = placeholder_image(line, trace_images(one))
    assert shown is not None and shown.label.endswith("(kept from the trace file)")
