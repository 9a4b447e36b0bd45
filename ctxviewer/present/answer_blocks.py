"""The Response pane rendered: the answer of :func:`ctxviewer.present.answer.answer_lines` as typed
blocks (:mod:`ctxviewer.present.blocks`) for the window's Rendered view, still inert.

:func:`answer_blocks` says what ``answer_lines`` says, in the same order and words: the headline
(``Response (finish reason … · model … · id …)``), the model's reasoning when recorded, the text --
Markdown from the sanitised subset, tool-call lines and images as their blocks
(:func:`ctxviewer.present.message_blocks.message_blocks`) -- then ``Tool calls proposed (N)`` with
each call as a labelled :class:`~ctxviewer.present.blocks.ToolCallBlock` (arguments
pretty-printed), its verdict line and its checks (``✔`` / ``✖`` / ``?``), then ``Validations (N)``.
Every text is made visible (:func:`ctxviewer.util.visible.reveal`). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping

from ctxviewer.assess.tool_review import review_calls
from ctxviewer.model.trace import NOT_RECORDED, RequestTrace
from ctxviewer.present.answer import call_verdict_line, response_headline
from ctxviewer.present.blocks import Block, CodeBlock, TextBlock, TextRun
from ctxviewer.present.conversation_view import no_text
from ctxviewer.present.finding_view import CHECK_SYMBOL
from ctxviewer.present.message_blocks import RENDER_LIMIT, call_block, message_blocks
from ctxviewer.present.message_images import ImageKey
from ctxviewer.util.visible import one_line, reveal


def _para(*runs: TextRun) -> TextBlock:
    return TextBlock("paragraph", runs)


def _heading(text: str) -> TextBlock:
    return TextBlock("heading", (TextRun(text),), level=4)


def _item(symbol: str, text: str) -> TextBlock:
    return TextBlock("item", (TextRun(text),), level=1, marker=symbol)


def _text_blocks(text: str, images: Mapping[ImageKey, tuple[str, str, str]] | None) -> tuple[Block, ...]:
    if len(text) > RENDER_LIMIT:  # as the item pane: a text this long is shown as it is
        return (_para(TextRun(f"over the {RENDER_LIMIT:,} characters rendered: shown as stored", ("italic",))),
                CodeBlock(reveal(text).text))
    return message_blocks(text, role="assistant", images=images)


def answer_blocks(trace: RequestTrace,
                  images: Mapping[ImageKey, tuple[str, str, str]] | None = None) -> tuple[Block, ...]:
    """The blocks of ``trace``'s answer (module docstring); ``images`` the recorded request's image
    payloads (:func:`ctxviewer.present.message_images.recorded_images`) for image lines of the
    text. A response not recorded is one paragraph saying so (then the calls and validations,
    when recorded). Never raises."""
    r = trace.response
    out: list[Block] = []
    if r is None:
        out.append(_para(TextRun("Response", ("bold",)), TextRun(f": {NOT_RECORDED}")))
    else:
        out.append(_para(TextRun("Response", ("bold",)), TextRun(f" ({response_headline(trace)})")))
        if r.reasoning:
            out.append(_para(TextRun("reasoning (thinking):", ("italic",))))
            out.extend(_text_blocks(r.reasoning, images))
            out.append(_para(TextRun("text:", ("italic",))))
        if r.text:
            out.extend(_text_blocks(r.text, images))
        else:
            out.append(_para(TextRun(no_text(trace), ("italic",))))
    reviews = review_calls(trace)
    if reviews:
        out.append(_heading(f"Tool calls proposed ({len(reviews)})"))
        for rv in reviews:
            c = rv.call
            out.append(call_block({"name": c.name, "id": c.id, "arguments": c.arguments}))
            out.append(_para(TextRun(call_verdict_line(rv))))
            out.extend(_item(CHECK_SYMBOL[k.passed], f"{one_line(k.name)}: {one_line(k.detail)}") for k in rv.checks)
    if trace.validations:
        out.append(_heading(f"Validations ({len(trace.validations)})"))
        for v in trace.validations:
            detail = f": {one_line(v.detail)}" if v.detail else ""
            out.append(_item(CHECK_SYMBOL[v.passed], f"{one_line(v.check)}{detail}"))
    return tuple(out)
