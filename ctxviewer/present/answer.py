"""The model's answer as the user reads it: the response text, how it ended, the tool calls the
model proposed (arguments pretty-printed, every check and the verdict) and the validations of the
output (chapter 3.5, Figure 3.3).

:func:`answer_lines` is the one wording of the answer: the window's Response pane shows it and
``ctxviewer show`` prints it, so both say the same thing. Response and argument text is untrusted:
invisible and control characters are made visible (:func:`ctxviewer.util.visible.reveal`) in the
display copy; the stored trace is not changed. No Qt here.
"""

from __future__ import annotations

import json
from typing import Any

from ctxviewer.assess.tool_review import ToolCallReview, review_calls
from ctxviewer.model.trace import NOT_RECORDED, RequestTrace
from ctxviewer.model.words import fmt_text
from ctxviewer.present.conversation_view import no_text, shown_text
from ctxviewer.present.finding_view import CHECK_SYMBOL
from ctxviewer.present.tool_arguments import arguments_view
from ctxviewer.util.visible import one_line

INDENT = "    "
"""Indent of nested lines (arguments, checks)."""


def response_dict(trace: RequestTrace) -> dict[str, Any] | None:
    """The ``response`` object of ``show --json``: ``{text, finish_reason, model, id}`` as stored
    (null fields = not recorded), plus ``reasoning`` when the model's reasoning text was recorded,
    or ``None`` when no response was recorded."""
    r = trace.response
    if r is None:
        return None
    out: dict[str, Any] = {"text": r.text, "finish_reason": r.finish_reason, "model": r.model, "id": r.id}
    if r.reasoning is not None:
        out["reasoning"] = r.reasoning
    return out


def response_headline(trace: RequestTrace) -> str:
    """``"finish reason stop · model gpt-4o-mini · id chatcmpl-1"`` (unrecorded fields say so), or
    ``"not recorded"``."""
    r = trace.response
    if r is None:
        return NOT_RECORDED
    return (f"finish reason {one_line(fmt_text(r.finish_reason))} · model {one_line(fmt_text(r.model))} · "
            f"id {one_line(fmt_text(r.id))}")


def pretty_arguments(arguments: str | None) -> str:
    """Tool-call arguments for reading: re-indented with 2 spaces when they are valid JSON, else
    exactly as the model sent them (never repaired); ``None`` -> ``"not recorded"``."""
    if arguments is None:
        return NOT_RECORDED
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return arguments
    return json.dumps(parsed, indent=2, ensure_ascii=False)


def call_verdict_line(r: ToolCallReview) -> str:
    """``"issue_refund → blocked by refunds.require_supervisor_approval"`` (``"verdict not
    recorded"`` when the application recorded none)."""
    call = r.call
    verdict = call.verdict.value.replace("_", " ") if call.verdict is not None else f"verdict {NOT_RECORDED}"
    line = f"{one_line(call.name)} → {verdict}"
    if call.decided_by:
        line += f" by {one_line(call.decided_by)}"
    return line


def _indented(text: str, depth: int) -> list[str]:
    return [INDENT * depth + line for line in shown_text(text).split("\n")]


def answer_lines(trace: RequestTrace) -> list[str]:
    """The answer of ``trace`` as lines of plain text: ``Response (headline)``, the model's
    reasoning (``reasoning (thinking):`` and its text, when recorded), the text, then
    ``Tool calls proposed (N)`` with each call's verdict line, its arguments pretty-printed under a
    heading that says what they are when not a JSON object (:mod:`ctxviewer.present.tool_arguments`) and
    each check as ``✔ name: detail`` / ``✖`` / ``?``, then ``Validations (N)`` likewise."""
    r = trace.response
    lines = [f"Response ({response_headline(trace)})" if r is not None else f"Response: {NOT_RECORDED}"]
    if r is not None:
        if r.reasoning:
            lines += [INDENT + "reasoning (thinking):", *_indented(r.reasoning, 2), INDENT + "text:"]
        lines += _indented(r.text, 1) if r.text else [INDENT + no_text(trace)]
    reviews = review_calls(trace)
    if reviews:
        lines += ["", f"Tool calls proposed ({len(reviews)})"]
        for rv in reviews:
            lines.append(INDENT + call_verdict_line(rv))
            view = arguments_view(rv.call.arguments)
            lines.append(INDENT * 2 + view.heading)
            if view.body is not None:
                lines += _indented(view.body, 3)
            for c in rv.checks:
                lines.append(INDENT * 2 + f"{CHECK_SYMBOL[c.passed]} {one_line(c.name)}: {one_line(c.detail)}")
    if trace.validations:
        lines += ["", f"Validations ({len(trace.validations)})"]
        for v in trace.validations:
            detail = f": {one_line(v.detail)}" if v.detail else ""
            lines.append(INDENT + f"{CHECK_SYMBOL[v.passed]} {one_line(v.check)}{detail}")
    return lines


def answer_text(trace: RequestTrace) -> str:
    """:func:`answer_lines` joined with newlines."""
    return "\n".join(answer_lines(trace))
