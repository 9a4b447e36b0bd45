"""The trace header in words: identity, endpoint, policy, replay, span status and completeness,
session, content capture, usage, tool calls, validations, and the eq. 3.1 numbers line shown under
the budget chart, and the call's cost (:func:`cost_line`) and scores (:func:`score_lines`).

The verdict and the state live in :mod:`ctxviewer.assess.assessment`, which adds its ``State`` row to
these rows; surfaces render the assessment, not this module directly.

:func:`header_rows` gives ``(label, text)`` pairs that the GUI's detail panel shows as plain-text
labels (and a CLI could print). Unrecorded values read "not recorded", never 0. Invisible and
control characters of trace text are shown as markers (:func:`ctxviewer.util.visible.reveal`). No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ctxviewer.assess.budget import CapacityCheck
from ctxviewer.assess.input_source import REPORTED_SOURCE, TRUNCATED_SOURCE
from ctxviewer.assess.plausibility import DURATION_KEY, negative_duration, reported_input
from ctxviewer.model.capture import uncaptured_row
from ctxviewer.model.placed_data import placed_data, user_request_note
from ctxviewer.model.source_notes import (
    CACHE_1H_KEY,
    ENVIRONMENT_KEY,
    FIRST_TOKEN_KEY,
    GEMINI_THINKING_RULE,
    SERVER_TOOLS_KEY,
    USAGE_RULE_KEY,
    WARNING_KEYS,
)
from ctxviewer.model.trace import NOT_RECORDED, Kind, LimitMode, RequestTrace, ToolCall
from ctxviewer.model.words import fmt_int, fmt_text, fmt_time
from ctxviewer.tokens import cost as pricing
from ctxviewer.tokens.recorded_cost import differs, recorded_cost
from ctxviewer.util.json_escapes import decode_escapes
from ctxviewer.util.visible import needs_reveal, one_line, reveal

MAX_ARGS_CHARS = 160
"""Tool-call arguments longer than this (code points) are cut with an ellipsis in the header."""


def _policy(trace: RequestTrace) -> str:
    p = trace.policy
    if p.id is None and p.version is None:  # the id and version; a system prompt may still have been sent
        sent = next((i.id for i in trace.retained if i.kind is Kind.POLICY), None)
        text = f"id and version {NOT_RECORDED}" + (f" (the system prompt was sent: item {one_line(sent)})"
                                                   if sent is not None else "")
    else:
        text = f"{fmt_text(p.id)} version {fmt_text(p.version)}"
    if p.available is False:
        text += " (NOT AVAILABLE: the required version could not be loaded)"
    return text


def _usage(trace: RequestTrace) -> str:
    u = trace.usage
    derived = (" (derived from total_tokens: total - input - output, in the output)"
               if u.reasoning_tokens is not None and trace.attributes.get(USAGE_RULE_KEY) == GEMINI_THINKING_RULE else "")
    return (
        f"input {fmt_int(u.input_tokens)} · output {fmt_int(u.output_tokens)} · "
        f"cached {fmt_int(u.cached_input_tokens)} · reasoning {fmt_int(u.reasoning_tokens)}{derived}"
    )


def cost_line(trace: RequestTrace) -> str:
    """The call's cost from its recorded usage (:func:`ctxviewer.tokens.cost.call_cost`) in one short
    line, with the price library and its data date: ``"$0.000240 · gpt-4o-mini, genai-prices 0.2.3
    (prices to 2026-12-01)"``, or ``"not known: usage not recorded"`` -- never ``$0`` for a price the
    library does not know; a cost the trace itself records that differs is said after it
    (``"; the trace records $0.000075 (langfuse.cost.total)"``, :mod:`ctxviewer.tokens.recorded_cost`).
    (``show --json`` gives the input and output parts.)"""
    ep = trace.endpoint
    c = pricing.call_cost(ep.provider, ep.model, trace.created, trace.usage)
    rec = recorded_cost(trace.attributes)
    also = (f"; the trace records {pricing.fmt_cost(rec.usd)} ({rec.key})"
            if rec is not None and differs(rec, c.total) else "")
    if c.total is None:
        return f"{pricing.NOT_KNOWN}: {c.reason}{also}"
    hour = trace.attributes.get(CACHE_1H_KEY)
    if isinstance(hour, int) and not isinstance(hour, bool) and hour > 0:  # nu2 #9: priced 36 % low, unsaid
        also += (f"; its {hour:,} one-hour cache-write tokens are priced at the five-minute write rate "
                 f"(genai-prices has one cache-write rate): the cost is low")
    return f"{pricing.fmt_cost(c.total)} · {c.model}, {pricing.short_source()}{also}"


def server_tools(trace: RequestTrace) -> list[str]:
    """The tools the provider ran itself during the call (:data:`~ctxviewer.model.source_notes.SERVER_TOOLS_KEY`),
    one line each: ``"web_search_call ws_1 (completed): 'ECB decision this week'"``; ``[]`` when none."""
    out = []
    for t in trace.attributes.get(SERVER_TOOLS_KEY) or []:
        if isinstance(t, Mapping):
            line = " ".join(one_line(str(t[k])) for k in ("type", "id") if t.get(k))
            line += f" ({one_line(str(t['status']))})" if t.get("status") else ""
            line += f": {one_line(repr(str(t['query'])))}" if t.get("query") else ""
            out.append(line)
    return out


SCORES_KEY = "ctxviewer.scores"
"""The trace attribute the importers keep a call's scores under (``{name, value, source, comment}``)."""


def score_lines(trace: RequestTrace) -> str | None:
    """The recorded scores, one line each: ``"match: I (inspect_ai scorer)"``, the comment after a
    dash (cut to :data:`MAX_ARGS_CHARS`); ``None`` when the call was not scored. Values as recorded
    (a list or dict as JSON)."""
    scores = trace.attributes.get(SCORES_KEY)
    if not isinstance(scores, (list, tuple)) or not scores:
        return None
    lines = []
    for sc in scores:
        if not hasattr(sc, "get"):
            continue
        value = sc.get("value")
        shown = value if isinstance(value, (str, int, float)) and not isinstance(value, bool) else json.dumps(
            value, ensure_ascii=False, sort_keys=True, default=str)
        line = f"{one_line(str(sc.get('name') or NOT_RECORDED))}: {one_line(str(shown))}"
        if sc.get("source"):
            line += f" ({one_line(str(sc['source']))})"
        comment = one_line(str(sc.get("comment") or "")).strip()
        if comment:
            line += " — " + (comment if len(comment) <= MAX_ARGS_CHARS else comment[: MAX_ARGS_CHARS - 1] + "…")
        lines.append(line)
    return "\n".join(lines) or None


def shown_arguments(arguments: str) -> str:
    """Tool-call arguments (as sent) as the user reads them on one line: a JSON object or array
    with the ``\\uXXXX`` escapes of an ASCII-only encoder written as the characters
    (``{"location": "Z\\u00fcrich"}`` -> ``{"location": "Zürich"}``,
    :func:`~ctxviewer.util.json_escapes.decode_escapes`); any other text exactly as sent."""
    return decode_escapes(arguments) if arguments.lstrip()[:1] in ("{", "[") else arguments


def tool_call_line(call: ToolCall) -> str:
    """``"issue_refund({"amount": 120}) → blocked by refunds.require_supervisor"``; failed checks
    are listed after the verdict."""
    args = shown_arguments(call.arguments) if call.arguments is not None else NOT_RECORDED
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




def _environment(trace: RequestTrace) -> str:
    """``" · environment production"`` after the service, or ``""`` when none was recorded."""
    env = trace.attributes.get(ENVIRONMENT_KEY)
    if not env:
        return ""
    note = " (Langfuse's when the application names none)" if env == "default" else ""
    return f" · environment {one_line(str(env))}{note}"


def warning_text(trace: RequestTrace) -> str | None:
    """The warning the source recorded on the call (:data:`WARNING_KEYS`): its message as recorded,
    ``"no message recorded"`` for a warning without one, ``None`` when the call has no warning."""
    if trace.attributes.get(WARNING_KEYS[0]) != "WARNING":
        return None
    said = trace.attributes.get(WARNING_KEYS[1])
    return str(said) if said else "no message recorded"


def span_line(trace: RequestTrace) -> str | None:
    """The recorded span status and completeness in words, or ``None`` when the trace has neither
    (native traces). From the importers' ``otel.status_code`` / ``otel.status_message`` (OTel span
    status: ``ok`` / ``error`` / ``unset``) and ``ctxviewer.completeness`` / ``ctxviewer.duration_ms``:
    ``"ERROR: 429 rate limited · ended after 1,250 ms"``, ``"unset · NEVER ENDED"``,
    ``"ok · ended after 1,400 ms · first token after 900 ms"`` (:data:`FIRST_TOKEN_KEY`),
    ``"ok · warning: content filter partially triggered · ended after 1,000 ms"`` (Langfuse's
    ``level: WARNING`` and ``statusMessage``, :data:`WARNING_KEYS`),
    ``"ERROR: 429 rate limited · ended in error, end time not recorded"`` (an error status without an
    end time: the error is its end),
    ``"ok · ended with a negative duration (end before start: -12 ms)"`` (end before start:
    :func:`ctxviewer.assess.plausibility.negative_duration`),
    ``"status not recorded · times not recorded"`` -- an error or an open span never reads like an
    ordinary success."""
    a = trace.attributes
    code, message, done = a.get("otel.status_code"), a.get("otel.status_message"), a.get("ctxviewer.completeness")
    if code is None and message is None and done is None:
        return None
    message = one_line(str(message)) if message else None  # trace text: invisible characters made visible
    if code == "error":
        status = "ERROR" + (f": {message}" if message else " (no message recorded)")
    else:
        status = "status not recorded" if code is None else one_line(str(code)) + (f": {message}" if message else "")
        warned = warning_text(trace)  # a warning is no error: said beside the status, as recorded
        if warned is not None:
            status += f" · warning: {one_line(warned)}"
    if done == "ended":
        ms = a.get(DURATION_KEY)
        negative = negative_duration(ms)
        if negative is not None:  # never a plain "-12 ms": the times cannot be true (input.implausible)
            when = f"ended with a {negative}"
        else:
            when = f"ended after {ms:,.0f} ms" if isinstance(ms, (int, float)) and not isinstance(ms, bool) else "ended"
    elif done == "never ended" and code == "error":  # the error is its end: one thing, not also "never ended"
        when = "ended in error, end time not recorded"
    elif done == "never ended":
        when = "NEVER ENDED (no end time recorded)"
    else:
        when = str(done) if done else f"completeness {NOT_RECORDED}"
    first = a.get(FIRST_TOKEN_KEY)
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        when += f" · first token after {first:,.0f} ms"
    return f"{status} · {when}"


def capture_rows(trace: RequestTrace) -> list[tuple[str, str]]:
    """Rows saying what an imported span's content capture left out or added:
    ``Content`` for ``ctxviewer.content`` ``"not captured"`` (OTel content capture is opt-in) or
    ``"truncated"`` (values cut mid-JSON, kept as raw text, or cut so they still parse: each
    ``ctxviewer.truncated_how`` line; reported usage exceeds what was captured), ``Inherited`` system instructions and tools from an ancestor span
    (``ctxviewer.system_inherited_from``, ``ctxviewer.tools_inherited_from``, one line each), ``Fed by`` for the tool executions recorded on this call
    (``ctxviewer.fed_by``; a tool whose output sits inside one of the call's items says which, and
that it is scanned: :func:`ctxviewer.model.placed_data.placed_data`, as the scanner reads it),
``Question`` (the user request) when a user message is only a tool's output sent back (which item is the user
request, or that none is recorded: :func:`ctxviewer.model.placed_data.user_request_note`).
Empty for a trace without them."""
    a = trace.attributes
    rows: list[tuple[str, str]] = []
    content = a.get("ctxviewer.content")
    if content == "not captured" and a.get("ctxviewer.content_note"):
        rows.append(("Content", f"not captured: {one_line(str(a['ctxviewer.content_note']))}"))
    elif content == "not captured":
        rows.append(("Content", uncaptured_row(trace)))
    elif content == "truncated" and a.get("ctxviewer.truncated_how"):
        how = "; ".join(one_line(str(h)) for h in a["ctxviewer.truncated_how"])
        rows.append(("Content", f"truncated: {how}; reported usage exceeds what was captured"))
    elif content == "truncated":
        keys = ", ".join(one_line(str(k)) for k in a.get("ctxviewer.truncated") or ()) or "a value"
        rows.append(("Content", f"truncated: {keys} cut mid-JSON, kept as raw text; "
                                "reported usage exceeds what was captured (the rest is not captured)"))
    inherited = [f"{what} from {one_line(str(a[key]))}" for key, what in (
        ("ctxviewer.system_inherited_from", "system instructions"), ("ctxviewer.tools_inherited_from", "tools"))
        if a.get(key)]
    if inherited:
        rows.append(("Inherited", "\n".join(inherited)))
    fed = a.get("ctxviewer.fed_by")
    if fed:
        placed = [p for p in placed_data(trace) if p.span]  # the same fact the scanner reads
        lines = []
        for f in fed if isinstance(fed, (list, tuple)) else [fed]:
            inside = list(dict.fromkeys(p.item_id for p in placed if f"(span {p.span})" in str(f)))
            lines.append(one_line(str(f)) + (f": its output is inside {', '.join(inside)}, scanned as untrusted data"
                                             if inside else ""))
        rows.append(("Fed by", "\n".join(lines)))
    said = user_request_note(trace)  # a ReAct observation is no user request
    if said is not None:
        rows.append(("Question", one_line(said)))
    return rows


def header_rows(trace: RequestTrace) -> list[tuple[str, str]]:
    """``(label, text)`` rows of the header for ``trace``, in display order."""
    ep = trace.endpoint
    model = fmt_text(ep.model)
    if ep.provider:
        model += f" ({ep.provider})"
    rows = [
        ("Trace", one_line(trace.trace_id)),  # one-line fields: line breaks as markers too
        ("Created", fmt_time(trace.created) + (" UTC" if trace.created else "")),
        ("Service", one_line(fmt_text(trace.service)) + _environment(trace)),
        ("Model", one_line(model)),
        ("Policy", _policy(trace)),
        ("Replay of", one_line(trace.replay_of) or "—"),
    ]
    span = span_line(trace)
    if span is not None:
        rows.append(("Span", span))
    if trace.session_id:
        rows.append(("Session", one_line(trace.session_id)))
    rows += capture_rows(trace)
    rows.append(("Usage", _usage(trace)))
    rows.append(("Cost", cost_line(trace)))
    scores = score_lines(trace)
    if scores is not None:
        rows.append(("Scores", scores))
    if trace.tool_calls:
        rows.append(("Tool calls", "\n".join(tool_call_line(c) for c in trace.tool_calls)))
    else:
        rows.append(("Tool calls", "none"))
    ran = server_tools(trace)
    if ran:
        rows.append(("Server tool", "\n".join(ran) + "\n(run by the provider itself: no proposal the application checks)"))
    others = _other_choices(trace)
    if others is not None:
        rows.append(("Choices", others))
    retrieved = trace.attributes.get("ctxviewer.documents_note")  # the import's word on retrieved documents
    if isinstance(retrieved, str) and retrieved:
        rows.append(("Retrieved", one_line(retrieved)))
    if trace.validations:
        rows.append(("Validations", "\n".join(
            f"{v.check}: {'passed' if v.passed else 'FAILED'}" + (f" ({v.detail})" if v.detail else "")
            for v in trace.validations
        )))
    # trace text is untrusted: invisible and control characters shown as markers (ctxviewer.util.visible)
    return [(label, reveal(text).text if needs_reveal(text) else text) for label, text in rows]


def _other_choices(trace: RequestTrace) -> str | None:
    """The choices after the first the import kept (``ctxviewer.other_choices``: OTel GenAI output
    messages are one per choice) after ``"choice 1 shown"``, one line each: ``"choice 2:
    delete_all_files({"path":"/"}) -- finish reason tool_calls (not this trace's response)"``;
    ``None`` when there are none."""
    kept = trace.attributes.get("ctxviewer.other_choices")
    if not isinstance(kept, (list, tuple)) or not kept:
        return None
    lines = []
    for entry in kept:
        if not isinstance(entry, Mapping):
            continue
        calls = [f"{one_line(str(c.get('name', '')))}({one_line(str(c.get('arguments') or ''))})"
                 for c in entry.get("tool_calls") or () if isinstance(c, Mapping)]
        what = ", ".join(calls) or (f"text {one_line(str(entry['text']))[:80]!r}" if entry.get("text") else "no output")
        reason = f" -- finish reason {entry['finish_reason']}" if entry.get("finish_reason") else ""
        lines.append(f"choice {entry.get('choice', '?')}: {what}{reason} (not this trace's response)")
    return "\n".join(["choice 1 shown (this trace's response and tool calls)", *lines]) if lines else None


def numbers_line(trace: RequestTrace, chk: CapacityCheck) -> str:
    """The quantities of eq. 3.1 (``chk``, the trace's :class:`~ctxviewer.assess.budget.CapacityCheck`)
    in one line of words, e.g.
    ``"input 6,000 + reserved output 1,200 of capacity 8,000 tokens · declared safety margin 800"``
    (``"input 18,000 reported by the provider (the captured text is truncated) + ..."`` when eq. 3.1
    took the reported input; ``"input 63 (sum of the retained items; the provider reported 412) + ..."``
    when the provider reported another input, so the line says which one eq. 3.1 took)."""
    inp = fmt_int(chk.input_tokens) + (f" {TRUNCATED_SOURCE}" if chk.input_source == TRUNCATED_SOURCE else "")
    reported = reported_input(trace)
    if chk.input_source == REPORTED_SOURCE and reported is not None:  # the endpoint's count decided eq. 3.1
        inp = f"{fmt_int(reported)} (reported by the provider, which eq. 3.1 took; counted {fmt_int(chk.input_tokens)})"
    elif (chk.input_source != TRUNCATED_SOURCE and reported is not None and chk.input_tokens is not None
            and reported != chk.input_tokens and chk.input_source):
        inp += f" ({chk.input_source}; the provider reported {fmt_int(reported)})"  # which one eq. 3.1 took
    if chk.limit_mode is LimitMode.SEPARATE:
        text = (
            f"input {inp} of input limit {fmt_int(chk.max_input)} · "
            f"reserved output {fmt_int(chk.reserved_output)} of output limit {fmt_int(chk.max_output)} tokens"
        )
    else:
        text = f"input {inp} + reserved output {fmt_int(chk.reserved_output)}"
        if chk.capacity is None:
            text += f" · capacity {NOT_RECORDED}"
        else:
            text += f" of capacity {fmt_int(chk.capacity)} tokens"
            if chk.capacity_assumed or chk.refusal is not None:  # where C came from, unless the trace recorded it
                text += f" {chk.capacity_source}"
    if trace.safety_margin is not None:
        text += f" · declared safety margin {fmt_int(trace.safety_margin)}"
    return text
