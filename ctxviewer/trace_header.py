"""The trace header in words: identity, endpoint, policy, replay, usage, tool calls, validations,
and the eq. 3.1 numbers line shown under the budget chart.

The verdict and the state live in :mod:`ctxviewer.assessment`, which adds its ``State`` row to
these rows; surfaces render the assessment, not this module directly.

:func:`header_rows` gives ``(label, text)`` pairs that the GUI's detail panel shows as plain-text
labels (and a CLI could print). Unrecorded values read "not recorded", never 0. No Qt here.
"""

from __future__ import annotations

from .budget import CapacityCheck
from .columns import fmt_int, fmt_text, fmt_time
from .model import NOT_RECORDED, LimitMode, RequestTrace, ToolCall

MAX_ARGS_CHARS = 160
"""Tool-call arguments longer than this (code points) are cut with an ellipsis in the header."""


def _policy(trace: RequestTrace) -> str:
    p = trace.policy
    if p.id is None and p.version is None:
        text = NOT_RECORDED
    else:
        text = f"{fmt_text(p.id)} version {fmt_text(p.version)}"
    if p.available is False:
        text += " (NOT AVAILABLE: the required version could not be loaded)"
    return text


def _usage(trace: RequestTrace) -> str:
    u = trace.usage
    return (
        f"input {fmt_int(u.input_tokens)} · output {fmt_int(u.output_tokens)} · "
        f"cached {fmt_int(u.cached_input_tokens)} · reasoning {fmt_int(u.reasoning_tokens)}"
    )


def tool_call_line(call: ToolCall) -> str:
    """``"issue_refund({"amount": 120}) → blocked by refunds.require_supervisor"``; failed checks
    are listed after the verdict."""
    args = call.arguments if call.arguments is not None else NOT_RECORDED
    if len(args) > MAX_ARGS_CHARS:
        args = args[: MAX_ARGS_CHARS - 1] + "…"
    verdict = call.verdict.value.replace("_", " ") if call.verdict is not None else f"verdict {NOT_RECORDED}"
    line = f"{call.name}({args}) → {verdict}"
    if call.decided_by:
        line += f" by {call.decided_by}"
    failed = [c.check for c in call.checks if c.passed is False]
    if failed:
        line += f" (failed: {', '.join(failed)})"
    return line


def header_rows(trace: RequestTrace) -> list[tuple[str, str]]:
    """``(label, text)`` rows of the header for ``trace``, in display order."""
    ep = trace.endpoint
    model = fmt_text(ep.model)
    if ep.provider:
        model += f" ({ep.provider})"
    rows = [
        ("Trace", trace.trace_id),
        ("Created", fmt_time(trace.created) + (" UTC" if trace.created else "")),
        ("Service", fmt_text(trace.service)),
        ("Model", model),
        ("Policy", _policy(trace)),
        ("Replay of", trace.replay_of or "—"),
        ("Usage", _usage(trace)),
    ]
    if trace.tool_calls:
        rows.append(("Tool calls", "\n".join(tool_call_line(c) for c in trace.tool_calls)))
    else:
        rows.append(("Tool calls", "none"))
    if trace.validations:
        rows.append(("Validations", "\n".join(
            f"{v.check}: {'passed' if v.passed else 'FAILED'}" + (f" ({v.detail})" if v.detail else "")
            for v in trace.validations
        )))
    return rows


def numbers_line(trace: RequestTrace, chk: CapacityCheck) -> str:
    """The quantities of eq. 3.1 (``chk``, the trace's :class:`~ctxviewer.budget.CapacityCheck`)
    in one line of words, e.g.
    ``"input 6,000 + reserved output 1,200 of capacity 8,000 tokens · declared safety margin 800"``."""
    ep = trace.endpoint
    if chk.limit_mode is LimitMode.SEPARATE:
        text = (
            f"input {fmt_int(chk.input_tokens)} of input limit {fmt_int(chk.max_input)} · "
            f"reserved output {fmt_int(chk.reserved_output)} of output limit {fmt_int(chk.max_output)} tokens"
        )
    else:
        text = f"input {fmt_int(chk.input_tokens)} + reserved output {fmt_int(chk.reserved_output)}"
        text += f" of capacity {fmt_int(ep.capacity)} tokens" if ep.capacity is not None else f" · capacity {NOT_RECORDED}"
    if trace.safety_margin is not None:
        text += f" · declared safety margin {fmt_int(trace.safety_margin)}"
    return text
